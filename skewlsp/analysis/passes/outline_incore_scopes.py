"""OutlineIncoreScopes: the function a loop in an InCore scope is outlined to.

The DSL parser makes an InCore scope statement of every ``pl.at(CORE_GROUP)``,
``pl.spmd`` or ``pl.split_aiv`` region outside one (``frontend.scope.opens_incore_scope``
recognises them; a ``with pl.spmd`` body that dispatches a kernel without reading the
block index gets none, and stays in a Spmd function no later pass splits); this pass
moves each into a function of its own. Which function a
loop ends up in decides what the later passes see of it: whether that function holds
cube ops (ExpandMixedKernel splits it), and which headers can set its split mode
(SplitVectorKernel's dual dispatch).

Models: ``src/ir/transforms/outline_incore_scopes_pass.cpp`` (pass doc 08).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst

from skewlsp.analysis.frontend.names import body_statements
from skewlsp.analysis.frontend.scope import opens_incore_scope
from skewlsp.analysis.source.tree_text import MadeTrees


@dataclass(frozen=True)
class OutlinedScope:
    """Where a loop is outlined to: the innermost InCore scope around it (every
    ``pl.at(CORE_GROUP)`` / ``pl.spmd`` scope, one inside another too, is a function of
    its own), else the function itself; and the headers that can set its split mode."""

    node: cst.CSTNode  # the scope statement, or the function's body
    headers: tuple[cst.CSTNode, ...]


def outlined_scope(
    fn: cst.FunctionDef, loop: cst.For, made: MadeTrees | None, incore: bool = False
) -> OutlinedScope:
    """``loop``'s outlined scope in ``fn`` (``incore``: ``fn``'s body already runs in an
    InCore scope, so a ``pl.split_aiv`` region in it opens none; ``made``: the trees the
    analysis made)."""
    around = _around(body_statements(fn.body), loop) or []
    scopes = _scopes(around, made, incore)
    if scopes:
        return OutlinedScope(around[scopes[-1]], tuple(_headers(around[scopes[-1] :])))
    decorators = [d.decorator for d in fn.decorators]
    return OutlinedScope(fn.body, (*decorators, *_headers(around)))


def _scopes(around: Sequence[cst.CSTNode], made: MadeTrees | None, incore: bool) -> list[int]:
    """The indices of the statements of ``around`` that open an InCore scope."""
    found: list[int] = []
    for k, stmt in enumerate(around):
        if opens_incore_scope(stmt, made, incore):
            found.append(k)
            incore = True
    return found


def _headers(statements: Sequence[cst.CSTNode]) -> list[cst.CSTNode]:
    """The headers of the ``with``/``for`` statements among ``statements``."""
    headers: list[cst.CSTNode] = []
    for stmt in statements:
        if isinstance(stmt, cst.With):
            headers += [item.item for item in stmt.items]
        elif isinstance(stmt, cst.For):
            headers.append(stmt.iter)
    return headers


_BLOCK_HOLDERS = frozenset({cst.With, cst.For, cst.While, cst.If, cst.Try})


def _around(block: Sequence[cst.CSTNode], loop: cst.For) -> list[cst.CSTNode] | None:
    """The compound statements of ``block`` around ``loop``, outermost first (None: the
    loop is not in ``block``)."""
    for stmt in block:
        if stmt is loop:
            return []
        if type(stmt) in _BLOCK_HOLDERS:  # (exact types: an ABC's failed isinstance is slow)
            blocks = [body_statements(stmt.body)]  # type: ignore[attr-defined]
            orelse = getattr(stmt, "orelse", None)
            if orelse is not None:
                blocks.append(body_statements(orelse.body))
            for inner in blocks:
                found = _around(inner, loop)
                if found is not None:
                    return [stmt, *found]
    return None
