"""The server starts over stdio, advertises what it does, survives bad input, and exits cleanly."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from tests.kernels import FOR_LINE, SKEWED
from tests.server.conftest import raw_request


def test_version_flag_prints_the_version_and_exits():
    done = subprocess.run(
        [sys.executable, "-m", "skewlsp", "--version"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0
    assert done.stdout.startswith("skewlsp ")


def test_the_log_level_applies_to_stderr_when_there_is_no_log_file():
    def stderr_of(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "skewlsp", *args],
            input="",  # end of input at once: the server starts, finds no client, exits
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.stdout == ""  # stdout is the protocol channel: never a log line
        return done.stderr

    registered = "INFO:pygls.feature_manager:Registered builtin feature initialize"
    # ruff's lower-case level names (what the VS Code extension sends), and the old ones
    assert registered in stderr_of("--log-level", "info")
    assert registered in stderr_of("--log-level", "INFO")
    assert "INFO:" not in stderr_of()
    assert "INFO:" not in stderr_of("--log-level", "warning")


def _framed(*messages: dict[str, object]) -> bytes:
    """LSP messages as a client writes them on stdin: a Content-Length header, then JSON."""
    out = b""
    for message in messages:
        body = json.dumps(message).encode()
        out += b"Content-Length: %d\r\n\r\n" % len(body) + body
    return out


def test_a_log_file_at_info_holds_no_protocol_message_and_one_at_debug_does(tmp_path):
    # pygls logs every JSON-RPC message it sends at info: in a log file a user keeps at the
    # default level they would drown what the server says. They belong to debug.
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"processId": None, "rootUri": None, "capabilities": {}},
    }
    exchange = _framed(initialize, {"jsonrpc": "2.0", "method": "initialized", "params": {}})

    def log_at(level: str) -> str:
        log = tmp_path / f"{level}.log"
        done = subprocess.run(
            [sys.executable, "-m", "skewlsp", "--log-file", str(log), "--log-level", level],
            input=exchange,
            capture_output=True,
            timeout=60,
            check=False,
        )
        assert b'"serverInfo"' in done.stdout  # the server did answer the initialize request
        return log.read_text()

    info, debug = log_at("info"), log_at("debug")
    assert "Registered builtin feature initialize" in info  # the log is written at info
    assert '"jsonrpc"' not in info
    assert '"serverInfo"' in debug  # the initialize response, as sent


@pytest.mark.asyncio
async def test_initialize_advertises_incremental_sync_and_every_feature(client: LanguageClient):
    caps = client.session.server_capabilities
    assert caps.text_document_sync.change == types.TextDocumentSyncKind.Incremental
    assert caps.hover_provider
    assert caps.code_lens_provider is not None
    assert caps.inlay_hint_provider is not None
    assert caps.code_action_provider.resolve_provider is True
    assert types.CodeActionKind.QuickFix in caps.code_action_provider.code_action_kinds
    assert "skewlsp.explain" in caps.execute_command_provider.commands


def _pulls_and_refreshes(client: LanguageClient) -> tuple[bool, bool]:
    caps = client.capabilities
    text, workspace = caps.text_document, caps.workspace
    refresh = workspace.diagnostics if workspace else None
    return bool(text and text.diagnostic), bool(refresh and refresh.refresh_support)


@pytest.mark.asyncio
async def test_diagnostics_are_pulled_only_by_clients_that_can_be_asked_to_pull_again(
    client: LanguageClient,
):
    # Neovim 0.11 pulls but does not accept workspace/diagnostic/refresh: it is pushed them.
    neovim = client.session.profile == "neovim"
    assert _pulls_and_refreshes(client) == (neovim, False)
    assert client.session.server_capabilities.diagnostic_provider is None


@pytest.mark.asyncio
@pytest.mark.diagnostic_refresh
async def test_a_client_that_pulls_and_accepts_refresh_pulls(client: LanguageClient):
    pulls, refreshes = _pulls_and_refreshes(client)
    assert refreshes
    assert (client.session.server_capabilities.diagnostic_provider is not None) == pulls
    assert client.session.pulls == pulls


@pytest.mark.asyncio
async def test_requests_for_a_document_never_opened_get_empty_answers(client: LanguageClient):
    uri = client.session.path_uri("never_opened.py", SKEWED)
    doc = types.TextDocumentIdentifier(uri)
    hover = await client.text_document_hover_async(
        types.HoverParams(doc, types.Position(FOR_LINE, 10))
    )
    assert hover is None
    assert not await client.text_document_code_lens_async(types.CodeLensParams(doc))
    assert not await client.session.actions(uri, FOR_LINE)
    preview = await client.protocol.send_request_async(
        "skewlsp/preview",
        {"textDocument": {"uri": uri}, "position": {"line": FOR_LINE, "character": 0}},
    )
    assert preview is None


@pytest.mark.asyncio
async def test_a_malformed_request_gets_an_error_and_the_server_lives_on(client: LanguageClient):
    session = client.session
    uri = session.open("kernel.py", SKEWED)
    with pytest.raises(JsonRpcException):
        await raw_request(client, types.TEXT_DOCUMENT_HOVER, {"bogus": True})
    with pytest.raises(JsonRpcException):
        await raw_request(client, "skewlsp/preview", {"position": "nowhere"})
    with pytest.raises(JsonRpcException):
        await raw_request(client, "workspace/executeCommand", {"command": "skewlsp.explain"})
    hover = await session.hover(uri, FOR_LINE, 12)
    assert "`SKW001`" in hover.contents.value


@pytest.mark.asyncio
async def test_shutdown_then_exit_ends_the_process(client: LanguageClient):
    await client.shutdown_async(None)
    client.exit(None)
    await asyncio.wait_for(client._server.wait(), 30)
    assert client._server.returncode == 0
    client.capabilities = None  # already shut down: the fixture must not do it again
