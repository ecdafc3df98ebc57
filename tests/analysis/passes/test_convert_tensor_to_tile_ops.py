"""ConvertTensorToTileOps' tensors at a loop (``convert_tensor_to_tile_ops.surroundings``):
a name an inline helper's call binds holds the tensor the helper's ``->`` declares.

From pypto e2d0f78ae: the DSL parser types a call by the callee's declared return types
(``python/pypto/language/parser/ast_parser.py``, ``return_types``), a tuple unpack's
names by its elements (``_tuple_tmp[i]``), and InlineFunctions keeps those types
(``SpliceInlineCallAsTupleSub``, ``SpliceInlineCallAsAssign``); the compile of
tests/fixtures/memory/models/mem_llm/returned.py loads a [16, 128] BF16 tile from a
slice of the tensor so bound.

And the extents of a slice, ``upper - lower`` folded as the parser's arithmetic
analyzer folds it (``_build_slice_shape_expr``).
"""

from __future__ import annotations

import libcst as cst

from skewlsp.analysis.frontend.constants import Const, Folded, Folder
from skewlsp.analysis.passes.convert_tensor_to_tile_ops import (
    Extent,
    Tensor,
    subscript_extents,
    surroundings,
)

KERNEL = """\
@pl.jit
def kernel(x: pl.Tensor[[16, 1024], pl.FP32]):
    act = pl.create_tensor([16, 1024], dtype=pl.BF16)
    act, wide = rows(x, act)
    one = row(x)
    left, right = other(x)
    short, = rows(x, act)
    for kb in pl.pipeline(8, stage=2):
        pass
"""
DECLARED = {
    "rows": "tuple[pl.Tensor[[16, 1024], pl.BF16], int]",
    "row": "pl.Tensor[[16, 128], pl.FP16]",
}


def _tensors_at_the_loop(text: str = KERNEL) -> dict[str, Tensor]:
    fn = cst.parse_module(text).body[0]
    assert isinstance(fn, cst.FunctionDef)

    def returns(name: str) -> cst.Annotation | None:
        declared = DECLARED.get(name)
        return cst.Annotation(cst.parse_expression(declared)) if declared else None

    (found,) = surroundings(fn, False, None, returns).values()
    return found.tensors


def _shape(tensor: Tensor) -> tuple[str, str | None]:
    assert tensor.shape is not None
    return cst.Module([]).code_for_node(tensor.shape), tensor.dtype


def test_a_tuple_an_inline_helper_returns_types_each_name_as_declared() -> None:
    tensors = _tensors_at_the_loop()
    assert _shape(tensors["act"]) == ("[16, 1024]", "BF16")
    assert "wide" not in tensors  # declared `int`: no tensor


def test_one_value_an_inline_helper_returns_is_the_declared_tensor() -> None:
    assert _shape(_tensors_at_the_loop()["one"]) == ("[16, 128]", "FP16")


def test_a_call_of_no_declared_helper_or_of_another_arity_binds_no_tensor() -> None:
    tensors = _tensors_at_the_loop()
    assert "left" not in tensors and "right" not in tensors  # `other` declares nothing
    assert "short" not in tensors  # one name for a tuple of two


def test_without_the_helpers_return_types_the_names_hold_no_tensor() -> None:
    fn = cst.parse_module(KERNEL).body[0]
    assert isinstance(fn, cst.FunctionDef)
    (found,) = surroundings(fn, False, None).values()
    assert "act" not in found.tensors and "one" not in found.tensors
    assert "x" in found.tensors


# -- a slice's extents: ``upper - lower`` as the parser's arithmetic analyzer folds it -------

ROWS = Tensor(cst.parse_expression("[1024, K]"), "BF16")


def _extents(text: str) -> tuple[tuple[Extent, ...] | None, list[str]]:
    """The extents of the slice ``text`` of ROWS (``K`` is 64, ``k`` a loop's variable),
    and the expressions the folding was asked for."""
    asked: list[str] = []

    def fold(node: cst.BaseExpression) -> Folded:
        asked.append(cst.Module([]).code_for_node(node))
        return Folder({"K": Const(64)}.get, None).fold(node)

    node = cst.parse_expression(text)
    assert isinstance(node, cst.Subscript)
    return subscript_extents(node, ROWS, fold), asked


def test_a_slice_from_a_run_time_start_is_folded_through_its_bounds_difference() -> None:
    extents, asked = _extents("x[k : k + K, :]")
    assert extents == (Extent(64), Extent(64))
    # its upper bound alone says nothing the difference does not: it is not folded whole
    assert "k + K" not in asked


def test_a_slice_whose_difference_is_not_integer_arithmetic_is_named_by_its_start() -> None:
    extents, _ = _extents("x[k : k + 1.5]")
    assert extents == (Extent(dynamic="k"), Extent(64))
