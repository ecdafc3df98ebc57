"""What MemoryReuse and AllocateMemoryAddr give each replicated loop's loads, on its report
(issue #41), against what pypto e2d0f78ae did to tests/fixtures/memory/models/mem_llm
(default planner, Ascend910B): SKW080 and SKW081 only where the loads alone decide it."""

from __future__ import annotations

from pathlib import Path

from skewlsp.analysis.driver import analyze_models
from skewlsp.common.resolver import RecordingResolver
from skewlsp.contract import LoopReport, SpaceBuffers

MEM_LLM = Path(__file__).resolve().parents[2] / "fixtures" / "memory" / "models" / "mem_llm"


def report_of(file: str, function: str, planner: str = "pypto") -> LoopReport:
    path = MEM_LLM / file
    models = analyze_models(
        path.read_text(), str(path), resolver=RecordingResolver((MEM_LLM,)), planner=planner
    )
    (model,) = [m for m in models if m.report.function == function]
    return model.report


def test_three_copies_of_a_64_kb_load_get_two_buffers_slot_bound_as_the_compiler_hints():
    # The compiler: "PH-MR-001 ... requested depth 3 for pipeline group 0 in Vec, but only
    # 2 of 3 buffers fit (65536 B per stage, 188416 B free) ... This operand alone needs".
    report = report_of("short.py", "short_context_rows")
    (core,) = report.cores
    assert core.memory == (SpaceBuffers("Vec", 65536, 3, 2, "slot-bound", True),)
    (hint,) = [h for h in report.hints if h.code == "SKW080"]
    assert hint.message.startswith(
        "PH-MR-001: MemoryReuse keeps at most 2 of the 3 stages' buffers apart in Vec on "
        "the AIV core: 3 x 65536 B per stage is more than its 188416 B"
    )
    assert hint.span == report.stage_span


def test_the_slot_bound_advice_is_what_packing_the_changed_loop_again_fits():
    # stage=2: a main loop of two 64 KB clones (128 KB) and one copy after it; loads of
    # 188416 // 3 B, rounded down to 32, keep all three.
    (hint,) = [h for h in report_of("short.py", "short_context_rows").hints if h.code == "SKW080"]
    assert hint.message.endswith("; stage=2 fits, or loads of at most 62784 B in Vec keep all 3")


def test_two_64_kb_loads_per_stage_overflow_vec_and_stop_the_compile_as_in_the_compiler():
    # The compiler: the legacy-packing warning, then AllocateMemoryAddr's "Vec buffer usage
    # (262144 bytes) exceeds platform limit (188416 bytes)".
    report = report_of("short.py", "query_and_key_rows")
    (core,) = report.cores
    assert core.memory == (SpaceBuffers("Vec", 65536, 2, None, "overflow", True),)
    (error,) = [h for h in report.hints if h.code == "SKW081"]
    assert "the 4 loads of its 2 stages are live at once and need 262144 B of its 188416 B" in (
        error.message
    )
    assert error.message.endswith(
        '("Vec buffer usage (262144 bytes) exceeds platform limit (188416 bytes)")'
    )


def test_four_wide_stages_overflow_as_the_compiler_said():
    report = report_of("vector.py", "four_stages_of_wide_rows")
    assert [h.code for h in report.hints] == ["SKW081"]
    assert report.cores[0].memory[0].cause == "overflow"


def test_loads_that_fit_alone_are_shown_without_a_claim_on_the_function():
    report = report_of("vector.py", "two_stages_fit")
    assert report.cores[0].memory == (
        SpaceBuffers(
            "Vec", 32768, 2, None, None, False, "fits alone; other tiles of the function not modelled"
        ),
    )
    assert [h.code for h in report.hints if h.code.startswith("SKW08")] == []


def test_under_ptoas_the_memory_passes_leave_the_loop_alone():
    report = report_of("short.py", "short_context_rows", planner="ptoas")
    assert report.cores[0].memory == ()
    assert [h.code for h in report.hints if h.code.startswith("SKW08")] == []
