"""The console entry point ends its process without tearing the interpreter down: what
it wrote must all be out by then, and its status must be the run's."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.cli.helpers import write
from tests.kernels import DEMOTED, SKEWED

KERNELS = 100  # enough reports that the JSON is far larger than a pipe's buffer


def _skewlint(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # (block-buffered output, as a pipe gets by default: what a flush must write out)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    env["NO_COLOR"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "skewlsp.cli", "--no-cache", *args],
        capture_output=True, text=True, cwd=root, env=env, timeout=300, check=False,
    )


def test_every_report_reaches_a_pipe_before_the_process_ends(tmp_path: Path) -> None:
    root = write(
        tmp_path,
        {
            "pyproject.toml": "[tool.skewlint]\n",
            **{f"k{n:02d}.py": (DEMOTED if n % 2 else SKEWED) for n in range(KERNELS)},
        },
    )
    done = _skewlint(root, "--select", "ALL", "--output-format", "json", ".")
    reports = json.loads(done.stdout)
    assert len(done.stdout) > 65_536
    assert sorted({r["filename"] for r in reports}) == [f"k{n:02d}.py" for n in range(KERNELS)]
    # Half the kernels demote a loop (SKW020), information (the producer is elsewhere).
    assert sum(r["code"] == "SKW020" for r in reports) == KERNELS // 2
    assert done.returncode == 0


def test_a_clean_run_ends_with_status_zero_and_its_summary(tmp_path: Path) -> None:
    root = write(tmp_path, {"pyproject.toml": "[tool.skewlint]\n", "k.py": SKEWED})
    done = _skewlint(root, "--output-format", "concise", "k.py")
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.splitlines() == [
        "k.py:8:9: SKW001 loop skewed: producer runs 2 iterations ahead (trip 8, stage 2)",
        "Found 1 diagnostic (1 information).",
    ]
