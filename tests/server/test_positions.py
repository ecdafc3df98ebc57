"""Code points <-> LSP code units, in every position encoding, clamped rather than raising.

pygls' ``PositionCodec`` counts the units; these pin what the server's requests rely on.
"""

from __future__ import annotations

import pytest
from lsprotocol import types

from skewlsp.contract import Span
from skewlsp.server.positions import (
    UTF8,
    UTF16,
    UTF32,
    apply_change,
    code_points_to_units,
    encoding_name,
    from_position,
    span_to_range,
    split_lines,
    to_position,
)

ASTRAL = "a𝑖b"  # U+1D456 is one code point, two UTF-16 units, four UTF-8 bytes
ACCENT = "é="  # U+00E9: one code point, one UTF-16 unit, two UTF-8 bytes


@pytest.mark.parametrize(
    ("text", "column", "encoding", "units"),
    [
        (ASTRAL, 0, UTF16, 0),
        (ASTRAL, 1, UTF16, 1),
        (ASTRAL, 2, UTF16, 3),
        (ASTRAL, 3, UTF16, 4),
        (ASTRAL, 2, UTF8, 5),
        (ASTRAL, 2, UTF32, 2),
        (ACCENT, 1, UTF16, 1),
        (ACCENT, 1, UTF8, 2),
        ("abc", 99, UTF16, 3),  # past the end: clamped
        ("abc", 2, UTF8, 2),  # ASCII: one unit per character in every encoding
        ("abc", 2, UTF32, 2),
        ("abc", -1, UTF16, 0),
    ],
)
def test_code_points_to_units(text, column, encoding, units):
    assert code_points_to_units(text, column, encoding) == units


@pytest.mark.parametrize(
    ("units", "encoding", "column"),
    [
        (3, UTF16, 3),
        (5, UTF8, 3),
        (2, UTF32, 3),
        (0, UTF16, 1),
    ],
)
def test_a_client_position_becomes_a_code_point_column(units, encoding, column):
    assert from_position([ASTRAL], types.Position(0, units), encoding) == (1, column)


@pytest.mark.parametrize("encoding", [UTF8, UTF16, UTF32])
def test_round_trip_on_every_character_boundary(encoding):
    text = "x = 'é𝑖中🙂' + y"
    for column in range(1, len(text) + 1):
        position = to_position([text], 1, column, encoding)
        assert from_position([text], position, encoding) == (1, column)


def test_a_span_becomes_a_zero_based_range_in_code_units():
    lines = ["", "for 𝑖 in pl.pipeline(0, 8):"]
    span = Span(2, 10, 2, 27)  # 1-based code points of `pl.pipeline(0, 8)`
    assert span_to_range(lines, span, UTF16) == types.Range(
        types.Position(1, 10),
        types.Position(1, 27),  # 0-based, the 𝑖 counts twice
    )
    assert span_to_range(lines, span, UTF8).start == types.Position(1, 12)


def test_positions_past_the_document_are_clamped():
    lines = ["ab", "cd"]
    assert from_position(lines, types.Position(10, 1)) == (2, 2)  # the last line
    assert from_position(lines, types.Position(0, 10)) == (1, 2)  # the line's last character
    assert from_position([], types.Position(3, 3)) == (1, 1)
    assert to_position(lines, 99, 99) == types.Position(1, 2)
    assert to_position([], 3, 3) == types.Position(0, 0)


def test_the_request_s_position_is_left_as_it_came():
    asked = types.Position(0, 10)
    from_position(["ab"], asked)
    assert asked == types.Position(0, 10)


def test_lines_split_like_lsp_not_like_str_splitlines():
    assert split_lines("a\r\nb\rc\nd\u2028e") == ["a", "b", "c", "d\u2028e"]
    assert split_lines("a\n") == ["a", ""]


def edit(start: tuple[int, int], end: tuple[int, int]) -> types.Range:
    return types.Range(types.Position(*start), types.Position(*end))


@pytest.mark.parametrize(
    ("text", "start", "end", "new", "result"),
    [
        # a form feed, a vertical tab, U+2028 / U+2029 / U+0085 and \x1c-\x1e are characters
        ("a\fb\nc", (1, 0), (1, 1), "C", "a\fb\nC"),
        (
            "\v\x1c\x1d\x1e\x85\u2028\u2029\nz",
            (1, 0),
            (1, 1),
            "Z",
            "\v\x1c\x1d\x1e\x85\u2028\u2029\nZ",
        ),
        ("# q\u2028k\nx", (0, 4), (0, 5), "v", "# q\u2028v\nx"),  # a column past the separator
        ("a\u2028b\r\nc\rd", (2, 0), (2, 1), "D", "a\u2028b\r\nc\rD"),  # \r\n and \r break
        ("a\fb\nc\fd\n", (0, 2), (1, 1), "", "a\f\fd\n"),  # across a line break
        ("\f𝑖b\nc", (0, 3), (0, 4), "B", "\f𝑖B\nc"),  # UTF-16 units: 𝑖 is two
        ("a\fb", (0, 99), (0, 99), "!", "a\fb!"),  # past the line's end: its end
        ("a\fb\n", (9, 0), (9, 3), "# end\n", "a\fb\n# end\n"),  # past the last line: appended
        ("a\fb\nc", (1, 1), (1, 1), "\n", "a\fb\nc\n"),
    ],
)
def test_a_change_is_applied_to_lsp_lines(text, start, end, new, result):
    assert apply_change(text, edit(start, end), new, UTF16) == result


def test_a_change_s_columns_are_counted_in_the_negotiated_encoding():
    text = "é\u2028x = 1\n"  # é: two UTF-8 bytes; U+2028: three
    assert apply_change(text, edit((0, 5), (0, 6)), "y", UTF8) == "é\u2028y = 1\n"
    assert apply_change(text, edit((0, 2), (0, 3)), "y", UTF32) == "é\u2028y = 1\n"


def test_the_negotiated_encoding_is_named_as_the_codecs_name_it() -> None:
    assert encoding_name(types.PositionEncodingKind.Utf8) == "utf-8"
    assert encoding_name("utf-32") == "utf-32"
    assert encoding_name(None) == "utf-16"  # nothing negotiated: LSP's default
