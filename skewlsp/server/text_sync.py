"""Document sync whose cost follows the edit, not the document.

pygls's ``TextDocument`` applies a ranged ``didChange`` by splitting the whole
text into lines and writing every line back out: ~7 ms per keystroke on a
30,000-line file, paid before the server can even schedule an analysis. Here
each open document keeps its LSP lines (with their terminators, and bare for
the position helpers); an edit re-splits only the lines it touches and patches
both lists in place. Client columns are converted by pygls's own
``PositionCodec`` on the touched lines, so the negotiated position encoding
(UTF-16 unless the client chose UTF-8 or UTF-32) and pygls's clamping of
positions past a line's or the document's end carry over unchanged.

One deliberate difference: lines break at ``\\n``, ``\\r\\n`` and ``\\r`` only,
as LSP specifies; pygls (``str.splitlines``) also breaks at form feeds,
vertical tabs and Unicode separators, which puts a client's edit on the wrong
line of a document holding one.

pygls has no hook for its document class: it builds a plain ``Workspace`` in
``initialize``. :class:`SyncedProtocol` swaps it for a :class:`SyncedWorkspace`
(same root, folders, sync kind and encoding) at the moment pygls stores it.
"""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types
from pygls.protocol import LanguageServerProtocol
from pygls.workspace import ServerTextPosition, TextDocument, Workspace

from skewlsp.api import source_lines
from skewlsp.common.suppressions import SUPPRESSION_MARK


def line_table(text: str) -> tuple[list[str], list[str]]:
    """LSP lines of ``text``: with their terminators, and bare (no empty last piece)."""
    return source_lines(text, keepends=True), source_lines(text)


def _ends_line(text: str) -> bool:
    return text.endswith(("\n", "\r"))


def _lsp_view(kept: list[str], bare: list[str]) -> tuple[str, ...]:
    """``bare`` plus the empty line LSP counts after a final break (or in an empty text)."""
    return (*bare, "") if not kept or _ends_line(kept[-1]) else tuple(bare)


class SyncedDocument(TextDocument):
    """A ``TextDocument`` applying ranged changes to a line table instead of the whole text.

    pygls reads and writes ``_source`` itself (full changes, disk-backed
    documents, the ``source`` property); routing that attribute through the
    table keeps every pygls code path coherent with it. The text, pygls's
    ``lines`` tuple and :attr:`lsp_lines` are rebuilt lazily, once per version
    at most, by C-speed joins and copies.
    """

    _kept: list[str] | None  # LSP lines with terminators; no empty last piece
    _bare: list[str]  # the same lines without terminators
    _text: str | None
    _lines_view: tuple[str, ...] | None
    _lsp_view: tuple[str, ...] | None
    _marks: int  # occurrences of SUPPRESSION_MARK (a word never spans lines)

    @property
    def _source(self) -> str | None:
        if self._kept is None:
            return None
        if self._text is None:
            self._text = "".join(self._kept)
        return self._text

    @_source.setter
    def _source(self, text: str | None) -> None:
        if text is None:
            self._kept, self._bare = None, []
        else:
            self._kept, self._bare = line_table(text)
        self._marks = text.count(SUPPRESSION_MARK) if text is not None else 0
        self._text = text
        self._lines_view = None
        self._lsp_view = None

    @property
    def lines(self) -> Sequence[str]:
        """pygls's view: lines with their terminators, no empty last line."""
        if self._kept is None:
            return super().lines
        if self._lines_view is None:
            self._lines_view = tuple(self._kept)
        return self._lines_view

    @property
    def may_hold_suppressions(self) -> bool:
        """False when no line mentions a suppression comment (kept up to date per edit, so
        publishing diagnostics need not scan the whole text for one)."""
        return self._kept is None or self._marks > 0

    @property
    def lsp_lines(self) -> tuple[str, ...]:
        """Every LSP line without its terminator, the empty one after a final break included.

        The shape :func:`skewlsp.server.positions.split_lines` gives, without splitting.
        """
        if self._kept is None:
            return _lsp_view(*line_table(self.source))
        if self._lsp_view is None:
            self._lsp_view = _lsp_view(self._kept, self._bare)
        return self._lsp_view

    def _apply_incremental_change(self, change: types.TextDocumentContentChangePartial) -> None:
        kept = self._kept
        if kept is None:  # never given a text: pygls's way, which stores one
            super()._apply_incremental_change(change)
            return
        start: types.Position | ServerTextPosition | None
        end: types.Position | ServerTextPosition | None
        start = _ascii_position(kept, change.range.start)
        end = _ascii_position(kept, change.range.end)
        if start is None or end is None:  # a line with other characters: units differ
            where = self.position_codec.range_from_client_units(kept, change.range)
            start, end = where.start, where.end
        if start.line > end.line:
            return  # pygls skips every line of an inverted range: the text is dropped
        if kept:
            segment = kept[start.line][: start.character] + change.text
            segment += kept[end.line][end.character :]
            low, high = start.line, end.line + 1
        else:  # empty document: every position is (0, 0)
            segment, low, high = change.text, 0, 0
        # The rewritten lines must start and end on line breaks of the new text:
        # take in the next lines while the edit leaves its last line open (or ends
        # in a "\r" the next line's "\n" joins), then the line before if its "\r"
        # now meets a "\n".
        while high < len(kept) and (
            not _ends_line(segment) or (segment.endswith("\r") and kept[high].startswith("\n"))
        ):
            segment += kept[high]
            high += 1
        if low and segment.startswith("\n") and kept[low - 1].endswith("\r"):
            low -= 1
            segment = kept[low] + segment
        new_kept, new_bare = line_table(segment)
        self._marks += segment.count(SUPPRESSION_MARK)
        self._marks -= "".join(kept[low:high]).count(SUPPRESSION_MARK)
        kept[low:high] = new_kept
        self._bare[low:high] = new_bare
        self._text = None
        self._lines_view = None
        self._lsp_view = None


def _ascii_position(lines: list[str], position: types.Position) -> types.Position | None:
    """pygls's ``position_from_client_units`` for a position on an ASCII line (where every
    encoding has one unit per character), without its per-character loop; None for a
    line with other characters. Its clamping is kept as it is (past the end of a line:
    the line's last character; past the last line: the end of the document)."""
    if not lines:
        return types.Position(0, 0)
    if position.line >= len(lines):
        last = lines[-1]
        return types.Position(len(lines) - 1, len(last)) if last.isascii() else None
    line = lines[position.line]
    if not line.isascii():
        return None
    length = len(line.replace("\r\n", "\n"))
    if length == 0:
        return types.Position(position.line, 0)
    character = position.character if position.character <= length else length - 1
    return types.Position(position.line, character)


class SyncedWorkspace(Workspace):
    """A pygls ``Workspace`` whose text documents are :class:`SyncedDocument` s."""

    def _create_text_document(
        self,
        doc_uri: str,
        source: str | None = None,
        version: int | None = None,
        language_id: str | None = None,
    ) -> TextDocument:
        return SyncedDocument(
            doc_uri,
            source=source,
            version=version,
            language_id=language_id,
            sync_kind=self._sync_kind,
            position_codec=self.position_codec,
        )

    @classmethod
    def like(cls, workspace: Workspace) -> SyncedWorkspace:
        """The fresh workspace pygls built at ``initialize``, with synced documents.

        Same root, folders, sync kind and position encoding; it holds no
        document yet (pygls builds it before any ``didOpen``).
        """
        return cls(
            workspace.root_uri,
            workspace._sync_kind,
            list(workspace.folders.values()),
            workspace.position_encoding,
        )


class SyncedProtocol(LanguageServerProtocol):
    """A ``LanguageServerProtocol`` whose workspace is a :class:`SyncedWorkspace`.

    pygls assigns ``self._workspace = Workspace(...)`` inside its ``initialize``
    handler and offers no factory; this property converts the workspace as it
    is stored, before the server's own ``initialize`` handler runs.
    """

    @property
    def _workspace(self) -> Workspace | None:
        return self.__dict__.get("_synced_workspace")

    @_workspace.setter
    def _workspace(self, workspace: Workspace | None) -> None:
        if workspace is not None and not isinstance(workspace, SyncedWorkspace):
            workspace = SyncedWorkspace.like(workspace)
        self.__dict__["_synced_workspace"] = workspace
