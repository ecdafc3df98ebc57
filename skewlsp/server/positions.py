"""Converting between the analysis's positions and the client's.

The analysis speaks 1-based lines and 1-based columns counted in code points
(end exclusive); LSP speaks 0-based lines and columns counted in the position
encoding negotiated at ``initialize`` — UTF-16 code units unless the client
offered something else (Neovim offers UTF-8 first). A line holding an accented
name or an emoji makes the two differ, so every conversion goes through here
and clamps instead of raising: a stale or hostile position must never crash a
request.
"""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types

from skewlsp.api import source_lines
from skewlsp.contract import Span

UTF8 = "utf-8"
UTF16 = "utf-16"
UTF32 = "utf-32"


def _units(char: str, encoding: str) -> int:
    """How many code units of ``encoding`` one code point takes."""
    point = ord(char)
    if encoding == UTF8:
        return 1 if point < 0x80 else 2 if point < 0x800 else 3 if point < 0x10000 else 4
    if encoding == UTF32:
        return 1
    return 2 if point >= 0x10000 else 1


def code_points_to_units(text: str, column: int, encoding: str = UTF16) -> int:
    """Units before the 0-based code-point ``column`` of ``text`` (clamped to the line)."""
    column = max(0, min(column, len(text)))
    head = text[:column]
    if encoding == UTF32 or head.isascii():  # one unit per character in every encoding
        return column
    if encoding == UTF16:  # only astral characters take two units (a C-speed count)
        return column + sum(1 for c in head if c > "\uffff")
    return sum(_units(c, encoding) for c in head)


def units_to_code_points(text: str, units: int, encoding: str = UTF16) -> int:
    """The 0-based code-point column at ``units`` code units into ``text``.

    A position inside a multi-unit character (half a surrogate pair) snaps to the
    character's start; a position past the end clamps to the end of the line.
    """
    if units <= 0:
        return 0
    if encoding == UTF32 or text.isascii():
        return min(units, len(text))
    seen = 0
    for index, char in enumerate(text):
        width = _units(char, encoding)
        if seen + width > units:
            return index
        seen += width
    return len(text)


def _line(lines: Sequence[str], index: int) -> str:
    if 0 <= index < len(lines):
        return lines[index].rstrip("\r\n")
    return ""


def to_position(
    lines: Sequence[str], line: int, column: int, encoding: str = UTF16
) -> types.Position:
    """LSP position of the analysis's 1-based ``line`` / 1-based code-point ``column``."""
    index = max(0, min(line - 1, max(len(lines) - 1, 0)))
    text = _line(lines, index)
    return types.Position(index, code_points_to_units(text, column - 1, encoding))


def span_to_range(lines: Sequence[str], span: Span, encoding: str = UTF16) -> types.Range:
    """LSP range of an analysis :class:`Span`."""
    return types.Range(
        to_position(lines, span.line, span.column, encoding),
        to_position(lines, span.end_line, span.end_column, encoding),
    )


def from_position(
    lines: Sequence[str], position: types.Position, encoding: str = UTF16
) -> tuple[int, int]:
    """1-based (line, code-point column) of an LSP position, clamped into the document."""
    if not lines:
        return 1, 1
    index = max(0, min(position.line, len(lines) - 1))
    if position.line >= len(lines):  # past the last line: its end
        text = _line(lines, index)
        return index + 1, len(text) + 1
    text = _line(lines, index)
    return index + 1, units_to_code_points(text, position.character, encoding) + 1


def split_lines(text: str) -> list[str]:
    """Lines the way LSP counts them: only ``\\n``, ``\\r\\n`` and ``\\r`` break a line.

    Unlike ``str.splitlines`` (which also breaks on form feeds and Unicode
    separators), and with the empty last line LSP counts after a final break.
    """
    lines = source_lines(text)
    if not text or text.endswith(("\n", "\r")):
        lines.append("")
    return lines
