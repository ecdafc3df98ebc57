"""Loop reports to LSP diagnostics.

Pure: the same reports, text and settings always give the same diagnostics, so
push and pull answer identically and tests need no client. Selection and
suppression comments follow the CLI (:mod:`skewlsp.common.select`,
:mod:`skewlsp.common.suppressions`) so the editor never disagrees with CI.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from lsprotocol import types

from skewlsp.common.diagnostic import Diagnostic as LintDiagnostic
from skewlsp.common.pipeline import flatten
from skewlsp.common.pipeline import select_and_suppress as shared_select_and_suppress
from skewlsp.common.rules_page import docs_url
from skewlsp.common.select import Selection
from skewlsp.contract import SYNTAX_ERROR, LoopReport
from skewlsp.server.positions import UTF16, span_to_range
from skewlsp.server.presentation import STALE_NOTE

SOURCE = "skewlsp"
# A loop's finding covers its header (common.pipeline.finding_span); the call it is about
# is named as a related place, as the lead and the offending statement are.
CALL_PLACE = "the `pl.pipeline(...)` call"

_SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "information": types.DiagnosticSeverity.Information,
    "hint": types.DiagnosticSeverity.Hint,
}


def lint_diagnostics(
    reports: Sequence[LoopReport], selection: Selection, filename: str
) -> list[LintDiagnostic]:
    """One record per enabled loop verdict (at the loop's header) and per enabled hint."""
    found = flatten(filename, reports, selection, call_hints=True)
    return [record for record in found if selection.is_enabled(record.code)]


def select_and_suppress(
    reports: Sequence[LoopReport],
    selection: Selection,
    source: str,
    filename: str,
    *,
    report_unused: bool = True,
    may_suppress: bool = True,
) -> list[LintDiagnostic]:
    """What the CLI would print for these reports (minus file-level problems)."""
    found = flatten(filename, reports, selection, call_hints=True)
    return shared_select_and_suppress(
        found,
        source,
        filename,
        selection,
        report_unused=report_unused,
        may_suppress=may_suppress,
    )


def to_lsp(
    record: LintDiagnostic,
    lines: Sequence[str],
    uri: str,
    encoding: str = UTF16,
    docs: str | None = None,
) -> types.Diagnostic:
    """One LSP diagnostic: range, severity, code with its docs link (the page installed
    with skewlsp, or ``docs``: a ``docs-url`` template), related locations."""
    related: list[types.DiagnosticRelatedInformation] = []
    report = record.report
    if record.kind == "loop" and report is not None:
        if report.lead is not None:
            related.append(
                types.DiagnosticRelatedInformation(
                    types.Location(uri, span_to_range(lines, report.lead, encoding)),
                    "lead message: the first cross-core tpush/tpop of the body",
                )
            )
        if report.offending is not None:
            related.append(
                types.DiagnosticRelatedInformation(
                    types.Location(uri, span_to_range(lines, report.offending, encoding)),
                    f"this statement is why the loop is not skewed ({report.code})",
                )
            )
    for place in record.related:  # a hint's own places (SKW060: the moved tpush, the lead)
        related.append(
            types.DiagnosticRelatedInformation(
                types.Location(uri, span_to_range(lines, place.span, encoding)), place.message
            )
        )
    if record.kind == "loop" and report is not None and record.span != report.call_span:
        related.append(  # the finding covers the header; the call it is about, last
            types.DiagnosticRelatedInformation(
                types.Location(uri, span_to_range(lines, report.call_span, encoding)), CALL_PLACE
            )
        )
    data = None
    if report is not None and not report.scope_only:  # (code actions find the loop by it)
        data = {"loop": [report.span.line, report.span.column]}
    return types.Diagnostic(
        range=span_to_range(lines, record.span, encoding),
        message=record.headline,
        severity=_SEVERITY.get(record.severity, types.DiagnosticSeverity.Warning),
        code=record.code,
        code_description=types.CodeDescription(href=docs_url(record.code, docs)),
        source=SOURCE,
        related_information=related or None,
        data=data,
    )


def build(
    reports: Sequence[LoopReport],
    *,
    source: str,
    lines: Sequence[str],
    uri: str,
    selection: Selection,
    syntax_error: LoopReport | None = None,
    encoding: str = UTF16,
    may_suppress: bool = True,
    docs: str | None = None,
) -> list[types.Diagnostic]:
    """Every diagnostic of one document version (``may_suppress=False``: no suppression
    comment in ``source``, known without scanning it).

    With a syntax error the error comes first and ``reports`` are the last good
    version's loops, kept where they were (moving them by guesswork while the
    user types would make them jump around more than leaving them still) and
    each marked "(as of the last version that parsed)": they are not verdicts on
    the text the user sees.
    """
    result: list[types.Diagnostic] = []
    filename = uri
    if syntax_error is not None:
        error = LintDiagnostic(
            filename,
            "file",
            SYNTAX_ERROR,
            syntax_error.message,
            syntax_error.call_span,
            selection.severity(SYNTAX_ERROR),
            syntax_error,
        )
        result.append(to_lsp(error, lines, uri, encoding, docs))
        records = [
            replace(record, short_message=f"{record.headline} ({STALE_NOTE})")
            for record in lint_diagnostics(reports, selection, filename)
        ]
    else:
        records = select_and_suppress(
            reports, selection, source, filename, may_suppress=may_suppress
        )
    records.sort(key=lambda r: (r.span.line, r.span.column, r.code))
    result.extend(to_lsp(record, lines, uri, encoding, docs) for record in records)
    return result
