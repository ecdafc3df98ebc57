"""The split and the skew pass on an InCore loop (``driver.core_passes``): a loop decided
again in another copy (a pl.unroll copy, a helper's call, another build) reuses the
split made for equal inputs, and makes its own where anything it reads differs."""

from __future__ import annotations

import libcst as cst

from skewlsp.analysis.driver.core_passes import (
    OutlinedFunction,
    SplitInputs,
    kept_split,
    split_and_skew,
    split_inputs,
)
from skewlsp.analysis.frontend import dsl
from skewlsp.analysis.frontend.constants import Const
from skewlsp.analysis.frontend.names import body_statements
from skewlsp.analysis.passes.body import BodyContext, InnerSkew, Stmt
from skewlsp.analysis.passes.convert_to_ssa import resolve
from skewlsp.analysis.passes.loop_body import normalise
from skewlsp.analysis.skew_cross_core_pipeline.decide import LoopHeader
from skewlsp.analysis.skew_cross_core_pipeline.per_core import PerCore
from tests.kernels import function_and_loop

KERNEL = """\
import pypto.language as pl


@pl.function(type=pl.FunctionType.InCore)
def project(a: pl.Tensor[[1024, 256], pl.FP16], w: pl.Tensor[[256, 256], pl.FP16]):
    for k in pl.pipeline(0, 1024, 64, stage=2):
        x = pl.load(a, [k, 0], [64, 256])
        y = pl.matmul(x, w)
        z = pl.exp(y)
        pl.store(z, [k, 0], a)
"""
ALIASES = dsl.Aliases(frozenset({"pl"}), frozenset())
OUTSIDE = {"a": "gm", "w": "gm"}
UNIT = (cst.Module([]), KERNEL, 0)  # the unit the loop is in: its module, text, first line


def _body(loop: cst.For, inner: InnerSkew | None = None) -> list[Stmt]:
    """The loop's body as a copy's decision normalises it (made afresh for each)."""
    ctx = BodyContext(lambda name: None, {}, ALIASES, lambda node, ctx: inner, None)
    stmts = normalise(body_statements(loop.body), ctx).stmts
    resolve(stmts, ())
    return stmts


def _header(stop: object = 1024) -> LoopHeader:
    return LoopHeader(Const(2), Const(0), Const(stop), Const(64))  # type: ignore[arg-type]


def _inputs(fn: cst.FunctionDef, stmts: list[Stmt], header: LoopHeader) -> SplitInputs | None:
    function = OutlinedFunction(OUTSIDE, frozenset(), 1, lambda: True, None, None)
    return split_inputs(stmts, header, (), function, (fn, False, UNIT, {}))


def _split(stmts: list[Stmt], header: LoopHeader) -> PerCore:
    function = OutlinedFunction(OUTSIDE, frozenset(), 1, lambda: True, None, None)
    return split_and_skew(stmts, header, (), function, None)


def test_a_copy_with_equal_inputs_reuses_the_split_an_earlier_copy_made() -> None:
    fn, loop = function_and_loop(KERNEL)
    kept: list[tuple[SplitInputs, PerCore]] = []
    made: list[PerCore] = []

    def make(stmts: list[Stmt]) -> PerCore:
        made.append(_split(stmts, _header()))
        return made[-1]

    first_body, second_body = _body(loop), _body(loop)  # two decisions' own statements
    first = _inputs(fn, first_body, _header())
    second = _inputs(fn, second_body, _header())
    assert first is not None and second is not None
    one = kept_split(kept, first, lambda: make(first_body))
    two = kept_split(kept, second, lambda: make(second_body))
    assert len(made) == 1
    assert two is one
    # (a real split: the cube pushes the matmul's result, the vector core pops it)
    assert [(c.core, c.pushes, c.pops) for c in one.cores] == [("aic", 1, 0), ("aiv", 0, 1)]


def test_a_copy_whose_bounds_fold_otherwise_makes_its_own_split() -> None:
    fn, loop = function_and_loop(KERNEL)
    kept: list[tuple[SplitInputs, PerCore]] = []
    short, long = _header(256), _header(1024)
    first = _inputs(fn, _body(loop), long)
    second = _inputs(fn, _body(loop), short)
    assert first is not None and second is not None
    one = kept_split(kept, first, lambda: _split(_body(loop), long))
    two = kept_split(kept, second, lambda: _split(_body(loop), short))
    assert two is not one
    assert [c.trip for c in one.cores] == [16, 16]
    assert [c.trip for c in two.cores] == [4, 4]


def test_a_bound_equal_to_another_but_of_another_type_is_another_input() -> None:
    fn, loop = function_and_loop(KERNEL)
    # 1 == True in Python, but the skew pass folds them apart
    assert _inputs(fn, _body(loop), _header(1)) != _inputs(fn, _body(loop), _header(True))


def test_a_body_with_an_inner_pipeline_spliced_in_is_split_again_for_each_copy() -> None:
    fn, loop = function_and_loop(KERNEL)
    inner_loop = cst.parse_statement("for j in pl.pipeline(0, 4, stage=2):\n    v = pl.exp(j)\n")
    assert isinstance(inner_loop, cst.For)
    steady = [Stmt(inner_loop, "compound", ("v",), (), origin="steady")]
    # (the split then reads the inner loops' decisions of this copy)
    assert _inputs(fn, [*_body(loop), *steady], _header()) is None
