"""Fix all (``source.fixAll.skewlint``): the safe fixes of the whole document, in one edit.

What an editor runs on save (``"editor.codeActionsOnSave": {"source.fixAll.skewlint":
"explicit"}`` in VS Code), as ruff's server offers ``source.fixAll.ruff``. The edit is
the one ``skewlint --fix`` makes to the same text.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from skewlsp.cli.app import main as skewlint
from tests.kernels import DEMOTED, FOR_LINE, SKEWED, SKEWED_AND_LEFT, STAGE3
from tests.server.conftest import apply_edits, edits_of, plain

pytestmark = pytest.mark.asyncio

FIX_ALL = "source.fixAll.skewlint"
# Two safe fixes: stage=3 -> stage=2 (SKW030) and an unused suppression (SKW901).
UNUSED = "# skewlint: ignore[SKW021]"
TWO_FIXES = STAGE3.replace("stage=3):\n", f"stage=3):  {UNUSED}\n", 1)


async def code_actions(
    client: LanguageClient, uri: str, only: list[str] | None, line: int = 0
) -> list:
    result = await client.text_document_code_action_async(
        types.CodeActionParams(
            types.TextDocumentIdentifier(uri),
            types.Range(types.Position(line, 0), types.Position(line, 0)),
            types.CodeActionContext(diagnostics=[], only=only),
        )
    )
    return list(result or [])


def fix_all_of(found: list) -> list[types.CodeAction]:
    return [a for a in found if isinstance(a, types.CodeAction) and a.kind == FIX_ALL]


def cli_fix(tmp_path: Path, text: str) -> str:
    kernel = tmp_path / "cli" / "kernel.py"
    kernel.parent.mkdir(parents=True)
    kernel.write_text(text, encoding="utf-8")
    skewlint(["--fix", "--no-cache", "--quiet", "--exit-zero", str(kernel)])
    return kernel.read_text(encoding="utf-8")


async def test_the_server_says_it_offers_fix_all(client: LanguageClient):
    capabilities = client.session.server_capabilities
    assert FIX_ALL in capabilities.code_action_provider.code_action_kinds


async def test_fix_all_applies_every_safe_fix_as_skewlint_fix_does(
    client: LanguageClient, tmp_path: Path
):
    session = client.session
    uri = session.open("kernel.py", TWO_FIXES)
    found = await session.diagnostics(uri, lambda d: {"SKW030", "SKW901"} <= {x.code for x in d})
    assert found
    for only in ([FIX_ALL], ["source.fixAll"], ["source"]):
        # anywhere in the document: a fix all is about the whole file
        (action,) = fix_all_of(await code_actions(client, uri, only))
        assert action.title == "skewlint: Fix all auto-fixable problems"
        assert action.edit is not None  # no resolve needed: it works on save in any client
        after = apply_edits(TWO_FIXES, edits_of(action.edit, uri))
        assert "stage=2):\n" in after and UNUSED not in after
        assert after == cli_fix(tmp_path / only[0], TWO_FIXES)
    # resolving it (as some clients do for every action) gives it back unchanged
    action.data = plain(action.data)
    resolved = await client.code_action_resolve_async(action)
    assert edits_of(resolved.edit, uri) == edits_of(action.edit, uri)


async def test_fix_all_is_offered_only_when_asked_for_and_there_is_a_fix(client: LanguageClient):
    session = client.session
    uri = session.open("kernel.py", TWO_FIXES)
    await session.diagnostics(uri, lambda d: bool(d))
    assert fix_all_of(await code_actions(client, uri, None, FOR_LINE))  # any kind: listed too
    for other in (types.CodeActionKind.QuickFix, types.CodeActionKind.Refactor):
        assert not fix_all_of(await code_actions(client, uri, [other], FOR_LINE))

    clean = session.open("clean.py", SKEWED)
    await session.diagnostics(clean, lambda d: bool(d))
    assert not fix_all_of(await code_actions(client, clean, [FIX_ALL]))
    demoted = session.open("demoted.py", DEMOTED)  # a demotion has no safe fix
    await session.diagnostics(demoted, lambda d: bool(d))
    assert not fix_all_of(await code_actions(client, demoted, [FIX_ALL]))


@pytest.mark.init_options({"ignore": ["SKW030"]})
async def test_fix_all_leaves_what_the_settings_hide(client: LanguageClient):
    session = client.session
    uri = session.open("kernel.py", TWO_FIXES)
    await session.diagnostics(uri, lambda d: any(x.code == "SKW901" for x in d))
    (action,) = fix_all_of(await code_actions(client, uri, [FIX_ALL]))
    after = apply_edits(TWO_FIXES, edits_of(action.edit, uri))
    assert "stage=3)" in after and UNUSED not in after


async def test_no_fix_all_while_the_file_does_not_parse(client: LanguageClient):
    session = client.session
    broken = TWO_FIXES.replace("stage=3):", "stage=3)", 1)
    uri = session.open("kernel.py", broken)
    await session.diagnostics(uri, lambda d: any(x.code == "SKW900" for x in d))
    assert not fix_all_of(await code_actions(client, uri, [FIX_ALL]))


async def test_fix_all_writes_a_loops_safe_stage_fix_as_skewlint_fix_does(
    client: LanguageClient, tmp_path: Path
):
    # stage=2 on a loop that runs once (SKW014, literal bounds): stage=1 is checked by
    # deciding the edited text again, then written, as `skewlint --fix` writes it.
    once = SKEWED_AND_LEFT.replace("pl.pipeline(0, 4, 1, stage=2)", "pl.pipeline(0, 1, 1, stage=2)")
    session = client.session
    uri = session.open("once.py", once)
    assert await session.diagnostics(uri, lambda d: "SKW014" in {x.code for x in d})
    (action,) = fix_all_of(await code_actions(client, uri, [FIX_ALL]))
    after = apply_edits(once, edits_of(action.edit, uri))
    assert "pl.pipeline(0, 1, 1, stage=1)" in after
    assert after == cli_fix(tmp_path, once)


async def test_fix_all_leaves_an_unsafe_stage_fix(client: LanguageClient):
    # The trip is read from a name: stage=1 would bake its value in (--unsafe-fixes only).
    named = SKEWED_AND_LEFT.replace(
        "pl.pipeline(0, 4, 1, stage=2)", "pl.pipeline(0, ONE, 1, stage=2)"
    ).replace("import pypto.language as pl\n", "import pypto.language as pl\nONE = 1\n")
    session = client.session
    uri = session.open("named.py", named)
    assert await session.diagnostics(uri, lambda d: "SKW014" in {x.code for x in d})
    assert fix_all_of(await code_actions(client, uri, [FIX_ALL])) == []
