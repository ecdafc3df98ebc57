"""libcst parses of the small source texts constants are folded from, memoised by text.

Every analysis folds module constants again (``H = M.num_heads``, config presets,
dataclass defaults, helper functions), and a kernel package imports the same
config module into every file: without a memo each keystroke in the server, and
each file in the CLI, would parse the same few hundred expressions again with
libcst, most of the cost of re-analysing a real kernel. libcst trees are
immutable, so one parse can serve every caller.
"""

from __future__ import annotations

import functools
import textwrap

import libcst as cst


@functools.lru_cache(maxsize=8192)
def expression(text: str) -> cst.BaseExpression:
    """``cst.parse_expression(text.strip())``; raises what libcst raises."""
    return cst.parse_expression(text.strip())


@functools.lru_cache(maxsize=1024)
def dedented_module(text: str) -> cst.Module:
    """``cst.parse_module(textwrap.dedent(text))`` (a class or function body given as text)."""
    return cst.parse_module(textwrap.dedent(text))
