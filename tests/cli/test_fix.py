"""``--fix`` and ``--diff``: the safe fixes (SKW030: lower the stage; SKW901: delete an
unused suppression), applied or shown, as ruff does."""

from __future__ import annotations

from pathlib import Path

from tests.cli.conftest import Run
from tests.cli.helpers import write
from tests.kernels import STAGE3

UNUSED = "x = 1  # skewlint: ignore[SKW021]\n"


def test_diff_shows_the_fixes_and_writes_nothing(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"k.py": STAGE3 + UNUSED})
    result = run("--no-cache", "--diff", "k.py")
    assert result.exit_code == 1
    assert "-        for i in pl.pipeline(0, 8, 1, stage=3):\n" in result.out
    assert "+        for i in pl.pipeline(0, 8, 1, stage=2):\n" in result.out
    assert "-x = 1  # skewlint: ignore[SKW021]\n+x = 1\n" in result.out
    assert result.err == "Would fix 2 issues.\n"
    assert (tmp_path / "k.py").read_text() == STAGE3 + UNUSED


def test_diff_without_fixes_exits_0_and_says_so(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"k.py": STAGE3.replace("stage=3", "stage=2")})
    result = run("--no-cache", "--diff", "k.py")
    assert (result.exit_code, result.out, result.err) == (0, "", "No fixes available.\n")


def test_fix_writes_the_file_and_reports_what_remains(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"k.py": STAGE3 + UNUSED})
    result = run("--fix", "--output-format", "concise", "k.py")
    assert (tmp_path / "k.py").read_text() == STAGE3.replace("stage=3", "stage=2") + "x = 1\n"
    assert result.err == "Fixed 2 issues.\n"
    assert "SKW030" not in result.out and "SKW901" not in result.out
    assert "k.py:8:9: SKW001" in result.out
    assert result.exit_code == 0


def test_fix_keeps_the_codes_that_still_hide_something(run: Run, tmp_path: Path) -> None:
    kernel = STAGE3.replace(
        "for i in pl.pipeline(0, 8, 1, stage=3):",
        "for i in pl.pipeline(0, 8, 1, stage=3):  # skewlint: ignore[SKW001, SKW021]",
    )
    write(tmp_path, {"k.py": kernel})
    run("--fix", "k.py")
    fixed = (tmp_path / "k.py").read_text()
    assert "# skewlint: ignore[SKW001]" in fixed and "stage=2" in fixed


def test_fix_and_diff_refuse_stdin(run: Run, tmp_path: Path) -> None:
    assert run("--fix", "-", stdin=b"x = 1\n").exit_code == 2
    assert run("--diff", "-", stdin=b"x = 1\n").exit_code == 2


def test_fix_with_diff_shows_the_diff_and_writes_nothing(run: Run, tmp_path: Path) -> None:
    """ruff's ``check --fix --diff`` is ``--diff``: the diff of the fixes, nothing written,
    exit 1 when there would be changes (0 when there are none)."""
    write(tmp_path, {"k.py": STAGE3 + UNUSED})
    both = run("--no-cache", "--fix", "--diff", "k.py")
    alone = run("--no-cache", "--diff", "k.py")
    assert (both.exit_code, both.out, both.err) == (alone.exit_code, alone.out, alone.err)
    assert both.exit_code == 1 and "+        for i in pl.pipeline(0, 8, 1, stage=2):\n" in both.out
    assert (tmp_path / "k.py").read_text() == STAGE3 + UNUSED
    write(tmp_path, {"k.py": STAGE3.replace("stage=3", "stage=2")})
    clean = run("--no-cache", "--fix", "--diff", "k.py")
    assert (clean.exit_code, clean.out, clean.err) == (0, "", "No fixes available.\n")
