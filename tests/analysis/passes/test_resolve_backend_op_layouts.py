"""ResolveBackendOpLayouts reshapes a ``[N, 1]`` Vec column an element-wise op reads
row-major into a ``[1, N]`` row: only such a column is reshaped."""

from __future__ import annotations

from skewlsp.analysis.passes.resolve_backend_op_layouts import (
    ROW_MAJOR_OPS,
    reshape_reason,
    reshaped_column,
)


def test_only_a_vec_column_of_several_rows_is_reshaped() -> None:
    assert reshaped_column([64, 1], "Vec")
    assert not reshaped_column([1, 64], "Vec")
    assert not reshaped_column([1, 1], "Vec")
    assert not reshaped_column([64, 1], "Mat")
    assert not reshaped_column(None, "Vec")


def test_the_element_wise_ops_are_row_major_and_the_reason_names_the_op() -> None:
    assert {"add", "exp", "mul"} <= ROW_MAJOR_OPS and "matmul" not in ROW_MAJOR_OPS
    assert reshape_reason("`m`", [64, 1], "exp") == (
        "`m` is a [64, 1] column that `exp` reads row-major, so the backend reshapes it "
        "into a view of its buffer"
    )
