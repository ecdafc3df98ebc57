"""The server's copy of each open document's lines: what an edit makes of the text, and
the lines it hands the analysis's positions, exactly as LSP counts them."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lsprotocol import types

from skewlsp.server.line_table import LineTables
from skewlsp.server.positions import UTF8, UTF16, apply_change, split_lines

URI = "file:///k.py"


def partial(start: tuple[int, int], end: tuple[int, int], text: str):
    return types.TextDocumentContentChangePartial(
        range=types.Range(types.Position(*start), types.Position(*end)), text=text
    )


def edited(text: str, *changes, encoding: str = UTF16) -> tuple[str, tuple[str, ...] | None]:
    """The text after ``changes`` (one notification) and the lines the tables give for it."""
    tables = LineTables()
    new = tables.changed(URI, text, list(changes), encoding)
    return new, tables.lines(URI, new)


@pytest.mark.parametrize(
    ("text", "change", "result"),
    [
        ("a = 1\nb = 2\n", partial((1, 4), (1, 5), "3"), "a = 1\nb = 3\n"),
        ("a = 1\nb = 2\n", partial((0, 5), (1, 0), ""), "a = 1b = 2\n"),  # a line break deleted
        ("a\nb\nc\n", partial((0, 1), (2, 0), "\n"), "a\nc\n"),  # two lines into one break
        ("a\nb", partial((1, 1), (1, 1), "\nc\nd"), "a\nb\nc\nd"),  # new lines typed
        ("a\fb\nc", partial((1, 0), (1, 1), "C"), "a\fb\nC"),  # a form feed is a character
        ("# q\u2028k\nx", partial((0, 4), (0, 5), "v"), "# q\u2028v\nx"),
        ("\f𝑖b\nc", partial((0, 3), (0, 4), "B"), "\f𝑖B\nc"),  # UTF-16: 𝑖 is two units
        ("ab\n", partial((0, 99), (0, 99), "!"), "ab!\n"),  # past the line's end: its end
        ("ab", partial((9, 0), (9, 3), "\n# end"), "ab\n# end"),  # past the last line: the end
        ("abc\n", partial((0, 2), (0, 1), "X"), "abXc\n"),  # an end before the start
        ("", partial((0, 0), (0, 0), "x = 1\n"), "x = 1\n"),
    ],
)
def test_a_change_lands_where_the_client_put_it_and_the_lines_are_lsp_s(text, change, result):
    new, lines = edited(text, change)
    assert new == result
    assert lines == tuple(split_lines(result))


def test_changes_of_one_notification_apply_in_order():
    new, lines = edited("a\nb\n", partial((0, 0), (0, 0), "\f\n"), partial((2, 0), (2, 1), "B"))
    assert new == "\f\na\nB\n"
    assert lines == ("\f", "a", "B", "")


def test_columns_are_counted_in_the_negotiated_encoding():
    text = "é = 1\n"  # é: two UTF-8 bytes
    assert edited(text, partial((0, 2), (0, 3), ""), encoding=UTF8)[0] == "é= 1\n"


def test_a_text_holding_a_carriage_return_is_edited_but_not_tabled():
    new, lines = edited("a\r\nb\rc\n", partial((2, 0), (2, 1), "C"))
    assert new == "a\r\nb\rC\n"
    assert lines is None
    assert edited("a\nb\n", partial((0, 1), (0, 1), "\r"))[1] is None  # a \r typed in


def test_the_lines_are_given_only_for_the_text_the_table_made():
    tables = LineTables()
    new = tables.changed(URI, "a\nb\n", [partial((0, 0), (0, 1), "x")], UTF16)
    assert tables.lines(URI, new) == ("x", "b", "")
    assert tables.lines(URI, "x\nb\n") is None  # equal, but not the text pygls was handed
    assert tables.lines("file:///other.py", new) is None
    tables.forget(URI)
    assert tables.lines(URI, new) is None


def test_a_full_change_replaces_the_text_and_the_next_edit_reads_it_afresh():
    tables = LineTables()
    first = tables.changed(URI, "a\n", [partial((0, 0), (0, 1), "b")], UTF16)
    whole = types.TextDocumentContentChangeWholeDocument(text="x\ny\n")
    second = tables.changed(URI, first, [whole], UTF16)
    assert (second, tables.lines(URI, second)) == ("x\ny\n", None)
    third = tables.changed(URI, second, [partial((1, 0), (1, 1), "Y")], UTF16)
    assert (third, tables.lines(URI, third)) == ("x\nY\n", ("x", "Y", ""))


def test_a_document_changed_behind_the_table_is_read_afresh():
    tables = LineTables()
    tables.changed(URI, "a\nb\n", [partial((0, 0), (0, 1), "x")], UTF16)
    reopened = "p\nq\n"  # (the document was opened again with another text)
    new = tables.changed(URI, reopened, [partial((1, 0), (1, 1), "Q")], UTF16)
    assert new == "p\nQ\n"


_CHARACTERS = st.sampled_from(["a", " ", "\n", "\f", "é", "𝑖", "\u2028", "#"])


@given(
    text=st.text(_CHARACTERS, max_size=40),
    edits=st.lists(
        st.tuples(
            st.integers(0, 8), st.integers(0, 12), st.integers(0, 8), st.integers(0, 12),
            st.text(_CHARACTERS, max_size=6),
        ),
        min_size=1,
        max_size=6,
    ),
)
def test_a_sequence_of_edits_gives_what_applying_each_to_the_whole_text_gives(text, edits):
    """Against :func:`.positions.apply_change` (which counts offsets in the whole text)."""
    tables = LineTables()
    expected = text
    for first_line, first_column, last_line, last_column, new in edits:
        change = partial((first_line, first_column), (last_line, last_column), new)
        text = tables.changed(URI, text, [change], UTF16)
        expected = apply_change(expected, change.range, new, UTF16)
        assert text == expected
        assert tables.lines(URI, text) == tuple(split_lines(expected))
