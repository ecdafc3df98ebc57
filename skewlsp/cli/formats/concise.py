"""``--output-format concise``: ``path:line:col: CODE message``, one line per diagnostic."""

from __future__ import annotations

from collections.abc import Sequence

from skewlsp.cli.formats.context import SEVERITY_STYLE, FormatContext
from skewlsp.common.diagnostic import Diagnostic
from skewlsp.common.fixes import applies
from skewlsp.common.headline import CONCISE_WIDTH


def line_for(diagnostic: Diagnostic, context: FormatContext) -> str:
    location = context.style(
        f"{diagnostic.filename}:{diagnostic.span.line}:{diagnostic.span.column}:", "bold"
    )
    code = context.style(diagnostic.code, *SEVERITY_STYLE.get(diagnostic.severity, ()))
    fixable = " [*]" if applies(diagnostic, context.unsafe_fixes) else ""  # as ruff marks it
    headline = diagnostic.headline
    where = f"{diagnostic.filename}:{diagnostic.span.line}:{diagnostic.span.column}:"
    plain = f"{where} {diagnostic.code}{fixable} {headline}"  # (as the terminal shows it)
    if diagnostic.terse_message is not None and len(plain) > CONCISE_WIDTH:
        headline = diagnostic.terse_message
    return f"{location} {code}{fixable} {headline}"


def render(diagnostics: Sequence[Diagnostic], context: FormatContext) -> str:
    return "".join(line_for(d, context) + "\n" for d in diagnostics)
