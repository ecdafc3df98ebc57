"""SARIF 2.1.0 output validates against the schema and carries what code scanning needs."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from skewlsp.common.lint_codes import all_codes
from tests.cli.conftest import Run
from tests.cli.helpers import DEMOTED, FIXTURES, STAGE3, write

SCHEMA = json.loads((FIXTURES / "sarif-2.1.0-subset.schema.json").read_text())


@pytest.fixture
def sarif(run: Run, tmp_path: Path) -> dict:
    write(tmp_path, {"src/demoted.py": DEMOTED, "src/stage3.py": STAGE3,
                     "src/weird.py": DEMOTED + "# skewlint: ignore[SKW999]\n"})
    result = run("--output-format", "sarif", "src")
    assert result.exit_code == 1
    return json.loads(result.out)


def test_validates_against_the_sarif_schema(sarif: dict) -> None:
    jsonschema.validate(sarif, SCHEMA, cls=jsonschema.Draft7Validator)


def test_schema_rejects_what_it_should() -> None:
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"version": "2.1.0", "runs": [{"tool": {"driver": {}}}]}, SCHEMA)
    bad_region = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [
        {"message": {"text": "m"}, "locations": [{"physicalLocation": {
            "artifactLocation": {"uri": "a.py"}, "region": {"startLine": 0}}}]}]}]}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad_region, SCHEMA)


def test_one_rule_per_code_with_help_and_uri(sarif: dict) -> None:
    rules = sarif["runs"][0]["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == list(all_codes())
    for rule in rules:
        assert rule["help"]["text"] and rule["helpUri"].endswith("#" + rule["id"].lower())


def test_results_point_at_the_loop(sarif: dict) -> None:
    run = sarif["runs"][0]
    assert run["columnKind"] == "unicodeCodePoints"
    by_rule: dict[str, dict] = {}
    for result in run["results"]:
        by_rule.setdefault(result["ruleId"], result)  # the first of each rule
    assert set(by_rule) == {"SKW020", "SKW001", "SKW030", "SKW901"}
    demoted = by_rule["SKW020"]
    assert demoted["level"] == "warning"
    location = demoted["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "src/demoted.py", "uriBaseId": "%SRCROOT%"}
    assert location["region"]["startLine"] == 8 and location["region"]["startColumn"] == 9
    rules = run["tool"]["driver"]["rules"]
    assert rules[demoted["ruleIndex"]]["id"] == "SKW020"
    assert by_rule["SKW001"]["level"] == "note"


def test_empty_run_is_still_valid(run: Run, tmp_path: Path) -> None:
    result = run("--output-format", "sarif", ".")
    log = json.loads(result.out)
    jsonschema.validate(log, SCHEMA)
    assert log["runs"][0]["results"] == []
