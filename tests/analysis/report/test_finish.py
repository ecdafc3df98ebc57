"""A loop's report put together once, at the driver's last step, from what the stages
across loops recorded (``report.finish``)."""

from __future__ import annotations

from dataclasses import replace

from skewlsp.analysis.lower_pipeline.lowering import Lowered
from skewlsp.analysis.report.finish import Said, finished_report, message
from skewlsp.analysis.report.memory import CopyMemory, MemorySaid
from skewlsp.analysis.report.variants import Assumed
from skewlsp.contract import (
    Assumption,
    BufferAssignment,
    CoreResult,
    Edit,
    Finding,
    LoopReport,
    Lowering,
    SpaceBuffers,
    Span,
    StageFix,
    Variant,
)

STAGE = Span(3, 30, 3, 37)
LEFT = LoopReport(
    None, Span(3, 5, 6, 20), Span(3, 14, 3, 40), "left", "SKW012",
    "left: no cross-core message in the body", hints=(Finding("SKW030", "stage=3", STAGE),),
)
VEC = SpaceBuffers("Vec", 32768, 2, reason="fits alone")
WHY = BufferAssignment(why="not modelled here")
SLOT_BOUND = Finding("SKW080", "PH-MR-001: slot-bound", STAGE)


def test_a_loop_nothing_was_found_of_after_its_walk_is_reported_as_the_walk_left_it() -> None:
    assert finished_report(LEFT, Said()) is LEFT


def test_a_loop_s_memory_and_buffers_are_its_own_and_the_findings_follow_the_walk_s() -> None:
    report = finished_report(LEFT, Said(memory=MemorySaid((CopyMemory((VEC,), WHY),), (SLOT_BOUND,))))
    assert (report.memory, report.buffers) == ((VEC,), WHY)
    assert report.hints == (*LEFT.hints, SLOT_BOUND)
    assert report.message == LEFT.message


def test_a_split_loop_s_memory_and_buffers_go_on_each_core_copy_in_order() -> None:
    cube = CoreResult("aic", "skewed", "SKW001", "depth 2", depth=2)
    vector = CoreResult("aiv", "left", "SKW010", "no message on this core")
    split = replace(LEFT, cores=(cube, vector))
    said = MemorySaid((CopyMemory((), None), CopyMemory((VEC,), WHY)))
    report = finished_report(split, Said(memory=said))
    assert report.cores == (cube, replace(vector, memory=(VEC,), buffers=WHY))
    assert (report.memory, report.buffers) == ((), None)


def test_what_other_builds_make_of_a_loop_is_put_on_its_report() -> None:
    assumed = Assumption("MODE", "fast")
    variant = Variant("MODE", "slow", "skewed", "SKW001", "loop skewed", 2)
    report = finished_report(LEFT, Said(), Assumed((assumed,), (variant,)))
    assert (report.assumes, report.variants) == ((assumed,), (variant,))


# What the lowering passes hand on (their ``Lowered`` record) joins the report here, with
# the rest: the walk's report is not lowered before.
REPLICATED = Lowering("replicated", "SKW012", "replicated: 4 copies per iteration")


def test_a_lowered_loop_s_message_is_the_skew_pass_s_then_what_the_lowering_does() -> None:
    assert message(LEFT, lowered=Lowered(REPLICATED)) == (
        "left: no cross-core message in the body; replicated: 4 copies per iteration"
    )


def test_a_loop_the_lowering_passes_did_not_touch_keeps_its_message() -> None:
    assert message(LEFT) == LEFT.message


def test_a_lowered_loop_takes_the_lowering_s_code_and_its_words_after_the_skew_pass_s() -> None:
    report = finished_report(LEFT, Said(), lowered=Lowered(REPLICATED))
    assert (report.verdict, report.code, report.lowering) == ("left", "SKW012", REPLICATED)
    assert report.message == (
        "left: no cross-core message in the body; replicated: 4 copies per iteration"
    )


def test_a_loop_the_lowering_rejects_is_an_error() -> None:
    rejected = Lowering("error", "SKW016", "rejected: stage 0")
    report = finished_report(LEFT, Said(), lowered=Lowered(rejected))
    assert (report.verdict, report.code) == ("error", "SKW016")


def test_a_lowered_loop_offers_the_smaller_stage_the_lowering_checked() -> None:
    above = Lowering("replicated", "SKW014", "replicated: stage 4 above trip 3")
    value = Span(3, 30, 3, 31)
    fix = StageFix(Edit(value, "3"), "SKW012", "safe")
    lowered = Lowered(above, smaller_stage=("stage=3 gives the same", fix))
    report = finished_report(replace(LEFT, stage_value=value), Said(), lowered=lowered)
    assert (report.fix_hint, report.stage_fix) == ("stage=3 gives the same", fix)


def test_a_report_that_does_not_show_the_stage_s_value_offers_no_edit_of_it() -> None:
    """A helper's copy reported at its call in another file: the fix line, no edit."""
    above = Lowering("replicated", "SKW014", "replicated: stage 4 above trip 3")
    fix = StageFix(Edit(Span(3, 30, 3, 31), "3"), "SKW012", "safe")
    lowered = Lowered(above, smaller_stage=("stage=3 gives the same", fix))
    report = finished_report(LEFT, Said(), lowered=lowered)
    assert (report.fix_hint, report.stage_fix) == ("stage=3 gives the same", None)


def test_a_split_loop_s_core_copies_take_their_lowerings_from_the_lowered_record() -> None:
    """The lowering passes hand on each core copy's lowering, not core results they
    edited: the report puts them on the skew pass's per-core verdicts."""
    cube = CoreResult("aic", "skewed", "SKW001", "depth 2", depth=2)
    vector = CoreResult("aiv", "left", "SKW010", "no message on this core")
    mixed = replace(LEFT, cores=(cube, vector))
    report = finished_report(mixed, Said(), lowered=Lowered(None, (None, REPLICATED)))
    assert report.cores == (cube, replace(vector, lowering=REPLICATED))
    assert (report.code, report.lowering) == (LEFT.code, None)


def test_a_split_k_loop_s_cube_copy_is_written_once_per_output_tile() -> None:
    cube = CoreResult("aic", "left", "SKW010", "no message on this core")
    vector = CoreResult("aiv", "skewed", "SKW001", "depth 2", depth=2)
    split = replace(LEFT, cores=(cube, vector))
    report = finished_report(split, Said(), lowered=Lowered(REPLICATED, (REPLICATED, None), tiles=4))
    assert [core.copies for core in report.cores] == [4, 1]
