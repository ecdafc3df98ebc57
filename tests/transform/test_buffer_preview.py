"""The preview of a replicated loop says, before the lowered loop, which buffer each copy's
loads use: the space, the buffer's number, the load's bytes and where AllocateMemoryAddr
puts it, and which copies of one stage group share storage when MemoryReuse keeps fewer
buffers apart than the stages ask. Where the memory passes do not model the loop, one
line says why. The numbers are pypto e2d0f78ae's for tests/fixtures/memory/models/mem_llm
(its MemRefs after MemoryReuse and AllocateMemoryAddr, recorded by
benchmarks/compiler_check.py --save-probe)."""

from __future__ import annotations

from pathlib import Path

from skewlsp.api import preview
from skewlsp.common.resolver import RecordingResolver

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
MEM_LLM = FIXTURES / "memory" / "models" / "mem_llm"
LOWER_LLM = FIXTURES / "lowering" / "models" / "lower_llm"


def rewritten(folder: Path, file: str, line: int, planner: str = "pypto") -> str:
    path = folder / file
    found = preview(
        path.read_text(),
        line,
        path=str(path),
        resolver=RecordingResolver((folder,)),
        planner=planner,
    )
    return found.rewritten


def test_copies_that_share_a_buffer_are_named_above_the_lowered_loop():
    # short.py short_context_rows: three remainder copies of a 64 KB load, only two
    # buffers fit; the compiler put copies 0 and 2 in mem_vec_2 at 0, copy 1 in mem_vec_4
    # at 65536.
    text = rewritten(MEM_LLM, "short.py", 19)
    assert text.startswith(
        "        # buffers of the loads on the vector (AIV) core (MemoryReuse,"
        " AllocateMemoryAddr):\n"
        "        #   remainder copy 0: t in Vec buffer 0 (65536 B at offset 0)\n"
        "        #   remainder copy 1: t in Vec buffer 1 (65536 B at offset 65536)\n"
        "        #   remainder copy 2: t in Vec buffer 0 (65536 B at offset 0)\n"
        "        #   remainder copies 0 and 2 share Vec buffer 0: their stages serialize\n"
        "        #   offsets as the loads alone take the space; the function's other tiles"
        " (not modelled) move them\n"
        "        # remainder copy 0: i = 0\n"
    )


def test_each_clone_of_the_main_loop_lists_its_loads_buffers():
    # cube.py right_operand_per_stage: the compiler's Mat MemRefs mem_mat_3 (wj, copy 0)
    # at 0, mem_mat_4 (x, copy 0) at 32768, mem_mat_5 at 36864, mem_mat_6 at 69632.
    text = rewritten(MEM_LLM, "cube.py", 19)
    assert text.startswith(
        "        # buffers of the loads on the cube (AIC) core (MemoryReuse,"
        " AllocateMemoryAddr):\n"
        "        #   copy 0: wj in Mat buffer 0 (32768 B at offset 0), x[...] in Mat buffer 1"
        " (4096 B at offset 32768)\n"
        "        #   copy 1: wj in Mat buffer 2 (32768 B at offset 36864), x[...] in Mat"
        " buffer 3 (4096 B at offset 69632)\n"
        "        #   offsets as the loads alone take the space; the function's other tiles"
        " (not modelled) move them\n"
        "        for j in pl.pipeline(0, 4, 2, stage=1):\n"
    )


def test_loads_that_overflow_their_space_have_buffers_but_no_offset():
    # short.py query_and_key_rows: four 64 KB buffers; AllocateMemoryAddr stops the
    # compile ("Vec buffer usage (262144 bytes) exceeds platform limit").
    text = rewritten(MEM_LLM, "short.py", 32)
    assert text.startswith(
        "        # buffers of the loads on the vector (AIV) core (MemoryReuse,"
        " AllocateMemoryAddr):\n"
        "        #   copy 0: qi in Vec buffer 0 (65536 B), ki in Vec buffer 1 (65536 B)\n"
        "        #   copy 1: qi in Vec buffer 2 (65536 B), ki in Vec buffer 3 (65536 B)\n"
        "        #   no offsets: the loads overflow Vec and AllocateMemoryAddr stops the"
        " compile\n"
        "        for i in pl.pipeline(0, 4, 2, stage=1):\n"
    )


def test_a_loop_the_memory_passes_do_not_model_says_why_in_one_line():
    # pipelines.py nested_static: the inner loop is replicated inside a replicated loop.
    text = rewritten(LOWER_LLM, "pipelines.py", 179)
    assert text.startswith(
        "            # buffers of the loads on the vector (AIV) core: not modelled (inside a"
        " loop that is replicated or skewed: its groups are not modelled)\n"
        "            for j in pl.pipeline(0, 2, 2, stage=1):\n"
    )


def test_under_ptoas_the_preview_says_the_buffers_are_ptoas_s():
    text = rewritten(MEM_LLM, "short.py", 19, planner="ptoas")
    assert text.startswith(
        "        # buffers of the loads on the vector (AIV) core: not modelled"
        " (memory-planner = \"ptoas\": pypto runs neither MemoryReuse nor AllocateMemoryAddr, ptoas places the buffers)\n"
    )
