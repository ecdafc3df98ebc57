"""ResolveBackendOpLayouts: a ``[N, 1]`` column an element-wise op reads row-major is
reshaped into a ``[1, N]`` row first.

The reshape is a view of the column's buffer, so the load that made the column is the
argument of an op whose result is its buffer: LowerPipelineToSlots leaves it out of its
slots (``lower_pipeline.slot_loads``). Which ops the backend wants row-major, and which
tiles are such columns, is what this pass decides; nothing else of it is modelled.

Models: ``src/ir/transforms/resolve_backend_op_layouts_pass.cpp`` (pass doc 19), with the
layouts the 910B backend registers.
"""

from __future__ import annotations

# Element-wise ops whose operands the 910B backend wants row-major
# (``RequiresRowMajorLayout`` and the precision ops of pto_ops_elementwise.cpp), by the
# name the DSL spells them (``pl.mul`` is ``tile.mul`` or, with a scalar, ``tile.muls``).
ROW_MAJOR_OPS = frozenset(
    {
        "add", "sub", "mul", "div", "maximum", "minimum", "rem", "fmod", "and_", "or_",
        "xor", "shl", "shr", "abs", "exp", "sqrt", "not_", "relu", "prelu", "lrelu", "log",
        "recip", "sels", "gatherb", "addsc", "subsc", "part_add", "part_max", "part_min",
        "part_mul",
    }
)  # fmt: skip


def reshaped_column(values: list[int] | None, space: str) -> bool:
    """A ``[N, 1]`` tile in Vec (N > 1), laid out column-major."""
    return space == "Vec" and values is not None and len(values) == 2 and values[1] == 1 < values[0]


def reshape_reason(name: str, values: list[int] | None, op: str) -> str:
    """Why the load's buffer is shared: the reshape the pass puts before ``op``."""
    rows = values[0] if values else "N"
    return (
        f"{name} is a [{rows}, 1] column that `{op}` reads row-major, so the backend "
        f"reshapes it into a view of its buffer"
    )
