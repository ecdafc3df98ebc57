"""A real client talking to ``python -m skewlsp`` over stdio, as VS Code and as Neovim.

Every end-to-end test runs once per client profile shipped with pytest-lsp:
VS Code 1.65 (push diagnostics, dynamic file watchers, change annotations)
and Neovim 0.11 (pull diagnostics, UTF-8 positions, no documentChanges).
Waiting is always on a message from the server, never on a sleep. Each test's
server is a process of its own, forked from one that imported skewlsp once
(tests/server/forkserver.py); tests about the process itself start
``python -m skewlsp`` directly.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import copy
import functools
import os
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import attrs
import pytest_lsp
from cattrs import Converter
from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import register_lsp_features

from tests.server.forkserver import Forkserver
from tests.server.forkserver import supported as forkserver_supported

PROFILES = ["visual-studio-code", "neovim"]
TIMEOUT = 30.0  # generous: a loaded CI machine must not fail a test by being slow


@functools.cache
def _converter() -> Converter:
    """One converter per test process: each builds its (un)structure functions on first use,
    a third of a test's own CPU when every client had a new one."""
    return default_converter()


def recording_client() -> LanguageClient:
    """The pytest-lsp client, plus a record of every publish and of the server's requests."""
    # What make_test_lsp_client does, with the process's converter.
    client = LanguageClient(converter_factory=_converter)
    register_lsp_features(client)
    client.published = []  # type: ignore[attr-defined]
    client.publish_waiters = []  # type: ignore[attr-defined]  # futures the next publish resolves
    client.registrations = []  # type: ignore[attr-defined]
    client.refreshes = []  # type: ignore[attr-defined]
    client.applied_edits = []  # type: ignore[attr-defined]
    features = client.protocol.fm.features
    original = features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]

    def record_publish(params: types.PublishDiagnosticsParams) -> None:
        client.published.append(params)  # type: ignore[attr-defined]
        waiters = client.publish_waiters  # type: ignore[attr-defined]
        client.publish_waiters = []  # type: ignore[attr-defined]
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(params)
        original(params)

    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = record_publish

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams) -> None:
        client.registrations.extend(params.registrations)  # type: ignore[attr-defined]

    @client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def lens_refresh(params: None) -> None:
        client.refreshes.append("codeLens")  # type: ignore[attr-defined]

    answer_refresh = features[types.WORKSPACE_DIAGNOSTIC_REFRESH]  # pytest-lsp answers it

    def diagnostic_refresh(params: None) -> object:
        client.refreshes.append("diagnostic")  # type: ignore[attr-defined]
        return answer_refresh(params)

    features[types.WORKSPACE_DIAGNOSTIC_REFRESH] = diagnostic_refresh

    @client.feature(types.WORKSPACE_INLAY_HINT_REFRESH)
    def inlay_refresh(params: None) -> None:
        client.refreshes.append("inlayHint")  # type: ignore[attr-defined]

    @client.feature(types.WORKSPACE_APPLY_EDIT)
    def apply_edit(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        client.applied_edits.append(params)  # type: ignore[attr-defined]
        return types.ApplyWorkspaceEditResult(applied=False)

    return client


# The server writes previews under $XDG_CACHE_HOME/skewlsp: a folder of the test run's own.
CACHE_HOME = Path(tempfile.mkdtemp(prefix="skewlsp-test-cache-"))
PREVIEW_DIR = CACHE_HOME / "skewlsp" / "previews"


@attrs.define
class ForkedServerConfig(ClientServerConfig):
    """Each test's own ``python -m skewlsp``, forked from a process that imported it once.

    See tests/server/forkserver.py: a server per test as before, its import paid once per
    test process. Where fork is missing, the plain command.
    """

    forkserver: Forkserver | None = None

    def get_server_command(self, devtools: str | None = None) -> list[str]:
        if devtools is not None or not forkserver_supported():
            return super().get_server_command(devtools)
        if self.forkserver is None:
            self.forkserver = Forkserver()
        return self.forkserver.command()


CONFIG = ForkedServerConfig(
    server_command=[sys.executable, "-m", "skewlsp"],
    client_factory=recording_client,
    server_env={**os.environ, "XDG_CACHE_HOME": str(CACHE_HOME)},
)


class Session:
    """A test's view of the client: open/change documents and read results by URI."""

    def __init__(self, client: LanguageClient, profile: str, root: Path) -> None:
        self.client = client
        self.profile = profile
        self.root = root
        self.versions: dict[str, int] = {}
        self.server_capabilities: types.ServerCapabilities | None = None

    @property
    def encoding(self) -> str:
        """The position encoding the server chose (Neovim gets UTF-8, VS Code UTF-16)."""
        chosen = self.server_capabilities.position_encoding if self.server_capabilities else None
        return str(getattr(chosen, "value", chosen) or "utf-16")

    def column(self, line_text: str, code_points: int) -> int:
        """Column, in the negotiated encoding, of a 0-based code-point offset into a line."""
        prefix = line_text[:code_points]
        if self.encoding == "utf-8":
            return len(prefix.encode("utf-8"))
        if self.encoding == "utf-32":
            return len(prefix)
        return len(prefix.encode("utf-16-le")) // 2

    @property
    def pulls(self) -> bool:
        """Whether the server offered this client pulled diagnostics (else it pushes them)."""
        caps = self.server_capabilities
        return caps is not None and caps.diagnostic_provider is not None

    def path_uri(self, name: str, text: str | None = None) -> str:
        path = self.root / name
        if text is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        return path.as_uri()

    def open(self, name: str, text: str, *, write: bool = True) -> str:
        uri = self.path_uri(name, text if write else None)
        self.versions[uri] = 1
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "python", 1, text))
        )
        return uri

    def change(self, uri: str, start: tuple[int, int], end: tuple[int, int], text: str) -> int:
        """One incremental edit (0-based line/character positions in the client's encoding)."""
        self.versions[uri] += 1
        change = types.TextDocumentContentChangePartial(
            range=types.Range(types.Position(*start), types.Position(*end)), text=text
        )
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(version=self.versions[uri], uri=uri), [change]
            )
        )
        return self.versions[uri]

    def replace_all(self, uri: str, old: str, new: str) -> int:
        """Replace the whole document with ``new`` through one ranged edit."""
        lines = old.split("\n")
        return self.change(uri, (0, 0), (len(lines) - 1, len(lines[-1])), new)

    async def diagnostics(
        self, uri: str, until: Callable[[Sequence[types.Diagnostic]], bool] = lambda d: True
    ) -> Sequence[types.Diagnostic]:
        """Pull (when the client pulls) or wait for a push satisfying ``until``."""
        if not self.pulls:
            return await self.pushed(uri, until)

        async def pull() -> Sequence[types.Diagnostic]:
            while True:
                report = await self.client.text_document_diagnostic_async(
                    types.DocumentDiagnosticParams(types.TextDocumentIdentifier(uri))
                )
                if until(report.items):
                    return report.items

        return await asyncio.wait_for(pull(), TIMEOUT)

    async def pushed(
        self, uri: str, until: Callable[[Sequence[types.Diagnostic]], bool] = lambda d: True
    ) -> Sequence[types.Diagnostic]:
        async def wait() -> Sequence[types.Diagnostic]:
            while True:
                found = self.client.diagnostics.get(uri)
                if found is not None and until(found):
                    return found
                await self.client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)

        return await asyncio.wait_for(wait(), TIMEOUT)

    async def published_version(self, uri: str, version: int) -> types.PublishDiagnosticsParams:
        """The diagnostics pushed for ``uri`` at ``version`` (waiting for them if need be).

        Any number of tasks may wait at once (the client's own ``wait_for_notification``
        serves one waiter per method)."""

        async def wait() -> types.PublishDiagnosticsParams:
            while True:
                for params in reversed(self.client.published):  # type: ignore[attr-defined]
                    if params.uri == uri and params.version == version:
                        return params
                future = asyncio.get_running_loop().create_future()
                self.client.publish_waiters.append(future)  # type: ignore[attr-defined]
                await future

        return await asyncio.wait_for(wait(), TIMEOUT)

    async def hover(self, uri: str, line: int, character: int) -> types.Hover | None:
        return await self.client.text_document_hover_async(
            types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(line, character))
        )

    async def actions(self, uri: str, line: int, end_line: int | None = None) -> list[Any]:
        end = end_line if end_line is not None else line
        result = await self.client.text_document_code_action_async(
            types.CodeActionParams(
                types.TextDocumentIdentifier(uri),
                types.Range(types.Position(line, 0), types.Position(end, 0)),
                types.CodeActionContext(diagnostics=[]),
            )
        )
        return list(result or [])


@functools.cache
def _capabilities(profile: str) -> types.ClientCapabilities:
    """The profile's capabilities, read once per test process (each read builds a converter)."""
    return client_capabilities(profile)


def initialize_params(
    profile: str,
    root: Path,
    options: dict[str, Any] | None = None,
    *,
    diagnostic_refresh: bool = False,
) -> types.InitializeParams:
    capabilities = copy.deepcopy(_capabilities(profile))  # (a test may change its copy)
    if diagnostic_refresh:  # e.g. a Neovim build that accepts workspace/diagnostic/refresh
        workspace = capabilities.workspace or types.WorkspaceClientCapabilities()
        workspace.diagnostics = types.DiagnosticWorkspaceClientCapabilities(refresh_support=True)
        capabilities.workspace = workspace
    return types.InitializeParams(
        capabilities=capabilities,
        root_uri=root.as_uri(),
        workspace_folders=[types.WorkspaceFolder(root.as_uri(), root.name)],
        initialization_options=options,
    )


@pytest_lsp.fixture(config=CONFIG, params=PROFILES)
async def client(lsp_client: LanguageClient, request: Any, tmp_path: Path):
    """An initialised client per profile, shut down cleanly after the test."""
    options = None
    marker = request.node.get_closest_marker("init_options")
    if marker is not None:
        options = marker.args[0]
    refresh = request.node.get_closest_marker("diagnostic_refresh") is not None
    result = await lsp_client.initialize_session(
        initialize_params(request.param, tmp_path, options, diagnostic_refresh=refresh)
    )
    session = Session(lsp_client, request.param, tmp_path)
    session.server_capabilities = result.capabilities
    lsp_client.session = session  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


def pytest_configure(config: Any) -> None:
    config.addinivalue_line("markers", "init_options(opts): initializationOptions for the client")
    config.addinivalue_line(
        "markers", "diagnostic_refresh: the client also accepts workspace/diagnostic/refresh"
    )


async def raw_request(client: LanguageClient, method: str, params: Any) -> Any:
    """Send a request exactly as given (bypassing the client's type checks) and await the reply.

    Resolves to the result, or raises the JSON-RPC error the server answered with.
    """
    msg_id = f"raw-{len(client.protocol._request_futures)}-{method}"
    future: concurrent.futures.Future[Any] = concurrent.futures.Future()
    client.protocol._request_futures[msg_id] = future
    client.protocol._send_data({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
    return plain(await asyncio.wait_for(asyncio.wrap_future(future), TIMEOUT))


def plain(value: Any) -> Any:
    """pygls hands untyped JSON objects over as namedtuples; tests compare plain dicts."""
    if hasattr(value, "_asdict"):
        return {key: plain(item) for key, item in value._asdict().items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    return value


def offset(text: str, position: types.Position) -> int:
    """Offset of an LSP position in ASCII text (the kernels the action tests edit are ASCII)."""
    lines = text.split("\n")
    line = min(position.line, len(lines) - 1)
    return sum(len(x) + 1 for x in lines[:line]) + min(position.character, len(lines[line]))


def apply_edits(text: str, edits: Sequence[types.TextEdit]) -> str:
    for edit in sorted(
        edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True
    ):
        start, end = offset(text, edit.range.start), offset(text, edit.range.end)
        text = text[:start] + edit.new_text + text[end:]
    return text


def edits_of(edit: types.WorkspaceEdit, uri: str) -> list[types.TextEdit]:
    """The text edits for ``uri`` whichever form (changes / documentChanges) the server chose."""
    if edit.document_changes:
        return [
            e
            for change in edit.document_changes
            if change.text_document.uri == uri
            for e in change.edits
        ]
    return list(edit.changes[uri])
