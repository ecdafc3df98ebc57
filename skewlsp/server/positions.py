"""Converting between the analysis's positions and the client's, through pygls' codec.

The analysis speaks 1-based lines and 1-based columns counted in code points
(end exclusive); LSP speaks 0-based lines and columns counted in the position
encoding negotiated at ``initialize`` — UTF-16 code units unless the client
offered something else (Neovim offers UTF-8 first). pygls' ``PositionCodec``
counts the units; what is left here is the analysis's side: its 1-based numbers,
its lines (LSP's: only ``\\n``, ``\\r\\n`` and ``\\r`` break one), and clamping a
line number into the document, so that a stale or hostile position never crashes
a request.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from lsprotocol import types
from pygls.workspace import PositionCodec

from skewlsp.api import source_lines
from skewlsp.contract import Span

UTF8 = "utf-8"
UTF16 = "utf-16"
UTF32 = "utf-32"

_LSP_BREAK = re.compile(r"\r\n|\r|\n")


def encoding_name(kind: object) -> str:
    """The negotiated position encoding as the codecs here name it (pygls gives a
    ``PositionEncodingKind`` member, a plain string, or nothing: UTF-16, LSP's default)."""
    return str(getattr(kind, "value", kind) or UTF16)


def code_points_to_units(text: str, column: int, encoding: str = UTF16) -> int:
    """Units before the 0-based code-point ``column`` of ``text`` (clamped to the line).

    An ASCII prefix (most lines of a kernel) is one unit per character in every encoding:
    counted here, as pygls' codec counts it character by character in Python, which was
    0.5 ms of each edit's diagnostics on pypto-lib's largest kernel (benchmarks/README.md).
    """
    prefix = text[: max(0, column)]
    if prefix.isascii():
        return len(prefix)
    return PositionCodec(encoding).client_num_units(prefix)


def _index(lines: Sequence[str], line: int) -> int:
    """``line`` (0-based) clamped into the document."""
    return max(0, min(line, len(lines) - 1))


def to_position(
    lines: Sequence[str], line: int, column: int, encoding: str = UTF16
) -> types.Position:
    """LSP position of the analysis's 1-based ``line`` / 1-based code-point ``column``."""
    if not lines:
        return types.Position(0, 0)
    index = _index(lines, line - 1)
    return types.Position(index, code_points_to_units(lines[index], column - 1, encoding))


def span_to_range(lines: Sequence[str], span: Span, encoding: str = UTF16) -> types.Range:
    """LSP range of an analysis :class:`Span`."""
    return types.Range(
        to_position(lines, span.line, span.column, encoding),
        to_position(lines, span.end_line, span.end_column, encoding),
    )


def from_position(
    lines: Sequence[str], position: types.Position, encoding: str = UTF16
) -> tuple[int, int]:
    """1-based (line, code-point column) of an LSP position, clamped into the document.

    A line past the last is the last; a column past its line's end is pygls' clamp
    (the line's last character).
    """
    if not lines:
        return 1, 1
    # A fresh position: pygls' clamp writes into the one it is given (the request's).
    asked = types.Position(_index(lines, position.line), position.character)
    found = PositionCodec(encoding).position_from_client_units(lines, asked)
    return found.line + 1, found.character + 1


def split_lines(text: str) -> list[str]:
    """Lines the way LSP counts them: only ``\\n``, ``\\r\\n`` and ``\\r`` break a line.

    Unlike ``str.splitlines`` (which also breaks on form feeds and Unicode
    separators), and with the empty last line LSP counts after a final break.
    """
    lines = source_lines(text)
    if not text or text.endswith(("\n", "\r")):
        lines.append("")
    return lines


def units_to_code_points(line: str, character: int, encoding: str = UTF16) -> int:
    """Code points of ``line`` before the client's column ``character`` (counted in
    ``encoding``'s units up to the character it falls in; past the line's end is that
    end, LSP's clamp). An ASCII line is one unit per character in every encoding."""
    if line.isascii():
        return min(max(0, character), len(line))
    codec = PositionCodec(encoding)
    units = 0
    for index, symbol in enumerate(line):
        if units >= character:
            return index
        units += codec.client_num_units(symbol)
    return len(line)


def _offset(text: str, starts: list[int], position: types.Position, encoding: str) -> int:
    """Index into ``text`` of an LSP ``position`` (its line's start is ``starts[line]``);
    past the last line is the end of the text."""
    if position.line >= len(starts):
        return len(text)
    start = starts[max(0, position.line)]
    found = _LSP_BREAK.search(text, start)
    line = text[start : found.start() if found else len(text)]
    return start + units_to_code_points(line, position.character, encoding)


def apply_change(text: str, change_range: types.Range, new_text: str, encoding: str) -> str:
    """``text`` with the client's incremental change applied, its lines counted as LSP does.

    pygls applies a change to ``str.splitlines`` lines, which also break at a form feed,
    a vertical tab or a Unicode line separator; the server applies a change here to a document
    holding a ``\\r`` (every other one is patched by lines: :mod:`.line_table`).
    """
    starts = [0, *(found.end() for found in _LSP_BREAK.finditer(text))]
    begin = _offset(text, starts, change_range.start, encoding)
    end = max(begin, _offset(text, starts, change_range.end, encoding))
    return text[:begin] + new_text + text[end:]
