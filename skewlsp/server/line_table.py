"""Each open document's LSP lines, patched where an edit touches them.

pygls keeps a document as one string and applies a ranged change by rewriting
every line of it in Python; the analysis's positions then need the document's
lines, split again for each version. On pypto-lib's largest kernel (109 kB, 2,069
lines) the two cost 0.3 ms and 0.19 ms of every keystroke: a tenth of the
server's edit latency (benchmarks/README.md, "The line table back"). Here the
server keeps each document's lines, replaces the ones a change touches, joins
them into the new text (17 us) and hands pygls that text as a full change, so
pygls' own ``TextDocument`` holds it unmodified; the same lines position the
version's diagnostics.

A table is kept only for a text holding no ``\\r``: there ``\\n`` alone breaks a
line (a form feed or a Unicode separator is an ordinary character to LSP), so
``"\\n".join(lines)`` is the text exactly and no change can split or join a
``\\r\\n``. A document holding one gets :func:`.positions.apply_change`.
"""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types

from skewlsp.server.positions import apply_change, units_to_code_points


class _Table:
    """The LSP lines of one text (``"\\n".join(lines) == text``; no ``\\r`` in it)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = text.split("\n")

    def apply(self, change_range: types.Range, new_text: str, encoding: str) -> None:
        """Replace ``change_range`` (the client's, clamped as LSP says) by ``new_text``."""
        first = self._place(change_range.start, encoding)
        last = max(first, self._place(change_range.end, encoding))
        lines = self.lines
        piece = lines[first[0]][: first[1]] + new_text + lines[last[0]][last[1] :]
        lines[first[0] : last[0] + 1] = piece.split("\n")
        self.text = "\n".join(lines)

    def _place(self, position: types.Position, encoding: str) -> tuple[int, int]:
        """(line, code point) of a client position: past the last line is the end of the
        text, past a line's end is that end."""
        if position.line >= len(self.lines):
            return len(self.lines) - 1, len(self.lines[-1])
        line = max(0, position.line)
        return line, units_to_code_points(self.lines[line], position.character, encoding)


class LineTables:
    """The tables of the open documents (the protocol's; read and written on the event
    loop only). A table is known to be current while its text is the very string
    pygls holds for the document."""

    def __init__(self) -> None:
        self._tables: dict[str, _Table] = {}

    def changed(
        self,
        uri: str,
        text: str,
        changes: Sequence[types.TextDocumentContentChangeEvent],
        encoding: str,
    ) -> str:
        """``text`` (the document ``uri``'s) with ``changes`` applied in order."""
        table = self._tables.pop(uri, None)
        if table is None or table.text is not text:
            table = _Table(text) if "\r" not in text else None
        for change in changes:
            if not isinstance(change, types.TextDocumentContentChangePartial):
                text, table = change.text, None  # (tabled again at the next change)
            elif table is not None and "\r" not in change.text:
                table.apply(change.range, change.text, encoding)
                text = table.text
            else:
                text, table = apply_change(text, change.range, change.text, encoding), None
        if table is not None:
            self._tables[uri] = table
        return text

    def lines(self, uri: str, text: str) -> tuple[str, ...] | None:
        """The LSP lines of ``text`` when it is the document's tabled text (None: not
        tabled, or not its current text)."""
        table = self._tables.get(uri)
        return tuple(table.lines) if table is not None and table.text is text else None

    def forget(self, uri: str) -> None:
        """The document was closed."""
        self._tables.pop(uri, None)
