"""Each open document's last diagnostics, given again while nothing they are made of changed.

Typing a comment or code outside every loop leaves the unit cache's reports the very
objects they were (``analysis/reuse``): the diagnostics of the new version are then
those of the last one, unless the text of a line one of their ranges starts or ends on
changed (a range counts the client's units on its line) or the document's line count
did. Building them again was 0.7 ms of each typing edit of pypto-lib's largest kernel,
a sixth of the server's CPU per edit (benchmarks/README.md, "Cache layers").

Exact by construction: :func:`.diagnostics.build` reads only the reports, the settings,
the lines its ranges are on, and the text's suppression comments, and a version is
answered here only when none of them differs (a text naming the linter anywhere,
``Analysis.may_suppress``, is always built again).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from lsprotocol import types

from skewlsp.server.documents import Analysis


@dataclass(frozen=True)
class _Built:
    """One version's diagnostics, what they were built under, and the lines they are on."""

    analysis: Analysis
    options: tuple[object, ...]
    items: tuple[types.Diagnostic, ...]
    lines: frozenset[int]


class LastDiagnostics:
    """The last diagnostics built for each document (owned by its server; event loop only)."""

    def __init__(self) -> None:
        self._built: dict[str, _Built] = {}
        self.reused = 0  # versions answered with the last diagnostics

    def of(
        self,
        analysis: Analysis,
        options: tuple[object, ...],
        build: Callable[[], list[types.Diagnostic]],
    ) -> list[types.Diagnostic]:
        """``analysis``'s diagnostics under ``options`` (everything else ``build`` reads
        besides the analysis: selection, position encoding, docs link): the last ones
        built for its document when they are exactly what ``build`` would give."""
        last = self._built.get(analysis.uri)
        if last is not None and last.options == options and _same_inputs(last, analysis):
            self.reused += 1
            return list(last.items)
        items = build()
        self._built[analysis.uri] = _Built(analysis, options, tuple(items), _lines_of(items))
        return items

    def forget(self, uri: str) -> None:
        """The document was closed."""
        self._built.pop(uri, None)


def _same_inputs(last: _Built, analysis: Analysis) -> bool:
    """Whether ``analysis`` gives what ``last`` was built from: the same report objects,
    no syntax error and no suppression comment in either text, the same number of lines
    and the same text on every line a range of ``last`` is on."""
    before = last.analysis
    if analysis.syntax_error is not None or before.syntax_error is not None:
        return False
    if analysis.may_suppress or before.may_suppress:
        return False
    if len(analysis.reports) != len(before.reports) or any(
        new is not old for new, old in zip(analysis.reports, before.reports, strict=True)
    ):
        return False
    lines, old_lines = analysis.lines, before.lines
    return len(lines) == len(old_lines) and all(lines[i] == old_lines[i] for i in last.lines)


def _lines_of(items: Iterable[types.Diagnostic]) -> frozenset[int]:
    """The 0-based lines the ranges of ``items`` (and of their related places) start or
    end on."""
    ranges = [
        r
        for item in items
        for r in (item.range, *(place.location.range for place in item.related_information or ()))
    ]
    return frozenset(line for r in ranges for line in (r.start.line, r.end.line))
