"""The pre-commit hook, run for real with ``pre-commit try-repo`` against a throwaway repo.

The hook repository is a fresh git repo holding a copy of this project (so the
test does not depend on the state of the checkout), and pre-commit builds the
hook's environment from it with pip, as it would for a user.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.kernels import DEMOTED, FOR_LINE, SHALLOW, SKEWED

PROJECT = Path(__file__).resolve().parents[2]
PRE_COMMIT = Path(sys.executable).with_name("pre-commit")
FOR = DEMOTED.splitlines()[FOR_LINE]  # the `for` line, as every named kernel has it

# The hook's environment is built once per module (one PRE_COMMIT_HOME, one hook repo at one
# commit), ~10 s; each further try-repo reuses it (~5 s). The slow tier runs them. pre-commit
# is a test dependency: without it these fail rather than skip.


def git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=test@example.com", "-c", "user.name=test",
         "-c", "commit.gpgsign=false", *args],
        cwd=cwd, check=True, capture_output=True,
    )


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo = tmp_path_factory.mktemp("hook-repo")
    for name in ("pyproject.toml", ".pre-commit-hooks.yaml", "README.md"):
        if (PROJECT / name).exists():
            shutil.copy(PROJECT / name, repo / name)
    shutil.copytree(PROJECT / "skewlsp", repo / "skewlsp",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "hook")
    return repo


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pre-commit-home")


def try_repo(hook_repo: Path, home: Path, work: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "NO_COLOR": "1"}
    env.pop("SKEWLINT_OUTPUT_FORMAT", None)
    return subprocess.run(
        [str(PRE_COMMIT), "try-repo", str(hook_repo), "skewlint", "--all-files"],
        cwd=work, env=env, capture_output=True, text=True, timeout=600,
    )


def kernel_repo(root: Path, source: str) -> Path:
    root.mkdir()
    (root / "kernel.py").write_text(source)
    (root / "README.txt").write_text("not python: the hook must not see it\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    return root


@pytest.mark.slow
def test_hook_fails_on_a_shallow_loop_and_passes_once_suppressed(
    hook_repo: Path, pre_commit_home: Path, tmp_path: Path
) -> None:
    # (A lone vector consumer, DEMOTED, is information now: its producer is elsewhere.)
    failing = try_repo(hook_repo, pre_commit_home, kernel_repo(tmp_path / "a", SHALLOW))
    assert failing.returncode == 1, failing.stdout + failing.stderr
    assert "kernel.py:8:9: SKW002" in failing.stdout

    line = SHALLOW.splitlines()[FOR_LINE]
    suppressed = SHALLOW.replace(line, line + "  # skewlint: ignore[SKW002]")
    passing = try_repo(hook_repo, pre_commit_home, kernel_repo(tmp_path / "b", suppressed))
    assert passing.returncode == 0, passing.stdout + passing.stderr
    assert "skewlint" in passing.stdout and "Passed" in passing.stdout


@pytest.mark.slow
def test_hook_passes_once_the_loop_is_fixed(
    hook_repo: Path, pre_commit_home: Path, tmp_path: Path
) -> None:
    passing = try_repo(hook_repo, pre_commit_home, kernel_repo(tmp_path / "c", SKEWED))
    assert passing.returncode == 0, passing.stdout + passing.stderr


def test_hook_manifest_matches_the_documented_contract() -> None:
    text = (PROJECT / ".pre-commit-hooks.yaml").read_text()
    for line in ("- id: skewlint", "entry: skewlint --force-exclude", "language: python",
                 "types_or: [python, pyi]", "require_serial: true"):
        assert line in text
