"""Every link to a code's documentation opens something that exists: the rules page
installed with skewlsp, or a team's copy named by ``docs-url``."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from skewlsp.cli.rules_doc import render
from skewlsp.common.config import SettingsError, load_settings
from skewlsp.common.rules_page import RULES_PAGE, docs_url, template_problem
from skewlsp.contract import CODES
from tests.cli.helpers import write

ROOT = Path(__file__).resolve().parents[2]


def local_file(url: str) -> Path:
    parsed = urlparse(url)
    assert parsed.scheme == "file" and parsed.netloc in ("", "localhost"), url
    return Path(unquote(parsed.path))


def test_the_rules_page_is_package_data_and_current() -> None:
    assert RULES_PAGE == ROOT / "skewlsp" / "docs" / "rules.md"
    assert RULES_PAGE.read_text(encoding="utf-8") == render(), (
        "skewlsp/docs/rules.md is stale: run "
        "`python -m skewlsp.cli.rules_doc > skewlsp/docs/rules.md`"
    )
    assert not (ROOT / "docs" / "rules.md").exists(), "one rules page, in the package"


def test_every_code_links_to_its_anchor_on_the_installed_page() -> None:
    text = RULES_PAGE.read_text(encoding="utf-8")
    for code in CODES:
        url = docs_url(code)
        assert local_file(url) == RULES_PAGE and local_file(url).is_file()
        anchor = urlparse(url).fragment
        assert anchor == code.lower() and f"\n## {code}\n" in text  # GitHub-style heading id


def test_a_docs_url_template_names_the_teams_copy() -> None:
    template = "https://team.example/skewlint/rules.html#{code_lower}"
    assert docs_url("SKW020", template) == "https://team.example/skewlint/rules.html#skw020"
    assert docs_url("SKW020", "https://t.example/{code}") == "https://t.example/SKW020"


@pytest.mark.parametrize(
    "value",
    [3, "team.example/{code}", "https://team.example/rules", "://x/{code}"],
)
def test_a_template_that_cannot_name_a_page_is_refused(value: object) -> None:
    assert template_problem(value) is not None


def test_docs_url_is_read_from_the_project_configuration(tmp_path: Path) -> None:
    write(tmp_path, {"skewlint.toml": 'docs-url = "https://t.example/skewlint#{code_lower}"\n'})
    assert load_settings(tmp_path).docs_url == "https://t.example/skewlint#{code_lower}"
    write(tmp_path, {"skewlint.toml": 'docs-url = "https://t.example/skewlint"\n'})
    with pytest.raises(SettingsError, match="docs-url"):
        load_settings(tmp_path)
