"""Which files a run lints: directories recurse into *.py/*.pyi, minus excludes and .gitignore."""

from __future__ import annotations

from pathlib import Path

import pytest

from skewlsp.cli.files import PathError, discover
from skewlsp.common.settings_resolver import SettingsResolver
from tests.cli.conftest import Run
from tests.cli.helpers import write
from tests.kernels import DEMOTED, SHALLOW


def found(root: Path, *paths: str, force_exclude: bool = False) -> list[str]:
    targets = discover([str(root / p) for p in paths or ["."]], SettingsResolver(),
                       force_exclude=force_exclude)
    return [t.path.relative_to(root.resolve()).as_posix() for t in targets]


def test_directories_recurse_into_py_and_pyi_only(tmp_path: Path) -> None:
    write(tmp_path, {"a.py": "", "b.pyi": "", "c.txt": "", "sub/d.py": ""})
    assert found(tmp_path) == ["a.py", "b.pyi", "sub/d.py"]


def test_default_excludes_skip_virtualenvs_and_build_output(tmp_path: Path) -> None:
    write(tmp_path, {f"{d}/x.py": "" for d in (".venv", "venv", "build", "node_modules",
                                              "__pycache__", ".skewlint_cache", ".git")})
    write(tmp_path, {"src/x.py": ""})
    assert found(tmp_path) == ["src/x.py"]


def test_exclude_and_extend_exclude_globs(tmp_path: Path) -> None:
    write(tmp_path, {
        "skewlint.toml": 'extend-exclude = ["generated", "legacy/*_old.py"]\n',
        "generated/x.py": "", "legacy/a_old.py": "", "legacy/a.py": "", "build/b.py": "",
    })
    assert found(tmp_path) == ["legacy/a.py"]


def test_replacing_exclude_drops_the_defaults(tmp_path: Path) -> None:
    write(tmp_path, {"skewlint.toml": 'exclude = ["legacy"]\n', "build/b.py": "",
                     "legacy/a.py": ""})
    assert found(tmp_path) == ["build/b.py"]


def test_gitignore_is_respected_up_to_the_git_root(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    write(tmp_path, {
        ".gitignore": "ignored_dir/\n*_gen.py\n",
        "pkg/.gitignore": "local.py\n!keep_gen.py\n",
        "pkg/a.py": "", "pkg/b_gen.py": "", "pkg/keep_gen.py": "", "pkg/local.py": "",
        "ignored_dir/c.py": "",
    })
    assert found(tmp_path, "pkg") == ["pkg/a.py", "pkg/keep_gen.py"]
    assert found(tmp_path) == ["pkg/a.py", "pkg/keep_gen.py"]


def test_a_directory_named_explicitly_is_linted_even_if_gitignored(tmp_path: Path) -> None:
    """As ruff does: the rule that ignores the directory is not held against its contents."""
    (tmp_path / ".git").mkdir()
    write(tmp_path, {
        ".gitignore": "vendored/\n*_gen.py\nbuild2/\n",
        "vendored/a.py": "", "vendored/sub/b.py": "", "vendored/c_gen.py": "",
        "vendored/build2/d.py": "", "src/e.py": "",
    })
    assert found(tmp_path) == ["src/e.py"]
    assert found(tmp_path, "vendored") == ["vendored/a.py", "vendored/sub/b.py"]
    assert found(tmp_path, "vendored/sub") == ["vendored/sub/b.py"]


def test_gitignore_outside_a_git_repository_is_not_consulted(tmp_path: Path) -> None:
    write(tmp_path, {".gitignore": "*.py\n", "a.py": ""})
    assert found(tmp_path) == ["a.py"]


def test_explicit_files_are_linted_even_if_excluded(tmp_path: Path) -> None:
    write(tmp_path, {"build/b.py": "", "notes.txt": ""})
    assert found(tmp_path, "build/b.py", "notes.txt") == ["build/b.py", "notes.txt"]


def test_force_exclude_applies_excludes_and_gitignore_to_explicit_files(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    write(tmp_path, {".gitignore": "secret.py\n", "build/b.py": "", "secret.py": "", "a.py": ""})
    assert found(tmp_path, "build/b.py", "secret.py", "a.py", force_exclude=True) == ["a.py"]


def test_duplicates_are_linted_once(tmp_path: Path) -> None:
    write(tmp_path, {"a.py": ""})
    assert found(tmp_path, "a.py", ".", "a.py") == ["a.py"]


def test_explicit_files_are_named_by_their_real_path(tmp_path: Path) -> None:
    write(tmp_path, {"real/k.py": "", "real/sub/j.py": ""})
    (tmp_path / "linked").symlink_to(tmp_path / "real", target_is_directory=True)
    (tmp_path / "alias.py").symlink_to(tmp_path / "real" / "k.py")
    given = ["linked/k.py", "real/sub/../k.py", "alias.py", "linked/sub/j.py"]
    assert found(tmp_path, *given) == ["real/k.py", "real/sub/j.py"]


def test_dot_dot_after_a_symlinked_directory_follows_the_link(tmp_path: Path) -> None:
    write(tmp_path, {"far/away/k.py": "", "far/k.py": "", "k.py": ""})
    (tmp_path / "link").symlink_to(tmp_path / "far" / "away", target_is_directory=True)
    assert found(tmp_path, "link/../k.py") == ["far/k.py"]


def test_a_broken_symlink_is_a_path_error(tmp_path: Path) -> None:
    (tmp_path / "gone.py").symlink_to(tmp_path / "missing.py")
    with pytest.raises(PathError, match="gone.py: no such file"):
        found(tmp_path, "gone.py")


def test_missing_path_is_a_path_error(tmp_path: Path) -> None:
    with pytest.raises(PathError, match="nope: no such file or directory"):
        found(tmp_path, "nope")


def test_force_exclude_through_the_cli(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"build/k.py": SHALLOW})
    assert run("--output-format", "json", "build/k.py").exit_code == 1
    result = run("--force-exclude", "--output-format", "json", "build/k.py")
    assert result.json() == [] and result.exit_code == 0


def test_force_exclude_on_stdin_filename(run: Run) -> None:
    result = run("--force-exclude", "--stdin-filename", "build/k.py", "--output-format", "json",
                 stdin=DEMOTED.encode())
    assert result.json() == []
