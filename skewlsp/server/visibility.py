"""Which loops and hints the editor shows, decided once for every feature.

Diagnostics, code lenses, inlay hints and hovers must agree: a loop whose
verdict code is not selected (``ignore = ["SKW010"]``) or is silenced by a
``# skewlint: ignore[...]`` comment gets no diagnostic, so it gets no lens,
no hint and no hover either. The decision is the CLI's own
(:func:`skewlsp.common.pipeline.select_and_suppress`), so the editor can never
show what CI would not print. Pure: reports, text and selection in, data out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from skewlsp.common.pipeline import flatten, select_and_suppress
from skewlsp.common.select import Selection
from skewlsp.contract import SYNTAX_ERROR, LoopReport

# The ``for``'s position and the copy (a helper's loop at each call, a program per
# iteration): copies share the ``for`` but each has its own verdict and severity.
LoopKey = tuple[int, int, object]


def loop_key(report: LoopReport) -> LoopKey:
    return (report.span.line, report.span.column, report.instance)


@dataclass(frozen=True)
class Shown:
    """The loops whose verdict is shown, each with its severity and its shown hints."""

    severities: dict[LoopKey, str] = field(default_factory=dict)
    hints: dict[LoopKey, tuple[tuple[str, str, str], ...]] = field(default_factory=dict)

    def loop(self, report: LoopReport) -> bool:
        """``True`` when the loop's verdict is shown (selected and not suppressed)."""
        return loop_key(report) in self.severities

    def severity(self, report: LoopReport) -> str | None:
        return self.severities.get(loop_key(report))

    def shown_hints(self, report: LoopReport) -> tuple[tuple[str, str, str], ...]:
        """(code, severity, message) of each of the loop's hints that is shown."""
        return self.hints.get(loop_key(report), ())


def shown(
    reports: Sequence[LoopReport],
    selection: Selection,
    source: str,
    *,
    may_suppress: bool = True,
    apply_comments: bool = True,
) -> Shown:
    """What of ``reports`` is shown under ``selection`` and the suppression comments in
    ``source`` (``apply_comments=False``: the reports are not of ``source``, e.g. kept
    from the last version that parsed, so its comments say nothing about them)."""
    candidates = [r for r in reports if r.code != SYNTAX_ERROR]
    records = flatten("", candidates, selection, call_hints=True)
    if apply_comments:
        kept = select_and_suppress(
            records, source, "", selection, report_unused=False, may_suppress=may_suppress
        )
    else:
        kept = [record for record in records if selection.is_enabled(record.code)]
    severities: dict[LoopKey, str] = {}
    hints: dict[LoopKey, list[tuple[str, str, str]]] = {}
    for record in kept:
        if record.report is None:
            continue
        key = loop_key(record.report)
        if record.kind in ("loop", "scope"):
            severities[key] = record.severity
        elif record.kind == "hint":
            hints.setdefault(key, []).append((record.code, record.severity, record.message))
    return Shown(severities, {key: tuple(found) for key, found in hints.items()})
