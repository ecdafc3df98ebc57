"""The language server: feature registration and the glue between pygls and the modules.

Kept thin on purpose: every answer is built by a pure module (diagnostics,
presentation, actions, positions, settings) from an :class:`Analysis` that
:class:`DocumentStore` computed off the event loop. What lives here is only
what needs the client: capabilities, configuration requests, registrations,
publishing.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import unquote

from lsprotocol import types
from pygls.exceptions import JsonRpcContentModified, JsonRpcException, JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer
from pygls.protocol.json_rpc import JsonRPCNotification
from pygls.uris import to_fs_path

from skewlsp import __version__, api
from skewlsp.contract import CODES, SYNTAX_ERROR, LoopReport, loop_at
from skewlsp.server import actions, commands, diagnostics, presentation, preview_doc, visibility
from skewlsp.server.documents import (
    Analysis,
    DocumentStore,
    SiblingImporters,
    Snapshot,
    WorkspaceResolver,
)
from skewlsp.server.positions import UTF16, from_position, span_to_range, to_position
from skewlsp.server.preview_files import EXPLANATIONS, PREVIEWS, DocumentFolder
from skewlsp.server.settings import (
    ON_SAVE,
    ClientOptions,
    EffectiveSettings,
    SettingsCache,
    effective,
    is_config_file,
    merge_client_options,
    parse_client_options,
)
from skewlsp.server.text_sync import SyncedDocument, SyncedProtocol

log = logging.getLogger(__name__)

PREVIEW_REQUEST = "skewlsp/preview"
CONFIG_SECTION = "skewlsp"
WATCHERS = ("**/pyproject.toml", "**/skewlint.toml", "**/.skewlint.toml", "**/*.py")


class RequestFailed(JsonRpcException):
    """LSP ``RequestFailed``: the request was valid but cannot be answered (e.g. no rewrite)."""

    CODE = -32803


class SkewProtocol(SyncedProtocol):
    """Answers a request whose params cannot be read with an error instead of silence.

    pygls logs and drops such a message, which leaves the client waiting for
    ever; a wrong-shaped request must cost the client one error, nothing more.
    Its documents apply edits in time proportional to the edit (:mod:`.text_sync`).
    """

    def structure_message(self, data: dict[str, Any]):
        try:
            return super().structure_message(data)
        except JsonRpcException as error:
            if isinstance(data, dict) and "id" in data and "method" in data:
                self._send_response(data["id"], error=error.to_response_error())
            return JsonRPCNotification(method="$/skewlsp/dropped", jsonrpc="2.0", params=None)


class SkewServer(LanguageServer):
    """pygls server holding the document store, the settings and the client's abilities."""

    def __init__(self) -> None:
        super().__init__(
            "skewlsp",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=SkewProtocol,
        )
        self.executor = ThreadPoolExecutor(max_workers=2, thread_name_prefix="skewlsp-analysis")
        self.settings_cache = SettingsCache()
        self.init_options = ClientOptions()
        self.options = ClientOptions()
        self.pull_diagnostics = False
        self.shown_errors: set[str] = set()
        self.documents = DocumentFolder()  # where shown previews and explanations are written
        # run = "onSave": the version of each document that was opened or saved (the only
        # one whose diagnostics are shown), and its result once analysed.
        self.lint_versions: dict[str, int | None] = {}
        self.saved_results: dict[str, Analysis] = {}
        self.store = DocumentStore(self.executor, self.snapshot, self.resolver_for, self.on_ready)

    # -- documents and settings --------------------------------------------------------

    @property
    def encoding(self) -> str:
        try:
            kind = self.workspace.position_encoding
        except Exception:
            return UTF16
        return str(getattr(kind, "value", kind) or UTF16)

    def document(self, uri: str):
        """The open document, or ``None`` (never read from disk: unopened means no results)."""
        try:
            return self.workspace.text_documents.get(unquote(uri))
        except RuntimeError:  # not initialised yet
            return None

    def snapshot(self, uri: str) -> Snapshot | None:
        doc = self.document(uri)
        if doc is None or (uri.startswith("file:") and self.documents.is_ours(to_fs_path(uri))):
            return None  # never opened, or one of our own read-only previews
        synced = isinstance(doc, SyncedDocument)
        return Snapshot(
            uri,
            doc.version,
            doc.source,
            to_fs_path(uri) if uri.startswith("file:") else None,
            doc.lsp_lines if synced else None,
            doc.may_hold_suppressions if synced else True,
        )

    @property
    def root(self) -> str | None:
        try:
            return self.workspace.root_path
        except RuntimeError:
            return None

    def settings_for(self, uri: str) -> EffectiveSettings:
        path = to_fs_path(uri) if uri.startswith("file:") else None
        project = self.settings_cache.project(path, self.root)
        for file, message in list(self.settings_cache.errors.items()):
            if file not in self.shown_errors:
                self.shown_errors.add(file)
                self.window_show_message(
                    types.ShowMessageParams(types.MessageType.Error, f"skewlsp: {message}")
                )
        return effective(project, self.options, self.root)

    def resolver_for(self, snapshot: Snapshot) -> WorkspaceResolver:
        open_texts = {}
        for doc in list(self.workspace.text_documents.values()):
            path = to_fs_path(doc.uri) if doc.uri.startswith("file:") else None
            if path and doc.uri != snapshot.uri:
                # Imports are looked up in the resolved directory of the importing file:
                # an editor's path through a symlink must name the same file.
                open_texts[os.path.realpath(path)] = doc.source
        return WorkspaceResolver(open_texts, self.settings_for(snapshot.uri).src)

    @property
    def debounce(self) -> float:
        return self.options.debounce_ms / 1000

    @property
    def command_choice(self) -> commands.CommandChoice:
        """Which command names lenses and actions carry (the client's own, when declared)."""
        return commands.CommandChoice.of(self.init_options.client_commands)

    def shown(self, analysis: Analysis) -> visibility.Shown:
        """The loops and hints this document shows, under the same settings as diagnostics."""
        return visibility.shown(
            analysis.reports,
            self.settings_for(analysis.uri).selection,
            analysis.source,
            may_suppress=analysis.may_suppress,
            apply_comments=not analysis.stale,
        )

    # -- results -----------------------------------------------------------------------

    def diagnostics_of(self, analysis: Analysis) -> list[types.Diagnostic]:
        return diagnostics.build(
            analysis.reports,
            source=analysis.source,
            lines=analysis.lines,
            uri=analysis.uri,
            selection=self.settings_for(analysis.uri).selection,
            syntax_error=analysis.syntax_error,
            encoding=self.encoding,
            may_suppress=analysis.may_suppress,
        )

    def linted_on_save(self, analysis: Analysis) -> bool:
        """``True`` when diagnostics may show this result: always, except with ``run =
        "onSave"``, where only the version last opened or saved counts (a hover on an
        unsaved edit analyses it, but must not publish it)."""
        if self.options.run != ON_SAVE:
            return True
        if self.lint_versions.get(analysis.uri, analysis.version) != analysis.version:
            return False
        self.saved_results[analysis.uri] = analysis
        return True

    def on_ready(self, analysis: Analysis) -> None:
        """A current result is in: push its diagnostics unless the client pulls them.

        An analysis that crashed says so once per document (the CLI exits 2 for it):
        an empty list of diagnostics would otherwise look like a clean file.
        """
        if analysis.internal_error is not None and analysis.uri not in self.shown_errors:
            self.shown_errors.add(analysis.uri)
            self.window_show_message(
                types.ShowMessageParams(
                    types.MessageType.Error,
                    f"skewlsp: internal error while analysing {analysis.uri}: "
                    f"{analysis.internal_error} (its loops are not shown; please report it)",
                )
            )
        if not self.linted_on_save(analysis):
            return
        if self.pull_diagnostics:
            if self.options.run == ON_SAVE:  # the client pulls on its own edits, not on ours
                self.refresh_pulled_diagnostics()
            return
        doc = self.document(analysis.uri)
        if doc is None or doc.version != analysis.version:
            return
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(
                uri=analysis.uri,
                diagnostics=self.diagnostics_of(analysis),
                version=analysis.version,
            )
        )

    def refresh_pulled_diagnostics(self) -> None:
        """Ask a pulling client to pull again (if it accepts being asked)."""
        caps = self.client_capabilities.workspace
        if caps and caps.diagnostics and caps.diagnostics.refresh_support:
            self.workspace_diagnostic_refresh(None)

    def reanalyse(self, uris: list[str]) -> None:
        """Re-run (push) or ask the client to re-pull (pull) after settings or imports changed."""
        caps = self.client_capabilities.workspace
        if self.pull_diagnostics:
            self.refresh_pulled_diagnostics()
        else:
            for uri in uris:
                self.store.schedule(uri, 0)
        if caps and caps.code_lens and caps.code_lens.refresh_support:
            self.workspace_code_lens_refresh(None)
        if caps and caps.inlay_hint and caps.inlay_hint.refresh_support:
            self.workspace_inlay_hint_refresh(None)

    def open_uris(self) -> list[str]:
        return [doc.uri for doc in list(self.workspace.text_documents.values())]

    def apply_options(self, raw: Any, *, initial: bool = False) -> None:
        raw = _plain(raw)
        parsed, problems = parse_client_options(raw)
        for problem in problems:
            self.window_log_message(types.LogMessageParams(types.MessageType.Warning, problem))
        if initial:
            self.init_options = parsed
            self.options = parsed
        else:
            self.options = merge_client_options(self.init_options, parsed, raw)

    async def pull_configuration(self) -> None:
        """Ask the client for section ``skewlsp`` (when it answers ``workspace/configuration``)."""
        caps = self.client_capabilities.workspace
        if not (caps and caps.configuration):
            return
        try:
            answer = await asyncio.wait_for(
                self.workspace_configuration_async(
                    types.ConfigurationParams([types.ConfigurationItem(section=CONFIG_SECTION)])
                ),
                timeout=10,
            )
        except Exception:
            log.warning("workspace/configuration failed", exc_info=True)
            return
        if answer:
            self.apply_options(answer[0])

    async def register_watchers(self) -> None:
        caps = self.client_capabilities.workspace
        watched = caps.did_change_watched_files if caps else None
        if not (watched and watched.dynamic_registration):
            return
        options = types.DidChangeWatchedFilesRegistrationOptions(
            watchers=[types.FileSystemWatcher(glob_pattern=glob) for glob in WATCHERS]
        )
        registration = types.Registration(
            id="skewlsp-watched-files",
            method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=options,
        )
        try:
            await self.client_register_capability_async(types.RegistrationParams([registration]))
        except Exception:
            log.warning("could not register file watchers", exc_info=True)

    def config_changed(self) -> None:
        self.settings_cache.clear()
        self.shown_errors.clear()
        self.store.invalidate_all()
        self.reanalyse(self.open_uris())

    def file_changed(self, path: str, uri: str | None = None) -> None:
        """An imported module changed on disk or in the editor (as the open document
        ``uri``): re-analyse who imports it, or reads its folder. The document itself is
        not its own dependent: its edits are analysed after the debounce, like any other."""
        dependents = [other for other in self.store.dependents(path) if other != uri]
        for uri in dependents:
            self.store.invalidate(uri)
        if dependents:
            self.reanalyse(dependents)


server = SkewServer()


def _field(obj: Any, *names: str) -> Any:
    """Read a field of a params object or of the plain dict a custom request arrives as."""
    for name in names:
        if obj is None:
            return None
        obj = obj.get(name) if isinstance(obj, Mapping) else getattr(obj, name, None)
    return obj


def _plain(value: Any) -> Any:
    """pygls turns untyped JSON objects into namedtuples; give them back as dicts and lists."""
    if hasattr(value, "_asdict"):
        return {key: _plain(item) for key, item in value._asdict().items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


def _path(uri: str) -> str | None:
    return to_fs_path(uri) if uri.startswith("file:") else None


def _position(raw: Any) -> types.Position | None:
    line, character = _field(raw, "line"), _field(raw, "character")
    if not isinstance(line, int) or not isinstance(character, int):
        return None
    return types.Position(max(line, 0), max(character, 0))


# -- lifecycle -------------------------------------------------------------------------


@server.feature(types.INITIALIZE)
def initialize(ls: SkewServer, params: types.InitializeParams) -> None:
    ls.apply_options(params.initialization_options, initial=True)
    text = params.capabilities.text_document
    ls.pull_diagnostics = bool(text and text.diagnostic)
    if ls.pull_diagnostics:
        ls.feature(
            types.TEXT_DOCUMENT_DIAGNOSTIC,
            types.DiagnosticOptions(
                identifier="skewlsp", inter_file_dependencies=True, workspace_diagnostics=False
            ),
        )(pull_diagnostics)


@server.feature(types.INITIALIZED)
async def initialized(ls: SkewServer, params: types.InitializedParams) -> None:
    await ls.register_watchers()
    await ls.pull_configuration()


@server.feature(types.SHUTDOWN)
def shutdown(ls: SkewServer, params: Any) -> None:
    ls.executor.shutdown(wait=False, cancel_futures=True)


# -- text synchronisation --------------------------------------------------------------


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: SkewServer, params: types.DidOpenTextDocumentParams) -> None:
    ls.lint_versions[params.text_document.uri] = params.text_document.version
    ls.store.schedule(params.text_document.uri, 0)
    if params.text_document.uri.startswith("file:"):
        ls.file_changed(to_fs_path(params.text_document.uri) or "", params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: SkewServer, params: types.DidChangeTextDocumentParams) -> None:
    uri = params.text_document.uri
    if ls.options.run != ON_SAVE:
        ls.store.schedule(uri, ls.debounce)
    if uri.startswith("file:"):
        ls.file_changed(to_fs_path(uri) or "", uri)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: SkewServer, params: types.DidSaveTextDocumentParams) -> None:
    uri = params.text_document.uri
    path = to_fs_path(uri) if uri.startswith("file:") else None
    if path and is_config_file(path):
        ls.config_changed()
    doc = ls.document(uri)
    ls.lint_versions[uri] = doc.version if doc is not None else None
    ls.store.schedule(uri, 0)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: SkewServer, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    ls.store.close(uri)
    ls.lint_versions.pop(uri, None)
    ls.saved_results.pop(uri, None)
    if not ls.pull_diagnostics:
        ls.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=[])
        )
    if uri.startswith("file:"):
        ls.file_changed(to_fs_path(uri) or "", uri)


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def did_change_watched_files(ls: SkewServer, params: types.DidChangeWatchedFilesParams) -> None:
    config = False
    for change in params.changes:
        path = to_fs_path(change.uri) if change.uri.startswith("file:") else None
        if not path:
            continue
        if is_config_file(path):
            config = True
        elif path.endswith(".py"):
            ls.file_changed(path)
    if config:
        ls.config_changed()


@server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
async def did_change_configuration(
    ls: SkewServer, params: types.DidChangeConfigurationParams
) -> None:
    section = _plain(_field(params.settings, CONFIG_SECTION))
    if isinstance(section, list) and not section:  # an empty Lua table arrives as []
        section = {}
    if isinstance(section, Mapping):
        ls.apply_options(section)
    else:
        await ls.pull_configuration()
    ls.config_changed()


# -- diagnostics (pull) ----------------------------------------------------------------


async def pull_diagnostics(
    ls: SkewServer, params: types.DocumentDiagnosticParams
) -> types.RelatedFullDocumentDiagnosticReport:
    uri = params.text_document.uri
    saved = ls.saved_results.get(uri) if ls.options.run == ON_SAVE else None
    if saved is not None:
        analysis = saved  # linted on save: the last opened or saved version's result
    else:
        analysis = await ls.store.get(uri)
        if analysis is not None and not ls.linted_on_save(analysis):
            # With run = "onSave" an unsaved version is never shown; the saved one's result
            # is not in yet (the client is asked to pull again when it is).
            analysis = None
    items = ls.diagnostics_of(analysis) if analysis is not None else []
    return types.RelatedFullDocumentDiagnosticReport(items=items)


# -- hover, lenses, inlay hints --------------------------------------------------------


def _header_report(analysis: Analysis, line: int):
    """The loop whose ``for`` line or ``pl.pipeline(...)`` call holds 1-based ``line``."""
    found = [
        r
        for r in analysis.reports
        if r.code != SYNTAX_ERROR and r.span.line <= line <= r.call_span.end_line
    ]
    return max(found, key=lambda r: r.span.line, default=None)


@server.feature(types.TEXT_DOCUMENT_HOVER)
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


@server.feature(types.TEXT_DOCUMENT_CODE_LENS)
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
        previewable = report.verdict in ("skewed", "demoted")
        title = presentation.lens_title(report, previewable=previewable)
        command = (
            choice.preview(title, uri, start)
            if previewable
            else choice.explanation(title, report.code)
        )
        lenses.append(types.CodeLens(range=types.Range(start, start), command=command))
    return lenses


@server.feature(types.TEXT_DOCUMENT_INLAY_HINT)
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


# -- code actions ----------------------------------------------------------------------


def _resolve_supported(ls: SkewServer) -> bool:
    text = ls.client_capabilities.text_document
    support = text.code_action.resolve_support if text and text.code_action else None
    return bool(support and "edit" in support.properties)


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(resolve_provider=True, code_action_kinds=actions.KINDS),
)
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
    if _resolve_supported(ls):
        return found
    resolved: list[types.CodeAction | types.Command] = []
    for action in found:
        if isinstance(action, types.Command):
            resolved.append(action)
            continue
        try:
            resolved.append(await resolve_code_action(ls, action))
        except JsonRpcException:
            continue
    return resolved


@server.feature(types.CODE_ACTION_RESOLVE)
async def resolve_code_action(ls: SkewServer, action: types.CodeAction) -> types.CodeAction:
    data = _plain(action.data)
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
    resolver = ls.resolver_for(Snapshot(uri, analysis.version, analysis.source, _path(uri)))
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
            ),
        )
    except actions.PreviewUnavailableError as error:
        raise RequestFailed(f"cannot rewrite this loop: {error}") from error
    if edit is not None:
        support = actions.EditSupport.of(ls.client_capabilities)
        action.edit = actions.workspace_edit(uri, analysis.version, edit, support)
    return action


# -- custom request and commands -------------------------------------------------------


async def _loop_preview(
    ls: SkewServer, uri: str, path: str | None, analysis: Analysis, report: LoopReport
) -> api.LoopPreview:
    """The loop's preview, off the event loop, decided as the document's diagnostics were:
    with the open texts for imports and the modules next to it for a helper's callers."""
    resolver = ls.resolver_for(Snapshot(uri, analysis.version, analysis.source, path))
    return await asyncio.get_running_loop().run_in_executor(
        ls.executor,
        actions.loop_preview,
        analysis.source,
        report,
        resolver,
        SiblingImporters(path, resolver.open_texts) if path else None,
    )


@server.feature(PREVIEW_REQUEST)
async def preview(ls: SkewServer, params: Any) -> dict[str, Any] | None:
    """``{textDocument: {uri}, position}`` -> ``{range, original, rewritten, others, document}``
    or null.

    Read-only: the client shows the answer (the VS Code extension as a diff); nothing
    is applied to the document.
    """
    uri = _field(params, "textDocument", "uri") or _field(params, "text_document", "uri")
    position = _position(_field(params, "position"))
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
    path = _path(uri)
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


@server.command(commands.EXPLAIN)
def explain(ls: SkewServer, *args: Any) -> str | None:
    """Markdown explanation of a reason code (``null`` for an unknown code)."""
    if not args or not isinstance(args[0], str):
        raise JsonRpcInvalidParams("expected one argument: a reason code such as SKW020")
    return presentation.explain_markdown(args[0])


@server.command(commands.LIST_CODES)
def list_codes(ls: SkewServer, *args: Any) -> list[dict[str, str]]:
    """Every code the server can report: what a client offers in its "explain" picker."""
    return [
        {"code": c.code, "title": c.title, "severity": c.severity, "verdict": c.verdict}
        for c in CODES.values()
    ]


async def show_file(ls: SkewServer, path: Any, what: str) -> dict[str, Any]:
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


@server.command(commands.SHOW_PREVIEW)
async def show_preview(ls: SkewServer, *args: Any) -> dict[str, Any]:
    """``[uri, {line, character}]``: write the loop's rewrite to a read-only file and show it.

    The user's document is never edited: the rewrite goes to the server's cache.
    """
    uri = args[0] if args else None
    position = _position(args[1]) if len(args) > 1 else None
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
    path = _path(uri)
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


@server.command(commands.SHOW_EXPLANATION)
async def show_explanation(ls: SkewServer, *args: Any) -> dict[str, Any]:
    """``[code]``: write the code's explanation to a read-only markdown file and show it."""
    if not args or not isinstance(args[0], str):
        raise JsonRpcInvalidParams("expected one argument: a reason code such as SKW020")
    text = presentation.explain_markdown(args[0])
    if text is None:
        raise RequestFailed(f"unknown reason code {args[0]!r}")
    written = ls.documents.write(EXPLANATIONS, preview_doc.explanation_name(args[0]), text)
    return await show_file(ls, written, f"the explanation of {args[0].strip().upper()}")
