"""The shape of a matmul operand a loop body computes rather than loads, for the L0 tiles.

In a cross-core loop the cube's second matmul usually reads a tile the vector made
from the cube's first one (``p = pl.cast(pl.exp(s), ...)``, ``s = pl.matmul(q, k)``):
ExpandMixedKernel sends ``s`` across and pops ``p`` back, of the shape and dtype
ConvertTensorToTileOps gives it (``op_conversion_registry.cpp``: an element-wise op
keeps its first tile operand's shape and dtype, ``pl.cast`` its shape with the target
dtype; ``pl.matmul`` makes ``[M, N]`` of its ``out_dtype``, FP32 by default, INT32 from
8-bit operands). AutoTileMatmulL0 chooses the popped operand's L0 tiles from that shape.

Only the body's own statements at its top level are followed (of a replicated loop,
those of the block holding the matmul before it, a branch of an ``if`` too:
:func:`block_operand`), back to the loads
(:mod:`skewlsp.analysis.lower_pipeline.slot_loads`, by the names the matmul sites give
them); ``tile.fillpad`` and ``tile.set_validshape`` keep their tile's shape and dtype;
anything else (an op not listed, a name bound twice) leaves the
operand not known (None), never guessed. An operand the scope builds on chip before the
loop (``pl.create_l1(shape, dtype)``, filled by ``pl.gather_row(acc, ...)``, which
returns ``acc`` written in place: ``python/pypto/language/op/tensor_ops.py``) has the
shape it was created with, when every binding of its name in the scope says so; a slice
of a tensor taken before the loop (``t[...]`` or ``pl.slice(t, shape, offsets)``) is the
tile ConvertTensorToTileOps loads where the matmul reads it (``HandleConsumerDrivenLoad``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import libcst as cst

from skewlsp.analysis.frontend import dsl
from skewlsp.analysis.frontend.names import binding_of, block_defs, body_statements
from skewlsp.analysis.frontend.op_registry import op_leaf
from skewlsp.analysis.passes.body import BodyMatmuls
from skewlsp.analysis.passes.convert_tensor_to_tile_ops import (
    Fold,
    Tensor,
    dtype_of,
    fold_list,
    subscript_extents,
)
from skewlsp.analysis.passes.op_tables import ELEMENTWISE_OPS
from skewlsp.analysis.source.walk import walk_outside

Shape = tuple[tuple[int, ...], str]
_NARROW = frozenset({"INT8", "UINT8"})
_DEPTH = 16  # statements followed back from one operand (a chain, not a search)
# Ops whose tile keeps its first operand's shape and dtype, only its valid region or pad
# changed (``tile.fillpad`` in elementwise.cpp, ``tile.set_validshape`` in transform.cpp).
_SAME_SHAPE = frozenset({"fillpad", "set_validshape"})


def computed_operands(
    loop: cst.For,
    matmuls: BodyMatmuls,
    loads: Sequence[tuple[str, Shape | None]],
    scope: tuple[cst.CSTNode, Fold] | None = None,
    tensors: Mapping[str, Tensor] | None = None,
) -> tuple[tuple[str, Shape], ...]:
    """The matmul operands of ``loop`` that are no load of its body (``loads``: each
    load's name and shape, None when not static) but tiles it computes, with their
    shapes (those whose shape is not known are left out: the L0 tiles then say the
    operand is not known); ``scope``: the statement opening the InCore scope and its
    folding, for a tile built on chip or loaded before the loop; ``tensors``: the
    tensors in scope at the loop."""
    known: dict[str, Shape | None] = {}
    for name, shape in loads:
        known[name] = shape if known.get(name, shape) == shape else None
    shapes = {name: shape for name, shape in known.items() if shape is not None}
    names = [n for site in matmuls.sites for n in (site.lhs, site.rhs) if n not in known]
    found: dict[str, Shape] = {}
    for name in dict.fromkeys(names):  # first the tiles built before the loop: the
        on_chip = None
        if scope is not None:
            on_chip = on_chip_operand(scope[0], loop, name, scope[1], tensors or {})
        if on_chip is not None:  # body's own may be computed from them
            found[name] = shapes[name] = on_chip
    for name in dict.fromkeys(names):
        shape = found.get(name) or computed_operand(loop.body, name, shapes)
        if shape is not None:
            found[name] = shape
    return tuple(found.items())


def computed_operand(body: cst.BaseSuite, name: str, loads: Mapping[str, Shape]) -> Shape | None:
    """The shape and dtype of ``name``, a tile ``body`` binds once at its top level,
    followed back through element-wise ops, casts and matmuls to ``loads`` (by the
    names :class:`~skewlsp.analysis.passes.body.MatmulSite` gives operands: ``x`` or
    ``t[...]``); None when not known."""
    return _Trace(_values_bound(body_statements(body)), loads).name(name, 0)


class _Trace:
    def __init__(
        self,
        bound: Mapping[str, Sequence[cst.BaseExpression]],
        loads: Mapping[str, Shape],
        outside: Callable[[str], Shape | None] | None = None,
    ) -> None:
        self.bound = bound
        self.loads = loads
        self.outside = outside  # a name bound nowhere here: a tile made before the loop

    def name(self, name: str, depth: int) -> Shape | None:
        if name in self.loads:
            return self.loads[name]
        values = self.bound.get(name, ())
        if not values and self.outside is not None:
            return self.outside(name)
        if len(values) != 1 or depth > _DEPTH:
            return None
        return self.value(values[0], depth + 1)

    def value(self, node: cst.BaseExpression, depth: int) -> Shape | None:
        if isinstance(node, cst.Name):
            return self.name(node.value, depth)
        if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name):
            return self.loads.get(f"{node.value.value}[...]")
        if not isinstance(node, cst.Call):
            return None
        leaf = op_leaf(node)
        args = dsl.positional(node)
        if leaf == "cast" and args:
            source = self.value(args[0].value, depth)
            target = dsl.keyword(node, "target_type") or (args[1] if len(args) > 1 else None)
            dtype = dtype_of(target.value) if target is not None else None
            return (source[0], dtype) if source is not None and dtype else None
        if (leaf in ELEMENTWISE_OPS or leaf in _SAME_SHAPE) and args:
            return self.value(args[0].value, depth)
        if leaf == "matmul" and len(args) >= 2:
            return self._matmul(node, args, depth)
        return None

    def _matmul(self, node: cst.Call, args: Sequence[cst.Arg], depth: int) -> Shape | None:
        lhs, rhs = self.value(args[0].value, depth), self.value(args[1].value, depth)
        if lhs is None or rhs is None or len(lhs[0]) != 2 or len(rhs[0]) != 2:
            return None
        m = lhs[0][1] if dsl.is_true(dsl.keyword(node, "a_trans")) else lhs[0][0]
        n = rhs[0][0] if dsl.is_true(dsl.keyword(node, "b_trans")) else rhs[0][1]
        out = dsl.keyword(node, "out_dtype")
        dtype = dtype_of(out.value) if out is not None else None
        if dtype is None:
            dtype = "INT32" if lhs[1] in _NARROW else "FP32"
        return (m, n), dtype


def _values_bound(statements: Sequence[cst.CSTNode]) -> dict[str, list[cst.BaseExpression]]:
    """The values each name is bound to by the simple statements of a block, in order (a
    :class:`_Trace` follows an operand back through them)."""
    bound: dict[str, list[cst.BaseExpression]] = {}
    for stmt in statements:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            target, value, _ = binding_of(small)
            if isinstance(target, cst.Name) and value is not None:
                bound.setdefault(target.value, []).append(value)
    return bound


def on_chip_operand(
    scope: cst.CSTNode, loop: cst.For, name: str, fold: Fold, tensors: Mapping[str, Tensor]
) -> Shape | None:
    """The shape of ``name`` when every binding of it in ``scope`` outside ``loop`` is a
    ``pl.create_l1`` of one static shape or a ``pl.gather_row`` into it, or a slice of a
    tensor in scope (``tensors``: a load before the loop); else None."""
    shapes: set[Shape] = set()
    for node in walk_outside(scope, loop):
        if type(node) is not cst.Assign:
            continue
        target, value, _ = binding_of(node)
        if not (isinstance(target, cst.Name) and target.value == name):
            continue
        if isinstance(value, cst.Subscript):
            sliced = _slice_shape(value, tensors, fold)
            if sliced is None:
                return None
            shapes.add(sliced)
            continue
        if not isinstance(value, cst.Call):
            return None
        args = dsl.positional(value)
        leaf = op_leaf(value)
        first = args[0].value if args else None
        if leaf == "gather_row" and isinstance(first, cst.Name) and first.value == name:
            continue  # written in place: the accumulator's shape
        if leaf == "slice":
            sliced = _slice_call_shape(value, tensors, fold)
            if sliced is None:
                return None
            shapes.add(sliced)
            continue
        if leaf != "create_l1" or len(args) < 2 or dsl.keyword(value, "transpose"):
            return None
        extents = fold_list(first, fold)
        dtype = dtype_of(args[1].value)
        if extents is None or dtype is None or any(e.value is None for e in extents):
            return None
        shapes.add((tuple(e.value for e in extents if e.value is not None), dtype))
    return shapes.pop() if len(shapes) == 1 else None


def _slice_call_shape(
    call: cst.Call, tensors: Mapping[str, Tensor], fold: Fold
) -> Shape | None:
    """``pl.slice(t, shape, offsets)`` of a tensor in scope: a tile of ``shape`` and the
    tensor's dtype (the load ConvertTensorToTileOps makes where a matmul reads it,
    ``HandleConsumerDrivenLoad``); None for anything else."""
    args = dsl.positional(call)
    source = args[0].value if args else None
    tensor = tensors.get(source.value) if isinstance(source, cst.Name) else None
    if tensor is None or tensor.dtype is None or len(args) < 2:
        return None
    extents = fold_list(args[1].value, fold)
    if not extents or any(e.value is None for e in extents):
        return None
    return tuple(e.value for e in extents if e.value is not None), tensor.dtype


def block_operand(
    loop: cst.For,
    block: Sequence[cst.CSTNode],
    at: int,
    name: str,
    loads: Mapping[str, Shape],
    scope: cst.CSTNode | None,
    fold: Fold,
    tensors: Mapping[str, Tensor],
) -> Shape | None:
    """The shape of ``name``, an operand of the matmul at statement ``at`` of ``block``
    (``loop``'s body, or a branch of an ``if`` in it) that is no load there: a tile the
    scope (``scope``: the statement opening it) builds or loads before the loop, when the
    body binds the name nowhere; else a tile the block computes before the matmul,
    followed back through its statements there to ``loads`` (the block's, by name) and to
    the tiles made before the loop. None when not known."""
    inside = frozenset(block_defs(body_statements(loop.body)))

    def before_loop(found: str) -> Shape | None:
        if scope is None or found in inside:
            return None
        return on_chip_operand(scope, loop, found, fold, tensors)

    if name not in inside:
        return before_loop(name)
    return _Trace(_values_bound(block[:at]), loads, before_loop).name(name, 0)


def _slice_shape(node: cst.Subscript, tensors: Mapping[str, Tensor], fold: Fold) -> Shape | None:
    """``t[...]`` of a tensor in scope: the tile ConvertTensorToTileOps loads it into."""
    tensor = tensors.get(node.value.value) if isinstance(node.value, cst.Name) else None
    if tensor is None or tensor.dtype is None:
        return None
    extents = subscript_extents(node, tensor, fold)
    if not extents or any(e.value is None for e in extents):
        return None
    return tuple(e.value for e in extents if e.value is not None), tensor.dtype
