"""Counts in the singular read in the singular: "1 iteration", "2 warnings", "1 copy"."""

from __future__ import annotations

import re
from pathlib import Path

from tests.cli.conftest import Run
from tests.cli.helpers import write
from tests.kernels import LOCAL, PRODUCER, SHALLOW, SKEWED, kernel

# A count of one followed by a plural noun ("1 iterations", "1 times", "1 copies"); not a
# value such as "stage=1 gives".
ONE_PLURAL = re.compile(r"(?<![\d.=])1 (?:[a-z]+s|copies|pushes)\b")

SKEWED_TRIP4 = kernel(PRODUCER, "pl.pipeline(0, 4, 1, stage=2)")


def test_the_schedule_line_says_1_iteration(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"a.py": SKEWED_TRIP4})  # trip 4, depth 2: one steady iteration
    out = run("--no-cache", "a.py").out
    assert "schedule: prologue 2, steady 1 x 2 (1 iteration of 2 produces + 2 consumes)" in out
    # trip 2 with stage=3: depth 1, one steady iteration of one produce and one consume
    write(tmp_path, {"a.py": SKEWED_TRIP4.replace("(0, 4, 1, stage=2)", "(0, 2, 1, stage=3)")})
    out = run("--no-cache", "a.py").out
    assert "(1 iteration of 1 produce + 1 consume)" in out
    assert not ONE_PLURAL.search(out), out


def test_the_summary_counts_severities_in_the_plural(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"a.py": SHALLOW, "b.py": SHALLOW, "c.py": SKEWED})
    out = run("--no-cache", "--output-format", "concise", ".").out
    assert out.splitlines()[-1] == "Found 3 diagnostics (2 warnings, 1 information)."
    write(tmp_path, {"b.py": "x = 1\n", "c.py": "x = 1\n"})
    out = run("--no-cache", "--output-format", "concise", ".").out
    assert out.splitlines()[-1] == "Found 1 diagnostic (1 warning)."


def test_a_stage_2_loop_that_runs_once_is_1_copy(run: Run, tmp_path: Path) -> None:
    # Trip 1 below stage=2 (SKW014): no main loop, the one copy written out, one buffer.
    write(tmp_path, {"a.py": kernel(LOCAL, "pl.pipeline(0, 1, 1, stage=2)", target="k")})
    out = run("--no-cache", "a.py").out
    assert "SKW014" in out and "stage=2 but the loop runs once: 1 copy written out" in out
    assert "asking 1 buffer per load" in out
    assert not ONE_PLURAL.search(out), out
    previewed = run("preview", "a.py:8")
    assert previewed.exit_code == 0 and "pl.pipeline" not in previewed.out
    assert not ONE_PLURAL.search(previewed.out), previewed.out


def test_one_main_loop_iteration_and_one_remainder_copy_read_in_the_singular(
    run: Run, tmp_path: Path
) -> None:
    # Trip 3 at stage=2 (SKW012): a main loop of 3 // 2 = 1 iteration, then 3 % 2 = 1 copy.
    write(tmp_path, {"a.py": kernel(LOCAL, "pl.pipeline(0, 3, 1, stage=2)", target="k")})
    out = run("--no-cache", "--extend-select", "SKW012", "a.py").out
    assert "SKW012" in out and "main loop 0..2 step 2 (1 iteration)" in out
    assert "then 1 copy after it (asking 1 buffer per load)" in out
    assert not ONE_PLURAL.search(out), out
