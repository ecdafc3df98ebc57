"""Applying the edits findings carry (``--fix``, ``--diff``, quick fixes), and which apply.

ruff's model: a fix is safe (``--fix`` applies it), unsafe (only with ``--unsafe-fixes``)
or display-only (here "advice": a change a human makes; no edit). An edit that changes a
loop's ``stage=`` is written only once the edited text, decided again, gives the loop the
code the fix promised (:func:`verified_edits`); the CLI and the server both call it.

Pure text work on :class:`~skewlsp.contract.Edit`: spans are 1-based
lines and code-point columns, end exclusive, as every span in skewlsp is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from skewlsp.api import source_lines
from skewlsp.common.diagnostic import Diagnostic
from skewlsp.contract import Edit, LoopReport, loop_at


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


def fix_label(applicability: str | None) -> str:
    """How a fix line is labelled in every text an adapter shows: what ``--fix`` does with
    it (advice, the default, is a change a human must make)."""
    if applicability == "safe":
        return "fix"
    if applicability == "unsafe":
        return "unsafe fix (`--unsafe-fixes`)"
    return "advice (a human's change, not applied by `--fix`)"


def applies(diagnostic: Diagnostic, unsafe: bool) -> bool:
    """Whether ``--fix`` (with ``--unsafe-fixes`` when ``unsafe``) applies its edit."""
    if diagnostic.fix is None:
        return False
    return diagnostic.applicability == "safe" or (unsafe and diagnostic.applicability == "unsafe")


def fix_counts(diagnostics: Iterable[Diagnostic], unsafe: bool) -> tuple[int, int, int]:
    """(fixes ``--fix`` applies, unsafe ones it hides, fix lines that are advice)."""
    fixable = hidden = advice = 0
    for diagnostic in diagnostics:
        if applies(diagnostic, unsafe):
            fixable += 1
        elif diagnostic.fix is not None and diagnostic.applicability == "unsafe":
            hidden += 1
        elif diagnostic.applicability == "advice":
            advice += 1
    return fixable, hidden, advice


def verified_edits(
    source: str,
    diagnostics: Sequence[Diagnostic],
    decide_again: Callable[[str], Sequence[LoopReport]],
) -> list[Edit]:
    """The edits of ``diagnostics`` to write: each loop fix only if, with the loop fixes
    applied, the analysis of the edited text gives its loop the promised code.

    A fix was checked when it was offered, on the loop changed in the analysis's own
    model; this decides the edited text itself again (its imports, the loops around it,
    the lowering), as the compiler would see it. A fix whose loop then gets another code
    is dropped and the rest checked again. Loop fixes are ``stage=`` values on the loop's
    header line, so the lines do not move; the others (comments) need no check.
    """
    checked = [
        (d.fix, d.span.line, d.promised)
        for d in diagnostics
        if d.fix is not None and d.promised is not None
    ]
    plain = [d.fix for d in diagnostics if d.fix is not None and d.promised is None]
    return plain + [edit for edit, _, _ in _holding(source, checked, decide_again)]


def stage_fix_holds(
    source: str, report: LoopReport, decide_again: Callable[[str], Sequence[LoopReport]]
) -> bool:
    """Whether the loop's ``stage=`` fix, made in ``source``, gives the promised code."""
    fix = report.stage_fix
    if fix is None:
        return False
    return bool(_holding(source, [(fix.edit, report.span.line, fix.promised)], decide_again))


def _holding(
    source: str,
    checked: list[tuple[Edit, int, str]],
    decide_again: Callable[[str], Sequence[LoopReport]],
) -> list[tuple[Edit, int, str]]:
    """The (edit, its loop's ``for`` line, promised code) whose loops, with all of them made,
    get their promised codes; those that do not are dropped and the rest decided again."""
    while checked:
        text, _ = apply_edits(source, [edit for edit, _, _ in checked])
        reports = decide_again(text)
        kept = [item for item in checked if _gets(reports, item[1], item[2])]
        if len(kept) == len(checked):
            break
        checked = kept
    return checked


def _gets(reports: Sequence[LoopReport], line: int, promised: str) -> bool:
    """Whether the loop whose ``for`` is on ``line`` gets the code ``promised``."""
    loop = loop_at(reports, line)
    return loop is not None and loop.span.line == line and loop.code == promised
