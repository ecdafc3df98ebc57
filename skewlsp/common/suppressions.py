"""``# skewlint: ignore[...]`` and ``# skewlint: file-ignore[...]`` comments.

A line suppression applies to the loop whose ``for`` header it sits on (any
line from ``for`` to the end of the ``pl.pipeline(...)`` call) or to the loop
right below it when it stands alone on the line before. A file suppression
applies anywhere. Every suppression (or listed code) that hid nothing is
reported as SKW901 so suppressions cannot outlive the problem they hid.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from skewlsp.api import source_lines
from skewlsp.common.diagnostic import Diagnostic
from skewlsp.contract import CODES, UNUSED_SUPPRESSION, Edit, Span

# Every suppression comment contains this word: text without it holds none.
SUPPRESSION_MARK = "skewlint"

_PATTERN = re.compile(
    r"#\s*skewlint\s*:\s*(?P<kind>file-ignore|ignore)\b(?:\s*\[(?P<codes>[^\]]*)\])?"
)


@dataclass
class Suppression:
    """One comment; empty ``codes`` means "everything"; ``used`` records what it hid.

    Codes may be prefixes (``SKW02`` hides SKW020 to SKW027), as in ``select``/``ignore``.
    """

    line: int
    column: int  # 1-based
    end_column: int  # exclusive
    file_level: bool
    codes: tuple[str, ...]
    standalone: bool  # the comment is alone on its line
    used: set[str] = field(default_factory=set)
    # What deleting the whole directive removes: the directive, plus the spaces before
    # it when it ends the line, or the whole line when it is all there is on it.
    removal: Span | None = None

    def matches(self, code: str) -> bool:
        return not self.codes or any(code.startswith(listed) for listed in self.codes)

    @property
    def span(self) -> Span:
        return Span(self.line, self.column, self.line, self.end_column)


# String literals (any prefix, triple or single quoted, backslash escapes) and comments,
# in one left-to-right pass of the regex engine: a "#" inside a string is skipped with
# its string. Python's tokenize finds the same comments (tests hold the two together)
# but costs ~35 ms per 1,000 lines, which a language server would pay on every keystroke
# in any file holding one suppression.
_ESCAPE = r"\\(?:\r\n|.)"  # a backslash escapes one character, or a whole CRLF
_ESCAPED = r"(?:[^\\]|" + _ESCAPE + ")*?"
_TRIPLE_SINGLE = "'''" + _ESCAPED + "'''"
_TRIPLE_DOUBLE = '"""' + _ESCAPED + '"""'
_SINGLE = r"'(?:[^'\\\n\r]|" + _ESCAPE + ")*'"
_DOUBLE = r'"(?:[^"\\\n\r]|' + _ESCAPE + ')*"'
_STRING_OR_COMMENT = re.compile(
    r"[rRbBuUfF]{0,2}(?:" + "|".join((_TRIPLE_SINGLE, _TRIPLE_DOUBLE, _SINGLE, _DOUBLE)) + ")"
    r"|(?P<comment>#[^\r\n]*)",
    re.DOTALL,
)


def _comments(source: str) -> Iterable[tuple[int, int, str, bool]]:
    """(line, 0-based column, text, standalone) of each comment that mentions skewlint.

    Tolerant of half-typed code: an unterminated string is not a string, so a
    ``#`` after it on its line still reads as a comment.
    """
    for match in _STRING_OR_COMMENT.finditer(source):
        text = match.group("comment")
        if text is None or SUPPRESSION_MARK not in text:
            continue
        position = match.start()
        line_start = max(source.rfind("\n", 0, position), source.rfind("\r", 0, position)) + 1
        breaks = source.count("\n", 0, position) + source.count("\r", 0, position)
        line = breaks - source.count("\r\n", 0, position) + 1
        prefix = source[line_start:position]
        yield line, position - line_start, text, not prefix.strip()


def parse_suppressions(source: str) -> list[Suppression]:
    if SUPPRESSION_MARK not in source:
        return []
    found: list[Suppression] = []
    lines: list[str] | None = None
    for line, col, text, standalone in _comments(source):
        match = _PATTERN.search(text)
        if match is None:
            continue
        raw = match.group("codes")
        codes = tuple(c.strip() for c in raw.split(",") if c.strip()) if raw else ()
        if lines is None:
            lines = source_lines(source)
        found.append(
            Suppression(
                line=line,
                column=col + match.start() + 1,
                end_column=col + match.end() + 1,
                file_level=match.group("kind") == "file-ignore",
                codes=codes,
                standalone=standalone,
                removal=_removal(lines, line, col + match.start(), col + match.end(), standalone),
            )
        )
    return found


def _removal(lines: list[str], line: int, start: int, end: int, standalone: bool) -> Span:
    """The span deleting a directive at 0-based columns ``start..end`` of ``line`` takes."""
    text = lines[line - 1] if line <= len(lines) else ""
    rest = text[end:].strip()
    before = text[:start]
    if rest and not rest.startswith("#"):
        return Span(line, start + 2, line, end + 1)  # more comment follows: keep it and its #
    if standalone and not before.strip() and not rest:
        return Span(line, 1, line + 1, 1)  # the line holds nothing else
    if not rest:
        return Span(line, len(before.rstrip()) + 1, line, len(text.rstrip()) + 1)
    return Span(line, start + 1, line, end + 1)


def _covers(suppression: Suppression, diagnostic: Diagnostic) -> bool:
    if suppression.file_level:
        return True
    report = diagnostic.report
    first = report.span.line if report else diagnostic.span.line
    last = max(report.call_span.end_line, first) if report else first
    if first <= suppression.line <= last:
        return True
    if diagnostic.span.line == suppression.line:  # e.g. a hint on a later header line
        return True
    return suppression.standalone and suppression.line == first - 1


def apply_suppressions(
    diagnostics: Iterable[Diagnostic], suppressions: list[Suppression]
) -> list[Diagnostic]:
    """The diagnostics no suppression hides; marks the suppressions that hid something."""
    kept: list[Diagnostic] = []
    for diagnostic in diagnostics:
        hidden = False
        for suppression in suppressions:
            if not _covers(suppression, diagnostic):
                continue
            if suppression.matches(diagnostic.code):
                suppression.used.add(diagnostic.code if suppression.codes else "*")
                hidden = True
            _acknowledge_core_codes(suppression, diagnostic)
        if not hidden:
            kept.append(diagnostic)
    return kept


def _acknowledge_core_codes(suppression: Suppression, diagnostic: Diagnostic) -> None:
    """A mixed loop's per-core codes (``aiv: demoted (SKW020)``) can be named on the loop.

    The loop is one finding, under the code of the core that decides its outcome; a
    suppression of another core's code acknowledges that core's verdict (it is used, so
    neither reported as unused nor removed by ``--fix``), and hides the loop only when
    it also names the loop's own code.
    """
    if diagnostic.kind != "loop" or diagnostic.report is None or not suppression.codes:
        return
    for core in diagnostic.report.cores:
        if suppression.matches(core.code):
            suppression.used.add(core.code)


def _known_prefix(listed: str, known: Iterable[str]) -> bool:
    """A code, or a prefix of one, that starts like every code (``SKW``)."""
    return listed.startswith("SKW") and any(code.startswith(listed) for code in known)


def unused_suppressions(
    filename: str, suppressions: list[Suppression], severity: str
) -> list[Diagnostic]:
    """One SKW901 per comment that hid nothing, or per comment with codes that hid nothing."""
    if any(s.file_level and UNUSED_SUPPRESSION in s.codes for s in suppressions):
        return []  # the file opted out of unused-suppression remarks
    known = CODES
    result: list[Diagnostic] = []
    for suppression in suppressions:
        kind = "file-ignore" if suppression.file_level else "ignore"
        if not suppression.codes:
            if not suppression.used:
                message = f"unused suppression: `# skewlint: {kind}` hides nothing"
            else:
                continue
        else:
            unused = [
                c
                for c in suppression.codes
                if not any(hidden.startswith(c) for hidden in suppression.used)
                and c != UNUSED_SUPPRESSION
            ]
            if not unused:
                continue
            parts = []
            unknown = [c for c in unused if not _known_prefix(c, known)]
            stale = [c for c in unused if _known_prefix(c, known)]
            if stale:
                parts.append(f"{', '.join(stale)} not reported here")
            if unknown:
                parts.append(f"unknown code {', '.join(unknown)}")
            message = f"unused suppression in `# skewlint: {kind}[...]`: " + "; ".join(parts)
        result.append(
            Diagnostic(
                filename=filename,
                kind="suppression",
                code=UNUSED_SUPPRESSION,
                message=message,
                span=suppression.span,
                severity=severity,
                fix=_unused_fix(suppression, kind),
                applicability="safe",  # a comment: the compiled code cannot change
            )
        )
    return result


def _unused_fix(suppression: Suppression, kind: str) -> Edit | None:
    """Delete the directive, or just the codes in it that hide nothing."""
    kept = [
        c
        for c in suppression.codes
        if any(hidden.startswith(c) for hidden in suppression.used) or c == UNUSED_SUPPRESSION
    ]
    if kept:
        return Edit(suppression.span, f"# skewlint: {kind}[{', '.join(kept)}]")
    return Edit(suppression.removal, "") if suppression.removal is not None else None


def suppression_edit(lines: Sequence[str], line: int, code: str) -> Edit:
    """The edit that suppresses ``code`` on 1-based ``line``: a trailing
    ``# skewlint: ignore[CODE]``, or ``code`` added to the directive already there."""
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    existing = next(
        (m for m in _PATTERN.finditer(text) if m.group("kind") == "ignore"), None
    )
    if existing is not None:
        span = Span(line, existing.start() + 1, line, existing.end() + 1)
        raw = existing.group("codes")
        if raw is None:  # a bare `ignore` already hides every code
            return Edit(span, existing.group(0))
        codes = [c.strip() for c in raw.split(",") if c.strip()]
        if code not in codes:
            codes.append(code)
        return Edit(span, f"# skewlint: ignore[{', '.join(codes)}]")
    end = len(text.rstrip()) + 1
    return Edit(Span(line, end, line, len(text) + 1), f"  # skewlint: ignore[{code}]")
