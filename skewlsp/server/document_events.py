"""What the editor tells the server about its documents, and the diagnostics it pulls.

Opening, editing, saving and closing a document, or a watched file changing on
disk, each schedules an analysis (:class:`DocumentStore` runs it off the event
loop) or re-decides the documents that import the changed module. The results
are pushed by :meth:`SkewServer.on_ready`, or pulled through
:func:`pull_diagnostics` by a client that pulls (registered at ``initialize``).
"""

from __future__ import annotations

from lsprotocol import types
from pygls.uris import to_fs_path

from skewlsp.server.documents import Analysis
from skewlsp.server.request_params import file_path
from skewlsp.server.settings import ON_SAVE, is_config_file
from skewlsp.server.skew_server import SkewServer


def did_open(ls: SkewServer, params: types.DidOpenTextDocumentParams) -> None:
    ls.lint_versions[params.text_document.uri] = params.text_document.version
    ls.store.schedule(params.text_document.uri, 0)
    if params.text_document.uri.startswith("file:"):
        ls.file_changed(to_fs_path(params.text_document.uri) or "", params.text_document.uri)


def did_change(ls: SkewServer, params: types.DidChangeTextDocumentParams) -> None:
    uri = params.text_document.uri
    if ls.options.run != ON_SAVE:
        ls.store.schedule(uri, ls.debounce)
    if uri.startswith("file:"):
        ls.file_changed(to_fs_path(uri) or "", uri)


def did_save(ls: SkewServer, params: types.DidSaveTextDocumentParams) -> None:
    uri = params.text_document.uri
    path = file_path(uri)
    if path and is_config_file(path):
        ls.config_changed()
    doc = ls.document(uri)
    ls.lint_versions[uri] = doc.version if doc is not None else None
    ls.store.schedule(uri, 0)


def did_close(ls: SkewServer, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    ls.store.close(uri)
    ls.line_tables.forget(uri)
    ls.lint_versions.pop(uri, None)
    ls.saved_results.pop(uri, None)
    ls.last_diagnostics.forget(uri)
    if not ls.pull_diagnostics:
        ls.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=[])
        )
    if uri.startswith("file:"):
        ls.file_changed(to_fs_path(uri) or "", uri)


def did_change_watched_files(ls: SkewServer, params: types.DidChangeWatchedFilesParams) -> None:
    config = False
    for change in params.changes:
        path = file_path(change.uri)
        if not path:
            continue
        if is_config_file(path):
            config = True
        elif path.endswith(".py"):
            ls.file_changed(path)
    if config:
        ls.config_changed()


async def pull_diagnostics(
    ls: SkewServer, params: types.DocumentDiagnosticParams
) -> types.RelatedFullDocumentDiagnosticReport:
    uri = params.text_document.uri
    saved = ls.saved_results.get(uri) if ls.options.run == ON_SAVE else None
    analysis: Analysis | None
    if saved is not None and saved.version == ls.lint_versions.get(uri, saved.version):
        analysis = saved  # linted on save: the last opened or saved version's result
    else:
        # Not linted yet, or saved since: the version saved last (the current one unless
        # edited since) is analysed now, so that a pull right after a save gets it.
        analysis = await ls.store.get(uri)
        if analysis is not None and not ls.linted_on_save(analysis):
            # With run = "onSave" an unsaved version is never shown: the previous save's
            # result, if any (the client is asked to pull again when the save's is in).
            analysis = ls.saved_results.get(uri)
    items = ls.diagnostics_of(analysis) if analysis is not None else []
    return types.RelatedFullDocumentDiagnosticReport(items=items)


def register(server: SkewServer) -> None:
    """Register the document and watched-file notifications with ``server`` (pulled
    diagnostics are registered at ``initialize``, for a client that pulls)."""
    server.feature(types.TEXT_DOCUMENT_DID_OPEN)(did_open)
    server.feature(types.TEXT_DOCUMENT_DID_CHANGE)(did_change)
    server.feature(types.TEXT_DOCUMENT_DID_SAVE)(did_save)
    server.feature(types.TEXT_DOCUMENT_DID_CLOSE)(did_close)
    server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)(did_change_watched_files)
