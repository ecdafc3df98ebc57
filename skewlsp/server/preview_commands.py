"""The custom ``skewlsp/preview`` request and the commands the server executes.

Everything here is read-only for the user's code: a preview is answered as text
(the VS Code extension shows it as a diff) or written to a read-only file in the
server's cache and shown (:mod:`.preview_files`); explanations likewise. The
rewrite behind a preview runs the pass, so it is computed off the event loop.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from skewlsp import api
from skewlsp.contract import CODES, LoopReport, loop_at
from skewlsp.server import actions, commands, presentation, preview_doc
from skewlsp.server.documents import Analysis, SiblingImporters, Snapshot
from skewlsp.server.positions import from_position
from skewlsp.server.preview_files import EXPLANATIONS, PREVIEWS
from skewlsp.server.request_params import RequestFailed, field, file_path, read_position
from skewlsp.server.skew_server import SkewServer

log = logging.getLogger(__name__)

PREVIEW_REQUEST = "skewlsp/preview"


async def _loop_preview(
    ls: SkewServer, uri: str, path: str | None, analysis: Analysis, report: LoopReport
) -> api.LoopPreview:
    """The loop's preview, off the event loop, decided as the document's diagnostics were:
    with the open texts for imports and the modules next to it for a helper's callers.

    The analysis a rewrite prints from is made once per analysed version of the document
    (and memory planner and assumed build) and kept in ``ls.previewers``: previewing a
    second loop of a version costs its rewrite only (benchmarks/README.md, "Previews")."""
    resolver = ls.resolver_for(Snapshot(uri, analysis.version, analysis.source, path))
    build = (resolver.planner, resolver.assumptions)
    running = asyncio.get_running_loop()
    kept = ls.previewers.get(uri)
    if kept is not None and kept[0] is analysis and kept[1] == build:
        found = kept[2]
    else:
        found = await running.run_in_executor(
            ls.executor,
            actions.previewer,
            analysis.source,
            report.path,
            resolver,
            SiblingImporters(path, resolver.open_texts) if path else None,
            resolver.planner,
            resolver.assumptions,
        )
        ls.previewers[uri] = (analysis, build, found)  # on the event loop only
    return await running.run_in_executor(ls.executor, actions.preview_at, found, report)


async def preview(ls: SkewServer, params: Any) -> dict[str, Any] | None:
    """``{textDocument: {uri}, position}`` -> ``{range, original, rewritten, others, document}``
    or null.

    Read-only: the client shows the answer (the VS Code extension as a diff); nothing
    is applied to the document.
    """
    uri = field(params, "textDocument", "uri") or field(params, "text_document", "uri")
    position = read_position(field(params, "position"))
    if not isinstance(uri, str) or position is None:
        raise JsonRpcInvalidParams("expected {textDocument: {uri}, position: {line, character}}")
    analysis = await ls.store.get(uri)
    if analysis is None:
        return None
    if analysis.stale:
        raise RequestFailed("the file has a syntax error: fix it to preview its loops")
    lines = analysis.lines
    line, _ = from_position(lines, position, ls.encoding)
    report = loop_at(analysis.reports, line)
    if report is None:
        return None
    path = file_path(uri)
    try:
        found = await _loop_preview(ls, uri, path, analysis, report)
    except actions.PreviewUnavailableError as error:
        raise RequestFailed(f"cannot rewrite this loop: {error}") from error
    whole = actions.loop_lines_range(lines, report, ls.encoding)
    return {
        "range": {
            "start": {"line": whole.start.line, "character": whole.start.character},
            "end": {"line": whole.end.line, "character": whole.end.character},
        },
        "original": found.original,
        "rewritten": found.rewritten,
        # a split loop's other cores' copies, indented like the loop ("" when not split)
        "others": preview_doc.others_text(found),
        # what skewlsp.showPreview writes: a header, the rewrite, every other core's copy
        "document": preview_doc.render(found, where=path or uri, version=analysis.version),
    }


def explain(ls: SkewServer, *args: Any) -> str | None:
    """Markdown explanation of a reason code (``null`` for an unknown code)."""
    if not args or not isinstance(args[0], str):
        raise JsonRpcInvalidParams("expected one argument: a reason code such as SKW020")
    return presentation.explain_markdown(args[0])


def list_codes(ls: SkewServer, *args: Any) -> list[dict[str, str]]:
    """Every code the server can report: what a client offers in its "explain" picker."""
    return [
        {"code": c.code, "title": c.title, "severity": c.severity, "verdict": c.verdict}
        for c in CODES.values()
    ]


async def show_file(ls: SkewServer, path: Path, what: str) -> dict[str, Any]:
    """Ask the client to open a file the server wrote; say where it is if it cannot."""
    uri = path.as_uri()
    window = ls.client_capabilities.window
    shown = False
    if window and window.show_document and window.show_document.support:
        try:
            answer = await ls.window_show_document_async(
                types.ShowDocumentParams(uri=uri, external=False, take_focus=True)
            )
            shown = bool(answer and answer.success)
        except Exception:
            log.warning("window/showDocument failed for %s", uri, exc_info=True)
    if not shown:
        ls.window_show_message(
            types.ShowMessageParams(types.MessageType.Info, f"skewlsp: {what} written to {path}")
        )
    return {"uri": uri, "path": str(path), "shown": shown}


async def show_preview(ls: SkewServer, *args: Any) -> dict[str, Any]:
    """``[uri, {line, character}]``: write the loop's rewrite to a read-only file and show it.

    The user's document is never edited: the rewrite goes to the server's cache.
    """
    uri = args[0] if args else None
    position = read_position(args[1]) if len(args) > 1 else None
    if not isinstance(uri, str) or position is None:
        raise JsonRpcInvalidParams("expected [uri, {line, character}]")
    analysis = await ls.store.get(uri)
    if analysis is None:
        raise RequestFailed("the document is not open")
    if analysis.stale:
        raise RequestFailed("the file has a syntax error: fix it to preview its loops")
    line, _ = from_position(analysis.lines, position, ls.encoding)
    report = loop_at(analysis.reports, line)
    if report is None:
        raise RequestFailed("no pl.pipeline loop here")
    path = file_path(uri)
    where = path or uri
    try:
        found = await _loop_preview(ls, uri, path, analysis, report)
        text = preview_doc.render(found, where=where, version=analysis.version)
    except actions.PreviewUnavailableError as error:
        # A loop the pass leaves alone still has a preview: why, and the loop as it stays.
        original = actions.original(analysis.source, report)
        text = preview_doc.render_unchanged(
            report, original, str(error), where=where, version=analysis.version
        )
    name = preview_doc.file_name(path, uri, report.line)
    written = ls.documents.write(PREVIEWS, name, text)
    return await show_file(ls, written, "the preview")


async def show_explanation(ls: SkewServer, *args: Any) -> dict[str, Any]:
    """``[code]``: write the code's explanation to a read-only markdown file and show it."""
    if not args or not isinstance(args[0], str):
        raise JsonRpcInvalidParams("expected one argument: a reason code such as SKW020")
    text = presentation.explain_markdown(args[0])
    if text is None:
        raise RequestFailed(f"unknown reason code {args[0]!r}")
    written = ls.documents.write(EXPLANATIONS, preview_doc.explanation_name(args[0]), text)
    return await show_file(ls, written, f"the explanation of {args[0].strip().upper()}")


def register(server: SkewServer) -> None:
    """Register the preview request and the server's commands with ``server``."""
    server.feature(PREVIEW_REQUEST)(preview)
    server.command(commands.EXPLAIN)(explain)
    server.command(commands.LIST_CODES)(list_codes)
    server.command(commands.SHOW_PREVIEW)(show_preview)
    server.command(commands.SHOW_EXPLANATION)(show_explanation)
