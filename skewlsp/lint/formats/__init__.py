"""Output formats: each module turns the run's diagnostics into one string.

A format is a function ``render(diagnostics, context) -> str``; adding one is a
new module plus a line in :data:`FORMATS`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from skewlsp.lint.diagnostic import Diagnostic
from skewlsp.lint.formats import concise, full, github, json_array, json_lines, sarif
from skewlsp.lint.formats.context import FormatContext

Renderer = Callable[[Sequence[Diagnostic], FormatContext], str]

FORMATS: dict[str, Renderer] = {
    "concise": concise.render,
    "full": full.render,
    "json": json_array.render,
    "json-lines": json_lines.render,
    "sarif": sarif.render,
    "github": github.render,
}
DEFAULT_FORMAT = "full"
TEXT_FORMATS = ("concise", "full")

__all__ = ["DEFAULT_FORMAT", "FORMATS", "TEXT_FORMATS", "FormatContext", "Renderer"]
