"""From loop reports to the diagnostics a user sees: shared by the CLI and the server.

One place flattens reports (a loop, plus each of its hints), applies
suppression comments and the code selection, and remarks on unused
suppressions, so the editor and CI can never disagree about what is shown.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from skewlsp.common.diagnostic import Diagnostic
from skewlsp.common.select import Selection
from skewlsp.common.suppressions import apply_suppressions, parse_suppressions, unused_suppressions
from skewlsp.contract import UNUSED_SUPPRESSION, LoopReport, Related, Span

Snippet = tuple[tuple[int, str], ...]


def flatten(
    filename: str,
    reports: Sequence[LoopReport],
    selection: Selection,
    *,
    span_of: Callable[[LoopReport], Span],
    snippet_of: Callable[[LoopReport], Snippet] | None = None,
) -> list[Diagnostic]:
    """One diagnostic per loop (at ``span_of``) and one per hint, with configured severities."""
    found: list[Diagnostic] = []
    for report in reports:
        snippet = snippet_of(report) if snippet_of is not None else ()
        found.append(
            Diagnostic(
                filename,
                "loop",
                report.code,
                report.message,
                span_of(report),
                selection.severity(report.code),
                report,
                snippet,
                related=_instance_places(report),
            )
        )
        found.extend(
            Diagnostic(
                filename,
                "hint",
                hint.code,
                hint.message,
                hint.span,
                selection.severity(hint.code),
                report,
                snippet,
                related=hint.related,
                fix=hint.fix,
            )
            for hint in report.hints
        )
    return found


def _instance_places(report: LoopReport) -> tuple[Related, ...]:
    """An inline helper's copy of a loop points at the call it is spliced into.

    A call in another module is named by the message (file and line) instead: a related
    place is a place in this file.
    """
    instance = report.instance
    if instance is None or instance.call is None or instance.call_path is not None:
        return ()
    return (Related(instance.call, f"this copy is spliced here, in `{instance.caller}`"),)


def select_and_suppress(
    diagnostics: Sequence[Diagnostic],
    source: str,
    filename: str,
    selection: Selection,
    *,
    report_unused: bool = True,
    may_suppress: bool = True,
) -> list[Diagnostic]:
    """Suppressions first (a comment that silences a disabled code is still used), then the
    selection, then the unused-suppression remarks.

    ``may_suppress=False`` tells that ``source`` holds no suppression comment (a caller
    that tracks it, like the server's documents, saves a scan of the whole text).
    """
    suppressions = parse_suppressions(source) if may_suppress else []
    kept = apply_suppressions(list(diagnostics), suppressions)
    kept = [d for d in kept if selection.is_enabled(d.code)]
    if report_unused and selection.is_enabled(UNUSED_SUPPRESSION):
        kept += unused_suppressions(filename, suppressions, selection.severity(UNUSED_SUPPRESSION))
    return kept
