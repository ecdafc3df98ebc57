"""Where a reason code is documented: the rules page installed with skewlsp, or a team's copy.

skewlsp has no website and no public repository, so a link must not name one. The
page every link opens by default is ``skewlsp/docs/rules.md``, package data that
is installed with the code (a ``file:`` URI with the code's anchor); it is
generated from the code tables by ``python -m skewlsp.cli.rules_doc`` and a test
keeps it current, so the page, ``skewlint explain`` and the editor's explanation
say the same thing. A team that hosts its own copy sets ``docs-url`` (in
``[tool.skewlint]``, or the server's ``docsUrl``): a URL in which ``{code}``
stands for the code (``SKW020``) and ``{code_lower}`` for the page's anchor
(``skw020``).
"""

from __future__ import annotations

from pathlib import Path

RULES_PAGE = Path(__file__).resolve().parents[1] / "docs" / "rules.md"
PLACEHOLDERS = ("{code}", "{code_lower}")


def docs_url(code: str, template: str | None = None) -> str:
    """The address of ``code``'s documentation: ``template`` filled in, else the
    installed page's ``file:`` URI with the code's anchor."""
    if template:
        return template.replace("{code}", code).replace("{code_lower}", code.lower())
    return f"{RULES_PAGE.as_uri()}#{code.lower()}"


def template_problem(value: object) -> str | None:
    """Why ``value`` is not a usable ``docs-url`` (``None`` when it is)."""
    if not isinstance(value, str):
        return "a string such as 'https://team.example/skewlint/rules.html#{code_lower}'"
    scheme, sep, rest = value.partition("://")
    if not sep or not scheme.isalpha() or not rest:
        return f"an absolute URL (with a scheme such as https), got {value!r}"
    if not any(placeholder in value for placeholder in PLACEHOLDERS):
        return f"a URL with {{code}} or {{code_lower}} in it, got {value!r}"
    return None
