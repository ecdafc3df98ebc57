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
