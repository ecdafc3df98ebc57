"""``concise``: ``path:line:col: CODE message``, one line each, then a summary."""

from __future__ import annotations

from pathlib import Path

from tests.cli.conftest import Run
from tests.cli.helpers import write
from tests.kernels import DEMOTED, STAGE3


def test_one_line_per_diagnostic_and_a_summary(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"a.py": DEMOTED, "b.py": STAGE3})
    lines = run("--output-format", "concise", ".").out.splitlines()
    assert lines[0].startswith("a.py:8:9: SKW020 loop not skewed: consumer role")
    assert lines[1].startswith("b.py:8:9: SKW001 loop skewed")
    assert lines[2].startswith("b.py:8:39: SKW030 [*] ")  # ruff's mark: --fix fixes it
    # a.py's consumer has no loop on the other core in its module: information.
    assert lines[3] == "Found 3 diagnostics (2 information, 1 hint)."
    assert lines[4] == "[*] 1 fixable with the `--fix` option."


def test_nothing_found(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"a.py": "x = 1\n"})
    assert run("--output-format", "concise", ".").out == "No diagnostics in 1 file.\n"
