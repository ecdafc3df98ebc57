"""Re-index a module after a small edit without rescanning all of it.

Typing changes one line at a time. When the edit stays on one line, inside a
function, away from its indentation, quotes, line breaks and ``pipeline``,
the module's layout cannot have changed: only the text of the unit holding
that line (if any) did. Anything else, or any doubt, rebuilds the index from
scratch, so the result is always what a full build would give.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass

from skewlsp.analysis.frontend.source_index import ModuleIndex, Unit, build_index
from skewlsp.analysis.frontend.text_search import loop_callees

# Characters whose appearance or disappearance can change the layout of a module.
_STRUCTURAL = frozenset("\n\r\"'\\\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")
_HEAD_WORDS = ("def ", "class ", "async ", "@", "import ", "from ")


@dataclass(frozen=True)
class IndexedText:
    source: str
    index: ModuleIndex


def update_index(previous: IndexedText | None, source: str) -> IndexedText:
    """The index of ``source``, reusing ``previous`` when a one-line edit allows it."""
    if previous is not None and previous.index.sensitive_lines is not None:
        updated = _patched(previous, source)
        if updated is not None:
            return IndexedText(source, updated)
    return IndexedText(source, build_index(source))


_FIRST_STEP = 4096


def _common_prefix(a: str, b: str) -> int:
    """Length of the common prefix of ``a`` and ``b``."""
    return _agreement(lambda low, high: a[low:high] == b[low:high], min(len(a), len(b)))


def _common_suffix(a: str, b: str, limit: int) -> int:
    """Length of the common suffix of ``a`` and ``b``, at most ``limit`` characters."""
    n, m = len(a), len(b)
    return _agreement(lambda low, high: a[n - high : n - low] == b[m - high : m - low], limit)


def _agreement(agree: Callable[[int, int], bool], limit: int) -> int:
    """The largest k <= limit such that ``agree(0, k)``, given ``agree(low, high)`` says
    whether offsets [low, high) match.

    Galloping then bisecting: O(log n) C-speed slice compares, instead of a Python
    loop over the characters near the edit (on a 30,000-line document that loop was
    most of the cost of re-indexing).
    """
    low, step = 0, _FIRST_STEP
    while True:
        high = min(low + step, limit)
        if not agree(low, high):
            break
        if high == limit:
            return limit
        low, step = high, step * 2
    # [0, low) agrees and [low, high) does not: the first difference is in there
    while high - low > 1:
        middle = (low + high) // 2
        if agree(low, middle):
            low = middle
        else:
            high = middle
    return low


def _patched(previous: IndexedText, source: str) -> ModuleIndex | None:
    old = previous.source
    if old == source:
        return previous.index
    start = _common_prefix(old, source)
    end = _common_suffix(old, source, min(len(old), len(source)) - start)
    changed = old[start : len(old) - end] + source[start : len(source) - end]
    if _STRUCTURAL.intersection(changed):
        return None
    line_start = source.rfind("\n", 0, start) + 1
    new_line = _line_from(source, line_start, start)
    old_line = _line_from(old, line_start, start)
    if not _keeps_layout(changed, start - line_start, old_line, new_line):
        return None
    line = old.count("\n", 0, start) + 1
    index = previous.index
    assert index.sensitive_lines is not None
    if any(first <= line <= last for first, last in index.sensitive_lines):
        return None
    if _code_part(old_line) == _code_part(new_line):  # a comment typed, trailing blanks
        return _comment_edit(index, line, old_line, new_line)
    if _may_change_helper_calls(index, line, old_line, new_line):
        return None
    return _unit_edit(index, line, old_line, new_line)


def _line_from(text: str, line_start: int, at: int) -> str:
    """The line of ``text`` that starts at ``line_start`` and holds offset ``at``."""
    line_end = text.find("\n", at)
    return text[line_start : len(text) if line_end < 0 else line_end]


def _keeps_layout(changed: str, column: int, old_line: str, new_line: str) -> bool:
    """Whether an edit at ``column`` of one line (``changed``: the text it removed and
    added) leaves the module's blocks, and which functions hold loops, as they were."""
    stripped = new_line.lstrip(" \t")
    indentation = len(new_line) - len(stripped)
    if column <= indentation or not stripped:
        return False  # the edit touches where a block may start
    mentions = old_line.count("pipeline")
    if "pipeline" in changed or new_line.count("pipeline") != mentions:
        return False  # whether a function holds a loop may have changed
    if loop_callees(old_line) != loop_callees(new_line):
        return False  # so may a loop header's `for`, `in` or callee
    for text in (old_line.lstrip(" \t"), stripped):
        if text.startswith(_HEAD_WORDS) or "import" in text:
            return False
        if _STRUCTURAL.intersection(text.rstrip("\r")):  # a quote on the line: strings may shift
            return False
    return True


def _may_change_helper_calls(index: ModuleIndex, line: int, old_line: str, new_line: str) -> bool:
    """Whether the edit on ``line`` may change how an inline helper is called (its loops
    are decided at each call, with the caller's arguments)."""
    if _calls_imported_function(index, line) or _imported_call(index, old_line + "\n" + new_line):
        return True  # perhaps an imported inline helper's call or argument: decided there
    for unit in index.units:  # a helper's callers decide its loops: an edit there re-indexes
        name = unit.qualname
        if name and (name in new_line or name in old_line):
            return True  # perhaps a call of an inline helper appears or goes
        if _in_a_caller(unit, line):
            return True
    return False


def _in_a_caller(unit: Unit, line: int) -> bool:
    """Whether ``line`` is in one of the unit's callers, or of theirs (a helper's)."""
    for caller in unit.callers:
        if caller.line_offset < line <= caller.line_offset + caller.text.count("\n"):
            return True
        if _in_a_caller(caller, line):
            return True
    return False


def _unit_edit(index: ModuleIndex, line: int, old_line: str, new_line: str) -> ModuleIndex | None:
    """The index with ``line`` replaced in the unit that holds it, or None to rebuild."""
    units = list(index.units)
    for position, unit in enumerate(units):
        lines = unit.text.split("\n")
        k = line - unit.line_offset - 1
        if 0 <= k < len(lines) and (k > 0 or not unit.text.startswith("if 1:")):
            if lines[k] != old_line:
                return None  # our bookkeeping disagrees: rebuild
            lines[k] = new_line
            units[position] = Unit(
                "\n".join(lines), unit.line_offset, unit.qualname, unit.callers
            )
            return dataclasses.replace(index, units=units)
    # The line belongs to no unit: a function a constant calls (through any number of
    # other functions) may have changed, and the index keeps those functions' texts, so
    # it is built again (a few milliseconds; only units' edits are patched in place).
    return None


def _code_part(line: str) -> str:
    """A line without its comment and trailing blanks (the caller made sure it holds no
    quote, backslash or line break: its ``#`` starts a comment)."""
    return line.split("#", 1)[0].rstrip(" \t\r")


def _comment_edit(
    index: ModuleIndex, line: int, old_line: str, new_line: str
) -> ModuleIndex | None:
    """The index after an edit that changed only a comment (or trailing blanks) on
    ``line``: each unit and caller holding the line gets the new text, and keeps the
    text its results were computed for (what the analysis reads is the same)."""
    patched_any = False

    def patched(unit: Unit) -> Unit:
        nonlocal patched_any
        k = line - unit.line_offset - 1
        if not (0 <= k <= _line_count(unit.text)) or (k == 0 and unit.text.startswith("if 1:")):
            return unit  # (counted, not split: most units do not hold the line)
        lines = unit.text.split("\n")
        if lines[k] != old_line:
            raise _Disagree
        lines[k] = new_line
        patched_any = True
        return dataclasses.replace(
            unit, text="\n".join(lines), cache_text=unit.cache_text or unit.text
        )

    try:
        units = []
        for unit in index.units:
            new = patched(unit)
            callers = tuple(patched(c) for c in unit.callers)
            if callers != unit.callers:
                new = dataclasses.replace(new, callers=callers)
            units.append(new)
    except _Disagree:
        return None  # our bookkeeping disagrees with the text: rebuild
    if not patched_any:
        return None  # outside every unit: see the end of _patched
    return dataclasses.replace(index, units=units)


class _Disagree(Exception):
    """A unit's line is not the text the edit says it was."""


def _calls_imported_function(index: ModuleIndex, line: int) -> bool:
    """Whether ``line`` is in a top-level function that calls a name imported from a sibling
    module (an inline helper there is decided with this function's arguments)."""
    if not index.imported:
        return False
    for name, first in index.function_offsets.items():
        if line <= first:
            continue
        text = index.function_sources.get(name, "")
        if line > first + _line_count(text) + 1:
            continue
        return _calls_any(text, tuple(index.imported))
    return False


def _imported_call(index: ModuleIndex, text: str) -> bool:
    """Whether ``text`` calls a name imported from a sibling module (an inline helper
    there would be decided with the arguments of that call)."""
    if not index.imported or "(" not in text:
        return False
    return _calls_any(text, tuple(index.imported))


def _line_count(text: str) -> int:
    return text.count("\n")


def _calls_any(text: str, names: tuple[str, ...]) -> bool:
    """Whether ``text`` calls one of ``names``."""
    pattern = "|".join(re.escape(name) for name in names)
    return re.search(rf"(?<![\w.])({pattern})\s*\(", text) is not None
