"""A loop's report put together once, at the driver's last step, from what the stages
across loops recorded (``report.finish``)."""

from __future__ import annotations

from dataclasses import replace

from skewlsp.analysis.report.finish import Said, finished_report
from skewlsp.analysis.report.memory import CopyMemory, MemorySaid
from skewlsp.analysis.report.variants import Assumed
from skewlsp.contract import (
    Assumption,
    BufferAssignment,
    CoreResult,
    Finding,
    LoopReport,
    SpaceBuffers,
    Span,
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
