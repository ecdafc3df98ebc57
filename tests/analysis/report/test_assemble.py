"""How the report puts together what the passes handed on (``report.assemble``)."""

from __future__ import annotations

from dataclasses import replace

from skewlsp.analysis.lower_pipeline.lowering import Lowered
from skewlsp.analysis.report.assemble import with_lowered, with_lowering_said
from skewlsp.contract import Edit, LoopReport, Lowering, Span, StageFix

LEFT = LoopReport(
    None, Span(3, 5, 4, 20), Span(3, 14, 3, 40), "left", "SKW012",
    "left: no cross-core message in the body",
)


def test_a_lowered_loop_s_message_is_the_skew_pass_s_then_what_the_lowering_does() -> None:
    lowering = Lowering("replicated", "SKW012", "replicated: 4 copies per iteration")
    said = with_lowering_said(replace(LEFT, lowering=lowering))
    assert said.message == (
        "left: no cross-core message in the body; replicated: 4 copies per iteration"
    )
    assert said.lowering == lowering


def test_a_loop_the_lowering_passes_did_not_touch_keeps_its_message() -> None:
    assert with_lowering_said(LEFT).message == LEFT.message


def test_a_lowered_loop_takes_the_lowering_s_code_and_says_what_it_does() -> None:
    lowering = Lowering("replicated", "SKW012", "replicated: 4 copies per iteration")
    report = with_lowered(LEFT, Lowered(lowering))
    assert (report.verdict, report.code, report.lowering) == ("left", "SKW012", lowering)
    assert report.message == (
        "left: no cross-core message in the body; replicated: 4 copies per iteration"
    )


def test_a_loop_the_lowering_rejects_is_an_error() -> None:
    lowering = Lowering("error", "SKW016", "rejected: stage 0")
    report = with_lowered(LEFT, Lowered(lowering))
    assert (report.verdict, report.code) == ("error", "SKW016")


def test_a_lowered_loop_offers_the_smaller_stage_the_lowering_checked() -> None:
    lowering = Lowering("replicated", "SKW014", "replicated: stage 4 above trip 3")
    fix = StageFix(Edit(Span(3, 30, 3, 31), "3"), "SKW012", "safe")
    report = with_lowered(LEFT, Lowered(lowering, smaller_stage=("stage=3 gives the same", fix)))
    assert (report.fix_hint, report.stage_fix) == ("stage=3 gives the same", fix)
