"""Configuration: the CLI's [tool.skewlint], editor overrides, reloads, imported constants."""

from __future__ import annotations

import asyncio
from pathlib import Path

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


@pytest.mark.init_options({"docsUrl": "https://team.example/skewlint/{code}"})
async def test_the_docs_url_option_points_the_links_at_the_teams_copy(client: LanguageClient):
    session = client.session
    uri = session.open("kernel.py", SKEWED)
    (found,) = await session.diagnostics(uri, lambda d: bool(d))
    assert found.code_description.href == "https://team.example/skewlint/SKW001"


async def test_the_projects_docs_url_applies_in_the_editor_too(client: LanguageClient):
    session = client.session
    session.path_uri("skewlint.toml", 'docs-url = "https://team.example/r.html#{code_lower}"\n')
    uri = session.open("kernel.py", SKEWED)
    (found,) = await session.diagnostics(uri, lambda d: bool(d))
    assert found.code_description.href == "https://team.example/r.html#skw001"


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


@pytest.mark.parametrize("opened_as", ["link", "real"])
async def test_an_unsaved_module_of_a_symlinked_package_counts(
    client: LanguageClient, opened_as: str
):
    # kernels/cfg is a symlink to shared/cfg: the kernel reads kernels/cfg/dims.py, which
    # the editor may have open as either path; its unsaved text counts, and its edits
    # decide the kernel again.
    session = client.session
    (session.root / "shared" / "cfg").mkdir(parents=True)
    (session.root / "kernels").mkdir()
    (session.root / "kernels" / "cfg").symlink_to(
        session.root / "shared" / "cfg", target_is_directory=True
    )
    session.path_uri("shared/cfg/dims.py", "TRIP = 8\n")
    kernel = IMPORTED.replace("from consts import TRIP", "from cfg.dims import TRIP")
    uri = session.open("kernels/kernel.py", kernel)
    await session.diagnostics(uri, lambda d: codes(d) == ["SKW001"])
    name = "kernels/cfg/dims.py" if opened_as == "link" else "shared/cfg/dims.py"
    dims = session.open(name, "TRIP = 8\n", write=False)
    session.change(dims, (0, 7), (0, 8), "1")  # TRIP = 1, unsaved
    await session.diagnostics(uri, lambda d: codes(d) == ["SKW023"])


def _many_loops(trip: int, count: int = 100) -> str:
    """A kernel of ``count`` functions, each with a loop over the module constant TRIP:
    changing TRIP decides every loop again (an analysis long enough to be overtaken)."""
    function = (
        "    @pl.function\n"
        "    def f{k}(self, q: pl.Tensor[[64, 64], pl.FP32], out: pl.Tensor[[64, 64], pl.FP32]):\n"
        "        for i in pl.pipeline(0, TRIP, 1, stage=2):\n"
        "            qa: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(q, [i * 16, 0], [16, 64])\n"
        "            pl.tile.tpush_to_aiv(qa, split=0)\n"
        "            e: pl.Tile[[16, 64], pl.FP32] = pl.tile.tpop_from_aiv(split=0)\n"
        "            pl.tile.store(e, [i * 16, 0], out)\n"
    )
    head = f"import pypto.language as pl\nTRIP = {trip}\n\n\n@pl.program\nclass Kernel:\n"
    return head + "".join(function.format(k=k) for k in range(count))


@pytest.mark.diagnostic_refresh
@pytest.mark.init_options({"run": "onSave"})
async def test_on_save_a_pull_right_after_the_save_answers_with_the_saved_version(
    client: LanguageClient,
):
    # A client that pulls when it saves (or at its next request after the save) gets the
    # saved version's result, not the previous save's that a refresh would correct later.
    session = client.session
    if not session.pulls:
        pytest.skip("a client that is pushed its diagnostics gets them after the save")
    uri = session.open("kernel.py", _many_loops(8))
    await session.diagnostics(uri, lambda d: set(codes(d)) == {"SKW001"})
    session.change(uri, (1, 7), (1, 8), "1")  # TRIP = 1: every loop SKW023
    assert set(codes(await session.diagnostics(uri))) == {"SKW001"}  # unsaved: the last save's
    client.text_document_did_save(
        types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri))
    )
    report = await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(types.TextDocumentIdentifier(uri))
    )
    assert codes(report.items) == ["SKW023"] * 100


@pytest.mark.init_options({"run": "onSave"})
async def test_on_save_a_client_that_cannot_be_asked_to_pull_again_is_shown_the_save(
    client: LanguageClient,
):
    # Neovim 0.11 pulls diagnostics when it opens or changes a document, never when it
    # saves one, and does not accept workspace/diagnostic/refresh: pulled, the result of
    # a save would stay unseen until the next edit. Such a client is pushed them.
    session = client.session
    uri = session.open("kernel.py", SKEWED)
    await session.pushed(uri, lambda d: codes(d) == ["SKW001"])
    stage = SKEWED.splitlines()[FOR_LINE].index("stage=2") + len("stage=")
    session.change(uri, (FOR_LINE, stage), (FOR_LINE, stage + 1), "1")  # stage=1: SKW024
    client.text_document_did_save(
        types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri))
    )
    await session.pushed(uri, lambda d: codes(d) == ["SKW024"])  # no pull asked for it


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


DUO = Path(__file__).resolve().parents[1] / "fixtures" / "variants" / "models" / "duo_llm"


def _duo(session) -> str:
    session.path_uri("config.py", (DUO / "config.py").read_text())
    return session.open("decode.py", (DUO / "decode.py").read_text())


async def test_the_hover_names_the_variable_a_verdict_assumed_and_the_other_variant(
    client: LanguageClient,
):
    session = client.session
    uri = _duo(session)
    await session.diagnostics(uri, lambda d: "SKW001" in codes(d))
    hover = await session.hover(uri, 24, 12)  # the head loop's `for` (0-based line)
    assert hover is not None
    text = hover.contents.value
    assert "assuming `DUO_VARIANT` unset: `full`" in text
    assert "with DUO_VARIANT=lite: SKW002" in text


async def test_the_project_s_environment_is_the_build_the_editor_assumes(client: LanguageClient):
    session = client.session
    session.path_uri("skewlint.toml", '[environment]\nDUO_VARIANT = "lite"\n')
    uri = _duo(session)
    await session.diagnostics(uri, lambda d: "SKW002" in codes(d))


@pytest.mark.init_options({"environment": {"DUO_VARIANT": "lite"}})
async def test_the_editor_s_environment_setting_is_assumed_over_the_project_s(
    client: LanguageClient,
):
    session = client.session
    session.path_uri("skewlint.toml", '[environment]\nDUO_VARIANT = "full"\n')
    uri = _duo(session)
    await session.diagnostics(uri, lambda d: "SKW002" in codes(d))
    client.set_configuration({"environment": {"DUO_VARIANT": "full"}}, section="skewlsp")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    await session.diagnostics(uri, lambda d: "SKW001" in codes(d))
