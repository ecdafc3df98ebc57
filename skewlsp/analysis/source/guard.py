"""What the stdlib parser must say before libcst may see a unit.

libcst's native parser recurses on the C stack: a few thousand nested brackets or
operators crash the process. CPython's parser refuses such code earlier, or builds
a tree we can measure cheaply, so every unit is checked here first.
"""

from __future__ import annotations

import ast

from skewlsp.analysis.source.unit_parses import UnitParses, UnitTree
from skewlsp.analysis.source.walk import stdlib_children


class TooDeep(Exception):
    """The unit nests deeper than libcst's native parser can take without crashing."""


# libcst's native parser recurses on the C stack: a few thousand nested brackets
# or operators crash the process. CPython's own parser refuses such code earlier or
# builds a tree we can measure cheaply, so we measure first.
MAX_SYNTAX_DEPTH = 300


def describe(err: BaseException) -> str:
    """``Type: message`` that never raises, even for errors whose str() recurses."""
    try:
        return f"{type(err).__name__}: {str(err)[:200]}"
    except Exception:  # includes RecursionError while formatting
        return type(err).__name__


def check_parseable(
    text: str, parses: UnitParses, line_offset: int | None = None
) -> UnitTree | None:
    """The stdlib tree (None for a syntax error), from the analysis's ``parses``; raises
    _TooDeep for code too deep for libcst.

    With ``line_offset`` (where a unit's text sits in the file), the tree may be cut out
    of the file's own (see :meth:`.unit_parses.UnitParses.unit_tree`).
    """
    try:
        found = parses.unit_tree(text, line_offset)
    except (SyntaxError, ValueError, MemoryError, OverflowError):
        return None
    except RecursionError:
        raise TooDeep("the code is nested too deeply to analyse") from None
    parses.checked_once(text, lambda: _check_depth(found.tree))
    return found


def _check_depth(tree: ast.Module) -> None:
    """Raise _TooDeep if any node lies more than MAX_SYNTAX_DEPTH levels down.

    Walking every node of every unit was a tenth of the analysis time, so
    short expressions are not entered: below an expression that spans n
    bytes of one line, each level of expressions is at least a byte shorter
    and at most three non-expression levels (keyword, comprehension,
    arguments) sit between two of them, so the subtree is at most 4n + 8
    levels deep. f-strings are always entered: before Python 3.12 the
    positions of the parts inside them are not reliable.
    """
    stack: list[tuple[ast.AST, int, bool]] = [(tree, 0, False)]
    while stack:
        node, depth, in_fstring = stack.pop()
        if depth > MAX_SYNTAX_DEPTH:
            raise TooDeep(
                f"an expression or block nests more than {MAX_SYNTAX_DEPTH} levels deep; "
                "skewlsp does not analyse it"
            )
        inside = in_fstring or isinstance(node, ast.JoinedStr)
        for child in stdlib_children(node):
            if (
                not inside
                and isinstance(child, ast.expr)
                and not isinstance(child, ast.JoinedStr)
                and child.end_lineno == child.lineno
                and child.end_col_offset is not None
                and depth + 4 * (child.end_col_offset - child.col_offset) + 8 < MAX_SYNTAX_DEPTH
            ):
                continue
            stack.append((child, depth + 1, inside))
