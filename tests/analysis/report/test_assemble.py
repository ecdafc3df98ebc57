"""How the report puts together what the passes handed on (``report.assemble``)."""

from __future__ import annotations

from dataclasses import replace

from skewlsp.analysis.report.assemble import with_lowering_said
from skewlsp.contract import LoopReport, Lowering, Span

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
