"""Incremental document sync: the text pygls would hold, at the cost of the edit only.

pygls's own ``TextDocument`` is the reference: it applies a ranged change by
rebuilding the whole text, an independent implementation of the same LSP
rules (UTF-16/UTF-8/UTF-32 columns, clamping of positions past a line's or the
document's end). On every document and edit sequence without a form feed or
Unicode separator (where LSP and pygls count lines differently) both must end
with the same text.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.workspace import PositionCodec, TextDocument, Workspace

from skewlsp.common.suppressions import SUPPRESSION_MARK
from skewlsp.server.positions import split_lines
from skewlsp.server.text_sync import (
    SyncedDocument,
    SyncedProtocol,
    SyncedWorkspace,
    line_table,
)

URI = "file:///kernel.py"
ENCODINGS = ["utf-16", "utf-8", "utf-32"]

# Pieces that stress columns (BMP and astral non-ASCII) and lines (every LSP break).
PIECES = ["a", "pl", " ", "\t", "é", "€", "😋", "𝑖", "\n", "\r", "\r\n", "\n\n", "\r\r\n"]
PIECES += ["skew", "lint", "skewlint"]  # the word that marks suppression comments
texts = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)
# Inserted text: short, and as likely as not to end in a line break (CR, LF or both).
inserts = st.lists(
    st.sampled_from(["a", "é", "😋", "\n", "\r", "\r\n", "skew", "lint"]), max_size=4
).map("".join)

Edit = tuple[tuple[int, int], tuple[int, int], str]


def positions_in(text: str) -> st.SearchStrategy[tuple[int, int]]:
    """A position on a line of ``text`` or just past it; columns up to past the line's break.

    Columns count up to 2 units per code point: enough to reach beyond the end of the
    line in every encoding but UTF-8 astral text, which the far positions cover.
    """
    lines = text.splitlines(True)

    def on(line: int) -> st.SearchStrategy[tuple[int, int]]:
        width = 2 * len(lines[line]) + 2 if line < len(lines) else 3
        return st.tuples(st.just(line), st.integers(0, width))

    near = st.integers(0, len(lines) + 1).flatmap(on)
    far = st.tuples(st.integers(0, 50), st.integers(0, 200))
    return st.one_of(near, near, near, far)


def draw_edit(data: st.DataObject, text: str) -> Edit:
    """A ranged edit of ``text``: mostly start <= end, sometimes inverted (pygls's quirks count)."""
    first, second = data.draw(positions_in(text)), data.draw(positions_in(text))
    if data.draw(st.integers(0, 9)):
        first, second = min(first, second), max(first, second)
    return first, second, data.draw(inserts)


def partial(edit: Edit) -> types.TextDocumentContentChangePartial:
    """A fresh change object: pygls's clamping writes into the positions it is given."""
    (start_line, start_char), (end_line, end_char), text = edit
    return types.TextDocumentContentChangePartial(
        range=types.Range(
            types.Position(start_line, start_char), types.Position(end_line, end_char)
        ),
        text=text,
    )


def assert_consistent(doc: SyncedDocument) -> None:
    """Every view of the document describes the same text (``PIECES`` holds only LSP breaks)."""
    assert doc.lines == tuple(doc.source.splitlines(True))
    assert doc.lsp_lines == tuple(split_lines(doc.source))
    assert doc.may_hold_suppressions == (SUPPRESSION_MARK in doc.source)


PROPERTY = settings(
    max_examples=150,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


@PROPERTY
@given(text=texts, encoding=st.sampled_from(ENCODINGS), data=st.data())
def test_ranged_edits_leave_the_text_pygls_would_hold(text, encoding, data):
    reference = TextDocument(URI, text, position_codec=PositionCodec(encoding))
    synced = SyncedDocument(URI, text, position_codec=PositionCodec(encoding))
    for _ in range(data.draw(st.integers(1, 8), label="edits")):
        edit = data.draw(st.just(draw_edit(data, reference.source)), label="edit")
        reference.apply_change(partial(edit))
        synced.apply_change(partial(edit))
        assert synced.source == reference.source
        assert synced.lines == reference.lines
        assert_consistent(synced)


@PROPERTY
@given(text=texts, encoding=st.sampled_from(ENCODINGS), data=st.data())
def test_a_notification_of_ranged_and_full_changes_applies_them_in_order(text, encoding, data):
    reference = Workspace(None, position_encoding=encoding)
    synced = SyncedWorkspace(None, position_encoding=encoding)
    for workspace in (reference, synced):
        workspace.put_text_document(types.TextDocumentItem(URI, "python", 1, text))
    identifier = types.VersionedTextDocumentIdentifier(version=2, uri=URI)
    for _ in range(data.draw(st.integers(1, 6), label="changes")):
        current = reference.get_text_document(URI).source
        if data.draw(st.integers(0, 4), label="full?") == 0:
            whole = data.draw(texts, label="full change")
            events = [types.TextDocumentContentChangeWholeDocument(text=whole) for _ in range(2)]
        else:
            edit = data.draw(st.just(draw_edit(data, current)), label="ranged change")
            events = [partial(edit), partial(edit)]
        for workspace, event in zip((reference, synced), events, strict=True):
            workspace.update_text_document(identifier, event)
    document = synced.get_text_document(URI)
    assert isinstance(document, SyncedDocument)
    assert document.source == reference.get_text_document(URI).source
    assert document.version == 2
    assert_consistent(document)


def test_an_astral_character_is_two_utf16_units_and_four_utf8_bytes():
    for encoding, column in (("utf-16", 3), ("utf-8", 5), ("utf-32", 2)):
        doc = SyncedDocument(URI, "a😋b\n", position_codec=PositionCodec(encoding))
        doc.apply_change(partial(((0, column), (0, column + 1), "c")))
        assert doc.source == "a😋c\n", encoding


def test_a_change_joining_cr_and_lf_makes_one_line_break():
    doc = SyncedDocument(URI, "a\rb\r")
    doc.apply_change(partial(((1, 0), (1, 1), "\n")))  # "a\r" + "\n" + "\r"
    assert doc.source == "a\r\n\r"
    assert doc.lsp_lines == ("a", "", "")
    doc.apply_change(partial(((1, 0), (2, 0), "x")))  # the "\r" line becomes "x"
    assert doc.source == "a\r\nx"
    assert doc.lsp_lines == ("a", "x")


def test_a_cr_typed_before_a_lines_lf_joins_it():
    doc = SyncedDocument(URI, "ab\n\ncd")
    # Column 3 is past "ab\n"'s break: pygls puts it at the start of the next line.
    doc.apply_change(partial(((0, 3), (0, 3), "x\r")))
    assert doc.source == "ab\nx\r\ncd"
    assert doc.lsp_lines == ("ab", "x", "cd")
    assert doc.lines == ("ab\n", "x\r\n", "cd")


def test_positions_past_the_end_clamp_like_pygls():
    doc = SyncedDocument(URI, "ab\ncd\n")
    doc.apply_change(partial(((0, 99), (0, 99), "!")))  # past the line: before its break
    doc.apply_change(partial(((9, 0), (9, 5), "?")))  # past the document: at its end
    assert doc.source == "ab!\ncd\n?"


def test_form_feeds_and_unicode_separators_are_not_line_breaks():
    """LSP breaks lines at \\n, \\r\\n and \\r only; ``str.splitlines`` also at these."""
    text = "a\x0cb\u2028c\nd\n"
    doc = SyncedDocument(URI, text)
    assert doc.lsp_lines == ("a\x0cb\u2028c", "d", "")
    doc.apply_change(partial(((1, 0), (1, 1), "e")))  # LSP line 1 is "d"
    assert doc.source == "a\x0cb\u2028c\ne\n"
    assert doc.lines == ("a\x0cb\u2028c\n", "e\n")


def test_an_edit_in_a_long_document_replaces_the_lines_its_range_covers():
    text = "".join(f"x{number} = {number}\n" for number in range(30_000))
    doc = SyncedDocument(URI, text)
    doc.apply_change(partial(((15_000, 0), (15_001, 0), "y = 1\nz = 2\n")))
    assert doc.lsp_lines[14_999:15_004] == ("x14999 = 14999", "y = 1", "z = 2", "x15001 = 15001", "x15002 = 15002")
    assert len(doc.lsp_lines) == 30_002
    assert doc.lines[15_000:15_002] == ("y = 1\n", "z = 2\n")
    assert doc.source == text.replace("x15000 = 15000\n", "y = 1\nz = 2\n")


def test_a_document_never_given_a_text_reads_the_file_like_pygls(tmp_path):
    path = tmp_path / "on_disk.py"
    path.write_text("x = 1\n")
    doc = SyncedDocument(path.as_uri())
    assert doc.source == "x = 1\n"
    assert doc.lsp_lines == ("x = 1", "")


def test_line_table_keeps_terminators_and_strips_them():
    assert line_table("a\r\nb\rc\n\x0cd") == (
        ["a\r\n", "b\r", "c\n", "\x0cd"],
        ["a", "b", "c", "\x0cd"],
    )
    assert line_table("") == ([], [])


def test_the_protocol_gives_pygls_workspace_synced_documents():
    server = LanguageServer("test", "0", protocol_cls=SyncedProtocol)
    folder = types.WorkspaceFolder("file:///work", "work")
    server.protocol._workspace = Workspace(
        "file:///work", types.TextDocumentSyncKind.Incremental, [folder], "utf-8"
    )
    workspace = server.workspace
    assert isinstance(workspace, SyncedWorkspace)
    assert workspace.root_uri == "file:///work"
    assert workspace.position_encoding == "utf-8"
    assert list(workspace.folders.values()) == [folder]
    workspace.put_text_document(types.TextDocumentItem(URI, "python", 1, "é\n"))
    document = workspace.get_text_document(URI)
    assert isinstance(document, SyncedDocument)
    document.apply_change(partial(((0, 2), (0, 2), "x")))  # UTF-8: after the 2-byte é
    assert document.source == "éx\n"
