"""Code actions: listed cheaply, resolved lazily into edits the client can apply."""

from __future__ import annotations

import ast

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from skewlsp.analysis import analyze
from skewlsp.api import rewrite

from .conftest import apply_edits, edits_of, plain
from .kernels import DEMOTED, FOR_LINE, SKEWED, STAGE3

pytestmark = pytest.mark.asyncio


async def actions_at(client: LanguageClient, name: str, text: str) -> tuple[str, dict]:
    session = client.session
    uri = session.open(name, text)
    await session.diagnostics(uri, lambda d: bool(d))
    found = await session.actions(uri, FOR_LINE)
    return uri, {action.title: action for action in found}


async def resolve(client: LanguageClient, action: types.CodeAction) -> types.CodeAction:
    assert action.edit is None  # listing is cheap: the edit comes with resolve
    action.data = plain(action.data)  # the test client hands JSON objects over as namedtuples
    return await client.code_action_resolve_async(action)


def expected_after_rewrite(text: str) -> str:
    (report,) = analyze(text)
    return rewrite(text, report.line)


async def test_a_skewed_loop_offers_a_preview_that_needs_confirmation(client: LanguageClient):
    uri, actions = await actions_at(client, "kernel.py", SKEWED)
    action = actions["Preview skewed loop"]
    assert action.kind == types.CodeActionKind.RefactorRewrite
    resolved = await resolve(client, action)
    edit = resolved.edit
    if edit.document_changes:  # VS Code: an annotated edit the editor shows before applying
        (annotation,) = edit.change_annotations.values()
        assert annotation.needs_confirmation is True
        (change,) = edit.document_changes
        assert all(e.annotation_id in edit.change_annotations for e in change.edits)
    after = apply_edits(SKEWED, edits_of(edit, uri))
    ast.parse(after)
    assert after == expected_after_rewrite(SKEWED)
    assert "# prologue" in after


async def test_a_demoted_loop_offers_conversion_to_pl_range(client: LanguageClient):
    uri, actions = await actions_at(client, "demoted.py", DEMOTED)
    assert "Preview skewed loop" not in actions
    action = actions["Convert to pl.range"]
    assert action.kind == types.CodeActionKind.QuickFix
    resolved = await resolve(client, action)
    after = apply_edits(DEMOTED, edits_of(resolved.edit, uri))
    ast.parse(after)
    assert "for j in pl.range(0, 8, 1):" in after
    assert after == expected_after_rewrite(DEMOTED)


async def test_stage_3_offers_use_stage_2(client: LanguageClient):
    uri, actions = await actions_at(client, "stage3.py", STAGE3)
    resolved = await resolve(client, actions["Use stage=2"])
    assert apply_edits(STAGE3, edits_of(resolved.edit, uri)) == SKEWED


async def test_suppressing_a_code_adds_the_comment_the_cli_honours(client: LanguageClient):
    session = client.session
    uri, actions = await actions_at(client, "demoted.py", DEMOTED)
    resolved = await resolve(client, actions["Suppress SKW020 for this loop"])
    edits = edits_of(resolved.edit, uri)
    after = apply_edits(DEMOTED, edits)
    assert after.splitlines()[FOR_LINE].endswith(":  # skewlint: ignore[SKW020]")
    (edit,) = edits
    session.change(
        uri,
        (edit.range.start.line, edit.range.start.character),
        (edit.range.end.line, edit.range.end.character),
        edit.new_text,
    )
    await session.diagnostics(uri, lambda d: not d)


async def test_resolving_after_the_loop_moved_is_an_error_not_a_wrong_edit(client: LanguageClient):
    session = client.session
    uri, actions = await actions_at(client, "kernel.py", SKEWED)
    action = actions["Preview skewed loop"]
    session.change(uri, (0, 0), (0, 0), "\n")  # every loop moves down one line
    action.data = plain(action.data)
    with pytest.raises(Exception):  # noqa: B017 - ContentModified
        await client.code_action_resolve_async(action)
