"""What the editor shows over a loop without being asked: hovers, code lenses, inlay hints.

Each shows only the loops the document's diagnostics show (:meth:`SkewServer.shown`:
the same selection and suppression comments), so a loop the user silenced is
silent everywhere. Lenses and hints wait for a version that parses; a hover on a
file with a syntax error shows the last verdicts, marked as stale.
"""

from __future__ import annotations

from lsprotocol import types

from skewlsp.contract import SYNTAX_ERROR, LoopReport, has_preview
from skewlsp.server import presentation
from skewlsp.server.documents import Analysis
from skewlsp.server.positions import from_position, span_to_range, to_position
from skewlsp.server.skew_server import SkewServer


def _header_report(analysis: Analysis, line: int) -> LoopReport | None:
    """The loop whose ``for`` line or ``pl.pipeline(...)`` call holds 1-based ``line``."""
    found = [
        r
        for r in analysis.reports
        if r.code != SYNTAX_ERROR and r.span.line <= line <= r.call_span.end_line
    ]
    return max(found, key=lambda r: r.span.line, default=None)


async def hover(ls: SkewServer, params: types.HoverParams) -> types.Hover | None:
    analysis = await ls.store.get(params.text_document.uri)
    if analysis is None:
        return None
    lines = analysis.lines
    line, _ = from_position(lines, params.position, ls.encoding)
    report = _header_report(analysis, line)
    if report is None:
        return None
    shown = ls.shown(analysis)
    # A loop Python builds several times (module-level for, inline helper callers) has a
    # report per copy at the same place: the hover shows every shown one.
    copies = [r for r in analysis.reports if r.span == report.span and shown.loop(r)]
    if not copies:
        return None  # not selected or suppressed: no diagnostic, so no hover either
    text = presentation.join_hovers(
        [
            presentation.hover_markdown(
                r, severity=shown.severity(r), hints=shown.shown_hints(r), stale=analysis.stale
            )
            for r in copies
        ]
    )
    return types.Hover(
        contents=types.MarkupContent(types.MarkupKind.Markdown, text),
        range=span_to_range(lines, report.call_span, ls.encoding),
    )


async def code_lens(ls: SkewServer, params: types.CodeLensParams) -> list[types.CodeLens]:
    uri = params.text_document.uri
    if not ls.settings_for(uri).code_lens:
        return []
    analysis = await ls.store.get(uri)
    if analysis is None:
        return []
    if analysis.stale:
        return []  # the verdicts are of a version that parsed; the diagnostics say so
    lines = analysis.lines
    shown = ls.shown(analysis)
    choice = ls.command_choice
    lenses = []
    for report in analysis.reports:
        if report.code == SYNTAX_ERROR or not shown.loop(report):
            continue
        start = to_position(lines, report.span.line, report.span.column, ls.encoding)
        previewable = has_preview(report)
        title = presentation.lens_title(report, previewable=previewable)
        command = (
            choice.preview(title, uri, start)
            if previewable
            else choice.explanation(title, report.code)
        )
        lenses.append(types.CodeLens(range=types.Range(start, start), command=command))
    return lenses


async def inlay_hints(ls: SkewServer, params: types.InlayHintParams) -> list[types.InlayHint]:
    uri = params.text_document.uri
    if not ls.settings_for(uri).inlay_hints:
        return []
    analysis = await ls.store.get(uri)
    if analysis is None or analysis.stale:
        return []
    lines = analysis.lines
    shown = ls.shown(analysis)
    first, last = params.range.start.line + 1, params.range.end.line + 1
    hints = []
    for report in analysis.reports:
        span = report.stage_span
        if span is None or not (first <= span.end_line <= last) or not shown.loop(report):
            continue
        hints.append(
            types.InlayHint(
                position=to_position(lines, span.end_line, span.end_column, ls.encoding),
                label=presentation.inlay_label(report),
                padding_left=True,
                tooltip=report.message,
            )
        )
    return hints


def register(server: SkewServer) -> None:
    """Register the hover, code lens and inlay hint handlers with ``server``."""
    server.feature(types.TEXT_DOCUMENT_HOVER)(hover)
    server.feature(types.TEXT_DOCUMENT_CODE_LENS)(code_lens)
    server.feature(types.TEXT_DOCUMENT_INLAY_HINT)(inlay_hints)
