"""The code action requests: listing a range's actions, and resolving one into its edit.

:mod:`.actions` builds both answers; this module brings the document's analysis
and the client's abilities to it. A rewrite runs the pass over the file, so it is
computed off the event loop, and only when asked for: listed actions carry data,
and the edit comes with ``codeAction/resolve`` (or at once, for a client that
cannot resolve). "Fix all" (``source.fixAll.skewlint``) needs no rewrite and carries
its edit from the start, so it works on save even in a client that never resolves; a
loop's ``stage=`` fix in it is decided again first (off the event loop).
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Mapping

from lsprotocol import types
from pygls.exceptions import JsonRpcContentModified, JsonRpcException, JsonRpcInvalidParams

from skewlsp.server import actions, diagnostics
from skewlsp.server.documents import Snapshot
from skewlsp.server.positions import from_position, to_position
from skewlsp.server.request_params import RequestFailed, file_path, plain
from skewlsp.server.skew_server import SkewServer


def _resolve_supported(ls: SkewServer) -> bool:
    text = ls.client_capabilities.text_document
    support = text.code_action.resolve_support if text and text.code_action else None
    return bool(support and "edit" in support.properties)


async def code_action(
    ls: SkewServer, params: types.CodeActionParams
) -> list[types.CodeAction | types.Command]:
    uri = params.text_document.uri
    analysis = await ls.store.get(uri)
    if analysis is None or analysis.stale:
        return []
    lines = analysis.lines
    first, _ = from_position(lines, params.range.start, ls.encoding)
    last, _ = from_position(lines, params.range.end, ls.encoding)
    selection = ls.settings_for(uri).selection
    enabled = {code for code in selection.enabled_codes()}
    fix_all = None
    if actions.wanted(actions.FIX_ALL_KIND, params.context.only):
        shown = diagnostics.select_and_suppress(
            analysis.reports,
            selection,
            analysis.source,
            uri,
            may_suppress=analysis.may_suppress,
        )
        support = actions.EditSupport.of(ls.client_capabilities)
        fix_all = actions.fix_all(uri, analysis.version, shown, lines, support, ls.encoding)
        if any(d.promised is not None for d in shown):
            # A loop's stage= fix is written only once the edited text is decided again:
            # an analysis, so off the event loop.
            resolver = ls.resolver_for(
                Snapshot(uri, analysis.version, analysis.source, file_path(uri))
            )
            decide = actions.decider(
                file_path(uri), resolver, resolver.assumptions, resolver.planner
            )
            fix_all = await asyncio.get_running_loop().run_in_executor(
                ls.executor,
                functools.partial(
                    actions.fix_all,
                    uri,
                    analysis.version,
                    shown,
                    lines,
                    support,
                    ls.encoding,
                    analysis.source,
                    decide,
                ),
            )
    found = actions.list_actions(
        uri,
        analysis.version,
        analysis.reports,
        first,
        last,
        params.context.diagnostics,
        enabled,
        params.context.only,
        commands=ls.command_choice,
        preview_at=lambda report: to_position(
            lines, report.span.line, report.span.column, ls.encoding
        ),
    )
    if fix_all is not None:
        found.append(fix_all)
    if _resolve_supported(ls):
        return found
    resolved: list[types.CodeAction | types.Command] = []
    for action in found:
        if isinstance(action, types.Command) or action.edit is not None:
            resolved.append(action)
            continue
        try:
            resolved.append(await resolve_code_action(ls, action))
        except JsonRpcException:
            continue
    return resolved


async def resolve_code_action(ls: SkewServer, action: types.CodeAction) -> types.CodeAction:
    if action.edit is not None and action.data is None:  # Fix all: complete already
        return action
    data = plain(action.data)
    if not isinstance(data, Mapping):
        data = {}
    uri = data.get("uri")
    if not isinstance(uri, str):
        raise JsonRpcInvalidParams("this code action carries no skewlsp data")
    analysis = await ls.store.get(uri)
    if analysis is None or analysis.stale:
        raise JsonRpcContentModified("the document is closed or does not parse")
    report = actions.find_report(analysis.reports, data.get("loop") or [])
    if report is None:
        raise JsonRpcContentModified("the loop is no longer there; ask for code actions again")
    lines = analysis.lines
    resolver = ls.resolver_for(Snapshot(uri, analysis.version, analysis.source, file_path(uri)))
    try:
        edit = await asyncio.get_running_loop().run_in_executor(
            ls.executor,
            functools.partial(
                actions.resolve_edit,
                str(data.get("action")),
                analysis.source,
                lines,
                report,
                str(data.get("code") or ""),
                ls.encoding,
                resolver,
                resolver.assumptions,
                resolver.planner,
            ),
        )
    except actions.PreviewUnavailableError as error:
        raise RequestFailed(f"cannot rewrite this loop: {error}") from error
    if edit is not None:
        support = actions.EditSupport.of(ls.client_capabilities)
        action.edit = actions.workspace_edit(uri, analysis.version, edit, support)
    return action


def register(server: SkewServer) -> None:
    """Register the code action and resolve handlers with ``server``."""
    server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(resolve_provider=True, code_action_kinds=actions.KINDS),
    )(code_action)
    server.feature(types.CODE_ACTION_RESOLVE)(resolve_code_action)
