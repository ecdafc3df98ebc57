"""Where the top-level blocks of a module are, without parsing it.

Parsing a whole kernel costs tens of milliseconds with the stdlib parser and
seconds with libcst; finding the blocks that mention ``pipeline`` costs a few
string scans. A block starts on a line indented exactly at the level being
split that is not a comment, not a closing bracket and not inside a
triple-quoted string. Anything this misjudges (a data table written at column
0 inside brackets, say) shows up as a unit that does not parse, and the engine
then falls back to the exact whole-module parse: a surprise costs time, never
correctness.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass

from skewlsp.analysis.source.lines import source_lines

_TOP_LEVEL_HEAD = re.compile(r"^[^\s#)\]}]", re.MULTILINE)
_TRIPLE_QUOTED = re.compile(r'"""(?:\\.|[^\\])*?"""|\'\'\'(?:\\.|[^\\])*?\'\'\'', re.DOTALL)


@dataclass(frozen=True)
class Block:
    """A statement at some indentation, from its first line (decorators included) to its last."""

    first: int
    last: int
    indent: int
    header: str


class Layout:
    """Lines of a module plus the line spans covered by multi-line strings."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.lines = source_lines(source, keepends=True)
        self._string_starts: list[int] = []
        self._string_ends: list[int] = []
        self._heads: list[int] | None = None
        line, position = 1, 0
        for match in _TRIPLE_QUOTED.finditer(source):
            start, end = match.span()
            newlines = source.count("\n", start, end)
            if not newlines:
                continue
            line += source.count("\n", position, start)
            position = start
            self._string_starts.append(line)
            self._string_ends.append(line + newlines)

    def inside_string(self, line: int) -> bool:
        """True when ``line`` (1-based) begins inside a multi-line string."""
        i = bisect.bisect_left(self._string_starts, line) - 1
        return i >= 0 and self._string_starts[i] < line <= self._string_ends[i]

    def blocks(self, first: int, last: int, indent: int) -> list[Block]:
        """The statements at ``indent`` between lines ``first`` and ``last`` (inclusive)."""
        lines = self.lines
        heads: list[int] = []
        numbers: Sequence[int]
        if indent == 0:
            top = self._top_level_heads()
            numbers = top[bisect.bisect_left(top, first) : bisect.bisect_right(top, last)]
        else:
            numbers = range(first, last + 1)
        has_strings = bool(self._string_starts)
        for number in numbers:
            text = lines[number - 1]
            if len(text) <= indent or text[indent] in " \t\r\n#)]}":
                continue
            if indent and text[:indent].strip():
                continue
            if has_strings and self.inside_string(number):
                continue
            heads.append(number)
        out: list[Block] = []
        pending_decorator: int | None = None
        for i, head in enumerate(heads):
            end = (heads[i + 1] - 1) if i + 1 < len(heads) else last
            header = lines[head - 1].strip()
            if header.startswith("@"):
                if pending_decorator is None:
                    pending_decorator = head
                continue
            begin = pending_decorator if pending_decorator is not None else head
            pending_decorator = None
            while end > head and not lines[end - 1].strip():
                end -= 1
            out.append(Block(begin, end, indent, header))
        return out

    def _top_level_heads(self) -> list[int]:
        """Lines starting at column 0, found by the regex engine rather than a Python loop."""
        if self._heads is not None:
            return self._heads
        heads: list[int] = []
        line, position = 1, 0
        count = self.source.count
        for match in _TOP_LEVEL_HEAD.finditer(self.source):
            line += count("\n", position, match.start())
            position = match.start()
            heads.append(line)
        self._heads = heads
        return heads

    def lines_containing(self, word: str) -> list[int]:
        """1-based numbers of the lines where ``word`` occurs."""
        found = []
        line, position = 1, 0
        find, count = self.source.find, self.source.count
        hit = find(word)
        while hit != -1:
            line += count("\n", position, hit)
            position = hit
            found.append(line)
            hit = find(word, hit + len(word))
        return found

    def body_indent(self, block: Block) -> int | None:
        """Indentation of the first statement in a compound block's body."""
        header_line = next(
            n
            for n in range(block.first, block.last + 1)
            if not self.lines[n - 1].lstrip().startswith("@")
        )
        for number in range(header_line + 1, block.last + 1):
            text = self.lines[number - 1]
            stripped = text.lstrip(" \t")
            if not stripped.strip() or stripped.startswith("#") or self.inside_string(number):
                continue
            width = len(text) - len(stripped)
            if width > block.indent:
                return width
        return None

    def text(self, block: Block) -> str:
        return "".join(self.lines[block.first - 1 : block.last])
