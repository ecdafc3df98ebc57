"""What the lowering passes make of each same-core pipeline loop, as the compiler does it.

The fixture package ``tests/fixtures/lowering/models/lower_llm`` was compiled with pypto
(e2d0f78ae, built outside this repository): each expectation below is what its IR showed
after LowerPipelineToSlots and LowerPipelineLoops, under both memory planners (main-loop
iterations, remainder copies, remainder branches, copies of the body in all).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from skewlsp.api import UnitCache, analyse
from skewlsp.common.resolver import RecordingResolver
from skewlsp.contract import LoopReport
from tests.cli.conftest import run, user_cache

__all__ = ["run", "user_cache"]  # the CLI, run in-process (fixtures)

PACKAGE = Path(__file__).resolve().parents[2] / "fixtures" / "lowering" / "models" / "lower_llm"
KERNELS = PACKAGE / "pipelines.py"

# line: (code, main-loop iterations, remainder copies, remainder branches, copies in all)
PYPTO = {
    20: ("SKW014", 0, 3, 0, 3),  # trip 3 < stage 4
    29: ("SKW014", 0, 1, 0, 1),  # trip 1 < stage 2
    38: ("SKW012", 2, 2, 0, 6),  # trip 10, stage 4
    47: ("SKW011", 2, 0, 0, 4),  # trip 8, stage 4
    56: ("SKW011", 4, 0, 0, 2),  # start 1, trip 8
    65: ("SKW012", 2, 2, 0, 6),  # step 2, trip 10
    74: ("SKW012", 2, 2, 0, 6),  # step -1, trip 10
    92: ("SKW012", 1, 3, 0, 20),  # stage 17, trip 20
    102: ("SKW012", 3, 1, 0, 3),  # carried value, trip 7
    112: ("SKW013", None, 0, 3, 10),  # run-time stop, stage 4
    121: ("SKW013", None, 0, 2, 6),  # run-time stop, step 2, stage 3
    130: ("SKW013", None, 0, 1, 3),  # run-time start
    140: ("SKW013", None, 0, 2, 6),  # run-time stop, carried value
    159: ("SKW011", 3, 0, 0, 2),  # a step parameter given 3 by pl.jit
    178: ("SKW012", 2, 1, 0, 3),  # outer of a nested pair
    179: ("SKW012", 1, 1, 0, 9),  # inner: 3 copies in each of the outer's 3
    188: ("SKW011", 2, 0, 0, 2),
    190: ("SKW011", 2, 0, 0, 4),  # inner: 2 copies in each of the outer's 2
    199: ("SKW012", 1, 1, 0, 3),
    200: ("SKW013", None, 0, 1, 9),  # run-time stop inside a replicated outer loop
}
PTOAS_ROTATED = {20, 29, 38, 47, 83, 102, 112, 140, 188, 190}
REJECTED = {150: "step must be a compile-time integer constant", 168: "step cannot be zero"}


def _reports(planner: str) -> dict[int, LoopReport]:
    source = KERNELS.read_text()
    found = analyse(source, str(KERNELS), resolver=RecordingResolver((PACKAGE,)), planner=planner)
    return {report.line: report for report in found}


@pytest.fixture(scope="module")
def pypto() -> dict[int, LoopReport]:
    return _reports("pypto")


@pytest.fixture(scope="module")
def ptoas() -> dict[int, LoopReport]:
    return _reports("ptoas")


@pytest.mark.parametrize("line", sorted(PYPTO))
def test_lower_pipeline_loops_replicates_as_the_compiler_does(
    pypto: dict[int, LoopReport], line: int
) -> None:
    report = pypto[line]
    lowering = report.lowering
    assert lowering is not None, report.message
    main = None if lowering.branches else lowering.main_trip
    assert (report.code, main, lowering.tail, lowering.branches, lowering.copies) == PYPTO[line]


def test_a_loop_of_trip_zero_is_left_empty(pypto: dict[int, LoopReport]) -> None:
    assert (pypto[83].code, pypto[83].lowering.verdict) == ("SKW017", "empty")  # type: ignore[union-attr]


@pytest.mark.parametrize("line", sorted(REJECTED))
def test_lower_pipeline_loops_rejects_what_the_compiler_rejects(
    pypto: dict[int, LoopReport], line: int
) -> None:
    report = pypto[line]
    assert (report.verdict, report.code) == ("error", "SKW041")
    assert REJECTED[line] in report.message


def test_under_ptoas_the_compiler_s_rotated_loops_are_exactly_those_rotated(
    ptoas: dict[int, LoopReport],
) -> None:
    rotated = {line for line, r in ptoas.items() if r.code == "SKW015"}
    assert rotated == PTOAS_ROTATED


def _edited(planner_before: str) -> set[int]:
    """The loops rotated under PTOAS after a comment is typed in the first kernel, by a
    server whose cache holds the analysis of the text before, made under ``planner_before``."""
    source = KERNELS.read_text()
    resolver = RecordingResolver((PACKAGE,))
    cache = UnitCache()
    analyse(source, str(KERNELS), resolver=resolver, cache=cache, planner=planner_before)
    edited = source.replace("# T=3 < F=4", "# typed: T=3 < F=4")
    assert edited != source
    found = analyse(edited, str(KERNELS), resolver=resolver, cache=cache, planner="ptoas")
    return {report.line for report in found if report.code == "SKW015"}


def test_under_ptoas_an_edit_answered_from_the_cache_keeps_every_rotation() -> None:
    assert _edited("ptoas") == PTOAS_ROTATED


def test_a_cache_filled_under_the_default_planner_does_not_answer_for_ptoas() -> None:
    assert _edited("pypto") == PTOAS_ROTATED


@pytest.mark.parametrize(
    ("line", "gate"),
    [
        (56, "the start (1) is not a multiple of stage=2"),
        (65, "the step is 2, not 1"),
        (74, "the step is -1, not 1"),
        (92, "stage=17 is outside ptoas' 2..16 slots"),
        (179, "an enclosing pipeline loop is replicated"),
    ],
)
def test_under_ptoas_a_declined_loop_names_its_gate(
    ptoas: dict[int, LoopReport], line: int, gate: str
) -> None:
    lowering = ptoas[line].lowering
    assert lowering is not None and lowering.declined is not None
    assert lowering.declined.startswith(gate)


def test_a_stage_above_the_trip_is_a_warning_with_a_checked_smaller_stage(
    pypto: dict[int, LoopReport],
) -> None:
    assert pypto[20].fix_hint == "stage=3 gives the same 3 copies and buffers"
    assert pypto[29].fix_hint == "stage=1 gives the same single copy (nothing to replicate)"


MIXED = Path(__file__).resolve().parents[2] / "fixtures" / "mixed" / "models" / "mixed_llm"


def test_a_core_copy_the_skew_pass_leaves_is_lowered_while_the_loop_keeps_its_code() -> None:
    # nested.py:16: the cube copy is demoted (two round trips), the vector copy is left
    # (trip 4 at stage=2): LowerPipelineLoops replicates that copy on the vector core.
    path = MIXED / "nested.py"
    reports = analyse(path.read_text(), str(path), resolver=RecordingResolver((MIXED,)))
    (loop,) = [r for r in reports if r.line == 16]
    assert loop.code == "SKW021" and loop.lowering is None
    lowered = {c.core: c.lowering.code if c.lowering else None for c in loop.cores}
    assert lowered == {"aic": None, "aiv": "SKW011"}


def test_json_carries_the_lowering_of_the_loop(run, tmp_path: Path) -> None:  # noqa: ANN001
    package = tmp_path / "lower_llm"
    package.mkdir()
    for name in ("config.py", "pipelines.py"):
        (package / name).write_text((PACKAGE / name).read_text())
    items = run("--output-format", "json", "--select", "ALL", "--exit-zero", ".", cwd=package).json()
    (item,) = [i for i in items if i["line"] == 38]
    assert (item["code"], item["lowering"]["main_trip"], item["lowering"]["tail"]) == ("SKW012", 2, 2)


INLINED = PACKAGE / "inlined.py"


@pytest.mark.parametrize("planner", ["pypto", "ptoas"])
def test_an_inline_helper_s_constant_is_run_time_when_its_call_is_in_a_loop(planner: str) -> None:
    # Simplify folds a constant assigned at a function's top level only; spliced into a
    # loop of the caller, the helper's `blocks = R // BLOCK_ROWS` stays a variable. An
    # argument is substituted wherever the call is; a helper that calls the helper and is
    # itself only called in a loop splices it into that loop. (The compiler's IR:
    # per_layer, per_head and per_step keep `blocks_inline..` as the stop and dispatch the
    # remainder through one branch; once and per_layer_argument loop 1..7 by 2, then one
    # copy.)
    found = analyse(
        INLINED.read_text(), str(INLINED), resolver=RecordingResolver((PACKAGE,)), planner=planner
    )
    lowered = {}
    for report in found:
        assert report.instance is not None and report.lowering is not None, report.message
        lowering = report.lowering
        main = None if lowering.branches else lowering.main_trip
        lowered[report.instance.caller] = (main, lowering.tail, lowering.branches)
    assert lowered == {
        "per_layer": (None, 0, 1),
        "per_head": (None, 0, 1),
        "once": (3, 1, 0),
        "per_layer_argument": (3, 1, 0),
        "stream_layer": (None, 0, 1),  # the copy spliced into `per_step`'s loop
    }


def test_a_run_time_remainder_names_the_value_that_makes_it_so() -> None:
    found = analyse(INLINED.read_text(), str(INLINED), resolver=RecordingResolver((PACKAGE,)))
    (per_layer,) = [r for r in found if r.instance is not None and r.instance.caller == "per_layer"]
    assert per_layer.code == "SKW013" and per_layer.dynamic_symbol == "blocks"
    assert "up to unroll_main_end (`blocks` is known at run time only)" in per_layer.message


def test_the_lowering_passes_hand_on_their_lowering_not_a_report() -> None:
    """No pass edits another's report: LowerPipelineLoops says what it does in its
    ``Lowered`` record; the report takes its code and verdict from it and puts its reason
    after the skew pass's message (see tests/analysis/report/test_finish.py)."""
    from skewlsp.analysis.lower_pipeline.loop_facts import NO_FACTS
    from skewlsp.analysis.lower_pipeline.lowering import lowerings
    from skewlsp.contract import Span

    left = LoopReport(
        None, Span(3, 5, 4, 20), Span(3, 14, 3, 40), "left", "SKW010",
        "left: no cross-core message in the body", stage=4, start=0, stop=10, step=1, trip=10,
    )
    [lowered] = lowerings([(left, NO_FACTS, None)], "pypto")
    assert lowered is not None and lowered.lowering is not None
    assert (lowered.lowering.verdict, lowered.lowering.code) == ("replicated", "SKW012")
    assert lowered.smaller_stage is None


def test_a_stage_above_the_trip_is_lowered_with_the_smaller_stage_the_lowering_checked() -> None:
    from skewlsp.analysis.lower_pipeline.loop_facts import NO_FACTS
    from skewlsp.analysis.lower_pipeline.lowering import lowerings
    from skewlsp.contract import Span

    above = LoopReport(
        None, Span(3, 5, 4, 20), Span(3, 14, 3, 40), "left", "SKW010",
        "left: no cross-core message in the body", stage=4, start=0, stop=3, step=1, trip=3,
    )
    [lowered] = lowerings([(above, NO_FACTS, None)], "pypto")
    assert lowered is not None and lowered.lowering is not None
    assert lowered.lowering.code == "SKW014"
    assert lowered.smaller_stage == ("stage=3 gives the same 3 copies and buffers", None)


def test_under_ptoas_a_rotated_loop_names_the_slot_by_its_own_variable_and_stage(
    ptoas: dict[int, LoopReport],
) -> None:
    """The inner loop at line 190 counts with ``j`` over 2 slots: its loads take slot
    ``j % 2`` (the compiler's slot index is the loop's own variable modulo the stage)."""
    lowering = ptoas[190].lowering
    assert lowering is not None and lowering.code == "SKW015"
    assert "slot j % 2" in lowering.reason
    assert "slot i %" not in ptoas[190].message
