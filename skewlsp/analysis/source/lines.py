"""Physical lines the way Python's tokenizer (and LSP) count them.

``str.splitlines`` also breaks on form feeds, vertical tabs, ``\\x1c``-``\\x1e``,
``\\x85`` and the Unicode line/paragraph separators, which Python source treats
as ordinary characters. Splitting with it shifts every line number after such
a character, so everything that maps text to lines uses this instead.
"""

from __future__ import annotations

import ast
import re

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


# Checked one by one with ``in``: eight substring scans in C are ~50x faster than
# one regex character-class search over a large text.
_OTHER_BREAKS = "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


def source_lines(text: str, keepends: bool = False) -> list[str]:
    """Split at ``\\r\\n``, ``\\r`` and ``\\n`` only (like ``splitlines`` otherwise)."""
    if not any(char in text for char in _OTHER_BREAKS):  # usual: the C splitter agrees
        return text.splitlines(keepends)
    lines = _LINE.findall(text)
    if keepends:
        return lines
    return [line.rstrip("\r\n") for line in lines]


def line_count(text: str) -> int:
    """``len(source_lines(text))``, without splitting a text of ``\\n`` breaks only (a
    unit's text is checked against the file's lines by its count)."""
    if "\r" in text or any(char in text for char in _OTHER_BREAKS):
        return len(source_lines(text))
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


_QUOTES = ("'", '"')


def split_comment(line: str) -> tuple[str, str] | None:
    """(code, comment) of one line of code: the comment runs from the first ``#`` outside
    a string ("" when there is none), the code keeps the spaces before it. None when a
    triple-quoted string on the line makes that unknowable from the line alone."""
    quote = ""
    i = 0
    while i < len(line):
        char = line[i]
        if quote:
            if char == "\\":
                i += 1
            elif line.startswith(quote, i):
                quote = ""
        elif char in _QUOTES:
            if line.startswith(char * 3, i):
                return None
            quote = char
        elif char == "#":
            return line[:i], line[i:]
        i += 1
    return line, ""


def without_block_indent(code: str, indent: str) -> str:
    """``code`` with ``indent`` taken off each continuation line that starts with it, as
    libcst renders a node alone: its parser keeps the enclosing block's indentation apart
    from the whitespace inside brackets."""
    if "\n" not in code:
        return code
    lines = code.split("\n")
    rest = (line[len(indent) :] if line.startswith(indent) else line for line in lines[1:])
    return "\n".join([lines[0], *rest])


def ast_end(node: ast.stmt | ast.expr | ast.keyword) -> tuple[int, int]:
    """Where a node of ``ast.parse`` ends: (line, UTF-8 byte column). The parser sets both
    on every node it makes; typeshed allows None for nodes made by hand."""
    end_line, end_column = node.end_lineno, node.end_col_offset
    assert end_line is not None and end_column is not None
    return end_line, end_column
