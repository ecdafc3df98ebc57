"""How the report puts together what the passes handed on (``report.assemble``)."""

from __future__ import annotations

from dataclasses import replace

from skewlsp.analysis.lower_pipeline.lowering import Lowered
from skewlsp.analysis.report.assemble import with_lowered
from skewlsp.analysis.report.finish import message
from skewlsp.contract import Edit, LoopReport, Lowering, Span, StageFix

LEFT = LoopReport(
    None, Span(3, 5, 4, 20), Span(3, 14, 3, 40), "left", "SKW012",
    "left: no cross-core message in the body",
)


def test_a_lowered_loop_s_message_is_the_skew_pass_s_then_what_the_lowering_does() -> None:
    lowering = Lowering("replicated", "SKW012", "replicated: 4 copies per iteration")
    assert message(replace(LEFT, lowering=lowering)) == (
        "left: no cross-core message in the body; replicated: 4 copies per iteration"
    )


def test_a_loop_the_lowering_passes_did_not_touch_keeps_its_message() -> None:
    assert message(LEFT) == LEFT.message


def test_a_lowered_loop_takes_the_lowering_s_code_and_leaves_the_skew_pass_s_words() -> None:
    """The lowering's words join the message where the report is finished, not here."""
    lowering = Lowering("replicated", "SKW012", "replicated: 4 copies per iteration")
    report = with_lowered(LEFT, Lowered(lowering))
    assert (report.verdict, report.code, report.lowering) == ("left", "SKW012", lowering)
    assert report.message == LEFT.message


def test_a_loop_the_lowering_rejects_is_an_error() -> None:
    lowering = Lowering("error", "SKW016", "rejected: stage 0")
    report = with_lowered(LEFT, Lowered(lowering))
    assert (report.verdict, report.code) == ("error", "SKW016")


def test_a_lowered_loop_offers_the_smaller_stage_the_lowering_checked() -> None:
    lowering = Lowering("replicated", "SKW014", "replicated: stage 4 above trip 3")
    fix = StageFix(Edit(Span(3, 30, 3, 31), "3"), "SKW012", "safe")
    report = with_lowered(LEFT, Lowered(lowering, smaller_stage=("stage=3 gives the same", fix)))
    assert (report.fix_hint, report.stage_fix) == ("stage=3 gives the same", fix)


def test_a_loop_s_stage_advice_is_handed_to_the_report_as_it_is_assembled() -> None:
    """The stage advice (what a ``stage=`` fix needs) is a record the report is put
    together from, not fields replaced on a report already built."""
    import libcst as cst

    from skewlsp.analysis.report.advice import StageAdvice
    from skewlsp.analysis.report.assemble import loop_report
    from skewlsp.analysis.skew_cross_core_pipeline.decide import Decision
    from skewlsp.contract import Origin

    loop = cst.parse_statement("for i in pl.pipeline(4, stage=4):\n    pass\n")
    assert isinstance(loop, cst.For) and isinstance(loop.iter, cst.Call)
    where = Span(1, 28, 1, 29)
    decision = Decision("skewed", "SKW002", "trip 4", stage=4, requested_depth=3, depth=1, trip=4)
    fix = StageFix(Edit(where, "2"), "SKW001", "unsafe")
    read = (Origin("N", "4", 4, "config.py", 2),)
    advice = StageAdvice(where, read, "a trip of 6 would give depth 3", fix)
    report = loop_report(
        None, lambda node: Span(1, 0, 2, 8), loop, loop.iter, "kernel", "i", decision, (),
        None, where, made=None, advice=advice,
    )
    assert (report.stage_value, report.bounds_read) == (where, read)
    assert (report.fix_hint, report.stage_fix) == ("a trip of 6 would give depth 3", fix)


def test_a_split_loop_s_core_copies_take_their_lowerings_from_the_lowered_record() -> None:
    """The lowering passes hand on each core copy's lowering, not core results they
    edited: the report puts them on the skew pass's per-core verdicts."""
    from skewlsp.contract import CoreResult

    cube = CoreResult("aic", "skewed", "SKW001", "depth 2", depth=2)
    vector = CoreResult("aiv", "left", "SKW010", "no message on this core")
    mixed = replace(LEFT, cores=(cube, vector))
    lowering = Lowering("replicated", "SKW012", "replicated: 2 copies")
    report = with_lowered(mixed, Lowered(None, (None, lowering)))
    assert report.cores == (cube, replace(vector, lowering=lowering))
    assert (report.code, report.lowering) == (LEFT.code, None)
