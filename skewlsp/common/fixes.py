"""Applying the edits findings carry (``--fix``, ``--diff``, quick fixes).

Pure text work on :class:`~skewlsp.contract.Edit`: spans are 1-based
lines and code-point columns, end exclusive, as every span in skewlsp is.
"""

from __future__ import annotations

from collections.abc import Iterable

from skewlsp.api import source_lines
from skewlsp.contract import Edit


def non_overlapping(edits: Iterable[Edit]) -> list[Edit]:
    """The edits to apply together, in text order: one that overlaps an edit already taken
    is left out, to be found again on the next run (``--fix``, the editor's Fix all)."""
    taken: list[Edit] = []
    ordered = sorted(
        edits, key=lambda e: (e.span.line, e.span.column, e.span.end_line, e.span.end_column)
    )
    for edit in ordered:
        start = (edit.span.line, edit.span.column)
        if taken and start < (taken[-1].span.end_line, taken[-1].span.end_column):
            continue
        taken.append(edit)
    return taken


def apply_edits(source: str, edits: Iterable[Edit]) -> tuple[str, int]:
    """``source`` with the edits applied, and how many were; an edit that overlaps one
    already taken (or falls outside the text) is skipped, to be found again next run."""
    edits = non_overlapping(edits)
    lines = source_lines(source, keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(line: int, column: int) -> int | None:
        if not 1 <= line <= len(lines) + 1:
            return None
        if line == len(lines) + 1:
            return starts[-1] if column == 1 else None
        text = lines[line - 1].rstrip("\r\n")
        return starts[line - 1] + column - 1 if 1 <= column <= len(text) + 1 else None

    ranges = []
    for edit in edits:
        start = offset(edit.span.line, edit.span.column)
        end = offset(edit.span.end_line, edit.span.end_column)
        if start is not None and end is not None and start <= end:
            ranges.append((start, end, edit.text))
    ranges.sort(key=lambda r: (r[0], r[1]))
    taken: list[tuple[int, int, str]] = []
    for start, end, text in ranges:
        if taken and start < taken[-1][1]:
            continue
        taken.append((start, end, text))
    result = source
    for start, end, text in reversed(taken):
        result = result[:start] + text + result[end:]
    return result, len(taken)
