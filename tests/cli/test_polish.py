"""The small things a CI user meets, each as ruff does it: help, exit codes, empty runs,
--statistics with machine formats, explain --all, --exclude, binary files, syntax errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skewlsp.contract import CODES
from tests.cli.conftest import Run
from tests.cli.helpers import write
from tests.kernels import DEMOTED, SKEWED, SYNTAX_ERROR


def test_help_documents_every_rule_option_and_the_exit_codes(
    run: Run, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stop:
        run("--help")
    assert stop.value.code == 0
    text = capsys.readouterr().out.split("\nrules:", 1)[1]  # past the usage line
    extend = text.split("--extend-select CODES", 1)[1].split("--ignore CODES", 1)[0]
    assert "also these codes" in extend and "SKW01 lists the loops left" in " ".join(extend.split())
    ignore = text.split("--ignore CODES", 1)[1].split("--fail-on", 1)[0]
    assert "never these codes" in ignore
    exits = text.split("exit status:", 1)[1]
    assert [line.split()[0] for line in exits.splitlines() if line[2:3].isdigit()] == [
        "0", "1", "2"
    ]


def test_no_python_files_warns_like_ruff(run: Run, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    write(tmp_path, {"docs/readme.txt": "pipeline"})
    for target in ("empty", "docs"):
        result = run(target)
        assert result.exit_code == 0
        assert result.err == "skewlint: warning: No Python files found under the given path(s)\n"
        assert result.out == ""


def test_no_python_files_still_writes_a_valid_machine_report(run: Run, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    result = run("--output-format", "json", "empty")
    assert result.json() == [] and "No Python files found" in result.err


@pytest.mark.parametrize("fmt", ["sarif", "github", "junit", "gitlab"])
def test_statistics_refuses_formats_it_cannot_be_written_in(
    run: Run, tmp_path: Path, fmt: str
) -> None:
    write(tmp_path, {"k.py": DEMOTED})
    result = run("--statistics", "--output-format", fmt, "k.py")
    assert result.exit_code == 2 and result.out == ""
    assert result.err.startswith(f"skewlint: error: --statistics cannot be written as {fmt}")


def test_statistics_names_the_environment_when_the_format_came_from_it(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, {"k.py": DEMOTED})
    monkeypatch.setenv("SKEWLINT_OUTPUT_FORMAT", "sarif")  # after the fixture cleared it
    result = run("--statistics", "k.py")
    assert result.exit_code == 2
    assert "--statistics cannot be written as sarif (from $SKEWLINT_OUTPUT_FORMAT)" in result.err


def test_statistics_as_json_lines_is_json(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"k.py": DEMOTED})
    data = json.loads(run("--statistics", "--output-format", "json-lines", "k.py").out)
    assert data["codes"][0]["code"] == "SKW020"


def test_explain_all_prints_every_code(run: Run) -> None:
    result = run("explain", "--all")
    assert result.exit_code == 0
    headers = [line.split(":")[0] for line in result.out.splitlines()
               if line[:3] == "SKW" and ": " in line and line.split(":")[0] in CODES]
    assert headers == list(CODES)
    data = json.loads(run("explain", "--all", "--output-format", "json").out)
    assert [item["code"] for item in data] == list(CODES)


def test_explain_needs_a_code_or_all(run: Run) -> None:
    assert run("explain").exit_code == 2
    assert run("explain", "SKW001", "--all").exit_code == 2


def test_exclude_on_the_command_line(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"src/gen/a.py": DEMOTED, "src/b.py": DEMOTED, "build/c.py": DEMOTED})
    names = lambda *args: [d["filename"] for d in run("--output-format", "json", *args).json()]  # noqa: E731
    assert names(".") == ["src/b.py", "src/gen/a.py"]  # build/ is a default exclude
    assert names("--extend-exclude", "gen", ".") == ["src/b.py"]
    assert names("--exclude", "gen", ".") == ["build/c.py", "src/b.py"]  # replaces defaults
    assert names("--extend-exclude", "src/gen/", ".") == ["src/b.py"]


def test_exclude_path_patterns_are_relative_to_the_working_directory(
    run: Run, tmp_path: Path
) -> None:
    write(tmp_path, {"pyproject.toml": "[tool.skewlint]\n",
                     "src/gen/a.py": DEMOTED, "src/b.py": DEMOTED, "gen/c.py": DEMOTED})
    found = run("--output-format", "json", "--extend-exclude", "gen/a.py", ".",
                cwd=tmp_path / "src").json()
    assert [d["filename"] for d in found] == ["b.py"]


def test_binary_file_is_reported_without_the_word_pipeline(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"blob.py": b"\x7fELF\x00\x01\x02"})
    result = run("--output-format", "json", "blob.py")
    [item] = result.json()
    assert (item["code"], item["kind"]) == ("SKW902", "file") and result.exit_code == 1
    assert "binary file" in item["message"]


def test_syntax_error_message_leaves_the_position_to_the_location(
    run: Run, tmp_path: Path
) -> None:
    write(tmp_path, {"k.py": SYNTAX_ERROR})
    [item] = run("--output-format", "json", "k.py").json()
    assert item["message"] == "syntax error: expected ':'"
    assert (item["line"], item["column"]) == (3, 36)


def test_syntax_error_gets_a_caret_in_the_full_format(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"k.py": SYNTAX_ERROR})
    lines = run("--output-format", "full", "k.py").out.splitlines()
    assert lines[0] == "k.py:3:36: SKW900 [error] syntax error: expected ':'"
    source = next(i for i, line in enumerate(lines) if line.startswith("3 | "))
    caret = lines[source + 1]
    assert caret.endswith("^ syntax error")
    assert caret.index("^") == lines[source].index("for") + 35  # column 36, 1-based


def test_a_skewed_file_still_exits_0(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"k.py": SKEWED})
    assert run("k.py").exit_code == 0
