"""``junit`` and ``gitlab`` (Code Quality): the report shapes ruff writes, paths from the root."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.cli.conftest import Run
from tests.cli.helpers import write
from tests.kernels import DEMOTED, SHALLOW, STAGE3


def test_junit_one_suite_per_file_one_case_per_diagnostic(run: Run, tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    write(tmp_path, {"k/a.py": DEMOTED, "k/b.py": STAGE3})
    result = run("--output-format", "junit", "--fail-on", "hint", ".", cwd=tmp_path / "k")
    assert result.exit_code == 1
    assert result.out.startswith('<?xml version="1.0" encoding="UTF-8"?>\n')
    top = ET.fromstring(result.out.split("\n", 1)[1])
    assert top.tag == "testsuites" and top.get("tests") == "3" and top.get("failures") == "3"
    suites = {suite.get("name"): suite for suite in top}
    assert list(suites) == ["k/a.py", "k/b.py"]
    [case] = suites["k/a.py"]
    assert case.get("name") == "org.skewlint.SKW020" and case.get("line") == "8"
    assert case.get("column") == "9" and case.get("classname") == "k/a.py"
    failure = case.find("failure")
    assert failure is not None and failure.get("message", "").startswith("loop not skewed")
    assert failure.text is not None and failure.text.startswith("line 8, col 9, loop not skewed")
    assert [c.get("name") for c in suites["k/b.py"]] == ["org.skewlint.SKW001", "org.skewlint.SKW030"]


def _junit(run: Run, *args: str, cwd: Path | None = None) -> ET.Element:
    return ET.fromstring(run("--output-format", "junit", *args, cwd=cwd).out.split("\n", 1)[1])


def test_junit_fails_only_the_findings_at_or_above_fail_on(run: Run, tmp_path: Path) -> None:
    """SKW001 ("nothing to fix", information) and SKW030 (a hint) are passing test cases
    under the default fail-on (warning), with the finding in system-out; the SKW020
    warning fails. --fail-on and the config's fail-on (per file) move the bar."""
    write(tmp_path, {"a.py": SHALLOW, "b.py": STAGE3})
    top = _junit(run, ".")
    assert (top.get("tests"), top.get("failures")) == ("3", "1")
    suites = {suite.get("name"): suite for suite in top}
    assert (suites["a.py"].get("tests"), suites["a.py"].get("failures")) == ("1", "1")
    assert (suites["b.py"].get("tests"), suites["b.py"].get("failures")) == ("2", "0")
    for case in suites["b.py"]:
        assert case.find("failure") is None
        out = case.find("system-out")
        assert out is not None and out.text is not None and out.text.startswith("line 8, col ")
    [info, hint] = suites["b.py"]
    assert info.get("name") == "org.skewlint.SKW001" and "[information]" in (info.findtext("system-out") or "")
    assert "[hint]" in (hint.findtext("system-out") or "")
    assert _junit(run, "--fail-on", "hint", ".").get("failures") == "3"
    assert _junit(run, "--fail-on", "error", ".").get("failures") == "0"
    write(tmp_path, {"strict/pyproject.toml": '[tool.skewlint]\nfail-on = "information"\n',
                     "strict/b.py": STAGE3})
    suites = {suite.get("name"): suite for suite in _junit(run, ".")}
    assert suites["b.py"].get("failures") == "0"
    assert suites["strict/b.py"].get("failures") == "1"  # SKW001 fails there, the hint does not
    [info, hint] = suites["strict/b.py"]
    assert info.find("failure") is not None and hint.find("failure") is None


def test_junit_without_diagnostics_is_one_passing_case(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"plain.py": "x = 1\n"})
    top = ET.fromstring(run("--output-format", "junit", ".").out.split("\n", 1)[1])
    assert top.get("tests") == "0" and top.get("failures") == "0"
    [suite] = top
    [case] = suite
    assert case.find("failure") is None and suite.get("tests") == "1"


def test_junit_escapes_markup(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"a&<b>.py": DEMOTED})
    top = ET.fromstring(run("--output-format", "junit", ".").out.split("\n", 1)[1])
    assert [suite.get("name") for suite in top] == ["a&<b>.py"]


def test_gitlab_code_quality_issues(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, {"project/sub/a.py": DEMOTED, "project/sub/b.py": DEMOTED})
    monkeypatch.setenv("CI_PROJECT_DIR", str(tmp_path / "project"))
    result = run("--output-format", "gitlab", ".", cwd=tmp_path / "project" / "sub")
    issues = json.loads(result.out)
    assert [issue["location"]["path"] for issue in issues] == ["sub/a.py", "sub/b.py"]
    first = issues[0]
    assert first["check_name"] == "SKW020" and first["severity"] == "minor"  # information
    assert first["description"].startswith("SKW020: loop not skewed")
    assert first["location"]["positions"]["begin"] == {"line": 8, "column": 9}
    # the loop's header: from its `for` to the end of the `pl.pipeline(...)` call
    assert first["location"]["positions"]["end"] == {"line": 8, "column": 47}
    fingerprints = [issue["fingerprint"] for issue in issues]
    assert len(set(fingerprints)) == 2 and all(len(f) == 32 for f in fingerprints)
    again = json.loads(run("--output-format", "gitlab", ".", cwd=tmp_path / "project" / "sub").out)
    assert [issue["fingerprint"] for issue in again] == fingerprints  # stable across runs


def test_gitlab_identical_issues_get_distinct_fingerprints(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"a.py": DEMOTED + "\n" + DEMOTED.split("\n", 2)[2].replace("def ", "def other_")})
    issues = json.loads(run("--output-format", "gitlab", "a.py").out)
    same = [i for i in issues if i["check_name"] == "SKW020"]
    assert len(same) == 2 and same[0]["description"] == same[1]["description"]
    assert same[0]["fingerprint"] != same[1]["fingerprint"]
