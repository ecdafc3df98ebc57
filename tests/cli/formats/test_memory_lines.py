"""The buffers MemoryReuse gives a replicated loop's loads (issue #41), in `json` and
`full`: per core copy, per memory space, and the compiler's diagnostic a code predicts."""

from __future__ import annotations

from pathlib import Path

from tests.cli.conftest import Run
from tests.cli.helpers import write

MEM_LLM = Path(__file__).resolve().parents[2] / "fixtures" / "memory" / "models" / "mem_llm"


def kernels(tmp_path: Path) -> None:
    write(tmp_path, {name: (MEM_LLM / name).read_text() for name in ("config.py", "short.py")})


def test_json_carries_each_core_copy_s_buffers_and_the_compiler_s_diagnostic_id(
    run: Run, tmp_path: Path
) -> None:
    kernels(tmp_path)
    found = run("--output-format", "json", "--select", "ALL", "short.py").json()
    by_code = {item["code"]: item for item in found}
    assert by_code["SKW080"]["compiler_id"] == "PH-MR-001"
    assert by_code["SKW081"]["compiler_id"] == "AllocateMemoryAddr"
    assert by_code["SKW081"]["severity"] == "error"
    (core,) = by_code["SKW014"]["cores"]
    assert core["memory"] == [
        {
            "space": "Vec",
            "stage_bytes": 65536,
            "requested": 3,
            "achieved": 2,
            "cause": "slot-bound",
            "known": True,
            "reason": None,
        }
    ]
    assert by_code["SKW014"]["compiler_id"] is None


def test_full_says_what_is_known_and_what_is_not(run: Run, tmp_path: Path) -> None:
    kernels(tmp_path)
    out = run("--select", "ALL", "short.py").out
    assert "= memory (aiv): Vec: at most 2 of 3 buffers per load (65536 B per stage, slot-bound)" in out
    assert "= memory (aiv): Vec: the loads of 2 stages overflow it (65536 B per stage): the compile stops" in out
    write(tmp_path, {"fit.py": (MEM_LLM / "vector.py").read_text(), "helpers.py": (MEM_LLM / "helpers.py").read_text()})
    fits = run("--select", "ALL", "fit.py").out
    assert (
        "= memory (aiv): Vec: all 2 buffers per load kept (32768 B per stage; every Vec tile "
        "of the function packed)"
    ) in fits
    assert (
        "= memory (aiv): Vec: 2 of 4 buffers per load (32768 B per stage, space-pressure: "
        "the function's other tiles take the space)"
    ) in run("--select", "ALL", "helpers.py").out
    write(tmp_path, {"blocks.py": (MEM_LLM / "blocks.py").read_text()})
    assert (
        "= memory (aiv): Vec: 1 of 2 buffers per load (49152 B per stage, space-pressure: "
        "the function's other tiles take the space); the IR still keeps each stage's "
        "largest tiles in buffers of their own, 2 stages apart"
    ) in run("--select", "ALL", "blocks.py").out
    lowering = MEM_LLM.parents[2] / "lowering" / "models" / "lower_llm"
    write(tmp_path, {name: (lowering / name).read_text() for name in ("config.py", "pipelines.py")})
    unknown = run("--select", "ALL", "pipelines.py").out
    assert (
        "fits alone; the function's other Vec tiles are not known: a pipeline loop of the "
        "function whose trip is known only at run time"
    ) in unknown


def test_a_hint_s_json_fix_is_its_own_not_the_advice_of_the_loop_it_sits_on(
    run: Run, tmp_path: Path
) -> None:
    kernels(tmp_path)
    found = run("--output-format", "json", "--select", "ALL", "short.py").json()
    by_code = {item["code"]: item for item in found}
    assert by_code["SKW014"]["fix"].startswith("stage=3 gives the same 3 copies")
    assert by_code["SKW080"]["fix"] is None
    assert by_code["SKW080"]["fix_applicability"] is None


def test_a_memory_finding_s_short_line_is_its_numbers_and_its_message_says_the_rest(
    run: Run, tmp_path: Path
) -> None:
    names = ("config.py", "norm.py", "short.py")
    write(tmp_path, {name: (MEM_LLM / name).read_text() for name in names})
    found = run("--output-format", "json", "--select", "ALL", "norm.py", "short.py").json()
    at = {(item["filename"], item["line"], item["code"]): item for item in found}
    pressure = at[("norm.py", 25, "SKW080")]
    assert pressure["headline"] == (
        "PH-MR-001: only 1 of 4 stage buffers fit in Vec on the AIV core "
        "(space-pressure, 32768 B per stage)"
    )
    assert pressure["message"].startswith("PH-MR-001: MemoryReuse keeps only 1 of the 4 stages'")
    assert at[("short.py", 32, "SKW082")]["headline"] == (
        "MemoryReuse fits Vec on the AIV core at no depth: it falls back to its legacy packing"
    )


def test_full_says_a_k_loop_s_two_depths_where_the_ir_keeps_more_than_its_hint(
    run: Run, tmp_path: Path
) -> None:
    # cube.py full (line 32): the compiler's PH-MR-001 gives the K loop (group 0) 1 of 2
    # in Right, and its IR keeps the two K halves in two buffers (mem_right_9, _11).
    write(tmp_path, {name: (MEM_LLM / name).read_text() for name in ("config.py", "cube.py")})
    assert (
        "packed); Right: 1 of 2 buffers per load (32768 B per stage, space-pressure: "
        "the function's other tiles take the space); its K loop for `matmul(x[...], wj)`: "
        "1 of 2 stages kept apart (32768 B per stage, space-pressure); the IR still keeps "
        "each stage's largest tiles in buffers of their own, 2 stages apart"
    ) in run("--select", "ALL", "cube.py").out
