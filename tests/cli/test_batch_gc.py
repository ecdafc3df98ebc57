"""The linter process collects garbage rarely; a host process that imports the CLI does not."""

from __future__ import annotations

import gc
import subprocess
import sys

import pytest

from skewlsp.cli import runner
from skewlsp.cli.batch_gc import YOUNG_THRESHOLD


def _child(code: str) -> str:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()


def test_the_console_entry_point_tunes_the_collector_for_a_batch() -> None:
    code = (
        "import gc, sys\n"
        "sys.argv = ['skewlint', '--version']\n"
        "import skewlsp.cli\n"
        "def stay(code):\n    raise SystemExit(code)\n"
        "skewlsp.cli._terminate = stay  # (the real one ends the process before the print)\n"
        "try:\n    skewlsp.cli.main()\nexcept SystemExit:\n    pass\n"
        "print(gc.get_threshold()[0], gc.get_freeze_count() > 0)\n"
    )
    assert _child(code).splitlines()[-1] == f"{YOUNG_THRESHOLD} True"


def test_importing_the_cli_leaves_the_collector_alone() -> None:
    code = "import gc\nimport skewlsp.cli.app, skewlsp.cli.runner\nprint(gc.get_threshold()[0])"
    assert _child(code) == str(gc.get_threshold()[0])


@pytest.mark.skipif(sys.platform != "linux", reason="workers are forked on Linux only")
def test_workers_are_forked_on_linux_and_the_parent_is_left_unfrozen() -> None:
    assert runner._start_method() == "fork"
    before = gc.get_freeze_count()
    pool = runner._Pool.start(2)
    assert pool is not None
    try:
        assert gc.get_freeze_count() == before
    finally:
        pool.close()
