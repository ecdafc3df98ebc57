"""From loop reports to the diagnostics a user sees: shared by the CLI and the server.

One place flattens reports (a loop, plus each of its hints), applies
suppression comments and the code selection, and remarks on unused
suppressions, so the editor and CI can never disagree about what is shown.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

from skewlsp.common.diagnostic import Diagnostic
from skewlsp.common.headline import headline, hint_headline, hint_terse, without_call
from skewlsp.common.select import Selection
from skewlsp.common.suppressions import apply_suppressions, parse_suppressions, unused_suppressions
from skewlsp.contract import (
    SEVERITY_RANK,
    UNUSED_SUPPRESSION,
    HelperLoop,
    LoopReport,
    Related,
    Span,
    helper_loop_at_call,
)

Snippet = tuple[tuple[int, str], ...]


def flatten(
    filename: str,
    reports: Sequence[LoopReport],
    selection: Selection,
    *,
    snippet_of: Callable[[LoopReport], Snippet] | None = None,
    call_hints: bool = False,
) -> list[Diagnostic]:
    """One diagnostic per loop (at :func:`finding_span`) and one per hint, with configured
    severities.

    An inline helper's loop is decided once per call (a builder's once per call of the
    builder), but it is one loop: its copies make one diagnostic, under the strictest
    copy's code and severity, listing each copy's verdict, with the calls as related
    places. The remark each copy makes at its call (in this file, or in the caller's
    file for an imported helper) is a second place for the same finding: an editor shows
    it as a hint there (``call_hints``), a linter does not list it again. A copy of an
    imported helper that this file sizes (``HelperLoop.sized_by_caller``) is no other
    file's finding: it is listed at its call, as a loop is, by both.
    """
    found: list[Diagnostic] = []
    for report in reports:
        if _copy_at_its_call(report) and call_hints and not _sized_here(report):
            found.append(_call_hint(filename, report))
    listed = [r for r in reports if not _copy_at_its_call(r) or _sized_here(r)]
    for copies in _loops(listed):
        # The strictest copy first (the first of them in call order on a tie).
        ordered = sorted(copies, key=lambda r: -SEVERITY_RANK.get(loop_severity(r, selection), 0))
        report = ordered[0]
        snippet = snippet_of(report) if snippet_of is not None else ()
        found.append(
            Diagnostic(
                filename,
                "scope" if report.scope_only else "loop",  # (a scope with no loop: SKW081)
                report.code,
                " | ".join(_unique(r.message for r in ordered)),
                finding_span(report),
                loop_severity(report, selection),
                report,
                snippet,
                related=_unique(place for r in copies for place in _related(r)),
                copies=tuple(copies) if len(copies) > 1 else (),
                **loop_fix(report, len(copies)),
                short_message=headline(report, ordered),
                terse_message=without_call(report),
            )
        )
        seen: set[tuple[str, Span, str]] = set()
        for copy in copies:
            for hint in copy.hints:
                at_call = copy.instance is not None and hint.span == copy.instance.call
                at_call = at_call and not _sized_here(copy)  # (a listed copy's hints are its own)
                key = (hint.code, hint.span, hint.message)
                if (at_call and not call_hints) or key in seen:
                    continue
                seen.add(key)
                found.append(
                    Diagnostic(
                        filename,
                        "hint",
                        hint.code,
                        hint.message,
                        hint.span,
                        "hint" if at_call else selection.severity(hint.code),
                        copy,
                        snippet,
                        related=hint.related,
                        fix=hint.fix,
                        applicability="safe" if hint.fix is not None else None,
                        short_message=hint_headline(hint, copy),
                        terse_message=hint_terse(hint, copy),
                        record=hint.buffers,
                    )
                )
    return found


def loop_fix(report: LoopReport, copies: int = 1) -> dict[str, Any]:
    """A loop finding's fix: its ``stage=`` edit, how it applies and the code it promises;
    only advice (no edit) when the loop is built more than once (one edit would change
    every copy, checked for one) or its verdict rests on an assumed environment or argv
    (the edit was checked under this build only)."""
    if not report.fix_hint:
        return {}
    fix = report.stage_fix
    if fix is None or copies > 1 or report.assumes or report.variants:
        return {"applicability": "advice"}
    return {"fix": fix.edit, "applicability": fix.applicability, "promised": fix.promised}


def _copy_at_its_call(report: LoopReport) -> bool:
    """A copy of an imported helper's loop, reported at its call in the caller's file (the
    loop itself is the helper module's finding)."""
    return report.instance is not None and report.instance.call == report.span


def _sized_here(report: LoopReport) -> bool:
    """A copy of an imported helper's loop, reported at its call in a file that sets what
    the helper reads (``HelperLoop.sized_by_caller``): listed there as a finding."""
    loop = helper_loop_at_call(report)
    return loop is not None and loop.sized_by_caller


def _call_hint(filename: str, report: LoopReport) -> Diagnostic:
    return Diagnostic(
        filename,
        "hint",
        report.code,
        report.message,
        finding_span(report),
        "hint",
        report,
        short_message=headline(report),
    )


def finding_span(report: LoopReport) -> Span:
    """Where a loop's finding is, for every adapter: the loop's header, from its ``for`` to
    the end of the ``pl.pipeline(...)`` call.

    The CLI prints its start (``file:29:9``, the ``for``, as README shows), the editor
    underlines all of it: one position per finding, as ruff's CLI prints the start of the
    range its server sends. Not the whole ``for`` statement: a squiggle under a loop's body
    would hide the body's own findings. A copy reported at its call in another file
    (span and call are the call) stays at the call.
    """
    span, call = report.span, report.call_span
    if span == call:
        return span
    return Span(span.line, span.column, call.end_line, call.end_column)


def _loops(reports: Sequence[LoopReport]) -> list[list[LoopReport]]:
    """The reports grouped by loop: the copies Python builds of one loop (an inline
    helper's calls, a builder's calls, a module-level ``for``) together, in source order;
    every other report alone."""
    groups: list[list[LoopReport]] = []
    by_loop: dict[tuple[str | None, Span, HelperLoop | None], list[LoopReport]] = {}
    for report in reports:
        if report.instance is None:
            groups.append([report])
            continue
        # (the loops of an imported helper are reported at one call: which loop tells them apart)
        key = (report.path, report.span, report.instance.helper_loop)
        if key not in by_loop:
            by_loop[key] = []
            groups.append(by_loop[key])
        by_loop[key].append(report)
    return groups


T = TypeVar("T")


def _unique(items: Iterable[T]) -> tuple[T, ...]:
    return tuple(dict.fromkeys(items))


def _related(report: LoopReport) -> tuple[Related, ...]:
    overlap = (report.overlap,) if report.overlap is not None else ()
    return _instance_places(report) + overlap


def loop_severity(report: LoopReport, selection: Selection) -> str:
    """The loop's configured severity, but information for a consumer loop whose overlap
    comes from its peer's skew (the outcome the author wanted) or from a producer in
    another file (nothing here to edit), unless the user gave its code a severity of
    their own."""
    peer = report.overlap is not None or report.producer_elsewhere
    if peer and not selection.configures(report.code):
        return "information"
    return selection.severity(report.code)


def _instance_places(report: LoopReport) -> tuple[Related, ...]:
    """An inline helper's copy of a loop points at the call it is spliced into.

    A call in another module is named by the message (file and line) instead: a related
    place is a place in this file.
    """
    instance = report.instance
    if instance is None or instance.call is None or instance.call_path is not None:
        return ()
    return (Related(instance.call, f"this copy is spliced here, in `{instance.caller}`"),)


def select_and_suppress(
    diagnostics: Sequence[Diagnostic],
    source: str,
    filename: str,
    selection: Selection,
    *,
    report_unused: bool = True,
    may_suppress: bool = True,
) -> list[Diagnostic]:
    """Suppressions first (a comment that silences a disabled code is still used), then the
    selection, then the unused-suppression remarks.

    ``may_suppress=False`` tells that ``source`` holds no suppression comment (a caller
    that tracks it, like the server's documents, saves a scan of the whole text).
    """
    suppressions = parse_suppressions(source) if may_suppress else []
    kept = apply_suppressions(list(diagnostics), suppressions)
    kept = [d for d in kept if selection.is_enabled(d.code)]
    if report_unused and selection.is_enabled(UNUSED_SUPPRESSION):
        kept += unused_suppressions(filename, suppressions, selection.severity(UNUSED_SUPPRESSION))
    return kept
