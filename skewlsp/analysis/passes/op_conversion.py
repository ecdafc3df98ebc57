"""10 ConvertTensorToTileOps' op conversions (``src/ir/transforms/op_conversion_registry.cpp``,
``convert_tensor_to_tile_ops_pass.cpp``): the Vec tiles each statement of an outlined
vector function makes, for the memory passes.

MemoryReuse packs every tile of a function's memory space, not only a pipeline loop's
loads: what the body computes from them (a widened copy, a product), the workspace of a
reduction, and the tiles outside the loops all share the space with the stages' buffers.
This module reads an InCore scope's statements (the function the compiler outlines) as
the pass converts them, after FlattenCallExpr (``flatten_call_expr_pass.cpp``: a nested
call becomes a statement of its own, operands first):

- a slice of a tensor (``t[a:b, :]``, ``pl.slice``, ``pl.load``) is a ``tile.load``
  into a new tile of the slice's shape and the tensor's dtype; a tensor an element-wise
  op reads whole, one load of it at the scope's entry (the pass's Phase 1);
- ``pl.cast`` of a tile makes a new tile of the target dtype (of a scalar, a scalar);
  an element-wise op (``add``, ``mul``, ``exp``, ``row_expand_mul``, ...; with a scalar
  too) a new tile of its first tile operand's shape and dtype; ``pl.full`` a new tile of
  its shape and dtype, as do ``pl.create_tile`` (into Vec) and ``pl.arange(start,
  shape)`` (``tile.ci``, INT32 unless told);
- ``row_sum``/``row_max``/``row_min`` are converted with a ``tmp_tile`` workspace of
  the input's shape (its last dim padded to 128 when narrower) and dtype
  (``op_conversion_registry.cpp``'s reduction entries, a ``tile.create`` before the
  op; none when the call gives its own ``tmp_tile``), then their ``[M, 1]`` result;
  a 2-D ``pl.transpose`` makes its scratch and the swapped tile, ``pl.gather`` by index
  a row loop into an accumulator, by a mask pattern (or ``pl.tile.gather``) one tile;
- ``pl.reshape`` and ``pl.set_validshape`` of a tile are views: InitMemRef gives them
  their source's buffer; ``pl.fillpad`` makes a new tile of its input's shape;
- an ``assemble`` into a tensor, a ``store`` and ``t[...] = tile`` write the tile out
  and make none; a scalar statement (``k0 = kb * K``, ``pl.read``, ``pl.write`` of a
  scalar into a tensor) makes none.

ResolveBackendOpLayouts' row-major reshapes of a ``[N, 1]`` column (views, and a
``[1, N]`` result of the same bytes as the ``[N, 1]`` one) change no buffer's bytes or
lifetime, so they are not spelled out here.

In a mixed scope ExpandMixedKernel (``expand_mixed_kernel_pass.cpp``) gives the cube a
``pl.matmul`` and the slices only matmuls read (loaded into Mat there): they make no
Vec tile. The vector core pops the matmul's result from the cube -> vector ring where a
vector op first reads it: the popped tile lives in the ring's slot, which InitMemRef
gives no buffer (``init_memref.cpp``), so it makes no tile either; its bytes are the
slot's (``ScopeTiles.popped``, ``cross_core_pipe.cpp``'s ``TryGetTileSlotSizeBytes``).
A result the cube stores itself is never popped. A vector tile a matmul reads goes the
other way: the vector pushes it to the cube (``tile.tpush_to_aic``), which reads it in
its Vec buffer, and its bytes are a slot of the ring too (``ScopeTiles.pushed``: the
ring's slot is the largest tile crossing either way).

The scope's loops and ``if`` statements are walked as :mod:`.scope_blocks` says: an
``if`` Simplify proves is the branch that runs; any other keeps its branches as blocks of
their own, whose tiles are not read after the ``if``.

Anything else (another op, a matmul with no ``out_dtype``, a view
of a popped tile, a tile an ``if`` makes a phi of, a shape not
static, a cast the Ascend910B has no single instruction for, which LegalizeTileCast
makes a chain) leaves the scope not known, with the reason: the memory passes then keep
to what a loop's loads decide alone. So does a split mode other than
``pl.SplitMode.NONE``, which the DSL drops (one encoding of "no split"):
SplitVectorKernel halves the vector tiles of the others.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import libcst as cst

from skewlsp.analysis.frontend import dsl
from skewlsp.analysis.frontend.names import binding_of, body_statements, reads_of
from skewlsp.analysis.frontend.op_registry import op_leaf
from skewlsp.analysis.passes.convert_tensor_to_tile_ops import (
    Extent,
    Fold,
    Tensor,
    dims_of,
    dtype_of,
    fold_extent,
    fold_list,
    subscript_extents,
    window_extents,
)
from skewlsp.analysis.passes.cube_side import Crossings, cube_only, cube_value_shape, moved
from skewlsp.analysis.passes.op_tables import (
    CAST_BITS,
    ELEMENTWISE_OPS,
    EXPAND_OPS,
    MASK_PATTERN_STRIDES,
    MIN_REDUCTION_COLUMNS,
    NATIVE_CASTS,
    NOT_INPLACE_UNARY,
    REDUCTION_OPS,
    SCALAR_CALLS,
)
from skewlsp.analysis.passes.scope_blocks import NotModelled, ScopeBlocks, static_extents
from skewlsp.analysis.passes.scope_options import ring_options
from skewlsp.analysis.passes.scope_tile_ops import ScopeTiles, TileOp, TileShape
from skewlsp.analysis.passes.split_vector_kernel import any_split
from skewlsp.analysis.source.walk import walk
from skewlsp.contract import Span


@dataclass(kw_only=True)
class _Convert(ScopeBlocks):
    """The walk: the tiles bound so far (value -> shape), the ops made."""

    tensors: Mapping[str, Tensor]
    shapes: dict[str, TileShape] = field(default_factory=dict)
    ops: list[TileOp] = field(default_factory=list)
    temps: int = 0
    cube_only: frozenset[str] = frozenset()  # names only matmuls read
    cube: dict[str, TileShape | None] = field(default_factory=dict)  # the cube's values
    ring: Crossings = field(default_factory=Crossings)  # the tiles crossing either way

    def is_tile(self, name: str) -> bool:
        return name in self.shapes or name in self.cube

    def small(self, small: cst.BaseSmallStatement) -> None:
        self.binds(small)
        call = small.value if type(small) is cst.Expr else None
        if type(call) is cst.Call and self._writes_out(call):
            return
        if isinstance(small, (cst.Pass, cst.Expr)) and not self._calls(small):
            return
        target, value, _ = binding_of(small)
        if value is None:
            raise NotModelled(f"a `{type(small).__name__}` statement")
        if isinstance(target, cst.Subscript):
            self._store(value, "a store")
            return
        if not isinstance(target, cst.Name):
            raise NotModelled("an assignment to several names")
        self.cube.pop(target.value, None)
        self.ring.pushed.pop(target.value, None)
        if target.value in self.cube_only and moved(value):
            self.cube[target.value] = self._cube_value(value)
            self.shapes.pop(target.value, None)
            return  # (the cube's: loaded into Mat there, or made from its values)
        if isinstance(value, cst.Call) and self._writes_out(value):
            return  # (the tensor written is bound again: it stays one)
        if not self._makes_tile(value):
            self.shapes.pop(target.value, None)
            return
        made = self.value(value, target.value)
        if made is None:
            raise NotModelled(f"`{target.value}` is bound to no tile")
        if made != target.value:  # a plain alias: the same tile under another name
            self._emit(target.value, (made,), None, target.value, view_of=made)
            self.shapes[target.value] = self.shapes[made]

    def _writes_out(self, call: cst.Call) -> bool:
        """``pl.assemble(tensor, tile, ...)`` and ``pl.store(tile, offsets, tensor)``:
        the tile is written out to a tensor (none is made); ``pl.write(tensor, indices,
        scalar)``: an element of a tensor written (``tensor.write``, no tile either);
        other calls: False."""
        leaf = op_leaf(call)
        args = [arg.value for arg in dsl.positional(call)]
        if leaf == "write" and len(args) == 3:
            into = args[0]
            if not isinstance(into, cst.Name) or into.value not in self.tensors:
                raise NotModelled("a `write` into a tile")
            if into.value in self.shapes or self._makes_tile(args[2]):
                raise NotModelled("a `write` into a tile, or of one")
            return True
        if leaf == "assemble" and len(args) >= 2:
            into = args[0]
            if not isinstance(into, cst.Name) or into.value not in self.tensors:
                raise NotModelled("an assemble into a tile")
            if into.value in self.shapes:
                raise NotModelled("an assemble into a tile")
            self._store(args[1], "an assemble")
            return True
        if leaf == "store" and args:
            self._store(args[0], "a store")
            return True
        return False

    def _calls(self, node: cst.CSTNode) -> bool:
        return any(isinstance(n, cst.Call) for n in walk(node))

    def _makes_tile(self, value: cst.BaseExpression) -> bool:
        """A scalar statement makes no tile: no call but ``pl.read``/``min``/``max`` and
        ``pl.cast`` of a scalar (an ``ir.cast`` expression, no ``tile.cast``), and no
        tile read."""
        for node in walk(value):
            if type(node) is cst.Call and op_leaf(node) not in SCALAR_CALLS | {"cast"}:
                return True  # (a cast is of a tile only when what it casts is one: below)
            source = node.value if type(node) is cst.Subscript else None
            if type(source) is cst.Name and source.value in self.tensors:
                return True
        return any(name in self.shapes or name in self.cube for name in reads_of(value))

    def _store(self, value: cst.BaseExpression, what: str) -> None:
        if isinstance(value, cst.Name) and value.value in self.cube:
            return  # (the cube writes its own value out)
        if type(value) is cst.Call and op_leaf(value) == "matmul":
            self._cube_value(value)  # (a matmul's result stored: the cube stores it)
            return
        read = self.value(value, None)
        if read is None:
            raise NotModelled(f"{what} of no tile")
        self._emit(None, (read,), None, what)

    def _emit(
        self,
        out: str | None,
        reads: tuple[str, ...],
        shape: TileShape | None,
        label: str,
        view_of: str | None = None,
        load: bool = False,
        forbid: tuple[str, ...] = (),
    ) -> None:
        made = (shape.extents, shape.dtype) if shape is not None else None
        ring = set(self.cube)  # (a popped tile is read in the ring's slot: no buffer)
        reads = tuple(r for r in reads if r not in ring)
        forbid = tuple(r for r in forbid if r not in ring)
        at = (self.loop, forbid, self.statement)
        self.ops.append(TileOp(out, reads, made, label, view_of, load, *at))

    def _temp(self) -> str:
        self.temps += 1
        return f"%{self.temps}"

    def _new(
        self,
        name: str | None,
        shape: TileShape,
        reads: tuple[str, ...],
        label: str,
        forbid: tuple[str, ...] = (),
    ) -> str:
        out = name or self._temp()
        self._emit(out, reads, shape, label, forbid=forbid)
        self.shapes[out] = shape
        return out

    def value(self, node: cst.BaseExpression, name: str | None) -> str | None:
        """The value ``node`` is (a tile's id; None: a scalar), its ops emitted."""
        if isinstance(node, cst.Name):
            if node.value in self.shapes:
                return node.value
            if node.value in self.cube:
                return self._pop(node.value)
            if node.value in self.tensors:
                raise NotModelled(f"the tensor `{node.value}` read whole")
            return None
        if isinstance(node, (cst.Integer, cst.Float)):
            return None
        if type(node) is cst.Subscript:
            return self._load(node, name)
        if isinstance(node, cst.Call) and op_leaf(node) == "matmul":
            out = name or self._temp()
            self.cube[out] = self._cube_value(node)
            return out if name else self._pop(out)  # (popped where the vector reads it)
        if isinstance(node, cst.Call):
            return self._call(node, name)
        if isinstance(node, (cst.BinaryOperation, cst.UnaryOperation)):
            if any(read in self.shapes for read in reads_of(node)) or self._calls(node):
                raise NotModelled("arithmetic on a tile written as an operator")
            return None
        raise NotModelled(f"`{type(node).__name__}`")

    def _operand(self, node: cst.BaseExpression) -> str | None:
        """An element-wise op's operand; a tensor read whole is the tile it is loaded into
        at the function's entry (ConvertTensorToTileOps' Phase 1: one ``tile.load`` of
        the whole tensor, before the body, for each tensor a converted op reads)."""
        tensor = self.tensors.get(node.value) if isinstance(node, cst.Name) else None
        if tensor is None or not isinstance(node, cst.Name) or self.is_tile(node.value):
            return self.value(node, None)
        dims = dims_of(tensor, self.fold)
        if tensor.dtype is None or dims is None:
            raise NotModelled(f"the tensor `{node.value}` read whole")
        shape = TileShape(static_extents(dims, f"the tensor `{node.value}`"), tensor.dtype)
        made = (shape.extents, shape.dtype)
        self.ops.insert(0, TileOp(node.value, (), made, f"{node.value} (load)", load=True))
        self.shapes[node.value] = shape
        return node.value

    def _load(self, node: cst.Subscript, name: str | None) -> str:
        source = node.value.value if isinstance(node.value, cst.Name) else None
        if source is not None and source in self.shapes and source not in self.cube:
            return self._tile_window(node, source, name)
        tensor = self.tensors.get(source) if source is not None else None
        if tensor is None or tensor.dtype is None or source in self.shapes:
            raise NotModelled("a slice of something that is not a known tensor")
        extents = subscript_extents(node, tensor, self.fold)
        if extents is None:
            raise NotModelled(f"an element read of `{source}`")
        shape = TileShape(static_extents(extents, source), tensor.dtype)
        out = name or self._temp()
        self._emit(out, (), shape, f"{name or source} (load)", load=True)
        self.shapes[out] = shape
        return out

    def _tile_window(self, node: cst.Subscript, source: str, name: str | None) -> str:
        """``t[a:b, c:d]`` of a tile: the DSL parser's ``tile.slice``, a view InitMemRef
        puts in its source's buffer (``StaticSliceViewSpanBytes``)."""
        shape = self.shapes[source]
        dims = tuple(Extent(extent) for extent in shape.extents)
        extents = window_extents(node, dims, self.fold)
        if extents is None:
            raise NotModelled(f"an element read of the tile `{source}`")
        out = name or self._temp()
        self._emit(out, (source,), None, f"{name or source} (slice)", view_of=source)
        window = static_extents(extents, f"the slice of `{source}`")
        self.shapes[out] = TileShape(window, shape.dtype)
        return out

    def _call(self, call: cst.Call, name: str | None) -> str | None:
        leaf = op_leaf(call)
        args = [arg.value for arg in dsl.positional(call)]
        label = f"{name} ({leaf})" if name else f"`{leaf}`"
        if leaf in SCALAR_CALLS and not any(r in self.shapes for r in reads_of(call)):
            return None
        if leaf == "cast" and args:
            source = self._tile(args[0], leaf)
            target = dsl.keyword(call, "target_type")
            dtype = dtype_of(target.value if target else (args[1] if len(args) > 1 else None))
            if dtype is None or (self.shapes[source].dtype, dtype) not in NATIVE_CASTS:
                raise NotModelled("a cast the backend may legalize in steps")
            widening = CAST_BITS[dtype] > CAST_BITS[self.shapes[source].dtype]
            shape = TileShape(self.shapes[source].extents, dtype)
            return self._new(name, shape, (source,), label, (source,) if widening else ())
        if leaf in ELEMENTWISE_OPS and args:
            found = [self._operand(a) for a in args]
            reads = tuple(r for r in found if r is not None)
            if not reads:
                raise NotModelled(f"`{leaf}` of no tile")
            second = found[1] if leaf in EXPAND_OPS and len(found) > 1 else None
            forbid: tuple[str, ...] = (second,) if second is not None else ()
            if leaf in NOT_INPLACE_UNARY:
                forbid = reads
            if leaf == "rsqrt" and dsl.is_true(dsl.keyword(call, "high_precision")):
                # the high-precision form's scratch tile (op_conversion_registry.cpp)
                scratch = self._new(None, self.shapes[reads[0]], reads, "rsqrt_tmp (rsqrt)")
                reads = forbid = (reads[0], scratch)
            return self._new(name, self.shapes[reads[0]], reads, label, forbid)
        if leaf in REDUCTION_OPS and args:
            source = self._tile(args[0], leaf)
            shape = self.shapes[source]
            if len(shape.extents) < 2:
                raise NotModelled(f"`{leaf}` of a tile of one dim")
            # (FlattenTileNdTo2D: a tile of more dims is [the leading dims' product, the last])
            rows, columns = math.prod(shape.extents[:-1]), shape.extents[-1]
            padded = TileShape((rows, max(columns, MIN_REDUCTION_COLUMNS)), shape.dtype)
            given = dsl.argument(call, 1, "tmp_tile")  # (the tile op's own workspace)
            workspace = (
                self._tile(given, leaf)
                if given is not None
                else self._new(None, padded, (source,), f"tmp_tile ({leaf})")
            )
            result = TileShape((rows, 1), shape.dtype)
            reads = (source, workspace)
            return self._new(name, result, reads, label, reads)  # not_inplace_safe
        if (leaf, len(args)) in (("set_validshape", 3), ("reshape", 2)):
            return self._view(args, str(leaf), name, label)
        if leaf == "fillpad" and len(args) == 1:
            source = self._tile(args[0], leaf)
            return self._new(name, self.shapes[source], (source,), label)
        if (leaf in ("full", "create_tile") and args) or (leaf == "arange" and len(args) >= 2):
            return self._made(call, args, str(leaf), name, label)
        if leaf in ("gather", "transpose") and args:
            convert = self._gather if leaf == "gather" else self._transpose
            return convert(call, args, name, label)
        if leaf in ("load", "slice") and args and isinstance(args[0], cst.Name):
            return self._sliced(call, leaf, args[0].value, name, label)
        raise NotModelled(f"the op `{leaf or 'call'}`")

    def _made(
        self,
        call: cst.Call,
        args: Sequence[cst.BaseExpression],
        leaf: str,
        name: str | None,
        label: str,
    ) -> str:
        """``pl.full(shape, dtype=...)``, ``pl.create_tile(shape, dtype, target_memory)``
        (``tile.create``, into Vec unless told) and ``pl.arange(start, shape)``
        (``tensor.ci`` -> ``tile.ci``; INT32 unless told): a new tile read from no other."""
        shape_arg, default = (args[1], "INT32") if leaf == "arange" else (args[0], None)
        written = dsl.argument(call, 1 if leaf == "create_tile" else None, "dtype")
        memory = dsl.argument(call, 2 if leaf == "create_tile" else None, "target_memory")
        path = dsl.dotted(memory) if memory is not None else ("Vec",)
        if path is None or path[-1] != "Vec":
            raise NotModelled(f"a `{leaf}` into another memory than Vec")
        dtype = dtype_of(written) if written is not None else default
        if dtype is None:
            raise NotModelled(f"a `{leaf}` of no static dtype")
        extents = static_extents(fold_list(shape_arg, self.fold), f"the {leaf}")
        return self._new(name, TileShape(extents, dtype), (), label)

    def _gather(
        self, call: cst.Call, args: Sequence[cst.BaseExpression], name: str | None, label: str
    ) -> str:
        """``pl.gather(input, dim=-1, index=...)`` of 2-D tiles, as the 910B converts it: an
        accumulator of the index's shape in the input's dtype, then a loop over its rows:
        row views of both, a ``[1, K]`` INT32 scratch and the gathered row (not in-place
        safe), assembled into the accumulator (a view of it, as is the result). Modelled
        straight: the loop's reads all end at the gathered row, which may take none of
        their buffers anyway. Another dim or a compare form is not modelled.
        ``pl.tile.gather(src, indices, tmp)``, the index form as the author lays it out
        (``tile_ops/gather.cpp``): a new tile of the indices' shape in the source's dtype,
        reading all three (not in-place safe); a mask pattern: :meth:`_gather_mask`."""
        if dsl.op_name(call) == ("tile", "gather") and len(args) == 3:
            reads = tuple(self._tile(arg, "gather") for arg in args)
            shape = TileShape(self.shapes[reads[1]].extents, self.shapes[reads[0]].dtype)
            return self._new(name, shape, reads, label, reads)
        if dsl.keyword(call, "mask_pattern") is not None:
            return self._gather_mask(call, args, name, label)
        dim_node = dsl.argument(call, 1, "dim")
        index_node = dsl.argument(call, 2, "index")
        if isinstance(dim_node, cst.UnaryOperation) and isinstance(dim_node.operator, cst.Minus):
            dim_node = dim_node.expression  # (-1 and 1: the last dim of a 2-D tile)
        along = fold_extent(dim_node, self.fold).value if dim_node is not None else None
        if index_node is None or along != 1:
            raise NotModelled("a `gather` not along the last dim by an index")
        source = self._tile(args[0], "gather")
        indices = self._tile(index_node, "gather")
        shape, by = self.shapes[source], self.shapes[indices].extents
        if len(shape.extents) != 2 or len(by) != 2:
            raise NotModelled("a `gather` of tiles that are not 2-D")
        acc = self._new(None, TileShape(by, shape.dtype), (), "gather_acc_init (gather)")
        rows = []
        for view_of, extents in ((source, (1, shape.extents[1])), (indices, (1, by[1]))):
            rows.append(self._temp())
            self._emit(rows[-1], (view_of,), None, "a row (gather)", view_of=view_of)
            self.shapes[rows[-1]] = TileShape(extents, self.shapes[view_of].dtype)
        scratch = self._new(None, TileShape((1, by[1]), "INT32"), (), "gather_row_tmp (gather)")
        reads = (*rows, scratch)
        row_shape = TileShape((1, by[1]), shape.dtype)
        row = self._new(None, row_shape, reads, "gather_row (gather)", reads)
        out = name or self._temp()
        self._emit(out, (acc, row), None, label, view_of=acc)
        self.shapes[out] = self.shapes[acc]
        return out

    def _gather_mask(
        self,
        call: cst.Call,
        args: Sequence[cst.BaseExpression],
        name: str | None,
        label: str,
    ) -> str:
        """``pl.gather(src, mask_pattern=P)`` (``tile.gather_mask``, ``tile_ops/gather.cpp``):
        a new tile of the source's rows and the columns the pattern keeps, in the source's
        dtype or ``output_dtype``, not in-place safe. A pattern not named is not modelled."""
        source = self._tile(args[0], "gather") if args else None
        given = dsl.argument(call, None, "mask_pattern")
        pattern = dsl.dotted(given) if given is not None else None
        keeps = MASK_PATTERN_STRIDES.get(pattern[-1]) if pattern else None
        if source is None or keeps is None or len(self.shapes[source].extents) != 2:
            raise NotModelled("a `gather` by a mask pattern not written by its name")
        rows, columns = self.shapes[source].extents
        written = dsl.keyword(call, "output_dtype")
        dtype = dtype_of(written.value) if written is not None else self.shapes[source].dtype
        if dtype is None or columns % keeps:
            raise NotModelled("a `gather` by a mask pattern of no static result")
        shape = TileShape((rows, columns // keeps), dtype)
        return self._new(name, shape, (source,), label, (source,))

    def _transpose(
        self, call: cst.Call, args: Sequence[cst.BaseExpression], name: str | None, label: str
    ) -> str:
        """``pl.transpose(tile, axis1=0, axis2=1)`` of a 2-D tile: FlattenTileNdTo2D makes
        the ``pto.ttrans`` scratch (``transpose_tmp``, the input's shape and dtype) before
        it, then the swapped tile (``tile.transpose``, not in-place safe)."""
        source = self._tile(args[0], "transpose")
        shape = self.shapes[source]
        if len(shape.extents) != 2:
            raise NotModelled("a `transpose` of a tile that is not 2-D")
        scratch = self._new(None, shape, (), "transpose_tmp (transpose)")
        swapped = TileShape(shape.extents[::-1], shape.dtype)
        return self._new(name, swapped, (source, scratch), label, (source, scratch))

    def _view(
        self, args: Sequence[cst.BaseExpression], leaf: str, name: str | None, label: str
    ) -> str:
        """``pl.reshape(tile, shape)``, ``pl.set_validshape(tile, rows, cols)`` (the same
        static shape, fewer valid): views, in their source's buffer."""
        source = self._tile(args[0], leaf)
        if source in self.cube:
            raise NotModelled("a view of a tile popped from the cube")
        shape = self.shapes[source]
        if leaf == "reshape":
            extents = static_extents(fold_list(args[1], self.fold), "the reshape")
            shape = TileShape(extents, shape.dtype)
        out = name or self._temp()
        self._emit(out, (source,), None, label, view_of=source)
        self.shapes[out] = shape
        return out

    def _sliced(self, call: cst.Call, leaf: str, source: str, name: str | None, label: str) -> str:
        """``pl.load(t, offsets, shapes)`` and ``pl.slice(t, shape, offsets)`` of a tensor:
        a ``tile.load`` (into Vec: another ``target_memory`` is not modelled); a
        ``pl.slice`` of a tile: a view of its buffer (``tile.slice``)."""
        position, keyword = (2, "shapes") if leaf == "load" else (1, "shape")
        args = dsl.positional(call)
        written = dsl.keyword(call, keyword)
        shape_node = written.value if written is not None else None
        if shape_node is None and len(args) > position:
            shape_node = args[position].value
        memory = dsl.keyword(call, "target_memory")
        path = dsl.dotted(memory.value) if memory is not None else ("Vec",)
        if path is None or path[-1] != "Vec":
            raise NotModelled(f"a `{leaf}` into another memory than Vec")
        if source in self.shapes and leaf == "slice":
            extents = static_extents(fold_list(shape_node, self.fold), "the slice")
            out = name or self._temp()
            self._emit(out, (source,), None, label, view_of=source)
            self.shapes[out] = TileShape(extents, self.shapes[source].dtype)
            return out
        tensor = self.tensors.get(source)
        if tensor is None or tensor.dtype is None or source in self.shapes:
            raise NotModelled(f"a `{leaf}` of something that is not a known tensor")
        extents = static_extents(fold_list(shape_node, self.fold), f"the {leaf}")
        shape = TileShape(extents, tensor.dtype)
        out = name or self._temp()
        self._emit(out, (), shape, f"{name or source} (load)", load=True)
        self.shapes[out] = shape
        return out

    def _cube_value(self, node: cst.BaseExpression) -> TileShape | None:
        if type(node) is cst.Call and op_leaf(node) == "matmul":
            for arg in dsl.positional(node)[:2]:
                read = arg.value.value if type(arg.value) is cst.Name else None
                if read is not None and read in self.shapes and read not in self.cube:
                    # a vector tile a matmul reads: pushed to the cube, read by the push
                    # in its Vec buffer (``tile.tpush_to_aic``)
                    self.ring.push(read, self.shapes[read])
                    self._emit(None, (read,), None, f"{read} (push to the cube)")
        pushed = self.ring.pushed
        cube = {**self.cube, **pushed} if pushed else self.cube
        return cube_value_shape(node, cube, self.shapes, self.tensors, self.fold)

    def _pop(self, name: str) -> str:
        """The vector's first read of the cube's value ``name``: popped into a ring slot
        of its bytes (``tile.tpop_from_aic``: no buffer of its own)."""
        self.shapes[name] = self.ring.pop(self.cube[name])
        return name

    def _tile(self, node: cst.BaseExpression, op: str | None) -> str:
        found = self.value(node, None)
        if found is None:
            raise NotModelled(f"`{op}` of no tile")
        return found


# How a caller gets :func:`.cube_side.cube_only` of a scope's statements: the function
# itself, or its kept fact of it (``driver.loop_loads``).
CubeOnly = Callable[[Sequence[cst.CSTNode]], frozenset[str]]


def scope_tiles(
    statements: Sequence[cst.CSTNode],
    tensors: Mapping[str, Tensor],
    fold: Fold,
    span_of: Callable[[cst.For], Span],
    cube_of: CubeOnly = cube_only,
) -> ScopeTiles:
    """The Vec tiles of an InCore scope's ``statements`` (``tensors``: the tensors in
    scope; ``fold``: how its extents are folded; ``cube_of``: how the names only its
    matmuls read are found), or why they are not known."""
    walk = _Convert(tensors=tensors, fold=fold, span_of=span_of, cube_only=cube_of(statements))
    try:
        walk.block(statements)
    except NotModelled as reason:
        return ScopeTiles(unknown=str(reason))
    return ScopeTiles(
        tuple(walk.ops),
        tuple(walk.loops),
        popped=tuple(walk.ring.popped),
        pushed=tuple(walk.ring.pushed_bytes),
        sent=tuple(walk.ring.sent),
    )


def scope_tiles_at(
    node: cst.CSTNode | None,
    tensors: Mapping[str, Tensor],
    fold: Fold,
    span_of: Callable[[cst.For], Span],
    cube_of: CubeOnly = cube_only,
) -> ScopeTiles:
    """:func:`scope_tiles` of the InCore scope ``node`` opens (a ``with pl.at(...)``, a
    ``pl.spmd`` loop, an InCore function; None: not known). A scope with a split mode
    is not read: SplitVectorKernel halves its vector tiles."""
    if not isinstance(node, (cst.With, cst.For, cst.FunctionDef)):
        return ScopeTiles(unknown="the InCore scope holding the loop is not known")
    if isinstance(node, cst.With):
        header: Sequence[cst.CSTNode] = node.items
    elif isinstance(node, cst.For):
        header = [node.iter]
    else:
        header = node.decorators
    ring = ring_options(header, fold)
    if isinstance(ring, str):
        return ScopeTiles(unknown=ring, halved=any_split(header))
    found = scope_tiles(body_statements(node.body), tensors, fold, span_of, cube_of)
    return replace(found, slot_num=ring) if found.unknown is None else found
