"""The lowering passes at the end of a walk (``driver.lowered``): what they decide of a
loop travels beside its report as their own record, the report as the walk left it."""

from __future__ import annotations

from skewlsp.analysis.driver.loop_decision import LoopModel
from skewlsp.analysis.driver.lowered import lowered_models
from skewlsp.contract import LoopReport, Span

# A loop the skew pass left (no message in its body): LowerPipelineLoops replicates it,
# 4 copies of a 10-iteration loop (SKW012).
LEFT = LoopReport(
    None, Span(3, 5, 4, 20), Span(3, 14, 3, 40), "left", "SKW010",
    "left: no cross-core message in the body", stage=4, start=0, stop=10, step=1, trip=10,
)


def test_a_left_loop_s_lowering_is_its_record_beside_the_report_the_walk_left() -> None:
    [model] = lowered_models([LoopModel(LEFT)], "pypto")
    assert model.report is LEFT
    assert model.lowered is not None and model.lowered.lowering is not None
    assert (model.lowered.lowering.verdict, model.lowered.lowering.code) == (
        "replicated",
        "SKW012",
    )


def test_a_loop_lowered_before_keeps_its_record() -> None:
    [first] = lowered_models([LoopModel(LEFT)], "pypto")
    [again] = lowered_models([first], "pypto")
    assert again.lowered is first.lowered


def test_a_loop_the_skew_pass_skewed_has_no_lowering_record() -> None:
    skewed = LoopReport(
        None, Span(3, 5, 4, 20), Span(3, 14, 3, 40), "skewed", "SKW001", "skewed at depth 1",
        stage=2, depth=1, trip=10,
    )
    [model] = lowered_models([LoopModel(skewed)], "pypto")
    assert (model.report, model.lowered) == (skewed, None)
