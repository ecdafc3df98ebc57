"""SplitVectorKernel: whether a loop's vector copy runs as two identical copies.

On the a2a3 backend a mixed kernel without a split mode is dispatched on both vector
lanes: the AIV function's body is replayed per lane, so each cross-core message the
vector copy of a loop sends is sent twice (``CoreResult.copies``). A split mode on the
outlined function (``pl.split(...)``, ``attrs={"split": ...}``), or a ``pl.split_aiv``
region in it (:mod:`.lower_auto_vector_split`), means one copy.

Models: ``src/ir/transforms/split_vector_kernel_pass.cpp`` (pass doc 23: the no-split
dual-AIV dispatch).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import libcst as cst

from skewlsp.analysis.frontend import dsl
from skewlsp.analysis.passes.scope_tile_ops import ScopeLoop, ScopeTiles, TileOp
from skewlsp.analysis.source.walk import walk


def dual_aiv_dispatch(headers: Sequence[cst.CSTNode], lane_regions: bool) -> bool:
    """Whether the vector copy of a loop runs as two identical copies (``headers``: those
    that can set the split mode of the function it is outlined to, OutlineIncoreScopes').

    Without a split mode on the outlined scope (no ``pl.split(...)``, or
    ``pl.split(pl.SplitMode.NONE)``, or ``attrs={"split": pl.SplitMode.NONE}``) the
    a2a3 backend dispatches the AIV function on both vector lanes: two copies, one
    verdict. A ``pl.split_aiv`` region in that function puts it in manual mode:
    SplitVectorKernel marks the AIV function to run on both lanes as it is, one copy.
    """
    if lane_regions:
        return False
    return not any(_splits(header) for header in headers)


def replayed_per_lane(scope: ScopeTiles) -> ScopeTiles:
    """The Vec tiles of an AIV function dispatched on both lanes: its whole body once per
    lane, one after the other, the second lane's values its own (``name@1``) and its
    loops after the first lane's (each a stage group of its own, numbered after them:
    MemoryReuse sheds depth across both, as it did for pypto's dual-dispatch AIV
    functions). The first lane's tiles and loops keep their places."""
    if scope.unknown is not None:
        return scope
    count = len(scope.loops)

    def lane(name: str | None) -> str | None:
        return f"{name}@1" if name is not None else None

    def again(op: TileOp) -> TileOp:
        return replace(
            op,
            out=lane(op.out),
            reads=tuple(f"{read}@1" for read in op.reads),
            view_of=lane(op.view_of),
            loop=op.loop + count if op.loop >= 0 else -1,
            forbid=tuple(f"{read}@1" for read in op.forbid),
        )

    def moved(loop: ScopeLoop) -> ScopeLoop:
        return replace(loop, parent=loop.parent + count if loop.parent >= 0 else -1)

    ops = (*scope.ops, *(again(op) for op in scope.ops))
    return replace(scope, ops=ops, loops=(*scope.loops, *(moved(loop) for loop in scope.loops)))


def any_split(headers: Sequence[cst.CSTNode]) -> bool:
    """Whether any of ``headers`` sets a split mode other than NONE."""
    return any(_splits(header) for header in headers)


def _splits(header: cst.CSTNode) -> bool:
    """A split mode other than NONE written in ``header``."""
    for node in walk(header):
        mode: cst.BaseExpression | None = None
        if type(node) is cst.Call and node.args:
            path = dsl.dotted(node.func)
            if path and path[-1] == "split":
                mode = node.args[0].value
        elif (
            type(node) is cst.DictElement
            and type(node.key) is cst.SimpleString
            and node.key.evaluated_value == "split"
        ):
            mode = node.value
        if mode is not None and not _is_none_mode(mode):
            return True
    return False


def _is_none_mode(expr: cst.BaseExpression) -> bool:
    path = dsl.dotted(expr)
    return path is not None and path[-1] == "NONE"
