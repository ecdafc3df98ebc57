"""A consumer loop's overlap from its peer: recorded by the overlap step, said by the report
(``report.overlap``, ``report.assemble``)."""

from __future__ import annotations

from dataclasses import replace

from skewlsp.analysis.report.assemble import with_overlap_said
from skewlsp.analysis.report.overlap import with_overlaps
from skewlsp.contract import LoopReport, Related, Span

CONSUMER_LOOP = LoopReport(
    None, Span(20, 5, 24, 30), Span(20, 14, 20, 40), "demoted", "SKW020",
    "demoted: the vector core consumes", trip=8, core="aiv",
)
PRODUCER_LOOP = LoopReport(
    None, Span(8, 5, 12, 30), Span(8, 14, 8, 40), "skewed", "SKW001",
    "skewed at depth 2", trip=8, core="aic",
)


def test_the_overlap_step_records_the_peer_and_leaves_the_message_alone() -> None:
    consumer, _ = with_overlaps([CONSUMER_LOOP, PRODUCER_LOOP])
    assert consumer.message == "demoted: the vector core consumes"
    assert consumer.overlap == Related(
        PRODUCER_LOOP.span, "the cube's skewed loop at line 8: this loop's overlap"
    )


def test_the_report_says_where_a_consumer_s_overlap_comes_from() -> None:
    marked = replace(CONSUMER_LOOP, overlap=Related(PRODUCER_LOOP.span, "peer"))
    assert with_overlap_said(marked).message == (
        "demoted: the vector core consumes"
        " (overlap from the cube's skew: the cube's skewed loop at line 8)"
    )


def test_a_loop_with_no_peer_keeps_its_message() -> None:
    assert with_overlap_said(CONSUMER_LOOP).message == CONSUMER_LOOP.message
