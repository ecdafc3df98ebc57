"""Configuration: the CLI's [tool.skewlint], editor overrides, reloads, imported constants."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.kernels import FOR_LINE, IMPORTED, SKEWED

pytestmark = pytest.mark.asyncio



def codes(diagnostics) -> list[str]:
    return sorted(str(d.code) for d in diagnostics)


def severities(diagnostics) -> dict[str, types.DiagnosticSeverity]:
    return {str(d.code): d.severity for d in diagnostics}


def watched(client: LanguageClient, uri: str, kind=types.FileChangeType.Changed) -> None:
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams([types.FileEvent(uri, kind)])
    )


async def test_project_config_selects_codes_and_reloads_when_pyproject_changes(
    client: LanguageClient,
):
    session = client.session
    pyproject = session.path_uri("pyproject.toml", '[tool.skewlint]\nignore = ["SKW001"]\n')
    uri = session.open("kernel.py", SKEWED)
    await session.diagnostics(uri, lambda d: not d)  # ignored by the project

    session.path_uri("pyproject.toml", '[tool.skewlint]\nseverity = { SKW001 = "warning" }\n')
    watched(client, pyproject)
    found = await session.diagnostics(uri, lambda d: codes(d) == ["SKW001"])
    assert severities(found) == {"SKW001": types.DiagnosticSeverity.Warning}


@pytest.mark.init_options({"severity": {"SKW001": "hint"}, "ignore": ["SKW030"]})
async def test_initialization_options_override_severity_and_selection(client: LanguageClient):
    session = client.session
    uri = session.open("kernel.py", SKEWED.replace("stage=2", "stage=3"))
    found = await session.diagnostics(uri, lambda d: bool(d))
    assert severities(found) == {"SKW001": types.DiagnosticSeverity.Hint}


async def test_workspace_configuration_is_read_again_when_settings_change(client: LanguageClient):
    session = client.session
    uri = session.open("kernel.py", SKEWED)
    await session.diagnostics(uri, lambda d: codes(d) == ["SKW001"])
    client.set_configuration({"select": ["SKW02"]}, section="skewlsp")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    await session.diagnostics(uri, lambda d: not d)


async def test_vscode_gets_file_watchers_registered_dynamically(client: LanguageClient):
    session = client.session
    uri = session.open("kernel.py", SKEWED)
    await session.diagnostics(uri, lambda d: bool(d))
    dynamic = client.capabilities.workspace.did_change_watched_files.dynamic_registration
    registered = [r for r in client.registrations if r.method == "workspace/didChangeWatchedFiles"]
    wanted = {"**/pyproject.toml", "**/skewlint.toml", "**/*.py"}
    watched_globs = [
        wanted & {w["globPattern"] for w in r.register_options["watchers"]} for r in registered
    ]
    assert watched_globs == ([wanted] if dynamic else [])  # (one registration, or none)


async def test_constants_imported_from_a_workspace_file_are_resolved(client: LanguageClient):
    session = client.session
    session.path_uri("consts.py", "TRIP = 8\n")
    uri = session.open("kernel.py", IMPORTED)
    found = await session.diagnostics(uri, lambda d: bool(d))
    assert codes(found) == ["SKW001"]


async def test_editing_an_open_constants_module_reanalyses_its_importers(client: LanguageClient):
    session = client.session
    session.path_uri("consts.py", "TRIP = 8\n")
    uri = session.open("kernel.py", IMPORTED)
    await session.diagnostics(uri, lambda d: codes(d) == ["SKW001"])
    consts = session.open("consts.py", "TRIP = 8\n", write=False)
    session.change(consts, (0, 7), (0, 8), "1")  # TRIP = 1: unsaved, but the editor's text counts
    await session.diagnostics(uri, lambda d: codes(d) == ["SKW023"])


async def test_a_constants_module_changed_on_disk_reanalyses_its_importers(client: LanguageClient):
    session = client.session
    consts = session.path_uri("consts.py", "TRIP = 8\n")
    uri = session.open("kernel.py", IMPORTED)
    await session.diagnostics(uri, lambda d: codes(d) == ["SKW001"])
    session.path_uri("consts.py", "TRIP = 1\n")
    watched(client, consts)
    await session.diagnostics(uri, lambda d: codes(d) == ["SKW023"])


async def test_an_invalid_project_config_is_shown_and_defaults_apply(client: LanguageClient):
    session = client.session
    session.path_uri("pyproject.toml", '[tool.skewlint]\nselect = "SKW001"\n')
    uri = session.open("kernel.py", SKEWED)
    await session.diagnostics(uri, lambda d: codes(d) == ["SKW001"])
    assert any("select" in m.message for m in client.messages)


FOUR_AWAY = IMPORTED.replace("from consts import TRIP", "from m1 import TRIP")


def write_chain(session, n: int) -> str:
    """kernel -> m1 -> m2 -> m3 -> m4, where m4 holds TRIP; returns m4's uri."""
    session.path_uri("m1.py", "from m2 import TRIP\n")
    session.path_uri("m2.py", "from m3 import TRIP\n")
    session.path_uri("m3.py", "from m4 import TRIP\n")
    return session.path_uri("m4.py", f"TRIP = {n}\n")


async def test_a_constant_four_imports_away_changed_on_disk_updates_the_verdict(
    client: LanguageClient,
):
    session = client.session
    m4 = write_chain(session, 8)
    uri = session.open("kernel.py", FOUR_AWAY)
    await session.diagnostics(uri, lambda d: codes(d) == ["SKW001"])
    session.path_uri("m4.py", "TRIP = 1\n")
    watched(client, m4)
    await session.diagnostics(uri, lambda d: codes(d) == ["SKW023"])


async def test_an_unsaved_edit_four_imports_away_updates_the_verdict(client: LanguageClient):
    session = client.session
    write_chain(session, 8)
    uri = session.open("kernel.py", FOUR_AWAY)
    await session.diagnostics(uri, lambda d: codes(d) == ["SKW001"])
    m4 = session.open("m4.py", "TRIP = 8\n", write=False)
    session.change(m4, (0, 7), (0, 8), "1")  # TRIP = 1, not saved
    await session.diagnostics(uri, lambda d: codes(d) == ["SKW023"])


@pytest.mark.init_options([])
async def test_an_empty_lua_settings_table_is_empty_settings_not_an_error(client: LanguageClient):
    session = client.session
    uri = session.open("kernel.py", SKEWED)
    await session.diagnostics(uri, lambda d: codes(d) == ["SKW001"])
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"skewlsp": []})
    )
    await session.diagnostics(uri, lambda d: codes(d) == ["SKW001"])
    warnings = [m.message for m in client.log_messages if m.type <= types.MessageType.Warning]
    assert warnings == []


@pytest.mark.init_options({"run": "onSave"})
async def test_on_save_a_change_is_linted_only_when_saved(client: LanguageClient):
    session = client.session
    uri = session.open("kernel.py", SKEWED)
    await session.diagnostics(uri, lambda d: codes(d) == ["SKW001"])
    stage = SKEWED.splitlines()[FOR_LINE].index("stage=2") + len("stage=")
    session.change(uri, (FOR_LINE, stage), (FOR_LINE, stage + 1), "1")  # stage=1: SKW024
    session.change(uri, (FOR_LINE, 0), (FOR_LINE, 0), "")  # a second edit, still unsaved
    assert await session.hover(uri, FOR_LINE, 9) is not None  # analyses the unsaved text
    # a publish caused by that analysis would have arrived before the hover's answer
    assert [codes(p.diagnostics) for p in client.published if p.uri == uri] == (
        [] if session.pulls else [["SKW001"]]
    )
    if session.pulls:  # a pull before the save answers with the last saved version's result
        assert codes(await session.diagnostics(uri)) == ["SKW001"]
    client.text_document_did_save(
        types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri))
    )
    await session.diagnostics(uri, lambda d: codes(d) == ["SKW024"])
    published = [codes(p.diagnostics) for p in client.published if p.uri == uri]
    expected = [] if session.pulls else [["SKW001"], ["SKW024"]]
    assert published == expected  # pushed: nothing between the edits and the save


async def test_an_unsaved_constants_module_counts_through_a_symlinked_folder(
    client: LanguageClient,
):
    session = client.session
    real = session.root / "real"
    real.mkdir()
    (session.root / "link").symlink_to(real, target_is_directory=True)
    session.path_uri("real/consts.py", "TRIP = 8\n")
    # The editor opened the project through the symlink; imports are looked up in the
    # resolved directory, which must still find the editor's unsaved text.
    uri = session.open("link/kernel.py", IMPORTED)
    await session.diagnostics(uri, lambda d: codes(d) == ["SKW001"])
    consts = session.open("link/consts.py", "TRIP = 8\n", write=False)
    session.change(consts, (0, 7), (0, 8), "1")  # TRIP = 1, unsaved
    await session.diagnostics(uri, lambda d: codes(d) == ["SKW023"])


@pytest.mark.diagnostic_refresh
@pytest.mark.init_options({"run": "onSave"})
async def test_on_save_a_pulling_client_is_asked_to_pull_again_once_the_save_is_linted(
    client: LanguageClient,
):
    session = client.session
    if not session.pulls:
        pytest.skip("a client that is pushed its diagnostics gets them after the save")
    uri = session.open("kernel.py", SKEWED)
    await session.diagnostics(uri, lambda d: codes(d) == ["SKW001"])
    client.refreshes.clear()
    stage = SKEWED.splitlines()[FOR_LINE].index("stage=2") + len("stage=")
    session.change(uri, (FOR_LINE, stage), (FOR_LINE, stage + 1), "1")  # stage=1: SKW024
    client.text_document_did_save(
        types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri))
    )

    async def asked() -> None:
        while "diagnostic" not in client.refreshes:
            await asyncio.sleep(0.05)

    await asyncio.wait_for(asked(), 30)
    report = await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(types.TextDocumentIdentifier(uri))
    )
    assert codes(report.items) == ["SKW024"]  # the first pull after the request is current
