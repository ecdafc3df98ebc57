"""libcst's parse, without validating again what its own parser built.

Every libcst node checks its fields in ``__post_init__`` (``_validate``): a guard for
nodes built by hand. The parser only builds nodes that are valid by construction, and
libcst's own note on that hook says validating a parsed tree is wasted work. Here it
was 15% of parsing the loop-holding functions of pypto-lib's kernels.

The check is skipped only in the thread that is parsing, only while it parses: nodes
built anywhere else (a preview's rewrite, another analysis thread's synthetic
statements) are still checked. If libcst ever stops validating in ``__post_init__``,
nothing is patched and parsing simply validates as before.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import Any

import libcst as cst

_state = threading.local()


def _install() -> bool:
    """Route ``CSTNode.__post_init__`` through a per-thread switch (once per process)."""
    validate: Callable[[Any], None] | None = cst.CSTNode.__dict__.get("__post_init__")
    if validate is None or getattr(validate, "_skewlsp_switch", False):
        return validate is not None

    def __post_init__(self: cst.CSTNode) -> None:
        if not getattr(_state, "parsing", False):
            validate(self)

    __post_init__._skewlsp_switch = True  # type: ignore[attr-defined]
    cst.CSTNode.__post_init__ = __post_init__  # type: ignore[method-assign]
    return True


INSTALLED = _install()


@contextlib.contextmanager
def parser_built() -> Iterator[None]:
    """Nodes made in this thread inside the block come from libcst's parser."""
    before = getattr(_state, "parsing", False)
    _state.parsing = True
    try:
        yield
    finally:
        _state.parsing = before


def parse_module(text: str) -> cst.Module:
    """``cst.parse_module(text)``, without re-validating the parser's nodes."""
    with parser_built():
        return cst.parse_module(text)


def parse_expression(text: str) -> cst.BaseExpression:
    """``cst.parse_expression(text)``, without re-validating the parser's nodes."""
    with parser_built():
        return cst.parse_expression(text)


def parse_statement(text: str) -> cst.SimpleStatementLine | cst.BaseCompoundStatement:
    """``cst.parse_statement(text)``, without re-validating the parser's nodes."""
    with parser_built():
        return cst.parse_statement(text)
