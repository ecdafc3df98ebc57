"""What the module index reads off source text without parsing it: the callees of
loop headers (``for ... in <callee>(``) and the names a text calls.

They read every indexed file's text (and a language server's, at every edit), so each
searches for a literal and checks what surrounds it by hand: a pattern that starts with
``\\b`` or a look-behind is tried at every position of the text, while the regex engine
finds a literal far faster.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

# A top-level line that may set a module attribute (``config.TOKENS = 128``, ``x =
# config.X = 1``): a superset of the writes the module index reads (``top_level``), so
# that the linter reads every file whose writes the editor's analysis sees.
_SETS_AN_ATTRIBUTE = re.compile(
    rb"^(?=[A-Za-z_])[^\n#]*?\b[A-Za-z_]\w*\.[A-Za-z_]\w*[ \t]*=(?!=)", re.MULTILINE
)


def worth_reading(data: bytes) -> bool:
    """Whether a file's bytes may hold something the analysis reports: a pipeline loop,
    or a kernel in a module that sets a module attribute while it loads (the inline
    helpers it calls may be compiled with sizes their own modules do not give them:
    ``driver.helper_scopes``). A linter reads no other file (and the editor reports
    nothing else), so that both agree."""
    if b"pipeline" in data:
        return True
    return b"jit" in data and _SETS_AN_ATTRIBUTE.search(data) is not None


def called_names(names: tuple[str, ...], text: str) -> frozenset[str]:
    """Which of ``names`` ``text`` calls: ``name(`` with no word character or dot right
    before it.

    Each name is searched for as a literal and what surrounds it checked by hand: a
    pattern that starts with a look-behind is tried at every position of the text (three
    times slower on pypto-lib's kernels), and one pattern per set of names compiled for
    each of them took longer than the searches (0.033 s against 0.013 s per run).
    """
    found: set[str] = set()
    size = len(text)
    for name in names:
        at = text.find(name)
        while at >= 0:
            if not _continues_a_name(text, at, "."):
                after = at + len(name)
                while after < size and text[after].isspace():  # (what ``\s*`` skips)
                    after += 1
                if after < size and text[after] == "(":
                    found.add(name)
                    break
            at = text.find(name, at + 1)
    return frozenset(found)


# ``for ... in <callee>(`` on one line, the ``for`` a word of its own (checked apart:
# see _loop_headers).
_LOOP_HEADER = re.compile(r"for\b[^\n]*\bin\b[^\n]*?([\w.]+)\s*\(")


def _continues_a_name(text: str, at: int, also: str = "") -> bool:
    """Whether the character before ``at`` is one ``\\w`` matches (or one of ``also``):
    what a pattern's leading ``\\b`` or look-behind would check, checked by hand after a
    search for the literal that follows it (which the regex engine does far faster)."""
    if not at:
        return False
    before = text[at - 1]
    return before.isalnum() or before == "_" or before in also


def _loop_headers(text: str) -> Iterator[re.Match[str]]:
    """What ``re.finditer(r"\\bfor\\b...", text)`` finds, ten times faster: a pattern that
    starts with a literal is searched for that literal first, and one that starts with
    ``\\b`` is tried at every position. A ``for`` inside a word is skipped by hand."""
    at = 0
    search = _LOOP_HEADER.search
    while (match := search(text, at)) is not None:
        start = match.start()
        if _continues_a_name(text, start):
            at = start + 1
            continue
        yield match
        at = match.end()


def loop_callees(text: str) -> list[str]:
    """What each ``for ... in <callee>(`` in ``text`` loops over, as the index reads it: an
    edit that changes this for a line may make a function hold a loop, or stop holding one."""
    return [match.group(1) for match in _loop_headers(text)]


def mentions_pipeline_loop(text: str, bare: frozenset[str]) -> bool:
    """Whether ``text`` has a ``for ... in <callee>(`` whose callee is ``pipeline``, spelled
    ``<anything>.pipeline`` or bare (``bare``: the names ``pipeline`` is imported as)."""
    for match in _loop_headers(text):
        callee = match.group(1)
        if callee.endswith(".pipeline") or callee == "pipeline" or callee in bare:
            return True
    return False
