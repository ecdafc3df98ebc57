"""``--output-format json``: one JSON array of diagnostic objects (the machine contract)."""

from __future__ import annotations

from collections.abc import Sequence

from skewlsp.cli.formats.context import FormatContext
from skewlsp.cli.formats.json_data import diagnostic_data
from skewlsp.cli.formats.json_text import array
from skewlsp.common.diagnostic import Diagnostic


def render(diagnostics: Sequence[Diagnostic], context: FormatContext) -> str:
    items = [
        diagnostic_data(d, preview=context.preview, docs=context.docs_url) for d in diagnostics
    ]
    return array(items)
