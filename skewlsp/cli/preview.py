"""The hook to the transform layer (``skewlsp.transform.preview_loop``), written elsewhere.

The transform may not exist yet, or may decline a loop; both become a message
(:class:`PreviewError`) rather than a traceback.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable, Sequence

from skewlsp.analysis.report import LoopReport
from skewlsp.common.diagnostic import Diagnostic


class PreviewError(Exception):
    """No preview for this loop; the message says why."""


def _transform() -> tuple[Callable[[str, LoopReport], str], type[BaseException]]:
    try:
        module = importlib.import_module("skewlsp.transform")
    except ImportError as error:
        raise PreviewError(
            f"preview is not available: cannot import skewlsp.transform ({error})"
        ) from None
    preview_loop = getattr(module, "preview_loop", None)
    if not callable(preview_loop):
        raise PreviewError("preview is not available yet: skewlsp.transform has no preview_loop")
    unavailable = getattr(module, "PreviewUnavailable", None)
    if not (isinstance(unavailable, type) and issubclass(unavailable, BaseException)):
        unavailable = PreviewError
    return preview_loop, unavailable


def preview_loop(source: str, report: LoopReport) -> str:
    """The rewritten loop's source; raises PreviewError with the transform's reason."""
    function, unavailable = _transform()
    try:
        return function(source, report)
    except unavailable as error:
        raise PreviewError(str(error) or "no preview for this loop") from None
    except Exception as error:  # noqa: BLE001 - a transform bug must not crash the linter
        raise PreviewError(f"preview failed: {type(error).__name__}: {error}") from None


def preview_for(diagnostic: Diagnostic, source: str) -> Diagnostic:
    """The diagnostic with ``preview`` (or ``preview_error``) filled in for its loop."""
    if diagnostic.report is None:
        return diagnostic
    try:
        text = preview_loop(source, diagnostic.report)
    except PreviewError as error:
        return dataclasses.replace(diagnostic, preview_error=str(error))
    return dataclasses.replace(diagnostic, preview=text)


def loop_at(reports: Sequence[LoopReport], line: int) -> LoopReport | None:
    """The innermost loop whose ``for`` statement spans ``line``."""
    containing = [r for r in reports if r.span.line <= line <= r.span.end_line]
    if not containing:
        return None
    return min(containing, key=lambda r: (r.span.end_line - r.span.line, -r.span.line))
