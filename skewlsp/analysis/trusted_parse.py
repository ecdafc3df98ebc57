"""libcst's module parser without re-validating what the parser just built.

Every libcst node checks itself when it is constructed (``CSTNode.__post_init__``
runs the node's ``_validate``), the nodes the parser makes included: on the
kernel functions of a cold run that is a sixth of libcst's parse, spent
re-checking what the grammar has just established (libcst's own source notes
the cost: "It might make more sense to move validation work into the visitor,
which would allow us to avoid validating the tree when parsing a file").

While a parse runs here the hook is a no-op; it is put back as soon as no parse
is running (the language server parses on two threads, so the parses are
counted under a lock). Nodes the analysis or a rewrite builds outside a parse
are validated as always. If libcst ever moves the hook, parsing falls back to
the validated path.
"""

from __future__ import annotations

import threading

import libcst as cst

_VALIDATE = cst.CSTNode.__dict__.get("__post_init__")
_lock = threading.Lock()
_running = 0


def _trusted(self: cst.CSTNode) -> None:
    """What ``__post_init__`` does during a parse: nothing."""


def parse_module(text: str) -> cst.Module:
    """``libcst.parse_module(text)``, the same tree, without per-node validation."""
    global _running
    if _VALIDATE is None:  # pragma: no cover - a libcst that validates elsewhere
        return cst.parse_module(text)
    with _lock:
        _running += 1
        if _running == 1:
            cst.CSTNode.__post_init__ = _trusted  # type: ignore[method-assign]
    try:
        return cst.parse_module(text)
    finally:
        with _lock:
            _running -= 1
            if _running == 0:
                cst.CSTNode.__post_init__ = _VALIDATE  # type: ignore[method-assign]
