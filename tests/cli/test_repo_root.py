"""The root machine formats are relative to: GITHUB_WORKSPACE, CI_PROJECT_DIR, git root, cwd."""

from __future__ import annotations

from pathlib import Path

from skewlsp.cli.files import rebase_patterns
from skewlsp.cli.repo_root import relative_to_root, repository_root


def test_order_of_precedence(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    sub = repo / "a" / "b"
    sub.mkdir(parents=True)
    assert repository_root(sub, {}) == repo
    assert repository_root(sub, {"CI_PROJECT_DIR": str(tmp_path)}) == tmp_path
    both = {"CI_PROJECT_DIR": str(tmp_path), "GITHUB_WORKSPACE": str(repo / "a")}
    assert repository_root(sub, both) == repo / "a"
    assert repository_root(sub, {"GITHUB_WORKSPACE": str(tmp_path / "missing")}) == repo
    (tmp_path / "plain").mkdir()
    assert repository_root(tmp_path / "plain", {}) == tmp_path / "plain"


def test_relative_to_root(tmp_path: Path) -> None:
    cwd = tmp_path / "repo" / "sub"
    assert relative_to_root("k.py", tmp_path / "repo", cwd) == "sub/k.py"
    assert relative_to_root("../x/k.py", tmp_path / "repo", cwd) == "x/k.py"
    assert relative_to_root(str(tmp_path / "other.py"), tmp_path / "repo", cwd) is None
    assert relative_to_root("-", tmp_path, tmp_path) is None


def test_command_line_patterns_are_rebased_onto_the_settings_root(tmp_path: Path) -> None:
    root, cwd = tmp_path, tmp_path / "src"
    assert rebase_patterns(["build", "gen/", "*.pyi", "!keep.py"], cwd, root) == (
        "build", "gen/", "*.pyi", "!keep.py"
    )
    assert rebase_patterns(["gen/a.py", "gen/deep/", "/top.py"], cwd, root) == (
        "/src/gen/a.py", "/src/gen/deep/", "/src/top.py"
    )
    assert rebase_patterns(["../../elsewhere/x.py"], cwd, root) == ()
