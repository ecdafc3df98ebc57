"""Which copy of a replicated loop uses which buffer (issue #41), on its report, against
what pypto e2d0f78ae did to tests/fixtures/memory/models/mem_llm (default planner,
Ascend910B; its MemRefs after MemoryReuse and their addresses after AllocateMemoryAddr,
recorded by benchmarks/compiler_check.py --save-probe). The loads are laid out alone:
where they are all a space holds (the fixtures below), the numbers are the compiler's."""

from __future__ import annotations

from pathlib import Path

from skewlsp.analysis.driver import analyze_models
from skewlsp.common.resolver import RecordingResolver
from skewlsp.contract import BufferAssignment, LoadBuffer, LoopReport

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
MEM_LLM = FIXTURES / "memory" / "models" / "mem_llm"
LOWER_LLM = FIXTURES / "lowering" / "models" / "lower_llm"


def report_at(folder: Path, file: str, line: int, planner: str = "pypto") -> LoopReport:
    path = folder / file
    models = analyze_models(
        path.read_text(), str(path), resolver=RecordingResolver((folder,)), planner=planner
    )
    (model,) = [m for m in models if m.report.span.line == line]
    return model.report


def test_each_clone_of_a_matmul_loop_has_its_own_l1_buffers_at_the_compilers_addresses():
    # cube.py right_operand_per_stage, the compiler's Mat MemRefs: wj of copy 0 mem_mat_3
    # at 0, x of copy 0 mem_mat_4 at 32768, wj of copy 1 mem_mat_5 at 36864, x of copy 1
    # mem_mat_6 at 69632.
    (core,) = report_at(MEM_LLM, "cube.py", 19).cores
    assert core.buffers == BufferAssignment(
        (
            LoadBuffer("main", 0, "wj", "Mat", 0, 32768, 0),
            LoadBuffer("main", 0, "x[...]", "Mat", 1, 4096, 32768),
            LoadBuffer("main", 1, "wj", "Mat", 2, 32768, 36864),
            LoadBuffer("main", 1, "x[...]", "Mat", 3, 4096, 69632),
        )
    )


def test_copies_two_apart_share_a_buffer_when_only_two_of_three_fit():
    # short.py short_context_rows: three 64 KB remainder copies, "only 2 of 3 buffers fit";
    # the compiler: copy 0's load mem_vec_2 at 0, copy 1's mem_vec_4 at 65536, copy 2's
    # mem_vec_2 at 0 again.
    (core,) = report_at(MEM_LLM, "short.py", 19).cores
    assert core.buffers == BufferAssignment(
        (
            LoadBuffer("tail", 0, "t", "Vec", 0, 65536, 0),
            LoadBuffer("tail", 1, "t", "Vec", 1, 65536, 65536),
            LoadBuffer("tail", 2, "t", "Vec", 0, 65536, 0),
        )
    )


def test_a_space_that_overflows_has_buffers_but_no_addresses():
    # short.py query_and_key_rows: four 64 KB loads in four buffers (the compiler's
    # mem_vec_3..6), then "Vec buffer usage (262144 bytes) exceeds platform limit": the
    # compile stops before any address is given.
    (core,) = report_at(MEM_LLM, "short.py", 32).cores
    assert core.buffers == BufferAssignment(
        (
            LoadBuffer("main", 0, "qi", "Vec", 0, 65536, None),
            LoadBuffer("main", 0, "ki", "Vec", 1, 65536, None),
            LoadBuffer("main", 1, "qi", "Vec", 2, 65536, None),
            LoadBuffer("main", 1, "ki", "Vec", 3, 65536, None),
        )
    )


def test_under_ptoas_the_assignment_says_why_there_is_none():
    (core,) = report_at(MEM_LLM, "short.py", 19, planner="ptoas").cores
    assert core.buffers == BufferAssignment(
        why='memory-planner = "ptoas": pypto runs neither MemoryReuse nor '
        "AllocateMemoryAddr, ptoas places the buffers"
    )


def test_a_loop_the_memory_passes_do_not_model_carries_their_reason_and_no_loads():
    # pipelines.py nested_static: the inner loop is replicated inside a replicated loop.
    (core,) = report_at(LOWER_LLM, "pipelines.py", 179).cores
    assert core.buffers == BufferAssignment(
        why="inside a loop that is replicated or skewed: its groups are not modelled"
    )
