"""``--output-format json-lines``: one JSON object per line, for streaming consumers."""

from __future__ import annotations

from collections.abc import Sequence

from skewlsp.cli.formats.context import FormatContext
from skewlsp.cli.formats.json_data import diagnostic_data
from skewlsp.cli.formats.json_text import compact
from skewlsp.common.diagnostic import Diagnostic


def render(diagnostics: Sequence[Diagnostic], context: FormatContext) -> str:
    return "".join(
        compact(diagnostic_data(d, preview=context.preview, docs=context.docs_url)) + "\n"
        for d in diagnostics
    )
