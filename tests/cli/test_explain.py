"""``skewlint explain CODE``, ``--statistics`` and the generated rules page."""

from __future__ import annotations

import json
from pathlib import Path

from skewlsp.cli.rules_doc import render
from skewlsp.common.rules_page import RULES_PAGE
from skewlsp.contract import CODES
from tests.cli.conftest import Run
from tests.cli.helpers import write
from tests.kernels import DEMOTED, STAGE3


def test_explain_prints_meaning_example_and_fix(run: Run) -> None:
    result = run("explain", "SKW021")
    assert result.exit_code == 0
    assert result.out.startswith("SKW021: multi-round-trip")
    for heading in ("What it means", "Example", "How to fix"):
        assert heading in result.out
    # skewlsp has no website: "More" is the rules page installed with it
    assert result.out.rstrip().endswith(f"More: {RULES_PAGE.as_uri()}#skw021")


def test_explain_links_to_the_teams_copy_when_docs_url_is_set(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"pyproject.toml": (
        '[tool.skewlint]\ndocs-url = "https://team.example/skewlint/rules.html#{code_lower}"\n'
    )})
    assert run("explain", "SKW021").out.rstrip().endswith(
        "More: https://team.example/skewlint/rules.html#skw021"
    )
    data = json.loads(run("explain", "SKW020", "--output-format", "json").out)
    assert data["url"] == "https://team.example/skewlint/rules.html#skw020"
    assert run("explain", "SKW021", "--isolated").out.rstrip().endswith("#skw021")
    assert "team.example" not in run("explain", "SKW021", "--isolated").out


def test_explain_knows_the_lint_only_codes(run: Run) -> None:
    assert "unused suppression" in run("explain", "skw901").out


def test_explain_json(run: Run) -> None:
    data = json.loads(run("explain", "SKW020", "--output-format", "json").out)
    assert data["code"] == "SKW020" and data["severity"] == "warning" and data["fix"]


def test_explain_unknown_code_exits_2(run: Run) -> None:
    result = run("explain", "SKW999")
    assert result.exit_code == 2 and result.err.startswith("skewlint: error: unknown code")


def test_statistics_count_codes_and_verdicts(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"a.py": DEMOTED, "b.py": DEMOTED, "c.py": STAGE3})
    result = run("--statistics", ".")
    lines = result.out.splitlines()
    assert lines[0].split("\t")[:3] == ["2", "SKW020", "[information]"]  # producer elsewhere
    assert "loops by verdict:" in lines
    assert "2\tdemoted" in lines and "1\tskewed" in lines
    assert result.exit_code == 0


def test_statistics_as_json(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"a.py": DEMOTED, "c.py": STAGE3})
    data = json.loads(run("--statistics", "--output-format", "json", ".").out)
    assert {c["code"]: c["count"] for c in data["codes"]} == {
        "SKW020": 1, "SKW001": 1, "SKW030": 1
    }
    assert data["verdicts"] == {"demoted": 1, "skewed": 1}


def test_rules_doc_covers_every_code() -> None:
    text = render()
    for code in CODES:
        assert f"\n## {code}\n" in text


def test_committed_rules_doc_is_up_to_date() -> None:
    assert RULES_PAGE.read_text(encoding="utf-8") == render(), (
        "skewlsp/docs/rules.md is stale: run "
        "`python -m skewlsp.cli.rules_doc > skewlsp/docs/rules.md`"
    )
