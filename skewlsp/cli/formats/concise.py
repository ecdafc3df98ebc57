"""``--output-format concise``: ``path:line:col: CODE message``, one line per diagnostic."""

from __future__ import annotations

from collections.abc import Sequence

from skewlsp.cli.formats.context import SEVERITY_STYLE, FormatContext
from skewlsp.common.diagnostic import Diagnostic
from skewlsp.common.fixes import applies


def line_for(diagnostic: Diagnostic, context: FormatContext) -> str:
    location = context.style(
        f"{diagnostic.filename}:{diagnostic.span.line}:{diagnostic.span.column}:", "bold"
    )
    code = context.style(diagnostic.code, *SEVERITY_STYLE.get(diagnostic.severity, ()))
    fixable = " [*]" if applies(diagnostic, context.unsafe_fixes) else ""  # as ruff marks it
    return f"{location} {code}{fixable} {diagnostic.headline}"


def render(diagnostics: Sequence[Diagnostic], context: FormatContext) -> str:
    return "".join(line_for(d, context) + "\n" for d in diagnostics)
