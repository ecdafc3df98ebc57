"""json and json-lines carry the same objects; --preview adds a `preview` key."""

from __future__ import annotations

import json
from pathlib import Path

from skewlsp.common.rules_page import RULES_PAGE
from tests.cli.conftest import Run
from tests.cli.helpers import write
from tests.kernels import DEMOTED, STAGE3


def test_json_lines_has_one_object_per_line_matching_json(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"a.py": DEMOTED, "b.py": STAGE3})
    array = run("--output-format", "json", ".").json()
    lines = run("--output-format", "json-lines", ".").out.splitlines()
    assert [json.loads(line) for line in lines] == array
    assert [(i["filename"], i["code"]) for i in array] == [
        ("a.py", "SKW020"), ("b.py", "SKW001"), ("b.py", "SKW030")
    ]


def test_empty_result_is_an_empty_array(run: Run) -> None:
    assert run("--output-format", "json", ".").out.strip() == "[]"
    assert run("--output-format", "json-lines", ".").out == ""


def test_demoted_loop_has_offending_location(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"a.py": DEMOTED})
    [item] = run("--output-format", "json", "a.py").json()
    assert item["verdict"] == "demoted" and item["severity"] == "information"
    assert item["offending"] == {"line": 9, "column": 13, "end_line": 9, "end_column": 48}
    assert item["url"] == RULES_PAGE.as_uri() + "#skw020"  # the page installed with skewlsp
    assert "preview" not in item


def test_preview_key_is_added_on_request(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"a.py": DEMOTED})
    [item] = run("--preview", "--output-format", "json", "a.py").json()
    # the demoted loop, as the pass leaves it: over pl.range
    assert item["preview"].startswith("        # demoted (SKW020: ")  # the header, then the code
    assert "\n        for i in pl.range(0, 8, 1):\n" in item["preview"]
    assert item["preview_error"] is None


def test_url_names_the_configured_docs_url_when_the_linted_files_agree(
    run: Run, tmp_path: Path
) -> None:
    write(tmp_path, {
        "a/skewlint.toml": 'docs-url = "https://team.example/r#{code_lower}"\n',
        "a/k.py": DEMOTED,
        "b/skewlint.toml": 'docs-url = "https://other.example/{code}"\n',
        "b/k.py": DEMOTED,
    })
    [item] = run("--output-format", "json", "a").json()
    assert item["url"] == "https://team.example/r#skw020"
    # two configurations, two addresses: the page installed with skewlsp serves both
    items = run("--output-format", "json", "a", "b").json()
    assert {i["url"] for i in items} == {RULES_PAGE.as_uri() + "#skw020"}
