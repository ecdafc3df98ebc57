"""The lowering passes over one module's loops, in the compiler's order.

Runs after the skew pass model on every loop it left (verdict ``left``), outer loops
first as both passes walk the IR: LowerPipelineToSlots (only under
``memory_planner=PTOAS``) rotates what it can, and LowerPipelineLoops replicates the
rest, an inner loop's copies multiplied by the replicated loops around it. A mixed
loop is lowered once per core copy, as ExpandMixedKernel makes them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from skewlsp.analysis.lower_pipeline.lower_pipeline_loops import lower, nested_in
from skewlsp.analysis.lower_pipeline.lower_pipeline_to_slots import SlotVerdict, rotate
from skewlsp.contract import SEVERITY_RANK, CoreResult, LoopReport, Lowering, Span, severity_of


@dataclass
class _Lowered:
    """One left loop on its way through the two passes."""

    report: LoopReport
    lowering: Lowering | None = None  # the loop's (a mixed loop's strictest core's)


@dataclass
class _Run:
    """One module's lowering: the planner, and the bytes per memory space the slots of
    the loops rotated so far pinned in each function of the compiler (a function copy's
    outlined scope; Vec is only ever the vector core's, Mat and Acc the cube's)."""

    planner: str
    pinned: dict[tuple[object, ...], dict[str, int]] = field(default_factory=dict)

    def budget(self, report: LoopReport) -> dict[str, int]:
        key = (report.path, report.function, report.instance, report.slot_scope)
        return self.pinned.setdefault(key, {})

    def charge(self, report: LoopReport) -> None:
        """Pin the slots of a loop lowered before (rotated in a copy kept by a cache)."""
        budget = self.budget(report)
        lowerings = [core.lowering for core in report.cores] or [report.lowering]
        rotated = [low for low in lowerings if low is not None and low.verdict == "rotated"]
        for lowering in rotated:
            for load in report.slot_loads or ():
                if load.name in lowering.slots and load.size is not None:
                    size = (lowering.stage or 0) * load.size
                    budget[load.space] = budget.get(load.space, 0) + size


def lowered_reports(reports: Sequence[LoopReport], planner: str) -> list[LoopReport]:
    """``reports`` with every left loop's lowering."""
    order = sorted(
        (i for i, r in enumerate(reports) if r.verdict == "left" or _left_core(r)),
        key=lambda i: (reports[i].span.line, reports[i].span.column),
    )
    done: dict[tuple[object, ...], list[tuple[int, _Lowered]]] = {}  # by function copy
    run = _Run(planner)
    result = list(reports)
    for index in order:
        report = reports[index]
        same = done.setdefault((report.path, report.function, report.instance), [])
        around = [item for i, item in same if _within(report.span, reports[i].span)]
        if _lowered_already(report):  # (a cached copy of an inline helper, lowered once)
            item = _Lowered(report, report.lowering)
            run.charge(report)
        else:
            item = _lower_one(report, around, run)
        same.append((index, item))
        result[index] = item.report
    return result


def _lowered_already(report: LoopReport) -> bool:
    return report.lowering is not None or any(core.lowering is not None for core in report.cores)


def with_reason(message: str, lowering: Lowering) -> str:
    """A loop's message followed by what the lowering does to it."""
    return f"{message}; {lowering.reason}"


def _left_core(report: LoopReport) -> bool:
    """A mixed loop one of whose core copies the skew pass leaves (the other's verdict
    is the loop's): that copy is lowered on its core all the same."""
    return any(core.verdict == "left" for core in report.cores)


def _within(inner: Span, outer: Span) -> bool:
    return (outer.line, outer.column) < (inner.line, inner.column) and (
        inner.end_line,
        inner.end_column,
    ) <= (outer.end_line, outer.end_column)


def _lower_one(report: LoopReport, around: Sequence[_Lowered], run: _Run) -> _Lowered:
    replicated_around = [a.lowering for a in around if _replicates(a.lowering)]
    copies = 1
    for outer in replicated_around:
        copies *= outer.copies // max(outer.nested, 1)
    declined_above = any(a.lowering is not None and a.lowering.declined for a in around) or bool(
        replicated_around
    )
    if report.cores:
        cores = tuple(
            replace(c, lowering=_core_lowering(report, c, run, declined_above, copies))
            for c in report.cores
        )
        found = [c.lowering for c in cores if c.lowering is not None]
        strictest = max(found, key=_rank, default=None)
        if report.verdict != "left":  # one core skews or is demoted: the loop keeps its code
            return _Lowered(replace(report, cores=cores), None)
        return _Lowered(_with(replace(report, cores=cores), strictest), strictest)
    lowering = _lowering(report, None, run, declined_above, copies)
    return _Lowered(_with(report, lowering), lowering)


def _core_lowering(
    report: LoopReport, core: CoreResult, run: _Run, declined_above: bool, copies: int
) -> Lowering | None:
    if core.verdict != "left":
        return None
    lowering = _lowering(report, core.core, run, declined_above, copies)
    if lowering is not None and lowering.verdict == "rotated" and core.copies > 1:
        return replace(lowering, reason=f"{lowering.reason}{_REPLAY}")
    return lowering


# SplitVectorKernel's second vector lane of a kernel with no split mode replays the body
# with empty tiles in place of its loads: that copy has nothing to rotate.
_REPLAY = (
    " (on the first vector lane: the second lane's copy replays the body without its "
    "loads, and LowerPipelineLoops replicates it)"
)


def _lowering(
    report: LoopReport, core: str | None, run: _Run, declined_above: bool, copies: int
) -> Lowering | None:
    """LowerPipelineToSlots (under PTOAS), then LowerPipelineLoops for what it leaves."""
    replicated = lower(
        report.stage,
        report.start,
        report.stop,
        report.step,
        report.trip,
        report.load_time_bound,
        report.dynamic_symbol,
    )
    if replicated is None or replicated.verdict in ("untouched", "error") or run.planner != "ptoas":
        return nested_in(replicated, copies) if replicated is not None else None
    assert report.stage is not None
    if report.load_time_bound is not None and (report.start is None or report.step is None):
        return nested_in(_open(replicated, f"`{report.load_time_bound}`"), copies)
    budget = run.budget(report)
    verdict = rotate(
        report.stage,
        report.start,
        report.step,
        declined_above=declined_above,
        loads=report.slot_loads,
        core=core,
        committed=budget,
    )
    if verdict.rotated:
        for space, size in verdict.regions.items():
            budget[space] = budget.get(space, 0) + size
        return nested_in(_rotated(report.stage, verdict), copies)
    if verdict.unknown is not None:
        return nested_in(_open(replicated, verdict.unknown), copies)
    why = verdict.declined or "its body is not available"
    code = replicated.code if severity_of(replicated.code) in ("warning", "error") else "SKW016"
    declined = replace(
        replicated,
        code=code,
        declined=why,
        reason=f"declined by LowerPipelineToSlots ({why}); {replicated.reason}",
    )
    return nested_in(declined, copies)


def _rotated(stage: int, verdict: SlotVerdict) -> Lowering:
    loads = ", ".join(f"`{name}`" for name in verdict.loads)
    return Lowering(
        "rotated",
        "SKW015",
        f"rotated through {stage} slots (memory_planner=PTOAS): {loads} take "
        f"slot i % {stage}; one body, no copies",
        stage,
        buffers=stage,
        slots=verdict.loads,
    )


def _open(replicated: Lowering, depends_on: str) -> Lowering:
    """What LowerPipelineLoops does if LowerPipelineToSlots declines a loop whose verdict
    depends on a value skewlsp cannot see."""
    why = f"whether LowerPipelineToSlots takes it depends on {depends_on}"
    return replace(replicated, reason=f"{why}; else {replicated.reason}")


def _replicates(lowering: Lowering | None) -> bool:
    return lowering is not None and lowering.verdict == "replicated"


def _rank(lowering: Lowering) -> int:
    return SEVERITY_RANK[severity_of(lowering.code)]


def _with(report: LoopReport, lowering: Lowering | None) -> LoopReport:
    """The report under the lowering's code, its message saying what the lowering does."""
    if lowering is None:
        return report
    verdict = "error" if lowering.verdict == "error" else report.verdict
    return replace(
        report,
        verdict=verdict,
        code=lowering.code,
        message=with_reason(report.message, lowering),
        lowering=lowering,
        fix_hint=_smaller_stage(report, lowering) or report.fix_hint,
    )


def _smaller_stage(report: LoopReport, lowering: Lowering) -> str | None:
    """For a stage above the trip (SKW014): the stage that gives the same buffers with no
    finding, checked by lowering the loop again with it."""
    if lowering.code != "SKW014" or not report.trip:
        return None
    again = lower(report.trip, report.start, report.stop, report.step, report.trip)
    if again is None or again.buffers != lowering.buffers or _rank(again) >= _rank(lowering):
        return None
    if report.trip == 1:
        return "stage=1 gives the same single copy (nothing to replicate)"
    return f"stage={report.trip} gives the same {report.trip} copies and buffers"
