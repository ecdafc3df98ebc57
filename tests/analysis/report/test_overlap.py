"""A consumer loop's overlap from its peer: recorded by the overlap step, said by the report
(``report.overlap``, ``report.finish``)."""

from __future__ import annotations

from skewlsp.analysis.report.finish import Said, finished_report
from skewlsp.analysis.report.overlap import NO_OVERLAP, Overlap, overlaps
from skewlsp.contract import LoopReport, Related, Span

CONSUMER_LOOP = LoopReport(
    None, Span(20, 5, 24, 30), Span(20, 14, 20, 40), "demoted", "SKW020",
    "demoted: the vector core consumes", trip=8, core="aiv",
)
PRODUCER_LOOP = LoopReport(
    None, Span(8, 5, 12, 30), Span(8, 14, 8, 40), "skewed", "SKW001",
    "skewed at depth 2", trip=8, core="aic",
)


def test_the_overlap_step_records_the_peer_and_no_report() -> None:
    consumer, producer = overlaps([CONSUMER_LOOP, PRODUCER_LOOP])
    assert consumer == Overlap(
        Related(PRODUCER_LOOP.span, "the cube's skewed loop at line 8: this loop's overlap"),
        "aic",
    )
    assert producer is NO_OVERLAP


def test_the_report_says_where_a_consumer_s_overlap_comes_from() -> None:
    peer = Related(PRODUCER_LOOP.span, "peer")
    report = finished_report(CONSUMER_LOOP, Said(Overlap(peer, "aic")))
    assert report.message == (
        "demoted: the vector core consumes"
        " (overlap from the cube's skew: the cube's skewed loop at line 8)"
    )
    assert report.overlap == peer


def test_a_loop_with_no_peer_keeps_its_message() -> None:
    assert finished_report(CONSUMER_LOOP, Said()).message == CONSUMER_LOOP.message


def test_a_consumer_alone_in_its_module_has_its_producer_elsewhere() -> None:
    """It waits on the tile its first message receives, and no loop of the module is on
    the other core: the record says so, and the report carries it."""
    received = Span(21, 9, 21, 30)
    alone = LoopReport(
        None, Span(20, 5, 24, 30), Span(20, 14, 20, 40), "demoted", "SKW020",
        "demoted: the vector core consumes", trip=8, core="aiv", lead=received,
        offending=received,
    )
    [found] = overlaps([alone])
    assert found == Overlap(producer_elsewhere=True)
    assert finished_report(alone, Said(found)).producer_elsewhere is True
