"""Which core runs each pypto op: the data behind the mixed-kernel model.

ExpandMixedKernel assigns every op of a mixed InCore function to the cube
(AIC) or the vector (AIV) core from the op registry's memory specs: matmuls
write the Acc buffer (cube), element-wise, reduction and cast ops read and
write Vec (vector), and data-movement ops follow the memory space of their
data. Keep these tables in step with the registry when pypto adds ops; an op
that is in none of them is treated as a vector op when it touches a tile and
reported as an assumption.

Names are the last component of the call path, so ``pl.matmul``,
``pl.tile.matmul`` and ``pl.tensor.matmul`` all look up ``matmul``.
"""

from __future__ import annotations

import builtins

import libcst as cst

# Output in Acc: run on the cube core.
CUBE_OPS = frozenset(
    {
        "matmul",
        "matmul_acc",
        "matmul_bias",
        "gemv",
        "gemv_acc",
        "gemv_bias",
        "batch_matmul",
        "batch_matmul_acc",
        "matmul_mx",
        "matmul_mx_acc",
        "matmul_mx_bias",
    }
)

# Views and layout changes: the result lives where the input lives.
INHERIT_OPS = frozenset(
    {
        "slice",
        "reshape",
        "transpose",
        "transpose_view",
        "reinterpret_view",
        "view",
        "set_validshape",
        "extract",
        "gather_row",  # writes rows into the tile it is given: lives where that tile lives
    }
)

# Loads whose side follows the target memory, or (without one) the first consumer:
# a GM slice feeding a matmul is loaded to Mat (cube), any other to Vec (vector).
LOAD_OPS = frozenset({"load"})

# Writes to GM: the side of the tile written; both Vec and Acc may be stored, so no
# crossing. Without a tile operand (``pl.write(t, [i], scalar)``) both cores may run it.
STORE_OPS = frozenset({"store", "assemble", "write"})
# The positions of (the value stored, the tensor written) in the store ops that take both.
STORE_ARGUMENTS = {"store": (0, 2), "assemble": (1, 0)}

# GM tensors created in the kernel.
GM_OPS = frozenset({"create_tensor"})

# Tile producers with no tile input that live in Vec.
VECTOR_SOURCES = frozenset(
    {"full", "arange", "ci", "tri", "random", "create_tile", "zeros", "ones"}
)

# Scalar-valued ops both cores can run (kept on both sides, then dead code is removed).
SHARED_SCALAR_OPS = frozenset(
    {
        "read",
        "dim",
        "get_block_idx",
        "get_block_num",
        "const",
        "min",
        "max",
        "cast",
        "add",
        "sub",
        "mul",
        "div",
    }
)

# Scalars read out of a tile (tile.read): the op runs where the tile lives, and its
# value is a scalar. ExpandMixedKernel moves only tiles between the cores: the other
# core's copy of a statement that reads the scalar reads a value nothing defines there.
SCALAR_FROM_TILE_OPS = frozenset({"read"})

# The shared ops that are also element-wise tensor ops: given a GM tensor (or a slice of
# one) as an operand they compute a tile, on the vector (``pl.mul(x[r0 : r0 + 32, :], 0.5)``).
ELEMENTWISE_SHARED_OPS = frozenset({"min", "max", "cast", "add", "sub", "mul", "div"})

# Scalar ops fixed to the vector core.
VECTOR_SCALAR_OPS = frozenset({"get_subblock_idx"})

# Memory spaces of the cube core (everything but DDR and Vec).
CUBE_MEMORY = frozenset({"Mat", "Left", "Right", "Acc", "Bias", "ScaleLeft", "ScaleRight"})
VECTOR_MEMORY = frozenset({"Vec"})

# Tiles allocated in a cube buffer (L1/Mat).
CUBE_SOURCES = frozenset({"create_l1"})

# Explicit moves between memories: a boundary when source and target sides differ.
MOVE_OPS = frozenset({"move"})

# Explicit boundary crossings: cube -> vector and vector -> cube.
TO_VECTOR_OPS = frozenset({"aiv_shard"})
TO_CUBE_OPS = frozenset({"aic_gather"})

# The sides an op or a value can have.
CUBE, VECTOR, SHARED, MIXED = "C", "V", "S", "M"
GM, LAZY = "G", "L"  # a GM tensor; a GM slice/load whose side its first consumer decides
TILE_SIDES = frozenset({CUBE, VECTOR, LAZY})


# Python's own functions: a call of one holds no DSL op.
PYTHON_BUILTINS = frozenset(dir(builtins))


def op_leaf(call: cst.Call) -> str | None:
    """The op's name in the registry (``matmul`` for ``pl.tile.matmul``), None if not an op.

    Walks the dotted callee itself rather than building ``dsl.dotted``'s tuple:
    only the root and the last name matter, and every pass asks this of the
    same calls again (tens of thousands of times in a large tree).
    """
    func = call.func
    if type(func) is not cst.Attribute:  # (exact types, as in dsl.dotted)
        return None
    root = func.value
    while type(root) is cst.Attribute:
        root = root.value
    if type(root) is not cst.Name or root.value not in ("pl", "pld"):
        return None
    return func.attr.value
