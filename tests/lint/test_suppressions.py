"""``# skewlint: ignore[...]`` / ``file-ignore[...]`` comments, and SKW901 for unused ones."""

from __future__ import annotations

from pathlib import Path

from skewlsp.lint.suppressions import parse_suppressions
from tests.lint.conftest import Run
from tests.lint.helpers import DEMOTED, SKEWED, STAGE3, write

FOR = "        for i in pl.pipeline(0, 4, 1, stage=2):"


def lint(run: Run, tmp_path: Path, source: str) -> list[tuple[str, int]]:
    write(tmp_path, {"k.py": source})
    return [(i["code"], i["line"]) for i in run("--output-format", "json", "k.py").json()]


def test_parse_codes_and_bare_forms() -> None:
    found = parse_suppressions(
        "x = 1  # skewlint: ignore[SKW020, SKW021]\n"
        "# skewlint: file-ignore\n"
        "s = '# skewlint: ignore'\n"  # inside a string: not a comment
        "y = 2  #skewlint:ignore\n"
    )
    assert [(s.line, s.file_level, s.codes) for s in found] == [
        (1, False, ("SKW020", "SKW021")), (2, True, ()), (4, False, ()),
    ]
    assert found[0].column == 8


def test_parse_survives_broken_code() -> None:
    found = parse_suppressions("def f(:\n    x = '''  # skewlint: ignore[SKW020]\n")
    assert [s.codes for s in found] == [("SKW020",)]


def test_ignore_on_the_for_line(run: Run, tmp_path: Path) -> None:
    source = DEMOTED.replace(FOR, FOR + "  # skewlint: ignore[SKW020]")
    assert lint(run, tmp_path, source) == []


def test_ignore_on_the_line_before(run: Run, tmp_path: Path) -> None:
    source = DEMOTED.replace(FOR, "        # skewlint: ignore[SKW020]\n" + FOR)
    assert lint(run, tmp_path, source) == []


def test_bare_ignore_hides_every_code_of_the_loop(run: Run, tmp_path: Path) -> None:
    stage3_for = FOR.replace("stage=2", "stage=3")
    source = STAGE3.replace(stage3_for, stage3_for + "  # skewlint: ignore")
    assert lint(run, tmp_path, source) == []


def test_ignore_of_another_code_hides_nothing_and_is_reported(run: Run, tmp_path: Path) -> None:
    source = DEMOTED.replace(FOR, FOR + "  # skewlint: ignore[SKW021]")
    assert lint(run, tmp_path, source) == [("SKW020", 8), ("SKW901", 8)]


def test_partly_used_suppression_reports_only_the_unused_codes(
    run: Run, tmp_path: Path
) -> None:
    write(tmp_path, {"k.py": DEMOTED.replace(FOR, FOR + "  # skewlint: ignore[SKW020,SKW021]")})
    [item] = run("--output-format", "json", "k.py").json()
    assert item["code"] == "SKW901" and item["kind"] == "suppression"
    assert "SKW021 not reported here" in item["message"] and "SKW020" not in item["message"]
    assert item["severity"] == "warning" and item["verdict"] is None


def test_unknown_code_in_a_suppression_is_reported(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"k.py": DEMOTED.replace(FOR, FOR + "  # skewlint: ignore[SKW020,SKW999]")})
    [item] = run("--output-format", "json", "k.py").json()
    assert "unknown code SKW999" in item["message"]


def test_a_comment_on_a_code_line_before_the_loop_does_not_apply(
    run: Run, tmp_path: Path
) -> None:
    source = DEMOTED.replace(FOR, "        x = 1  # skewlint: ignore[SKW020]\n" + FOR)
    assert lint(run, tmp_path, source) == [("SKW901", 8), ("SKW020", 9)]


def test_file_ignore_anywhere(run: Run, tmp_path: Path) -> None:
    assert lint(run, tmp_path, DEMOTED + "# skewlint: file-ignore[SKW02]\n") == [
        ("SKW020", 8), ("SKW901", 13)  # a prefix is not a code: only exact codes suppress
    ]
    assert lint(run, tmp_path, DEMOTED + "# skewlint: file-ignore[SKW020]\n") == []
    assert lint(run, tmp_path, "# skewlint: file-ignore\n" + DEMOTED) == []


def test_unused_file_ignore_is_reported(run: Run, tmp_path: Path) -> None:
    assert lint(run, tmp_path, "# skewlint: file-ignore[SKW020]\n" + SKEWED) == [
        ("SKW901", 1), ("SKW001", 9)
    ]
    assert lint(run, tmp_path, "# skewlint: file-ignore\nx = 'pipeline'\n") == [("SKW901", 1)]


def test_unused_suppressions_can_be_switched_off(run: Run, tmp_path: Path) -> None:
    source = DEMOTED.replace(FOR, FOR + "  # skewlint: ignore[SKW021]")
    write(tmp_path, {"k.py": source})
    result = run("--ignore", "SKW901", "--output-format", "json", "k.py")
    assert [i["code"] for i in result.json()] == ["SKW020"]
    opted_out = source + "# skewlint: file-ignore[SKW901]\n"
    assert lint(run, tmp_path, opted_out) == [("SKW020", 8)]


def test_suppressing_a_code_disabled_by_config_is_not_unused(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"skewlint.toml": 'ignore = ["SKW020"]\n'})
    assert lint(run, tmp_path, DEMOTED.replace(FOR, FOR + "  # skewlint: ignore[SKW020]")) == []
