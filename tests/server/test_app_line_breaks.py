"""Only ``\\n``, ``\\r\\n`` and ``\\r`` break a line, in the text the server keeps too.

A form feed (a page break in Python sources) or a Unicode line separator in a
comment is one character of a line to the client; an edit after it must land
where the client put it, or the server analyses a text the editor does not have.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.kernels import FOR_LINE, PIPELINE, PRODUCER, SKEWED, kernel

pytestmark = pytest.mark.asyncio

# Two LSP lines (a comment holding U+2028, then a form feed page break) that
# str.splitlines would count as four.
PAGE = "# q and k tiles\u2028row-major\n\f\n"
PAGED = PAGE + SKEWED
HEADER = FOR_LINE + 2  # the loop's `for` line in PAGED


def codes(diagnostics: Sequence[types.Diagnostic]) -> list[str]:
    return sorted(str(d.code) for d in diagnostics)


async def current(client: LanguageClient, uri: str, version: int) -> Sequence[types.Diagnostic]:
    """The diagnostics of ``version`` (pulled, or the push for that version)."""
    session = client.session
    if session.pulls:
        return await session.diagnostics(uri)
    return (await session.published_version(uri, version)).diagnostics


def change(
    client: LanguageClient, uri: str, edits: list[tuple[tuple[int, int], tuple[int, int], str]]
) -> int:
    """One didChange notification carrying ``edits`` in order; the new version."""
    session = client.session
    session.versions[uri] += 1
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(version=session.versions[uri], uri=uri),
            [
                types.TextDocumentContentChangePartial(
                    range=types.Range(types.Position(*start), types.Position(*end)), text=new
                )
                for start, end, new in edits
            ],
        )
    )
    return session.versions[uri]


def stage_digit(client: LanguageClient) -> int:
    line = SKEWED.splitlines()[FOR_LINE]
    return client.session.column(line, line.index("stage=2") + len("stage="))


async def test_a_stage_edit_after_a_form_feed_and_a_line_separator_changes_that_loop(
    client: LanguageClient,
):
    session = client.session
    uri = session.open("paged.py", PAGED)
    (skewed,) = await session.diagnostics(uri, lambda d: codes(d) == ["SKW001"])
    assert skewed.range.start.line == HEADER
    digit = stage_digit(client)
    version = change(client, uri, [((HEADER, digit), (HEADER, digit + 1), "1")])  # stage=1
    (demoted,) = await current(client, uri, version)
    assert demoted.code == "SKW024"
    assert demoted.range.start.line == HEADER
    hover = await session.hover(uri, HEADER, 9)  # on `for`
    assert "`SKW024`" in hover.contents.value


async def test_deleting_the_page_header_removes_both_of_its_lines(client: LanguageClient):
    session = client.session
    uri = session.open("paged.py", PAGED)
    await session.diagnostics(uri, lambda d: codes(d) == ["SKW001"])
    version = change(client, uri, [((0, 0), (2, 0), "")])
    (skewed,) = await current(client, uri, version)
    assert skewed.range.start.line == FOR_LINE


async def test_a_form_feed_typed_earlier_in_the_same_notification_moves_the_next_edit(
    client: LanguageClient,
):
    """The text held no such character before the notification: its first change adds one."""
    session = client.session
    uri = session.open("kernel.py", SKEWED)
    await session.diagnostics(uri, lambda d: codes(d) == ["SKW001"])
    digit = stage_digit(client)
    version = change(
        client,
        uri,
        [
            ((0, 0), (0, 0), "\f\n# page 2\u2029of 2\n"),  # two LSP lines on top
            ((HEADER, digit), (HEADER, digit + 1), "1"),
        ],
    )
    (demoted,) = await current(client, uri, version)
    assert (demoted.code, demoted.range.start.line) == ("SKW024", HEADER)



async def test_a_column_past_a_separator_is_counted_in_the_client_s_units(
    client: LanguageClient,
):
    """The stage is a module constant on the line of a string holding `·` and U+2028
    (one UTF-16 unit each, two and three UTF-8 bytes): the edit counts them as the client."""
    session = client.session
    prelude = 'ORDER = "q·k\u2028row-major"; STAGE = 2'
    text = kernel(PRODUCER, PIPELINE.replace("stage=2", "stage=STAGE"), prelude=prelude)
    uri = session.open("constant.py", text)
    await session.diagnostics(uri, lambda d: codes(d) == ["SKW001"])
    line = text.split("\n")[1]
    digit = session.column(line, line.index("STAGE = 2") + len("STAGE = "))
    version = change(client, uri, [((1, digit), (1, digit + 1), "1")])
    (demoted,) = await current(client, uri, version)
    assert (demoted.code, demoted.range.start.line) == ("SKW024", FOR_LINE + 1)
