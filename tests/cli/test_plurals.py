"""Counts in the singular read in the singular: "1 iteration", "2 warnings", "1 time"."""

from __future__ import annotations

import re
from pathlib import Path

from tests.cli.conftest import Run
from tests.cli.helpers import DEMOTED, SKEWED, write

# A count of one followed by a plural noun ("1 iterations", "1 times", "1 copies").
ONE_PLURAL = re.compile(r"(?<![\d.])1 (?:[a-z]+s|copies|pushes)\b")

LEFT_STAGE1 = SKEWED.replace("stage=2", "stage=1").replace(
    "            pl.tile.tpush_to_aiv(qa, split=0)\n"
    "            e: pl.Tile[[16, 64], pl.FP32] = pl.tile.tpop_from_aiv(split=0)\n"
    "            pl.tile.store(e, [i * 16, 0], out)\n",
    "            pl.tile.store(qa, [i * 16, 0], out)\n",
)


def test_the_schedule_line_says_1_iteration(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"a.py": SKEWED})  # trip 4, depth 2: one steady iteration
    out = run("--no-cache", "a.py").out
    assert "schedule: prologue 2, steady 1 x 2 (1 iteration of 2 produces + 2 consumes)" in out
    # trip 2 with stage=3: depth 1, one steady iteration of one produce and one consume
    write(tmp_path, {"a.py": SKEWED.replace("(0, 4, 1, stage=2)", "(0, 2, 1, stage=3)")})
    out = run("--no-cache", "a.py").out
    assert "(1 iteration of 1 produce + 1 consume)" in out
    assert not ONE_PLURAL.search(out), out


def test_the_summary_counts_severities_in_the_plural(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"a.py": DEMOTED, "b.py": DEMOTED, "c.py": SKEWED})
    out = run("--no-cache", "--output-format", "concise", ".").out
    assert out.splitlines()[-1] == "Found 3 diagnostics (2 warnings, 1 information)."
    write(tmp_path, {"b.py": "x = 1\n", "c.py": "x = 1\n"})
    out = run("--no-cache", "--output-format", "concise", ".").out
    assert out.splitlines()[-1] == "Found 1 diagnostic (1 warning)."


def test_a_stage_1_left_loop_is_replicated_1_time(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"a.py": LEFT_STAGE1})
    out = run("--no-cache", "--extend-select", "SKW010", "a.py").out
    assert "SKW010" in out and "replicates the body 1 time" in out
    assert not ONE_PLURAL.search(out), out
    refused = run("preview", "a.py:8")
    assert refused.exit_code == 2 and "replicates the body 1 time;" in refused.err
    assert not ONE_PLURAL.search(refused.err), refused.err
