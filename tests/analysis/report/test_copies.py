"""A copy's report (a call of an inline helper, an iteration of a module-level ``for``):
its label recorded as an :class:`Instance`, its message composed from it
(``report.copies``)."""

from __future__ import annotations

from skewlsp.analysis.report.copies import labelled
from skewlsp.contract import Instance, LoopReport, Span

DEMOTED = LoopReport(
    None, Span(3, 5, 4, 20), Span(3, 14, 3, 40), "demoted", "SKW023",
    "demoted: trip 1 < 2 (nothing to overlap)",
)


def test_a_copy_records_its_instance_and_its_message_starts_with_its_label() -> None:
    copy = Instance((("n", "4"),), caller="attn", call=Span(40, 4, 40, 20))
    report = labelled(DEMOTED, copy, DEMOTED.message)
    assert report.instance == copy
    assert report.message == (
        "called from `attn` (line 40) with n = 4: demoted: trip 1 < 2 (nothing to overlap)"
    )


def test_a_copy_s_message_is_composed_from_its_own_text_not_the_report_s() -> None:
    copy = Instance((("tile", "8"),))
    report = labelled(DEMOTED, copy, "demoted: said before the label")
    assert report.message == "tile = 8: demoted: said before the label"


def test_a_lowered_copy_s_message_is_its_label_then_its_own_words_then_the_lowering_s() -> None:
    """The lowering's words follow the copy's own text, and the label is put in front of
    both from the copy's Instance (not the lowering's words appended to a labelled text)."""
    from dataclasses import replace

    from skewlsp.analysis.lower_pipeline.lowering import Lowered
    from skewlsp.analysis.report.assemble import with_lowered
    from skewlsp.contract import Lowering

    copy = Instance((("tile", "8"),))
    left = replace(DEMOTED, verdict="left", code="SKW010", message="stale text", instance=copy)
    lowering = Lowering("replicated", "SKW012", "replicated: 4 copies")
    report = with_lowered(left, Lowered(lowering), "left: its own words")
    assert report.message == "tile = 8: left: its own words; replicated: 4 copies"
    assert report.code == "SKW012"
