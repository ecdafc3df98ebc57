"""Output formats: each module turns the run's diagnostics into one string.

A format is a module with a function ``render(diagnostics, context) -> str``;
adding one is a new module plus a line in :data:`FORMATS`. Modules are imported
only when their format is used: a run pays for one renderer (SARIF's schema
tables and JSON encoders are not free to import on every warm run).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence

from skewlsp.cli.formats.context import FormatContext
from skewlsp.common.diagnostic import Diagnostic

Renderer = Callable[[Sequence[Diagnostic], FormatContext], str]

# format name -> module under skewlsp.cli.formats
FORMATS: dict[str, str] = {
    "concise": "concise",
    "full": "full",
    "json": "json_array",
    "json-lines": "json_lines",
    "sarif": "sarif",
    "github": "github",
    "gitlab": "gitlab",
    "junit": "junit",
}
DEFAULT_FORMAT = "full"
TEXT_FORMATS = ("concise", "full")
JSON_FORMATS = ("json", "json-lines")  # the formats --statistics can also be written in


def renderer(name: str) -> Renderer:
    """The ``render`` function of format ``name`` (a key of :data:`FORMATS`)."""
    module = importlib.import_module(f"{__name__}.{FORMATS[name]}")
    render: Renderer = module.render
    return render


__all__ = [
    "DEFAULT_FORMAT",
    "FORMATS",
    "JSON_FORMATS",
    "TEXT_FORMATS",
    "FormatContext",
    "Renderer",
    "renderer",
]
