"""ExpandMixedKernel's split of an InCore scope's values (``expand_mixed_kernel_pass.cpp``),
as the Vec model (:mod:`.op_conversion`) needs it: which names only the cube's matmuls
read, which values are data movement that goes where its readers run, and the shape of
a value the cube makes (what the vector pops of it fills a ring slot of its bytes), and
the tiles crossing the cross-core ring either way (:class:`Crossings`)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

import libcst as cst

from skewlsp.analysis.frontend import dsl
from skewlsp.analysis.frontend.op_registry import op_leaf
from skewlsp.analysis.passes.convert_tensor_to_tile_ops import (
    Fold,
    Tensor,
    dims_of,
    dtype_of,
    subscript_extents,
)
from skewlsp.analysis.passes.op_tables import ELEMENT_BITS, MATMUL_OPS
from skewlsp.analysis.passes.scope_blocks import NotModelled, static_extents
from skewlsp.analysis.passes.scope_tile_ops import TileShape
from skewlsp.analysis.source.walk import nodes_of


def moved(value: cst.BaseExpression) -> bool:
    """A slice of a tensor (``t[...]``, ``pl.load``, ``pl.slice``): data movement, which
    ExpandMixedKernel puts where its readers run."""
    if type(value) is cst.Subscript:
        return True
    return type(value) is cst.Call and op_leaf(value) in ("load", "slice")


# The nodes :func:`cube_only` counts, found by ``nodes_of`` in one loop: ``walk`` yielded
# 182,000 nodes here on a cold lint of pypto-lib (two thirds of all it yielded), one
# generator step and one ``children`` call each.
_COUNTED = frozenset({cst.Name, cst.AssignTarget, cst.Call})


def cube_only(statements: Sequence[cst.CSTNode]) -> frozenset[str]:
    """The names of ``statements`` that only matmuls read (each of their reads a
    matmul's operand): ExpandMixedKernel puts them on the cube."""
    seen: Counter[str] = Counter()
    cube: Counter[str] = Counter()
    for stmt in statements:
        for node in nodes_of(stmt, _COUNTED):
            if type(node) is cst.Name:
                seen[node.value] += 1
            elif type(node) is cst.AssignTarget and type(node.target) is cst.Name:
                seen[node.target.value] -= 1  # (bound, not read)
            elif type(node) is cst.Call and op_leaf(node) in MATMUL_OPS:
                for arg in dsl.positional(node):
                    if type(arg.value) is cst.Name:
                        cube[arg.value.value] += 1
    return frozenset(name for name, reads in cube.items() if seen[name] == reads)


def cube_value_shape(
    node: cst.BaseExpression,
    cube: Mapping[str, TileShape | None],
    vector: Collection[str],
    tensors: Mapping[str, Tensor],
    fold: Fold,
) -> TileShape | None:
    """The shape of a value the cube makes (None: not known): a slice of a tensor, a
    tensor whole, another of its values (``cube``), a ``pl.matmul`` (``[M, N]`` of its
    operands as read, in its ``out_dtype``). A vector tile the cube reads (``vector``:
    the vector's tiles) is not modelled: it crosses the other way, through a ring of
    its own."""
    if isinstance(node, cst.Name):
        if node.value in vector and node.value not in cube:
            raise NotModelled("a vector tile the cube reads (the vector -> cube ring)")
        if node.value in cube:
            return cube[node.value]
        tensor = tensors.get(node.value)
        dims = dims_of(tensor, fold) if tensor is not None else None
        if tensor is None or tensor.dtype is None or dims is None:
            return None
        return TileShape(static_extents(dims, node.value), tensor.dtype)
    if type(node) is cst.Subscript and isinstance(node.value, cst.Name):
        tensor = tensors.get(node.value.value)
        extents = subscript_extents(node, tensor, fold) if tensor else None
        if tensor is None or tensor.dtype is None or extents is None:
            return None
        return TileShape(static_extents(extents, node.value.value), tensor.dtype)
    if not isinstance(node, cst.Call) or op_leaf(node) != "matmul":
        return None
    operands = dsl.positional(node)[:2]
    a, b = (cube_value_shape(arg.value, cube, vector, tensors, fold) for arg in operands)
    out = dsl.keyword(node, "out_dtype")
    dtype = dtype_of(out.value) if out is not None else None
    if a is None or b is None or dtype is None or len(a.extents) != 2 or len(b.extents) != 2:
        raise NotModelled("a matmul of operands or a dtype not known")
    rows = a.extents[1] if dsl.is_true(dsl.keyword(node, "a_trans")) else a.extents[0]
    columns = b.extents[0] if dsl.is_true(dsl.keyword(node, "b_trans")) else b.extents[1]
    return TileShape((rows, columns), dtype)


@dataclass
class Crossings:
    """The tiles of a scope crossing the cross-core ring, each a slot of its bytes
    (``TryGetTileSlotSizeBytes``): those the vector pops from the cube (``popped``,
    ``tile.tpop_from_aic``) and those it pushes to the cube's matmuls (``pushed``, by
    name, and their bytes: ``tile.tpush_to_aic``). The ring's slot is the largest tile
    crossing either way (``GetCommonSlotSizeBytes``)."""

    popped: list[int] = field(default_factory=list)
    pushed: dict[str, TileShape] = field(default_factory=dict)
    pushed_bytes: list[int] = field(default_factory=list)
    sent: list[str] = field(default_factory=list)  # every name pushed, in order

    def pop(self, shape: TileShape | None) -> TileShape:
        """A tile of ``shape`` popped (its shape, now known to be)."""
        if shape is None:
            raise NotModelled("a tile popped from the cube whose shape is not known")
        self.popped.append(_slot_bytes(shape, "a tile popped from the cube"))
        return shape

    def push(self, name: str, shape: TileShape) -> None:
        if name in self.pushed:
            raise NotModelled(f"the vector tile `{name}` two matmuls read")
        self.pushed[name] = shape
        self.pushed_bytes.append(_slot_bytes(shape, "a tile pushed to the cube"))
        self.sent.append(name)


def _slot_bytes(shape: TileShape, what: str) -> int:
    bits = ELEMENT_BITS.get(shape.dtype)
    if bits is None:
        raise NotModelled(f"{what} whose shape is not known")
    return (math.prod(shape.extents) * bits + 7) // 8
