"""An open inline helper's copies follow its callers next door, saved or not.

A ``@pl.jit.inline`` helper whose trip comes from its caller is decided once per call
made in the modules next to it. Those calls live in other files: editing one (unsaved),
or creating one on disk, must decide the open helper's copies again, as an edit of an
imported constants module re-decides its importers.
"""

from __future__ import annotations

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.conftest import raw_request

pytestmark = pytest.mark.asyncio

HELPERS = '''import pypto.language as pl

ROWS = 256
HIDDEN = 64
TILE = 32


@pl.jit.inline
def attend_rows(
    q: pl.Tensor[[ROWS, HIDDEN], pl.BF16],
    k: pl.Tensor[[HIDDEN, HIDDEN], pl.BF16],
    o: pl.Tensor[[ROWS, HIDDEN], pl.FP32],
    blocks: pl.Scalar[pl.INT32],
):
    for hb in pl.pipeline(blocks, stage=2):
        h0 = hb * TILE
        s = pl.matmul(q[h0 : h0 + TILE, 0:HIDDEN], k, b_trans=True, out_dtype=pl.FP32)
        p = pl.cast(pl.exp(s), target_type=pl.BF16, mode="rint")
        o[h0 : h0 + TILE, 0:HIDDEN] = pl.matmul(p, k, out_dtype=pl.FP32)
    return o
'''
HELPER_LOOP_LINE = 14  # 0-based: the helper's ``for hb in pl.pipeline(...)``

DECODE = '''import pypto.language as pl

from helpers import HIDDEN, ROWS, attend_rows


@pl.jit
def decode(
    q: pl.Tensor[[ROWS, HIDDEN], pl.BF16],
    kv: pl.Tensor[[HIDDEN, HIDDEN], pl.BF16],
    o: pl.Out[pl.Tensor[[ROWS, HIDDEN], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP):
        k = kv[0:HIDDEN, 0:HIDDEN]
        o = attend_rows(q, k, o, 8)
    return o
'''
CALL_LINE = 13  # 0-based: ``o = attend_rows(q, k, o, 8)``


def loop_codes(diagnostics) -> list[str]:
    return sorted(str(d.code) for d in diagnostics if d.range.start.line == HELPER_LOOP_LINE)


async def test_an_unsaved_edit_of_a_caller_redecides_the_open_helpers_copy(
    client: LanguageClient,
):
    session = client.session
    session.path_uri("decode.py", DECODE)
    helpers = session.open("helpers.py", HELPERS)
    await session.diagnostics(helpers, lambda d: loop_codes(d) == ["SKW001"])  # 8 blocks
    decode = session.open("decode.py", DECODE, write=False)
    eight = DECODE.splitlines()[CALL_LINE].index("8)")
    session.change(decode, (CALL_LINE, eight), (CALL_LINE, eight + 1), "1")  # not saved
    found = await session.diagnostics(helpers, lambda d: loop_codes(d) == ["SKW023"])
    (copy,) = [d for d in found if d.range.start.line == HELPER_LOOP_LINE]
    assert "blocks = 1" in copy.message
    assert "decode.py (line 14)" in copy.message


async def test_a_caller_created_next_to_the_open_helper_decides_its_copy(client: LanguageClient):
    session = client.session
    helpers = session.open("helpers.py", HELPERS)
    await session.diagnostics(helpers, lambda d: loop_codes(d) == ["SKW050"])  # no caller yet
    decode = session.path_uri("decode.py", DECODE)
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams([types.FileEvent(decode, types.FileChangeType.Created)])
    )
    await session.diagnostics(helpers, lambda d: loop_codes(d) == ["SKW001"])


async def test_editing_the_helper_itself_is_not_a_change_of_a_module_it_depends_on(
    client: LanguageClient,
):
    """The helper's folder is among its dependencies, and the helper is in that folder:
    its own keystrokes must stay debounced edits, not ask the editor to refresh."""
    session = client.session
    session.path_uri("decode.py", DECODE)
    helpers = session.open("helpers.py", HELPERS)
    await session.diagnostics(helpers, lambda d: loop_codes(d) == ["SKW001"])
    client.refreshes.clear()
    stage = HELPERS.splitlines()[HELPER_LOOP_LINE].index("stage=2") + len("stage=")
    session.change(helpers, (HELPER_LOOP_LINE, stage), (HELPER_LOOP_LINE, stage + 1), "1")
    await session.diagnostics(helpers, lambda d: loop_codes(d) == ["SKW024"])
    assert client.refreshes == []


async def test_the_preview_of_the_helpers_loop_is_the_copy_its_caller_next_door_makes(
    client: LanguageClient,
):
    session = client.session
    session.path_uri("decode.py", DECODE)
    helpers = session.open("helpers.py", HELPERS)
    await session.diagnostics(helpers, lambda d: loop_codes(d) == ["SKW001"])
    answer = await raw_request(
        client,
        "skewlsp/preview",
        {"textDocument": {"uri": helpers}, "position": {"line": HELPER_LOOP_LINE, "character": 4}},
    )
    assert answer is not None
    assert "# steady: produce(hb), produce(hb+1); consume(hb-2), consume(hb-1)" in answer["rewritten"]
    assert "pl.pipeline(" not in answer["rewritten"]


async def test_an_unsaved_edit_of_the_helper_is_still_decided_at_its_callers_next_door(
    client: LanguageClient,
):
    """The callers next door import the helper's module: what they splice is its text in
    the editor, not the file on disk (which an unsaved edit makes another module's)."""
    session = client.session
    session.path_uri("decode.py", DECODE)
    helpers = session.open("helpers.py", HELPERS)
    await session.diagnostics(helpers, lambda d: loop_codes(d) == ["SKW001"])
    stage = HELPERS.splitlines()[HELPER_LOOP_LINE].index("stage=2") + len("stage=")
    session.change(helpers, (HELPER_LOOP_LINE, stage), (HELPER_LOOP_LINE, stage + 1), "3")
    found = await session.diagnostics(helpers, lambda d: loop_codes(d) != ["SKW001"])
    assert loop_codes(found) == ["SKW001", "SKW030"]  # the copy at 8 blocks, and stage=3's hint
    (copy,) = [d for d in found if d.code == "SKW001"]
    assert "decode.py (line 14)" in copy.message
