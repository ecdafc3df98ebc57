"""The suite's own pytest options: every core by default, and ``-p no:xdist`` still accepted.

Each test runs pytest in a subprocess with the project's ``pyproject.toml`` and the hook of
``tests/conftest.py`` on a one-test folder.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _pytest(tmp_path: Path, *options: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test_one.py").write_text("def test_one():\n    assert 1 + 1 == 2\n")
    return subprocess.run(
        [
            sys.executable, "-m", "pytest",
            "-c", str(ROOT / "pyproject.toml"), "--rootdir", str(tmp_path),
            "-p", "tests.conftest", "-p", "no:cacheprovider",
            *options, str(tmp_path),
        ],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_without_xdist_the_default_options_are_accepted(tmp_path: Path) -> None:
    result = _pytest(tmp_path, "-p", "no:xdist")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed" in result.stdout
    assert "worker" not in result.stdout


@pytest.mark.slow  # starts two interpreters and their workers
def test_with_xdist_the_default_run_starts_workers(tmp_path: Path) -> None:
    result = _pytest(tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "created: " in result.stdout
    assert "1 passed" in result.stdout
