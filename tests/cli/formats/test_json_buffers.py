"""``--output-format json``: which copy's load is in which buffer (``buffers``), per core
copy, as pypto e2d0f78ae assigned them in tests/fixtures/memory/models/mem_llm/short.py
(its MemRefs after MemoryReuse and AllocateMemoryAddr, recorded by
benchmarks/compiler_check.py --save-probe)."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.cli.conftest import Run

MEM_LLM = Path(__file__).resolve().parents[2] / "fixtures" / "memory" / "models" / "mem_llm"


def test_each_core_copy_says_which_copy_uses_which_buffer(run: Run, tmp_path: Path) -> None:
    shutil.copytree(MEM_LLM, tmp_path / "mem_llm")
    found = run("--select", "ALL", "--output-format", "json", "mem_llm/short.py").json()
    (loop,) = [item for item in found if item["line"] == 19 and item["kind"] == "loop"]
    # the compiler: copy 0's load in mem_vec_2 at 0, copy 1's in mem_vec_4 at 65536, copy
    # 2's in mem_vec_2 again ("only 2 of 3 buffers fit")
    assert loop["cores"][0]["buffers"] == {
        "loads": [
            {"region": "tail", "copy": 0, "load": "t", "space": "Vec", "buffer": 0,
             "bytes": 65536, "offset": 0},
            {"region": "tail", "copy": 1, "load": "t", "space": "Vec", "buffer": 1,
             "bytes": 65536, "offset": 65536},
            {"region": "tail", "copy": 2, "load": "t", "space": "Vec", "buffer": 0,
             "bytes": 65536, "offset": 0},
        ],
        "why": None,
    }
    assert loop["buffers"] is None  # a loop split by core has its copies' only
