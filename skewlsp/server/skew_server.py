"""The server object: what every handler shares (documents, settings, results, the client).

The handlers themselves live in the modules named for what they answer
(:mod:`.lifecycle`, :mod:`.document_events`, :mod:`.loop_annotations`,
:mod:`.code_action_requests`, :mod:`.preview_commands`) and :mod:`.app` registers them.
What stays here is the state those handlers read and the steps more than one of them
takes: the open document's snapshot, its effective settings, publishing or
refreshing its diagnostics, re-analysing after a change.

Every answer is built by a pure module (diagnostics, presentation, actions,
positions, settings) from an :class:`Analysis` that :class:`DocumentStore`
computed off the event loop.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any, cast
from urllib.parse import unquote

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.json_rpc import JsonRPCNotification
from pygls.protocol.language_server import lsp_method
from pygls.uris import to_fs_path

from skewlsp import __version__, api
from skewlsp.server import commands, diagnostics, visibility
from skewlsp.server.documents import Analysis, DocumentStore, Snapshot, WorkspaceResolver
from skewlsp.server.last_diagnostics import LastDiagnostics
from skewlsp.server.line_table import LineTables
from skewlsp.server.positions import UTF16, encoding_name
from skewlsp.server.preview_files import DocumentFolder
from skewlsp.server.request_params import file_path
from skewlsp.server.settings import (
    ON_SAVE,
    ClientOptions,
    EffectiveSettings,
    SettingsCache,
    effective,
)


class SkewProtocol(LanguageServerProtocol):
    """Answers a request whose params cannot be read with an error instead of silence.

    pygls logs and drops such a message, which leaves the client waiting for
    ever; a wrong-shaped request must cost the client one error, nothing more.
    """

    def structure_message(self, data: dict[str, Any]):
        try:
            return super().structure_message(data)
        except JsonRpcException as error:
            if isinstance(data, dict) and "id" in data and "method" in data:
                self._send_response(data["id"], error=error.to_response_error())
            return JsonRPCNotification(method="$/skewlsp/dropped", jsonrpc="2.0", params=None)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.line_tables = LineTables()  # each open document's lines (see the module)

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams):
        """pygls' own handler, given the changes applied here, as one whole new text.

        pygls applies a ranged change to ``str.splitlines`` lines, which also break at a
        form feed or a Unicode line separator (an edit after one would land a line off
        what the client meant, silently), and rewrites the whole document in Python to
        do it. :class:`.line_table.LineTables` applies it to LSP's lines, at the lines
        it touches; pygls' ``TextDocument`` takes the result as a full change.
        """
        yield from super().lsp_text_document__did_change(self.as_whole_text(params))

    def as_whole_text(
        self, params: types.DidChangeTextDocumentParams
    ) -> types.DidChangeTextDocumentParams:
        """``params``, its changes applied by LSP lines as one whole-document change."""
        uri = params.text_document.uri
        doc = self.workspace.text_documents.get(unquote(uri))
        if doc is None:
            return params
        encoding = encoding_name(doc.position_codec.encoding)
        text = self.line_tables.changed(uri, doc.source, params.content_changes, encoding)
        whole = types.TextDocumentContentChangeWholeDocument(text=text)
        return types.DidChangeTextDocumentParams(params.text_document, [whole])


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
        # uri -> (the analysis, its planner and build, the previewer made from it): the
        # latest version previewed of each document (preview_commands), read and written
        # on the event loop only; an entry holds its analysis, so `is` compares versions.
        self.previewers: dict[str, tuple[object, tuple[object, ...], api.Previewer]] = {}
        # run = "onSave": the version of each document that was opened or saved (the only
        # one whose diagnostics are shown), and its result once analysed.
        self.lint_versions: dict[str, int | None] = {}
        self.saved_results: dict[str, Analysis] = {}
        # Each document's last diagnostics, given again while nothing they read changed.
        self.last_diagnostics = LastDiagnostics()
        self.store = DocumentStore(self.executor, self.snapshot, self.resolver_for, self.on_ready)

    # -- documents and settings --------------------------------------------------------

    @property
    def encoding(self) -> str:
        try:
            kind = self.workspace.position_encoding
        except Exception:
            return UTF16
        return encoding_name(kind)

    @property
    def line_tables(self) -> LineTables:
        """The open documents' lines, as the protocol keeps them through their edits."""
        return cast(SkewProtocol, self.protocol).line_tables

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
        text = doc.source
        lines = self.line_tables.lines(uri, text)
        return Snapshot(uri, doc.version, text, file_path(uri), lines)

    @property
    def root(self) -> str | None:
        try:
            return self.workspace.root_path
        except RuntimeError:
            return None

    def settings_for(self, uri: str) -> EffectiveSettings:
        project = self.settings_cache.project(file_path(uri), self.root)
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
            path = file_path(doc.uri)
            if path and doc.uri != snapshot.uri:
                # Imports are looked up in the resolved directory of the importing file:
                # an editor's path through a symlink must name the same file.
                open_texts[os.path.realpath(path)] = doc.source
        if snapshot.path:
            # The document's own text, as the version analysed has it: an inline helper's
            # callers next door import this module, and an unsaved edit must not make the
            # file on disk look like another module to them.
            open_texts[os.path.realpath(snapshot.path)] = snapshot.text
        settings = self.settings_for(snapshot.uri)
        return WorkspaceResolver(
            open_texts, settings.src, settings.memory_planner, settings.assumptions
        )

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
        settings = self.settings_for(analysis.uri)
        encoding = self.encoding
        return self.last_diagnostics.of(
            analysis,
            (settings.selection, encoding, settings.docs_url),
            lambda: diagnostics.build(
                analysis.reports,
                source=analysis.source,
                lines=analysis.lines,
                uri=analysis.uri,
                selection=settings.selection,
                syntax_error=analysis.syntax_error,
                encoding=encoding,
                may_suppress=analysis.may_suppress,
                docs=settings.docs_url,
            ),
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
