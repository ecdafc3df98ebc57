"""Peak memory on a huge loop-free module stays within 3x ruff's (issue 18).

A 15 MB module holding one 2-million-element list and the word "pipeline" in a
comment once took 2.2 GB (the list became a stdlib tree), against ruff's ~300 MB.
Each tool runs under its own wrapper process, whose RUSAGE_CHILDREN peak is that
tool's largest process.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
ELEMENTS = 2_000_000
MEASURE = (
    "import resource, subprocess, sys\n"
    "done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)\n"
    "sys.stderr.write(done.stderr.decode())\n"
    "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
)


def _write_table(path: Path) -> None:
    with path.open("w", encoding="utf-8") as out:
        out.write("# a lookup table, not a pipeline kernel\nDATA = [\n")
        for start in range(0, ELEMENTS, 10):
            out.write("    " + " ".join(f"{(start + j) % 100000}," for j in range(10)) + "\n")
        out.write("]\n")


def _peak_kb(*command: str) -> tuple[int, int]:
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, *command], capture_output=True, text=True, check=True
    )
    code, peak = done.stdout.split()
    return int(code), int(peak)


@pytest.mark.slow
def test_peak_memory_within_three_times_ruff(tmp_path: Path) -> None:
    module = tmp_path / "table.py"
    _write_table(module)
    assert 14_000_000 < module.stat().st_size < 16_000_000
    code, ours = _peak_kb(str(BIN / "skewlint"), "--no-cache", "--isolated", str(module))
    assert code == 0
    ruff_code, ruff = _peak_kb(
        str(BIN / "ruff"), "check", "--no-cache", "--isolated", "--exit-zero", str(module)
    )
    assert ruff_code == 0
    assert ours <= 3 * ruff, f"skewlint peak {ours // 1024} MB, ruff {ruff // 1024} MB"
