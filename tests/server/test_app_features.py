"""Hover, code lens, inlay hints, the preview request and the explain command, end to end."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from skewlsp.api import preview
from tests.kernels import (
    BOTH,
    FOR_LINE,
    PRODUCER,
    SECOND_FOR_LINE,
    SKEWED,
    SKEWED_AND_LEFT,
    SKEWED_REWRITE,
    STAGE3,
    loop,
)
from tests.server.conftest import plain, raw_request

pytestmark = pytest.mark.asyncio


async def open_and_settle(client: LanguageClient, name: str, text: str) -> str:
    uri = client.session.open(name, text)
    await client.session.diagnostics(uri, lambda d: bool(d))
    return uri


async def test_hover_on_the_for_line_names_the_depth_schedule_and_timeline(client: LanguageClient):
    uri = await open_and_settle(client, "kernel.py", SKEWED)
    hover = await client.session.hover(uri, FOR_LINE, 9)  # on `for`
    text = hover.contents.value
    assert hover.contents.kind == types.MarkupKind.Markdown
    assert text.splitlines()[0] == (
        "**skewed** `SKW001` [information] loop skewed: producer runs 2 iterations ahead "
        "(trip 8, stage 2)"
    )
    assert "requested depth 2 · effective depth 2 · trip 8" in text
    assert "produce  0 1       2..7            —" in text
    assert "consume  —         0..5            6 7" in text


async def test_hover_on_a_demoted_loop_says_what_would_make_it_skew(client: LanguageClient):
    uri = await open_and_settle(client, "both.py", BOTH)
    hover = await client.session.hover(uri, SECOND_FOR_LINE, 30)  # inside pl.pipeline(...)
    text = hover.contents.value
    assert "demoted" in text and "SKW020" in text
    assert "**help:**" in text


async def test_hover_inside_the_loop_body_shows_nothing(client: LanguageClient):
    uri = await open_and_settle(client, "kernel.py", SKEWED)
    assert await client.session.hover(uri, FOR_LINE + 2, 14) is None


async def test_hover_past_the_end_of_the_document_is_clamped_not_an_error(client: LanguageClient):
    uri = await open_and_settle(client, "kernel.py", SKEWED)
    assert await client.session.hover(uri, 10_000, 10_000) is None
    clamped = await client.session.hover(uri, FOR_LINE, 10_000)  # to the end of the for line
    assert "`SKW001`" in clamped.contents.value


async def lenses_of(client: LanguageClient, uri: str) -> list[types.CodeLens]:
    return list(
        await client.text_document_code_lens_async(
            types.CodeLensParams(types.TextDocumentIdentifier(uri))
        )
        or []
    )


async def hints_of(client: LanguageClient, uri: str) -> list[types.InlayHint]:
    whole = types.Range(types.Position(0, 0), types.Position(40, 0))
    return list(
        await client.text_document_inlay_hint_async(
            types.InlayHintParams(types.TextDocumentIdentifier(uri), whole)
        )
        or []
    )


async def test_a_code_lens_above_each_loop_opens_its_preview(client: LanguageClient):
    uri = await open_and_settle(client, "both.py", BOTH)
    lenses = await lenses_of(client, uri)
    assert [lens.range.start.line for lens in lenses] == [FOR_LINE, SECOND_FOR_LINE]
    skewed = lenses[0].command
    assert skewed.title == "skewed · depth 2 · prologue 2, steady 3 x 2, epilogue 2 · Preview"
    assert skewed.command == "skewlsp.showPreview"
    assert list(plain(skewed.arguments)) == [uri, {"line": FOR_LINE, "character": 8}]
    assert lenses[1].command.title.startswith("demoted · SKW020")
    assert lenses[1].command.command == "skewlsp.showPreview"


async def test_every_lens_command_is_one_the_server_executes(client: LanguageClient):
    # The left loop at stage=1: nothing rewrites it, so its lens explains its code.
    text = SKEWED_AND_LEFT.replace("pl.pipeline(0, 4, 1, stage=2)", "pl.pipeline(0, 4, 1, stage=1)")
    uri = await open_and_settle(client, "left.py", text)
    lenses = await lenses_of(client, uri)
    commands = [lens.command.command for lens in lenses]
    assert commands == ["skewlsp.showPreview", "skewlsp.showExplanation"]
    provider = client.session.server_capabilities.execute_command_provider
    assert set(commands) <= set(provider.commands)
    left = lenses[1].command
    assert left.title == "left · SKW010: not cross-core: left as a pipeline loop"
    assert list(left.arguments) == ["SKW010"]
    shown = []
    for lens in lenses:
        answer = plain(
            await client.workspace_execute_command_async(
                types.ExecuteCommandParams(lens.command.command, plain(lens.command.arguments))
            )
        )
        shown.append(Path(answer["path"]).name)
        assert client.shown_documents[-1].uri == answer["uri"]
    assert shown == [f"left-L{FOR_LINE + 1}.py", "SKW010.md"]
    assert client.applied_edits == []


@pytest.mark.init_options({"clientCommands": ["skewlsp.previewLoop", "skewlsp.explainCode"]})
async def test_a_client_that_declares_its_own_commands_gets_them_in_lenses(client: LanguageClient):
    uri = await open_and_settle(client, "left.py", SKEWED_AND_LEFT)
    lenses = await lenses_of(client, uri)
    # The left loop (trip 4, stage=2) is replicated by LowerPipelineLoops: it previews too.
    assert [lens.command.command for lens in lenses] == [
        "skewlsp.previewLoop",
        "skewlsp.previewLoop",
    ]
    # At stage=1 nothing rewrites it: its lens explains the code instead.
    stage_one = SKEWED_AND_LEFT.replace(
        "for k in pl.pipeline(0, 4, 1, stage=2):", "for k in pl.pipeline(0, 4, 1, stage=1):"
    )
    uri = await open_and_settle(client, "left1.py", stage_one)
    lenses = await lenses_of(client, uri)
    assert [lens.command.command for lens in lenses] == [
        "skewlsp.previewLoop",
        "skewlsp.explainCode",
    ]


@pytest.mark.init_options({"ignore": ["SKW011"]})  # the left loop's: trip 4 at stage=2
async def test_an_ignored_code_has_no_lens_no_hint_and_no_hover(client: LanguageClient):
    uri = await open_and_settle(client, "left.py", SKEWED_AND_LEFT)
    assert [lens.range.start.line for lens in await lenses_of(client, uri)] == [FOR_LINE]
    assert [hint.label for hint in await hints_of(client, uri)] == ["depth 2"]
    assert await client.session.hover(uri, SECOND_FOR_LINE, 9) is None
    shown = await client.session.hover(uri, FOR_LINE, 9)
    assert "`SKW001`" in shown.contents.value


async def test_a_suppressed_loop_has_no_lens_no_hint_and_no_hover(client: LanguageClient):
    text = SKEWED_AND_LEFT.replace(
        "for k in pl.pipeline(0, 4, 1, stage=2):",
        "for k in pl.pipeline(0, 4, 1, stage=2):  # skewlint: ignore[SKW011]",
    )
    uri = await open_and_settle(client, "left.py", text)
    assert [lens.range.start.line for lens in await lenses_of(client, uri)] == [FOR_LINE]
    assert [hint.label for hint in await hints_of(client, uri)] == ["depth 2"]
    assert await client.session.hover(uri, SECOND_FOR_LINE, 9) is None


@pytest.mark.init_options({"severity": {"SKW001": "warning"}, "ignore": ["SKW030"]})
async def test_hover_shows_the_configured_severity_and_no_ignored_hint(client: LanguageClient):
    uri = await open_and_settle(client, "stage3.py", STAGE3)
    hover = await client.session.hover(uri, FOR_LINE, 9)
    assert hover.contents.value.startswith("**skewed** `SKW001` [warning] ")
    assert "SKW030" not in hover.contents.value


async def test_while_the_file_does_not_parse_old_verdicts_are_marked_or_withdrawn(
    client: LanguageClient,
):
    session = client.session
    uri = await open_and_settle(client, "kernel.py", SKEWED)
    colon = len(SKEWED.splitlines()[FOR_LINE]) - 1
    session.change(uri, (FOR_LINE, colon), (FOR_LINE, colon + 1), "")  # delete the ':'
    found = await session.diagnostics(uri, lambda d: any(x.code == "SKW900" for x in d))
    (kept,) = [d for d in found if d.code == "SKW001"]
    assert kept.message.endswith("(as of the last version that parsed)")
    assert await lenses_of(client, uri) == []
    assert await hints_of(client, uri) == []
    hover = await session.hover(uri, FOR_LINE, 9)
    assert "as of the last version that parsed" in hover.contents.value


async def test_inlay_hints_follow_the_stage_argument(client: LanguageClient):
    session = client.session
    uri = await open_and_settle(client, "both.py", BOTH)
    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(
            types.TextDocumentIdentifier(uri),
            types.Range(types.Position(0, 0), types.Position(40, 0)),
        )
    )
    assert [h.label for h in hints] == ["depth 2", "demoted"]
    line = BOTH.splitlines()[FOR_LINE]
    end_of_stage = line.index("stage=2") + len("stage=2")
    assert hints[0].position == types.Position(FOR_LINE, session.column(line, end_of_stage))


@pytest.mark.init_options({"inlayHints": False, "codeLens": False})
async def test_lenses_and_inlay_hints_can_be_turned_off(client: LanguageClient):
    uri = await open_and_settle(client, "kernel.py", SKEWED)
    doc = types.TextDocumentIdentifier(uri)
    assert not await client.text_document_code_lens_async(types.CodeLensParams(doc))
    whole = types.Range(types.Position(0, 0), types.Position(40, 0))
    assert not await client.text_document_inlay_hint_async(types.InlayHintParams(doc, whole))


async def test_the_preview_request_returns_the_original_and_the_rewritten_loop(
    client: LanguageClient,
):
    uri = await open_and_settle(client, "kernel.py", SKEWED)
    answer = await raw_request(
        client,
        "skewlsp/preview",
        {"textDocument": {"uri": uri}, "position": {"line": FOR_LINE + 3, "character": 4}},
    )
    assert answer["original"] == textwrap.indent(loop(PRODUCER), " " * 8)
    assert answer["rewritten"] == textwrap.indent(SKEWED_REWRITE, " " * 8)
    assert answer["range"]["start"] == {"line": FOR_LINE, "character": 0}
    assert answer["document"].startswith("# skewlsp preview (read-only)")
    assert "\nfor i in pl.range(2, 8, 2):\n" in answer["document"]
    # the server shows exactly what the public API previews (one preview path)
    assert answer["rewritten"] == preview(SKEWED, FOR_LINE + 1).rewritten


async def test_the_preview_request_outside_any_loop_is_null(client: LanguageClient):
    uri = await open_and_settle(client, "kernel.py", SKEWED)
    answer = await raw_request(
        client,
        "skewlsp/preview",
        {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}},
    )
    assert answer is None


async def test_explain_returns_the_code_explanation_as_markdown(client: LanguageClient):
    text = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="skewlsp.explain", arguments=["SKW020"])
    )
    assert text.startswith("# SKW020")
    assert "consumer role" in text
    unknown = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="skewlsp.explain", arguments=["SKW999"])
    )
    assert unknown is None
    with pytest.raises(JsonRpcException):
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="skewlsp.explain", arguments=[])
        )


async def test_the_code_list_comes_from_the_server(client: LanguageClient):
    codes = plain(
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="skewlsp.listCodes", arguments=[])
        )
    )
    names = [entry["code"] for entry in codes]
    assert names == sorted(names)
    for expected in [
        "SKW001",
        "SKW010",
        "SKW020",
        "SKW050",
        "SKW900",
        "SKW901",
        "SKW902",
    ]:
        assert expected in names
    (skw020,) = [entry for entry in codes if entry["code"] == "SKW020"]
    assert skw020["severity"] == "warning"
    assert skw020["verdict"] == "demoted"


async def test_a_preview_after_an_edit_is_of_the_edited_text(client: LanguageClient):
    # the server keeps the analysis a preview prints from for the version it was made of:
    # the next version's preview is made from the next version's text
    uri = await open_and_settle(client, "kernel.py", SKEWED)
    position = {"line": FOR_LINE, "character": 8}
    ask = {"textDocument": {"uri": uri}, "position": position}
    before = await raw_request(client, "skewlsp/preview", ask)
    assert "# prologue" in before["rewritten"]
    sequential = SKEWED.replace("stage=2", "stage=1")
    assert sequential != SKEWED
    client.session.replace_all(uri, SKEWED, sequential)
    await client.session.diagnostics(uri, lambda d: any(x.code == "SKW024" for x in d))
    after = await raw_request(client, "skewlsp/preview", ask)
    assert "# prologue" not in after["rewritten"]
    assert "for i in pl.range(0, 8, 1):" in after["rewritten"]
    assert after["document"].count("# demoted (SKW024") == 1
