"""The lowering passes over one module's loops, in the compiler's order.

Runs after the skew pass model on every loop it left (verdict ``left``), outer loops
first as both passes walk the IR: LowerPipelineToSlots (only under
``memory_planner=PTOAS``) rotates what it can, and LowerPipelineLoops replicates the
rest, an inner loop's copies multiplied by the loops around it that write it more than
once: the replicated ones, and the skewed ones (the skew pass runs first and writes each
half of a loop it skews at depth D 2·D times, each clone lowered on its own). A mixed
loop is lowered once per core copy, as ExpandMixedKernel makes them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from skewlsp.analysis.lower_pipeline.lower_pipeline_loops import lower, nested_in, written_by
from skewlsp.analysis.lower_pipeline.lower_pipeline_to_slots import SlotVerdict, rotate
from skewlsp.analysis.lower_pipeline.slot_capacity import describe_overflow, overflow
from skewlsp.analysis.skew_cross_core_pipeline.depth import clones_per_half
from skewlsp.contract import (
    SEVERITY_RANK,
    Core,
    CoreResult,
    LoopReport,
    Lowering,
    Span,
    severity_of,
)


@dataclass
class _Lowered:
    """One left loop on its way through the two passes."""

    report: LoopReport
    lowering: Lowering | None = None  # the loop's (a mixed loop's strictest core's)


@dataclass(frozen=True)
class _Around:
    """What the loops around a left loop do to it: the copies the replicated pipelines
    make (their own, multiplied), the clones each skewed loop writes (2·D, on this core's
    copy), and whether a pipeline loop around it is replicated or declined (then
    LowerPipelineToSlots gives it no slots)."""

    replicated: int = 1
    skews: tuple[int, ...] = ()
    declined: bool = False

    @property
    def clones(self) -> int:
        """The copies the skew pass writes (each one reaches LowerPipelineToSlots)."""
        return math.prod(self.skews)


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
            regions: dict[str, int] = {}
            for load in report.slot_loads or ():
                if load.name in lowering.slots and load.size is not None:
                    size = (lowering.stage or 0) * load.size
                    regions[load.space] = regions.get(load.space, 0) + size
            _pin(budget, regions, lowering.nested, lowering.stage or 0)


def _pin(
    budget: dict[str, int], regions: Mapping[str, int], clones: int, stage: int
) -> tuple[int, str | None]:
    """Pin the slots of the ``clones`` copies the skew pass wrote of a rotated loop (the
    first fits: LowerPipelineToSlots checked it); how many fit, and why the next did not.

    LowerPipelineToSlots meets the copies one after the other, and its capacity gate
    counts each one's slots against the function's running total: once one does not fit,
    the rest do not either, and LowerPipelineLoops replicates those.
    """
    fitted = 0
    while fitted < clones:
        over = overflow(regions, budget) if fitted else None
        if over is not None:
            return fitted, describe_overflow(*over, stage)
        for space, size in regions.items():
            budget[space] = budget.get(space, 0) + size
        fitted += 1
    return fitted, None


def lowered_reports(reports: Sequence[LoopReport], planner: str) -> list[LoopReport]:
    """``reports`` with every left loop's lowering."""
    order = sorted(
        (i for i, r in enumerate(reports) if r.verdict == "left" or _left_core(r)),
        key=lambda i: (reports[i].span.line, reports[i].span.column),
    )
    skewed = [r for r in reports if r.verdict == "skewed" or _skewed_core(r)]
    done: dict[tuple[object, ...], list[tuple[int, _Lowered]]] = {}  # by function copy
    run = _Run(planner)
    result = list(reports)
    for index in order:
        report = reports[index]
        same = done.setdefault(_function_copy(report), [])
        around = [item for i, item in same if _within(report.span, reports[i].span)]
        skews = [
            s
            for s in skewed
            if _function_copy(s) == _function_copy(report) and _within(report.span, s.span)
        ]
        if _lowered_already(report):  # (a cached copy of an inline helper, lowered once)
            item = _Lowered(report, report.lowering)
            run.charge(report)
        else:
            item = _lower_one(report, around, skews, run)
        same.append((index, item))
        result[index] = item.report
    return result


def _function_copy(report: LoopReport) -> tuple[object, ...]:
    return (report.path, report.function, report.instance)


def _skewed_core(report: LoopReport) -> bool:
    return any(core.verdict == "skewed" for core in report.cores)


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


def _lower_one(
    report: LoopReport, around: Sequence[_Lowered], skews: Sequence[LoopReport], run: _Run
) -> _Lowered:
    replicated_around = [a.lowering for a in around if _replicates(a.lowering)]
    copies = 1
    for outer in replicated_around:
        copies *= outer.copies // max(outer.nested, 1)
    declined_above = any(a.lowering is not None and a.lowering.declined for a in around) or bool(
        replicated_around
    )
    if report.cores:
        cores = tuple(
            replace(
                c,
                lowering=_core_lowering(
                    report, c, run, _Around(copies, _clones(skews, c.core), declined_above)
                ),
            )
            for c in report.cores
        )
        found = [c.lowering for c in cores if c.lowering is not None]
        strictest = max(found, key=_rank, default=None)
        if report.verdict != "left":  # one core skews or is demoted: the loop keeps its code
            return _Lowered(replace(report, cores=cores), None)
        return _Lowered(_with(replace(report, cores=cores), strictest), strictest)
    enclosing = _Around(copies, _clones(skews, report.core), declined_above)
    lowering = _lowering(report, None, run, enclosing)
    return _Lowered(_with(report, lowering), lowering)


def _clones(skews: Sequence[LoopReport], core: Core | None) -> tuple[int, ...]:
    """The clones each skewed loop around a loop on ``core`` writes of it: 2·D for a copy
    the skew pass skews at depth D (``clones_per_half``), none for one it only demotes
    (one body). A split loop's copy on ``core`` is the one holding the loop; a loop of no
    known core follows the enclosing loop's own verdict."""
    found = []
    for outer in skews:
        depth = outer.depth if outer.verdict == "skewed" else None
        if core is not None and outer.cores:
            mine = [c for c in outer.cores if c.core == core]
            depth = mine[0].depth if mine and mine[0].verdict == "skewed" else None
        if depth is not None and depth >= 1:
            found.append(clones_per_half(depth))
    return tuple(found)


def _core_lowering(
    report: LoopReport, core: CoreResult, run: _Run, around: _Around
) -> Lowering | None:
    if core.verdict != "left":
        return None
    lowering = _lowering(report, core.core, run, around)
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
    report: LoopReport, core: str | None, run: _Run, around: _Around
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
    copies, skews = around.replicated, around.skews
    if replicated is None or replicated.verdict in ("untouched", "error") or run.planner != "ptoas":
        return nested_in(replicated, copies, skews) if replicated is not None else None
    assert report.stage is not None
    if report.load_time_bound is not None and (report.start is None or report.step is None):
        return nested_in(_open(replicated, f"`{report.load_time_bound}`"), copies, skews)
    budget = run.budget(report)
    verdict = rotate(
        report.stage,
        report.start,
        report.step,
        declined_above=around.declined,
        loads=report.slot_loads,
        core=core,
        committed=budget,
    )
    if verdict.rotated:
        return _charged(_rotated(report.stage, verdict), replicated, verdict, budget, around)
    if verdict.unknown is not None:
        return nested_in(_open(replicated, verdict.unknown), copies, skews)
    why = verdict.declined or "its body is not available"
    code = replicated.code if severity_of(replicated.code) in ("warning", "error") else "SKW016"
    declined = replace(
        replicated,
        code=code,
        declined=why,
        reason=f"declined by LowerPipelineToSlots ({why}); {replicated.reason}",
    )
    return nested_in(declined, copies, skews)


def _charged(
    rotated: Lowering,
    replicated: Lowering,
    verdict: SlotVerdict,
    budget: dict[str, int],
    around: _Around,
) -> Lowering:
    """A rotated loop whose copies written by the skews around it are pinned one after the
    other (rotated loops have no replicated pipeline around them): those that no longer
    fit are replicated."""
    clones = around.clones
    fitted, why = _pin(budget, verdict.regions, clones, rotated.stage or 0)
    if why is None:
        return nested_in(rotated, 1, around.skews)
    left = clones - fitted
    copies = fitted + left * replicated.copies
    return replace(
        rotated,
        nested=clones,
        copies=copies,
        reason=f"{rotated.reason}; {written_by(1, around.skews)}, and only the first "
        f"{fitted} rotate: LowerPipelineToSlots declines the other {left} ({why}), and "
        f"LowerPipelineLoops replicates them ({replicated.reason}); {copies} copies of "
        "this body in all",
    )


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
