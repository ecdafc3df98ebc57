"""``--output-format github``: GitHub Actions workflow commands (annotations on the PR diff).

``file=`` is relative to the repository root (``$GITHUB_WORKSPACE`` in Actions), which
is what GitHub resolves it against, whichever directory skewlint ran in.
"""

from __future__ import annotations

from collections.abc import Sequence

from skewlsp.cli.formats.context import FormatContext
from skewlsp.common.diagnostic import Diagnostic

LEVELS = {"error": "error", "warning": "warning", "information": "notice", "hint": "notice"}


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render(diagnostics: Sequence[Diagnostic], context: FormatContext) -> str:
    lines = []
    for d in diagnostics:
        level = LEVELS.get(d.severity, "warning")
        properties = ",".join(
            f"{key}={_escape_property(str(value))}"
            for key, value in (
                ("file", context.report_path(d.filename)),
                ("line", d.span.line),
                ("col", d.span.column),
                ("endLine", d.span.end_line),
                ("endColumn", d.span.end_column),
                ("title", d.code),
            )
        )
        lines.append(f"::{level} {properties}::{_escape_data(d.headline)}\n")
    return "".join(lines)
