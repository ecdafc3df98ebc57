"""Hover, code lens, inlay hints, the preview request and the explain command, end to end."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from skewlsp.api import preview

from .conftest import raw_request
from .kernels import BOTH, FOR_LINE, SECOND_FOR_LINE, SKEWED, SKEWED_LOOP

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
    assert "effective depth: 2" in text
    assert "requested depth: 2" in text
    assert "trip: 8" in text
    assert "prologue 2, steady 3 x 2, epilogue 2" in text
    assert "producer: 0 1 | 2 3 | 4 5 | 6 7 | . ." in text
    assert "consumer: . . | 0 1 | 2 3 | 4 5 | 6 7" in text


async def test_hover_on_a_demoted_loop_says_what_would_make_it_skew(client: LanguageClient):
    uri = await open_and_settle(client, "both.py", BOTH)
    hover = await client.session.hover(uri, SECOND_FOR_LINE, 30)  # inside pl.pipeline(...)
    text = hover.contents.value
    assert "demoted" in text and "SKW020" in text
    assert "To make it skew" in text


async def test_hover_inside_the_loop_body_shows_nothing(client: LanguageClient):
    uri = await open_and_settle(client, "kernel.py", SKEWED)
    assert await client.session.hover(uri, FOR_LINE + 2, 14) is None


async def test_hover_past_the_end_of_the_document_is_clamped_not_an_error(client: LanguageClient):
    uri = await open_and_settle(client, "kernel.py", SKEWED)
    assert await client.session.hover(uri, 10_000, 10_000) is None
    assert await client.session.hover(uri, FOR_LINE, 10_000) is not None


async def test_a_code_lens_above_each_loop_opens_its_preview(client: LanguageClient):
    uri = await open_and_settle(client, "both.py", BOTH)
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(types.TextDocumentIdentifier(uri))
    )
    assert [lens.range.start.line for lens in lenses] == [FOR_LINE, SECOND_FOR_LINE]
    skewed = lenses[0].command
    assert skewed.title == "skewed · depth 2 · prologue 2, steady 3 x 2, epilogue 2 · Preview"
    assert skewed.command == "skewlsp.previewLoop"
    assert list(skewed.arguments) == [uri, {"line": FOR_LINE, "character": 8}]
    assert lenses[1].command.title.startswith("demoted · SKW020")


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
    assert answer["original"] == SKEWED_LOOP
    assert answer["range"]["start"] == {"line": FOR_LINE, "character": 0}
    # trip 8, stage 2 -> depth 2: the steady loop starts at 2 and takes two steps at a time
    lines = [line.strip() for line in answer["rewritten"].splitlines()]
    assert lines[0] == "# prologue: produce(0), produce(1)"
    assert "for i in pl.range(2, 8, 2):" in lines
    assert lines[-5] == "# epilogue: consume(6), consume(7)"
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
