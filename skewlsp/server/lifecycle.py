"""Starting and stopping, and the conversation with the client about settings.

The client's settings reach the server three ways: ``initializationOptions``, a
pushed ``workspace/didChangeConfiguration``, and the server's own
``workspace/configuration`` request for section ``skewlsp`` (when the client answers
it). All three go through :func:`apply_options`, so a problem in any of them is
logged the same way and a later push is merged over the initial options.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import Any

from lsprotocol import types

from skewlsp.server.document_events import pull_diagnostics
from skewlsp.server.request_params import field, plain
from skewlsp.server.settings import merge_client_options, parse_client_options
from skewlsp.server.skew_server import SkewServer

log = logging.getLogger(__name__)

CONFIG_SECTION = "skewlsp"
WATCHERS = ("**/pyproject.toml", "**/skewlint.toml", "**/.skewlint.toml", "**/*.py")


def apply_options(ls: SkewServer, raw: Any, *, initial: bool = False) -> None:
    """Read the client's settings; the first ones are the base later pushes merge over."""
    raw = plain(raw)
    parsed, problems = parse_client_options(raw)
    for problem in problems:
        ls.window_log_message(types.LogMessageParams(types.MessageType.Warning, problem))
    if initial:
        ls.init_options = parsed
        ls.options = parsed
    else:
        ls.options = merge_client_options(ls.init_options, parsed, raw)


async def pull_configuration(ls: SkewServer) -> None:
    """Ask the client for section ``skewlsp`` (when it answers ``workspace/configuration``)."""
    caps = ls.client_capabilities.workspace
    if not (caps and caps.configuration):
        return
    try:
        answer = await asyncio.wait_for(
            ls.workspace_configuration_async(
                types.ConfigurationParams([types.ConfigurationItem(section=CONFIG_SECTION)])
            ),
            timeout=10,
        )
    except Exception:
        log.warning("workspace/configuration failed", exc_info=True)
        return
    if answer:
        apply_options(ls, answer[0])


async def register_watchers(ls: SkewServer) -> None:
    """Watch the config files and the Python modules, when the client can register watchers:
    a changed config or imported module re-decides the open documents."""
    caps = ls.client_capabilities.workspace
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
        await ls.client_register_capability_async(types.RegistrationParams([registration]))
    except Exception:
        log.warning("could not register file watchers", exc_info=True)


def initialize(ls: SkewServer, params: types.InitializeParams) -> None:
    """Take the initial options; offer pulled diagnostics only to a client that pulls and
    can be asked to pull again.

    A result that comes without the client asking (a save linted with run = "onSave", an
    imported module changed) reaches a pulling client only through
    workspace/diagnostic/refresh. A client that does not accept it (Neovim 0.11, which
    pulls only when it opens or changes a document) is pushed its diagnostics instead:
    pushing as well as answering its pulls would show each diagnostic twice.
    """
    apply_options(ls, params.initialization_options, initial=True)
    text = params.capabilities.text_document
    workspace = params.capabilities.workspace
    refresh = workspace.diagnostics if workspace else None
    ls.pull_diagnostics = bool(text and text.diagnostic and refresh and refresh.refresh_support)
    if ls.pull_diagnostics:
        ls.feature(
            types.TEXT_DOCUMENT_DIAGNOSTIC,
            types.DiagnosticOptions(
                identifier="skewlsp", inter_file_dependencies=True, workspace_diagnostics=False
            ),
        )(pull_diagnostics)


async def initialized(ls: SkewServer, params: types.InitializedParams) -> None:
    await register_watchers(ls)
    await pull_configuration(ls)


def shutdown(ls: SkewServer, params: Any) -> None:
    ls.executor.shutdown(wait=False, cancel_futures=True)


async def did_change_configuration(
    ls: SkewServer, params: types.DidChangeConfigurationParams
) -> None:
    """Apply the pushed section ``skewlsp``; a push without one only says "ask again"."""
    section = plain(field(params.settings, CONFIG_SECTION))
    if isinstance(section, list) and not section:  # an empty Lua table arrives as []
        section = {}
    if isinstance(section, Mapping):
        apply_options(ls, section)
    else:
        await pull_configuration(ls)
    ls.config_changed()


def register(server: SkewServer) -> None:
    """Register the lifecycle and configuration handlers with ``server``."""
    server.feature(types.INITIALIZE)(initialize)
    server.feature(types.INITIALIZED)(initialized)
    server.feature(types.SHUTDOWN)(shutdown)
    server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)(did_change_configuration)
