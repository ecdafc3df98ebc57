"""The op tables of ConvertTensorToTileOps' model (:mod:`.op_conversion`): which ops are
element-wise, reductions, scalar calls or matmuls, which casts the Ascend910B makes in
one instruction, and the registry's aliasing rules (``src/ir/op/tile_ops/*.cpp``). Kept
apart so the Mat walk (``memory/mat_tiles.py``) and the cube's operands read the same
lists as the Vec model."""

from __future__ import annotations

ELEMENTWISE_OPS = frozenset(
    {
        "add", "sub", "mul", "div", "maximum", "minimum", "exp", "sqrt", "recip", "neg",
        "abs", "log", "relu", "rsqrt", "row_expand_mul", "row_expand_add", "row_expand_sub",
        "row_expand_div", "col_expand_mul", "col_expand_add", "col_expand_sub",
        "col_expand_div", "col_expand",
    }
)  # fmt: skip
# Broadcasting ops registered forbid_output_alias(1) (broadcast.cpp).
EXPAND_OPS = frozenset(op for op in ELEMENTWISE_OPS if "_expand" in op)
# Reductions registered not_inplace_safe (reduction.cpp), with a tmp_tile workspace.
REDUCTION_OPS = frozenset({"row_sum", "row_max", "row_min"})
# The casts the Ascend910B converts in one instruction (its tcvt table,
# ``src/backend/910B/backend_910b_handler.cpp``): LegalizeTileCast leaves them one
# ``tile.cast``; any other pair becomes a chain of casts through intermediate tiles.
NATIVE_CASTS = frozenset(
    [("FP32", to) for to in ("FP16", "BF16", "INT16", "INT32", "INT64")]
    + [("FP16", to) for to in ("FP32", "INT32", "INT16", "INT8", "UINT8", "INT4")]
    + [("BF16", "FP32"), ("BF16", "INT32"), ("INT16", "FP16"), ("INT16", "FP32")]
    + [("INT32", to) for to in ("FP32", "INT16", "INT64", "FP16")]
    + [("INT64", "FP32"), ("INT64", "INT32"), ("UINT8", "FP16"), ("INT8", "FP16")]
    + [("INT4", "FP16")]
)
# An element's bits, for MemoryReuse's widening-cast rule (``DataType::GetBit``).
CAST_BITS = {"INT4": 4, "INT8": 8, "UINT8": 8, "INT16": 16, "FP16": 16, "BF16": 16}
CAST_BITS |= {"INT32": 32, "FP32": 32, "INT64": 64}
# A reduction's workspace is at least this wide (op_conversion_registry.cpp).
MIN_REDUCTION_COLUMNS = 128
# Unary ops registered not_inplace_safe (unary.cpp): the output takes no input's buffer.
NOT_INPLACE_UNARY = frozenset({"recip", "rsqrt"})
# Calls of scalars only (an element read, a block index, a tensor's dimension).
SCALAR_CALLS = frozenset({"read", "min", "max", "get_block_idx", "get_subblock_idx", "dim"})
# The ops whose operands the cube reads (ExpandMixedKernel's cube side).
MATMUL_OPS = frozenset({"matmul", "matmul_acc"})
# Bits per element of a popped tile's dtype, for the ring's slot.
ELEMENT_BITS = CAST_BITS | {"FP32": 32}
# ``tile.gather_mask``: one column of every this many each mask pattern keeps
# (``tile_ops/gather.cpp``, the PTOAS MaskPattern enum).
MASK_PATTERN_STRIDES = {"P0101": 2, "P1010": 2, "P0001": 4, "P0010": 4, "P0100": 4, "P1000": 4}
MASK_PATTERN_STRIDES |= {"P1111": 1}
