"""The machine contract of ``skewlint``: JSON shape and exit codes 0 / 1 / 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from skewlsp import __version__
from skewlsp.cli.app import main
from tests.cli.conftest import Run
from tests.cli.helpers import write
from tests.kernels import DEMOTED, SHALLOW, SKEWED, STAGE3, SYNTAX_ERROR

CONTRACT_KEYS = {
    "filename", "line", "column", "end_line", "end_column", "code", "verdict", "message",
    "depth", "requested_depth", "trip", "stage", "kind", "cores", "start", "stop", "step",
    "dynamic_symbol", "function", "severity", "url", "lead", "offending", "fix",
}


def test_json_is_one_array_with_one_object_per_loop(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"k.py": SKEWED})
    result = run("--output-format", "json", "k.py")
    assert result.exit_code == 0
    [item] = result.json()
    assert item.keys() >= CONTRACT_KEYS
    assert item["kind"] == "loop"
    assert (item["filename"], item["line"], item["column"]) == ("k.py", 8, 9)
    assert (item["code"], item["verdict"]) == ("SKW001", "skewed")
    assert (item["depth"], item["trip"], item["stage"]) == (2, 8, 2)
    assert item["lead"]["line"] == 11 and item["offending"] is None  # the tpush
    assert item["fix"] is None and item["cores"] == []


def test_hints_are_separate_objects_that_copy_the_loop_fields(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"k.py": STAGE3})
    loop, hint = run("--output-format", "json", "k.py").json()
    assert (loop["kind"], hint["kind"]) == ("loop", "hint")
    assert hint["code"] == "SKW030"
    assert (hint["line"], hint["column"]) == (8, 39)  # the `stage=3` argument
    for key in ("verdict", "depth", "trip", "stage", "requested_depth"):
        assert hint[key] == loop[key]


def test_exit_1_when_a_warning_is_found(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"k.py": SHALLOW})
    result = run("--output-format", "concise", "k.py")
    assert result.exit_code == 1
    assert result.out.startswith("k.py:8:9: SKW002 ")


def test_exit_0_when_only_information_is_found(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"k.py": SKEWED})
    assert run("k.py").exit_code == 0


def test_fail_on_raises_or_lowers_the_bar(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"skewed.py": SKEWED, "demoted.py": DEMOTED})
    assert run("--fail-on", "information", "skewed.py").exit_code == 1
    assert run("--fail-on", "error", "demoted.py").exit_code == 0


def test_exit_zero_reports_but_succeeds(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"k.py": DEMOTED})
    result = run("--exit-zero", "--output-format", "concise", "k.py")
    assert result.exit_code == 0 and "SKW020" in result.out


def test_syntax_error_is_a_diagnostic_not_a_crash(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"k.py": SYNTAX_ERROR})
    result = run("--output-format", "json", "k.py")
    assert result.exit_code == 1
    [item] = result.json()
    assert (item["code"], item["verdict"]) == ("SKW900", "error")


def test_nonexistent_path_exits_2_with_one_line(run: Run) -> None:
    result = run("missing.py")
    assert result.exit_code == 2
    assert result.err == "skewlint: error: missing.py: no such file or directory\n"
    assert result.out == ""


def test_bad_option_exits_2_with_one_line(run: Run) -> None:
    result = run("--output-format", "xml", ".")
    assert result.exit_code == 2
    assert result.err.count("\n") == 1 and "invalid choice" in result.err


def test_version_prints_the_package_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--version"])
    assert capsys.readouterr().out.strip() == f"skewlint {__version__}"


def test_stdin_with_dash(run: Run) -> None:
    result = run("--output-format", "json", "-", stdin=DEMOTED.encode())
    [item] = result.json()
    assert item["filename"] == "-" and item["code"] == "SKW020"
    assert result.exit_code == 0  # information: the module has no producer to edit


def test_stdin_filename_names_the_file_and_finds_its_config(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"pkg/pyproject.toml": '[tool.skewlint]\nignore = ["SKW020"]\n'})
    result = run("--stdin-filename", "pkg/kernel.py", "--output-format", "json",
                 stdin=DEMOTED.encode())
    assert result.json() == [] and result.exit_code == 0


def test_output_file_receives_the_output(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"k.py": DEMOTED})
    result = run("--output-format", "json", "-o", "out.json", "k.py")
    assert result.out == ""
    assert '"SKW020"' in (tmp_path / "out.json").read_text()


def test_output_format_from_environment(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, {"k.py": DEMOTED})
    monkeypatch.setenv("SKEWLINT_OUTPUT_FORMAT", "concise")
    result = run("k.py")
    assert result.out.splitlines()[0].startswith("k.py:8:9: SKW020")


def test_invalid_output_format_in_environment_exits_2(
    run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SKEWLINT_OUTPUT_FORMAT", "xml")
    result = run(".")
    assert result.exit_code == 2 and "SKEWLINT_OUTPUT_FORMAT" in result.err


def test_quiet_drops_the_summary(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"k.py": DEMOTED})
    assert "Found 1 diagnostic" in run("--output-format", "concise", "k.py").out
    quiet = run("--quiet", "--output-format", "concise", "k.py").out
    assert "Found" not in quiet and quiet.count("\n") == 1


def test_no_paths_lints_the_current_directory(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"a/k.py": DEMOTED})
    result = run("--output-format", "json")
    assert [i["filename"] for i in result.json()] == ["a/k.py"]


def test_colour_only_on_request_of_a_tty(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"k.py": DEMOTED})
    assert "\x1b[" not in run("k.py").out  # captured output is not a TTY


class _Tty:
    def isatty(self) -> bool:
        return True


def test_colour_rules_for_a_tty(monkeypatch: pytest.MonkeyPatch) -> None:
    from skewlsp.cli.app import _color
    from skewlsp.cli.args import parse

    monkeypatch.delenv("NO_COLOR", raising=False)
    assert _color(parse(["."]), _Tty())  # type: ignore[arg-type]
    assert not _color(parse(["--no-color", "."]), _Tty())  # type: ignore[arg-type]
    assert not _color(parse(["--output-format", "json", "."]), _Tty())  # type: ignore[arg-type]
    monkeypatch.setenv("NO_COLOR", "1")
    assert not _color(parse(["."]), _Tty())  # type: ignore[arg-type]
