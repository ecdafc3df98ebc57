"""A left loop inside a loop the skew pass skews is lowered once per clone the skew writes.

SkewCrossCorePipeline (skew_cross_core_pipeline_pass.cpp, ``LowerSkewed``) runs before
LowerPipelineLoops. At effective depth D it writes the loop's producer half D times in the
prologue and D times in the kept steady loop's body, and its consumer half D times in the
steady body and D times in the epilogue: every top-level statement of the body, an inner
pipeline loop included, is written 2·D times whatever the trip (the trip only picks D:
the largest D' <= max(2, stage - 1) with trip % D' == 0 and trip >= 2·D'). Each clone is
still a ``ForKind::Pipeline`` loop, which LowerPipelineLoops then replicates on its own.
A core copy that is only demoted (consumer role) keeps one body, so its inner loop is
written once. The numbers below are worked out by hand from that algorithm (the first,
depth 2 at trip 4, is what the compiler built from pypto e2d0f78ae printed: 4 regions
holding the inner loop, each lowered to 2 copies).

Fixture: tests/fixtures/lowering/models/lower_llm/skewed_outer.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from skewlsp.api import analyse, preview
from skewlsp.common.resolver import RecordingResolver
from skewlsp.contract import LoopReport, Lowering

PACKAGE = Path(__file__).resolve().parents[2] / "fixtures" / "lowering" / "models" / "lower_llm"
KERNELS = PACKAGE / "skewed_outer.py"

# line of the inner loop: (core, times the enclosing skew writes it, copies of its body in all)
EXPECTED = {
    # heads_then_columns: cube skewed at depth 2 (stage 2, trip 4: 4 % 2 == 0, 4 >= 4).
    # The column loop is in the consumer half: steady 2 + epilogue 2 = 4 clones; trip 4 at
    # stage 2 lowers to a main loop of 2 copies (no remainder): 4 x 2 = 8.
    37: ("aic", 4, 8),
    # Its vector twin is on the vector core, whose copy of the head loop is demoted
    # (consumer role): one body, so 1 clone of 2 copies.
    42: ("aiv", 1, 2),
    # deep_heads: stage 4 asks for depth max(2, 3) = 3; trip 6: 6 % 3 == 0 and 6 >= 6, so
    # D = 3 and the consumer half is written 3 + 3 = 6 times; trip 3 at stage 2 is a main
    # loop of 2 copies and 1 copy after it: 6 x 3 = 18.
    63: ("aic", 6, 18),
    # odd_heads: stage 2 asks for depth 2, but trip 5 is odd (5 % 2 != 0): D falls back to
    # 1, so 1 + 1 = 2 clones; the inner loop's 2 copies each: 2 x 2 = 4.
    85: ("aic", 2, 4),
    # HandSplit.qk_pv: stage 4, trip 9: D = 3 (9 % 3 == 0, 9 >= 6). The K-block loop feeds
    # the tpush (producer half: prologue 3 + steady 3 = 6 clones), trip 3 at stage 2 is
    # 3 copies: 18. The V-block loop is in the consumer half (steady 3 + epilogue 3 = 6),
    # trip 4 at stage 2 is 2 copies: 12.
    108: (None, 6, 18),
    113: (None, 6, 12),
    # HandSplit.softmax: the vector function's head loop is demoted: its inner loop once.
    124: (None, 1, 2),
    # WideValues.qk_pv: depth 2 at trip 4, the V loop in the consumer half: 4 clones of
    # 2 copies.
    147: (None, 4, 8),
}


def _reports(planner: str) -> dict[int, LoopReport]:
    return _reports_of(KERNELS, planner)


def _reports_of(path: Path, planner: str) -> dict[int, LoopReport]:
    found = analyse(
        path.read_text(), str(path), resolver=RecordingResolver((PACKAGE,)), planner=planner
    )
    return {report.line: report for report in found if report.instance is None}


@pytest.fixture(scope="module")
def reports() -> dict[int, LoopReport]:
    return _reports("pypto")


def _lowering(report: LoopReport, core: str | None) -> Lowering | None:
    if core is None:
        return report.lowering
    (copy,) = [c for c in report.cores if c.core == core]
    return copy.lowering


@pytest.mark.parametrize("line", sorted(EXPECTED))
def test_an_inner_loop_is_lowered_in_every_clone_the_enclosing_skew_writes(
    reports: dict[int, LoopReport], line: int
) -> None:
    core, clones, copies = EXPECTED[line]
    lowering = _lowering(reports[line], core)
    assert lowering is not None and lowering.verdict == "replicated", reports[line].message
    assert (lowering.nested, lowering.copies) == (clones, copies)


def test_the_message_says_the_skew_writes_the_loop_more_than_once(
    reports: dict[int, LoopReport],
) -> None:
    lowering = _lowering(reports[113], None)
    assert lowering is not None
    assert "the enclosing skewed loop writes it 6 times (12 copies of this body in all)" in (
        lowering.reason
    )


def test_the_preview_of_the_skewed_loop_writes_the_inner_loops_as_often() -> None:
    # What the preview of the head loop shows is what the count says: 6 clones of each.
    source = KERNELS.read_text()
    shown = preview(source, 105, path=str(KERNELS), resolver=RecordingResolver((PACKAGE,)))
    assert shown.rewritten.count("for kb, (acc,) in pl.pipeline(") == 6
    assert shown.rewritten.count("for vb in pl.pipeline(") == 6


def test_under_ptoas_each_clone_pins_its_own_slots_until_they_no_longer_fit() -> None:
    # LowerPipelineToSlots (lower_pipeline_to_slots_pass.cpp, SlotsFitOnChip) meets the 4
    # clones of WideValues' V loop one after the other, charging each one's slots to the
    # function's running total: 2 slots of a [128, 128] FP16 tile are 64 KB of Vec, so
    # the first two fit in the 184 KB (64, then 128), the third would need 192: declined,
    # and so is the fourth. Those two are replicated, 2 copies each: 2 x 1 + 2 x 2 = 6.
    lowering = _reports("ptoas")[147].lowering
    assert lowering is not None
    assert (lowering.verdict, lowering.nested, lowering.copies) == ("rotated", 4, 6)
    assert "only the first 2 rotate: LowerPipelineToSlots declines the other 2" in lowering.reason


# -- loops of inline helpers called inside a skewed or replicated loop ------------------
#
# InlineFunctions (inline_functions_pass.cpp) is the first pass of the default pipeline:
# it splices a helper's body at each call, wherever the call is (its mutator walks the
# bodies of the caller's loops too), so a helper called inside a pipeline loop puts its
# own loop in that loop's body before UnrollLoops, SkewCrossCorePipeline and the two
# lowering passes run. Each of them then treats the spliced loop exactly as the loop
# nested there by hand above: one copy per clone of the skewed half holding the call, one
# per copy of a replicated loop around it.
#
# Fixture: tests/fixtures/lowering/models/lower_llm/skewed_calls.py (with projections.py).

CALLS = PACKAGE / "skewed_calls.py"

# (line of the helper's loop, the caller whose call spliced it): (core, nested, copies)
AT_CALLS = {
    # `project`'s loop: trip W // COL_TILE = 128 // 32 = 4 at stage 2 is a main loop of
    # 2 copies. heads_then_project skews its head loop (trip 4, stage 2) at depth 2 on
    # the cube, and the call is in the consumer half: 2 + 2 = 4 clones of 2: 8.
    (28, "heads_then_project"): ("aic", 4, 8),
    # Through `project_head`, whose only call is in deep_heads' head loop: trip 6 at
    # stage 4 is depth 3 (6 % 3 == 0, 6 >= 6), 3 + 3 = 6 clones of 2: 12.
    (28, "project_head"): (None, 6, 12),
    # rows_then_project's row loop is left (no tpush/tpop) and replicated: trip 4 at
    # stage 2 is 2 copies, each holding the call: 2 x 2 = 4.
    (28, "rows_then_project"): ("aic", 2, 4),
    # `project_wide`'s loop: trip 2 at stage 2 is 2 copies. heads_then_wide's `pl.spmd`
    # body dispatches it without reading the block index: no InCore scope, so its head
    # loop stays in the Spmd function `wide`, unsplit, and is replicated (trip 4 at stage
    # 2: 2 copies). pypto e2d0f78ae printed the helper's loop twice there after
    # LowerPipelineLoops, each 0..2 step 2: 2 x 2 = 4.
    (43, "heads_then_wide"): (None, 2, 4),
    # `scale_rows`'s loop (trip 4, stage 2: 2 copies) in rows_then_scale's row loop:
    # trip 32 // 4 = 8 at stage 4 is 4 copies per iteration: 4 x 2 = 8.
    (58, "rows_then_scale"): ("aiv", 4, 8),
    # `scale_halves`' first pl.unroll copy (half = 0: 0..2, trip 2 at stage 2, 2 copies)
    # in rows_then_halves' row loop of 4 copies: 4 x 2 = 8.
    (67, "rows_then_halves"): ("aiv", 4, 8),
}


def _copies(planner: str) -> dict[tuple[int, str], LoopReport]:
    found = analyse(
        CALLS.read_text(), str(CALLS), resolver=RecordingResolver((PACKAGE,)), planner=planner
    )
    return {
        (report.line, report.instance.caller): report
        for report in found
        if report.instance is not None and report.verdict == "left"
    }


@pytest.fixture(scope="module")
def copies() -> dict[tuple[int, str], LoopReport]:
    return _copies("pypto")


@pytest.mark.parametrize("where", sorted(AT_CALLS))
def test_a_helper_s_loop_is_lowered_in_every_copy_the_loops_around_its_call_write(
    copies: dict[tuple[int, str], LoopReport], where: tuple[int, str]
) -> None:
    core, nested, in_all = AT_CALLS[where]
    lowering = _lowering(copies[where], core)
    assert lowering is not None and lowering.verdict == "replicated", copies[where].message
    assert (lowering.nested, lowering.copies) == (nested, in_all)


def test_a_loop_of_an_imported_helper_is_counted_at_its_call_as_well(
    copies: dict[tuple[int, str], LoopReport],
) -> None:
    # `project_columns` (projections.py, trip 4 at stage 2: 2 copies) is called on line
    # 123 in imported_heads' head loop, skewed at depth 2 on the cube: 4 clones of 2.
    report = copies[(123, "imported_heads")]
    lowering = _lowering(report, "aic")
    assert lowering is not None
    assert (lowering.nested, lowering.copies) == (4, 8)
    assert "the enclosing skewed loop writes it 4 times (8 copies of this body in all)" in (
        report.message
    )


def test_the_preview_of_the_skewed_caller_writes_the_call_once_per_clone() -> None:
    # What the count says is what the preview of heads_then_project's head loop shows:
    # the call, and so the helper's loop, in 2 steady and 2 epilogue clones.
    source = CALLS.read_text()
    shown = preview(source, 82, path=str(CALLS), resolver=RecordingResolver((PACKAGE,)))
    assert shown.rewritten.count("= project(q, wo, proj, h0_c") == 4


def test_every_unrolled_copy_is_lowered_inside_the_loops_around_the_unroll() -> None:
    # halves_of_rows: UnrollLoops writes the column loop once per `half`, each inside
    # the row loop (trip 4 at stage 2: 2 copies); the copy for half = 1 (2..4, 2
    # copies) is in both of the row loop's copies too: 2 x 2 = 4, as the first is.
    source = CALLS.read_text()
    shown = preview(source, 178, path=str(CALLS), resolver=RecordingResolver((PACKAGE,)))
    (second,) = [line for line in shown.rewritten.splitlines() if "copy half = 1" in line]
    assert "main loop 2..4 step 2" in second
    assert "the enclosing pipelines copy it 2 times (4 copies of this body in all)" in second


def test_every_unrolled_copy_of_a_helper_s_loop_is_lowered_inside_the_loops_around_its_call() -> None:
    # `scale_halves` in rows_then_halves' row loop of 4 copies: the copy for half = 1
    # (2..4, 2 copies) as its first: 4 x 2 = 8.
    source = CALLS.read_text()
    shown = preview(source, 67, path=str(CALLS), resolver=RecordingResolver((PACKAGE,)))
    (second,) = [line for line in shown.rewritten.splitlines() if "copy half = 1" in line]
    assert "main loop 2..4 step 2" in second
    assert "the enclosing pipelines copy it 4 times (8 copies of this body in all)" in second


def test_under_ptoas_a_helper_s_loop_in_a_replicated_loop_gets_no_slots() -> None:
    # LowerPipelineToSlots declines a loop inside a pipeline loop it declined (the row
    # loop has no load of its own): its copies would share the slots. So `scale_rows`'
    # loop is replicated in each of the row loop's 4 copies: 4 x 2 = 8.
    report = _copies("ptoas")[(58, "rows_then_scale")]
    lowering = _lowering(report, "aiv")
    assert lowering is not None
    assert (lowering.verdict, lowering.nested, lowering.copies) == ("replicated", 4, 8)
    assert lowering.declined == "an enclosing pipeline loop is replicated, so its copies would share the slots"


def test_under_ptoas_a_loop_of_a_spmd_dispatch_body_has_no_load_to_rotate() -> None:
    # heads_then_wide's head loop is outlined to the Spmd function `wide` at tensor level
    # (ConvertTensorToTileOps converts InCore functions only): its slices stay
    # tensor.slice, no tile.load, so LowerPipelineToSlots rotates nothing and
    # LowerPipelineLoops replicates it (pypto e2d0f78ae under PTOAS: 0..4 step 2), and the
    # helper's loop in both copies (0..2 step 2 each).
    head = _reports_of(CALLS, "ptoas")[156].lowering
    assert head is not None
    assert (head.verdict, head.nested, head.copies) == ("replicated", 1, 2)
    assert head.declined == "no top-level load to rotate"
    helper = _lowering(_copies("ptoas")[(43, "heads_then_wide")], None)
    assert helper is not None
    assert (helper.verdict, helper.nested, helper.copies) == ("replicated", 2, 4)
