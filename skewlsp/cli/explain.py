"""``skewlint explain CODE``: what a code means, an example, and how to fix it.

The text comes from the merged code tables, so it always matches what the
analysis and the linter actually emit.
"""

from __future__ import annotations

import json
import textwrap

from skewlsp.analysis.codes import docs_url
from skewlsp.common.lint_codes import all_codes


class UnknownCode(Exception):
    pass


def explain(code: str, *, as_json: bool = False) -> str:
    """The explanation of ``code``; raises UnknownCode (with the known codes) otherwise."""
    known = all_codes()
    info = known.get(code.strip().upper())
    if info is None:
        raise UnknownCode(f"unknown code {code!r}; known codes: {', '.join(known)}")
    if as_json:
        return (
            json.dumps(
                {
                    "code": info.code,
                    "title": info.title,
                    "verdict": info.verdict,
                    "severity": info.severity,
                    "explanation": info.explanation,
                    "example": info.example,
                    "fix": info.fix,
                    "url": docs_url(info.code),
                },
                indent=2,
            )
            + "\n"
        )
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
        f"More: {docs_url(info.code)}",
    ]
    return "\n".join(parts) + "\n"
