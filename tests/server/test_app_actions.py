"""Code actions: listed cheaply, resolved lazily into edits the client can apply."""

from __future__ import annotations

import ast
import stat
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.kernels import (
    CONSUMER,
    DEMOTED,
    FOR_LINE,
    LOCAL,
    LOCAL_PIPELINE,
    SECOND_FOR_LINE,
    SKEWED,
    SKEWED_AND_LEFT,
    SKEWED_REWRITE,
    STAGE3,
    kernel,
    loop,
)
from tests.server.conftest import PREVIEW_DIR, apply_edits, edits_of, plain

pytestmark = pytest.mark.asyncio

PREVIEW = "Preview the rewritten loop (read-only)"
MIXED = Path(__file__).resolve().parents[2] / "examples" / "mixed_attention.py"


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


async def run_command(client: LanguageClient, command: types.Command):
    return plain(
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=command.command, arguments=plain(command.arguments))
        )
    )


async def test_the_preview_action_shows_a_read_only_file_and_never_edits(client: LanguageClient):
    uri, actions = await actions_at(client, "kernel.py", SKEWED)
    command = actions[PREVIEW]
    assert isinstance(command, types.Command)  # a bare command: no edit, nothing to resolve
    assert command.command == "skewlsp.showPreview"
    answer = await run_command(client, command)
    path = Path(answer["path"])
    assert path == PREVIEW_DIR / f"kernel-L{FOR_LINE + 1}.py"
    assert client.shown_documents[-1].uri == path.as_uri() == answer["uri"]
    assert answer["shown"] is True
    text = path.read_text(encoding="utf-8")
    assert text.endswith(SKEWED_REWRITE)
    assert "Nothing here is applied to your code" in text
    assert not path.stat().st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)
    ast.parse(text)
    assert client.applied_edits == []
    # the document is unchanged: its one loop is still where it was, still skewed
    diagnostics = await client.session.diagnostics(uri, lambda d: bool(d))
    assert [(d.code, d.range.start.line) for d in diagnostics] == [("SKW001", FOR_LINE)]


@pytest.mark.diagnostic_refresh
async def test_a_shown_preview_opened_in_the_client_is_not_analysed(client: LanguageClient):
    # A mixed loop's preview lists the vector core's statements as the analysis shortens
    # them (`mode="rint…`, an unterminated string): analysed, it would get an SKW900.
    if not client.session.pulls:
        pytest.skip("asking about one file's diagnostics needs a client that pulls them")
    text = MIXED.read_text(encoding="utf-8")
    uri = client.session.open("mixed_attention.py", text)
    await client.session.diagnostics(uri, lambda d: bool(d))
    line = next(i for i, row in enumerate(text.splitlines()) if "pl.pipeline(" in row)
    answer = await run_command(
        client,
        types.Command("", "skewlsp.showPreview", arguments=[uri, {"line": line, "character": 0}]),
    )
    shown = Path(answer["path"]).read_text(encoding="utf-8")
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(answer["uri"], "python", 1, shown))
    )
    assert list(await client.session.diagnostics(answer["uri"])) == []
    # the kernel itself still answers, so the silence above is not a dead server
    assert await client.session.hover(uri, line, 8) is not None


async def test_a_preview_of_a_mixed_loop_shows_both_cores_code(client: LanguageClient):
    text = MIXED.read_text(encoding="utf-8")
    session = client.session
    uri = session.open("mixed_attention.py", text)
    await session.diagnostics(uri, lambda d: bool(d))
    line = next(i for i, row in enumerate(text.splitlines()) if "pl.pipeline(" in row)
    answer = await run_command(
        client,
        types.Command("", "skewlsp.showPreview", arguments=[uri, {"line": line, "character": 0}]),
    )
    shown = Path(answer["path"]).read_text(encoding="utf-8")
    for vector_statement in [
        "mi = pl.row_max(scaled)",
        "li = pl.row_sum(probs)",
        "out_mi[h0 : h0 + QK_M_TILE, 0:1] = mi",
        "out_li[h0 : h0 + QK_M_TILE, 0:1] = li",
        "scores = pl.tile.tpop_from_aic(split=0)  # added by the compiler",
    ]:
        assert vector_statement in shown
    assert "pl.tile.tpush_to_aiv(scores_p0, split=0)" in shown  # the cube function's prologue
    assert client.applied_edits == []


async def test_every_loop_has_a_preview_even_one_the_pass_leaves_alone(client: LanguageClient):
    session = client.session
    uri = session.open("left.py", SKEWED_AND_LEFT)
    await session.diagnostics(uri, lambda d: bool(d))
    texts = []
    for line in (FOR_LINE, SECOND_FOR_LINE):
        answer = await run_command(
            client,
            types.Command(
                "", "skewlsp.showPreview", arguments=[uri, {"line": line, "character": 8}]
            ),
        )
        texts.append(Path(answer["path"]).read_text(encoding="utf-8"))
    assert "for i in pl.range(2, 8, 2):" in texts[0]
    # The left loop, trip 4 at stage=2, as LowerPipelineLoops replicates it: a main loop
    # 0..4 of stride 2 (kept as a stage=1 pipeline) whose body is the copies at k, k + 1.
    left = texts[1].splitlines()
    assert left[2] == "# left (SKW011: replicated: stage copies of the body per iteration)"
    body = [line for line in left[4:] if line and not line.lstrip().startswith("#")]
    assert body == [
        "for k in pl.pipeline(0, 4, 2, stage=1):",
        "    t: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(q, [k * 16, 0], [16, 64])",
        "    pl.tile.store(t, [k * 16, 0], out)",
        "    t: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(q, [(k + 1) * 16, 0], [16, 64])",
        "    pl.tile.store(t, [(k + 1) * 16, 0], out)",
    ]
    assert client.applied_edits == []


async def test_a_loop_nothing_rewrites_has_a_preview_saying_why(client: LanguageClient):
    session = client.session
    stage_one = LOCAL_PIPELINE.replace("stage=2", "stage=1")
    uri = session.open("left.py", SKEWED_AND_LEFT.replace(LOCAL_PIPELINE, stage_one))
    await session.diagnostics(uri, lambda d: bool(d))
    answer = await run_command(
        client,
        types.Command(
            "", "skewlsp.showPreview", arguments=[uri, {"line": SECOND_FOR_LINE, "character": 8}]
        ),
    )
    left = Path(answer["path"]).read_text(encoding="utf-8").splitlines()
    assert left[2] == "# left (SKW010: not cross-core: left as a pipeline loop)"
    assert left[4] == "# what changes: left as written (stage=1: nothing to copy)"
    assert left[6] == (
        "# Not rewritten by SkewCrossCorePipeline: left as a pipeline loop: stage=1: nothing "
        "replicated; nothing is rewritten"
    )
    assert left[8:] == loop(LOCAL, stage_one, "k").splitlines()  # the loop as it stays
    assert client.applied_edits == []


async def test_previewing_outside_a_loop_fails_with_a_reason(client: LanguageClient):
    uri, _ = await actions_at(client, "kernel.py", SKEWED)
    with pytest.raises(Exception, match="no pl.pipeline loop here"):
        await run_command(
            client,
            types.Command("", "skewlsp.showPreview", arguments=[uri, {"line": 0, "character": 0}]),
        )


async def test_a_demoted_loop_offers_conversion_to_pl_range(client: LanguageClient):
    uri, actions = await actions_at(client, "demoted.py", DEMOTED)
    assert isinstance(actions[PREVIEW], types.Command)
    action = actions["Convert to pl.range"]
    assert action.kind == types.CodeActionKind.QuickFix
    resolved = await resolve(client, action)
    after = apply_edits(DEMOTED, edits_of(resolved.edit, uri))
    assert after == kernel(CONSUMER, "pl.range(0, 8, 1)")


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
    uri, actions = await actions_at(client, "demoted.py", DEMOTED)
    action = actions["Convert to pl.range"]
    session.change(uri, (0, 0), (0, 0), "\n")  # every loop moves down one line
    action.data = plain(action.data)
    with pytest.raises(Exception):  # noqa: B017 - ContentModified
        await client.code_action_resolve_async(action)
