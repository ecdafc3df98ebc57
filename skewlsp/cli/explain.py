"""``skewlint explain CODE``: what a code means, an example, and how to fix it.

The text comes from the merged code tables, so it always matches what the
analysis and the linter actually emit.
"""

from __future__ import annotations

import json
import textwrap

from skewlsp.common.rules_page import docs_url
from skewlsp.contract import CODES, ReasonCode


class UnknownCode(Exception):
    pass


def _data(info: ReasonCode, docs: str | None) -> dict[str, str]:
    return {
        "code": info.code,
        "title": info.title,
        "verdict": info.verdict,
        "severity": info.severity,
        "explanation": info.explanation,
        "example": info.example,
        "fix": info.fix,
        "url": docs_url(info.code, docs),
    }


def explain_all(*, as_json: bool = False, docs: str | None = None) -> str:
    """Every code, in code order (``ruff rule --all``): one JSON array, or the texts
    separated by a rule line. ``docs``: the ``docs-url`` template, if one is set."""
    known = CODES
    if as_json:
        return json.dumps([_data(info, docs) for info in known.values()], indent=2) + "\n"
    return ("-" * 88 + "\n").join(_text(info, docs) for info in known.values())


def explain(code: str, *, as_json: bool = False, docs: str | None = None) -> str:
    """The explanation of ``code``; raises UnknownCode (with the known codes) otherwise."""
    known = CODES
    info = known.get(code.strip().upper())
    if info is None:
        raise UnknownCode(f"unknown code {code!r}; known codes: {', '.join(known)}")
    if as_json:
        return json.dumps(_data(info, docs), indent=2) + "\n"
    return _text(info, docs)


def _text(info: ReasonCode, docs: str | None) -> str:
    wrap = textwrap.TextWrapper(width=88)
    parts = [
        f"{info.code}: {info.title}",
        f"verdict: {info.verdict}    default severity: {info.severity}",
        "",
        "What it means",
        wrap.fill(info.explanation),
        "",
        "Example",
        textwrap.indent(info.example, "    "),
        "",
        "How to fix",
        wrap.fill(info.fix),
        "",
        f"More: {docs_url(info.code, docs)}",
    ]
    return "\n".join(parts) + "\n"
