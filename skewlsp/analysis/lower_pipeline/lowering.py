"""The lowering passes over one module's loops, in the compiler's order.

Runs after the skew pass model on every loop it left (verdict ``left``), outer loops
first as both passes walk the IR: LowerPipelineToSlots (only under
``memory_planner=PTOAS``) rotates what it can, and LowerPipelineLoops replicates the
rest, an inner loop's copies multiplied by the loops around it that write it more than
once: the replicated ones, and the skewed ones (the skew pass runs first and writes each
half of a loop it skews at depth D 2·D times, each clone lowered on its own). A mixed
loop is lowered once per core copy, as ExpandMixedKernel makes them.

The loops around a loop are those of its function copy, and for a copy of an inline
helper those around its call too (:class:`Enclosing`, worked out from the caller's
reports by :func:`enclosing`): InlineFunctions splices the helper's body into the
caller before any of these passes runs, so a loop in it is nested in the caller's loops.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from skewlsp.analysis.lower_pipeline.loop_facts import LoopFacts, SlotLoad
from skewlsp.analysis.lower_pipeline.lower_pipeline_loops import lower, nested_in, written_by
from skewlsp.analysis.lower_pipeline.lower_pipeline_to_slots import SlotVerdict, rotate
from skewlsp.analysis.lower_pipeline.slot_capacity import describe_overflow, overflow
from skewlsp.analysis.lower_pipeline.split_k import OutputTiles, output_tiles
from skewlsp.analysis.skew_cross_core_pipeline.depth import clones_per_half
from skewlsp.contract import (
    SEVERITY_RANK,
    Applicability,
    Core,
    CoreResult,
    Edit,
    LoopReport,
    Lowering,
    Span,
    StageFix,
    Verdict,
    baked,
    severity_of,
)


@dataclass(frozen=True)
class SkewedLoop:
    """A loop the skew pass skews, as the loops it holds see it: the depth it is skewed at,
    and each core copy's (None for a copy only demoted or left)."""

    depth: int | None
    cores: tuple[tuple[Core, int | None], ...] = ()

    @staticmethod
    def of(report: LoopReport) -> SkewedLoop:
        """The skewed loop of ``report``."""
        depth = report.depth if report.verdict == "skewed" else None
        cores = tuple((c.core, c.depth if c.verdict == "skewed" else None) for c in report.cores)
        return SkewedLoop(depth, cores)

    def clones(self, core: Core | None) -> int | None:
        """The clones it writes of what it holds on ``core``: 2·D for a copy the skew pass
        skews at depth D (``clones_per_half``), None for one it only demotes (one body).
        A split loop's copy on ``core`` is the one holding the loop; a loop of no known
        core follows the enclosing loop's own verdict."""
        depth = self.depth
        if core is not None and self.cores:
            mine = [d for c, d in self.cores if c == core]
            depth = mine[0] if mine else None
        return clones_per_half(depth) if depth is not None and depth >= 1 else None


@dataclass(frozen=True)
class Enclosing:
    """What the pipeline loops around a place do to a loop there (hashable: the copy of an
    inline helper at a call is kept by a language server under it): the copies the
    replicated ones make (their own, multiplied), the skewed ones, and whether one of
    them is replicated or declined (then LowerPipelineToSlots gives the loop no slots)."""

    replicated: int = 1
    skews: tuple[SkewedLoop, ...] = ()
    declined: bool = False

    def on(self, core: Core | None) -> _Around:
        """What they do to a loop on ``core``."""
        clones = (skew.clones(core) for skew in self.skews)
        return _Around(self.replicated, tuple(c for c in clones if c), self.declined)


NOTHING = Enclosing()  # a place no pipeline loop holds


def enclosing(
    loops: Iterable[tuple[LoopReport, Lowering | None]],
    place: Span,
    outside: Enclosing = NOTHING,
) -> Enclosing:
    """The loops among ``loops`` (one function copy's, each with its lowering) that hold
    ``place``, on top of ``outside`` (those around the function copy: around the call of
    a helper).

    A replicated loop multiplies by its own copies (``copies`` over ``nested``: the loops
    around it are among the others, or in ``outside``); a skewed one clones.
    """
    replicated, skews, declined = outside.replicated, list(outside.skews), outside.declined
    for outer, lowering in loops:
        if not within(place, outer.span):
            continue
        if _replicates(lowering):
            assert lowering is not None
            replicated *= lowering.copies // max(lowering.nested, 1)
            declined = True
        elif lowering is not None and lowering.declined:
            declined = True
        if outer.verdict == "skewed" or _skewed_core(outer):
            skews.append(SkewedLoop.of(outer))
    return Enclosing(replicated, tuple(skews), declined)


def function_copy(report: LoopReport) -> tuple[object, ...]:
    """Which function copy a loop is in: its file, function and the copy (a call of an
    inline helper, an iteration of a module-level ``for``)."""
    return (report.path, report.function, report.instance)


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

    def budget(self, report: LoopReport, facts: LoopFacts) -> dict[str, int]:
        key = (report.path, report.function, report.instance, facts.slot_scope)
        return self.pinned.setdefault(key, {})

    def charge(self, report: LoopReport, facts: LoopFacts, lowered: Lowered) -> None:
        """Pin the slots of a loop lowered before (rotated in a copy kept by a cache:
        ``lowered``, what the passes decided of it then)."""
        budget = self.budget(report, facts)
        lowerings = copy_lowerings(report, lowered)
        rotated = [low for low in lowerings if low is not None and low.verdict == "rotated"]
        tiles = _output_tiles(facts, "aic", self.planner)
        for lowering in rotated:
            if tiles is not None:  # (each copy's narrowed slots, as far as they fit)
                for loads in tiles.loads:
                    regions = _regions(loads, lowering)
                    if overflow(regions, budget) is not None:
                        break
                    for space, size in regions.items():
                        budget[space] = budget.get(space, 0) + size
                continue
            regions = _regions(facts.slot_loads or (), lowering)
            _pin(budget, regions, lowering.nested, lowering.stage or 0)


def _regions(loads: Iterable[SlotLoad], lowering: Lowering) -> dict[str, int]:
    """The bytes per memory space the slots of ``lowering``'s rotated loads take."""
    regions: dict[str, int] = {}
    for load in loads:
        if load.name in lowering.slots and load.size is not None:
            size = (lowering.stage or 0) * load.size
            regions[load.space] = regions.get(load.space, 0) + size
    return regions


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


@dataclass(frozen=True)
class Lowered:
    """What the lowering passes decide for one loop, handed on as it is: it travels beside
    the report the walk left (``LoopModel.lowered``, and with it in a cache's copies),
    the passes after the lowering read it, and the report is put together with it once,
    where it is finished (:func:`skewlsp.analysis.report.finish.finished_report`: its
    verdict, code and fix line; its words, ``Lowering.reason``, join the message there).

    ``lowering``: the loop's own (None for a mixed loop one of whose copies skews or is
    demoted: the loop keeps its code; for a mixed loop the skew pass left, its strictest
    copy's). ``cores``: each core copy's lowering (None for a copy the skew pass did not
    leave), in the report's cores' order, when ExpandMixedKernel split the loop.
    ``smaller_stage``: for a stage above the trip (SKW014), the smaller stage that gives
    the same buffers, checked by lowering the loop again: the fix line and the edit that
    writes it."""

    lowering: Lowering | None
    cores: tuple[Lowering | None, ...] = ()
    smaller_stage: tuple[str, StageFix | None] | None = None
    # the copies of the loop AutoTileMatmulL0 writes into the cube function (before the
    # skew pass: how many the function holds, ``CoreResult.copies``), one per output tile
    tiles: int = 1

    def verdict_of(self, walked: Verdict) -> Verdict:
        """The loop's verdict once lowered (``walked``: the skew pass's): an error when the
        lowering passes reject it."""
        lowering = self.lowering
        return "error" if lowering is not None and lowering.verdict == "error" else walked

    def code_of(self, walked: str) -> str:
        """The loop's code once lowered (``walked``: the skew pass's): its own lowering's."""
        return self.lowering.code if self.lowering is not None else walked


def own_lowering(lowered: Lowered | None) -> Lowering | None:
    """The loop's own lowering in ``lowered`` (None: not lowered, or a split loop's)."""
    return lowered.lowering if lowered is not None else None


def copy_lowerings(report: LoopReport, lowered: Lowered | None) -> list[Lowering | None]:
    """Each core copy's lowering in ``lowered``, in ``report``'s cores' order (the loop's
    own, alone, when ExpandMixedKernel did not split it)."""
    if not report.cores:
        return [own_lowering(lowered)]
    if lowered is None or not lowered.cores:
        return [None] * len(report.cores)
    return list(lowered.cores)


def _lowered_already(lowered: Lowered) -> bool:
    return lowered.lowering is not None or any(low is not None for low in lowered.cores)


def lowerings(
    loops: Sequence[tuple[LoopReport, LoopFacts, Lowered | None]],
    planner: str,
    outside: Enclosing = NOTHING,
) -> list[Lowered | None]:
    """What the lowering passes decide for each of ``loops`` (each loop: its report, what
    only the lowering reads of it, and what they decided of it before, if they did),
    None for a loop they leave as it is (not left by the skew pass, or lowered before);
    ``outside``: the loops around all of them (those around the call, for the loops of
    one copy of an inline helper)."""
    reports = [report for report, _, _ in loops]
    order = sorted(
        (i for i, r in enumerate(reports) if r.verdict == "left" or _left_core(r)),
        key=lambda i: (reports[i].span.line, reports[i].span.column),
    )
    copies: dict[tuple[object, ...], list[int]] = {}  # the loops of each function copy
    for index, report in enumerate(reports):
        if report.verdict in ("left", "skewed") or _left_core(report) or _skewed_core(report):
            copies.setdefault(function_copy(report), []).append(index)
    run = _Run(planner)
    # The loops as the loops they hold see them: lowered once their turn is past.
    seen = [own_lowering(before) for _, _, before in loops]
    result: list[Lowered | None] = [None] * len(reports)
    for index in order:
        report, facts, before = loops[index]
        if before is not None and _lowered_already(before):
            run.charge(report, facts, before)  # (a cached copy of an inline helper, lowered once)
            continue
        # (the loops around it come first in the order: ``seen`` holds them lowered)
        same = ((reports[i], seen[i]) for i in copies[function_copy(report)] if i != index)
        around = enclosing(same, report.span, outside)
        lowered = _lower_one(report, facts, around, run)
        if lowered is not None:
            result[index] = lowered
            seen[index] = lowered.lowering
    return result


def _skewed_core(report: LoopReport) -> bool:
    return any(core.verdict == "skewed" for core in report.cores)


def _left_core(report: LoopReport) -> bool:
    """A mixed loop one of whose core copies the skew pass leaves (the other's verdict
    is the loop's): that copy is lowered on its core all the same."""
    return any(core.verdict == "left" for core in report.cores)


def within(inner: Span, outer: Span) -> bool:
    """Whether ``outer`` holds ``inner`` (and is not it)."""
    return (outer.line, outer.column) < (inner.line, inner.column) and (
        inner.end_line,
        inner.end_column,
    ) <= (outer.end_line, outer.end_column)


def _lower_one(
    report: LoopReport, facts: LoopFacts, around: Enclosing, run: _Run
) -> Lowered | None:
    if report.cores:
        cores = tuple(
            _core_lowering(report, facts, c, run, around.on(c.core)) for c in report.cores
        )
        found = [lowering for lowering in cores if lowering is not None]
        strictest = max(found, key=_rank, default=None)
        if report.verdict != "left":  # one core skews or is demoted: the loop keeps its code
            return Lowered(None, cores)
        tiles = _output_tiles(facts, "aic", run.planner)
        count = tiles.count if tiles is not None else 1
        return Lowered(strictest, cores, _smaller_stage(report, strictest), count)
    lowering = _lowering(report, facts, None, run, around.on(report.core))
    if lowering is None:
        return None
    return Lowered(lowering, smaller_stage=_smaller_stage(report, lowering))


def _core_lowering(
    report: LoopReport, facts: LoopFacts, core: CoreResult, run: _Run, around: _Around
) -> Lowering | None:
    """One core copy's lowering (None: a copy the skew pass did not leave); on two
    vector lanes with the first lane's loads rotated, the second lane's own with it
    (``Lowering.second_lane``), which the compiler writes apart and lowers otherwise."""
    if core.verdict != "left":
        return None
    lowering = _lowering(report, facts, core.core, run, around)
    if lowering is not None and lowering.verdict == "rotated" and core.copies > 1:
        replicated = _replicated(report, facts)  # (a loop that rotates has a replication)
        second = _declined(replicated, _NO_LOADS, around) if replicated is not None else None
        return replace(lowering, reason=f"{lowering.reason}{_REPLAY}", second_lane=second)
    return lowering


# SplitVectorKernel's second vector lane of a kernel with no split mode replays the body
# with empty tiles in place of its loads (``split_vector_kernel_pass.cpp``,
# ``BuildNoSplitLane1ReplayStmts``): that copy has nothing to rotate.
_REPLAY = (
    " (on the first vector lane: the second lane's copy replays the body without its "
    "loads, and LowerPipelineLoops replicates it)"
)
_NO_LOADS = "the second vector lane's copy has no loads: SplitVectorKernel replays it without them"


def _replicated(report: LoopReport, facts: LoopFacts) -> Lowering | None:
    """What LowerPipelineLoops makes of the loop when nothing rotates it (None: its stage
    is not known)."""
    return lower(
        report.stage,
        report.start,
        report.stop,
        report.step,
        report.trip,
        facts.load_time_bound,
        report.dynamic_symbol,
    )


def _declined(replicated: Lowering, why: str, around: _Around) -> Lowering:
    """``replicated`` as the loop LowerPipelineToSlots declined (``why``), inside the
    loops ``around`` it."""
    code = replicated.code if severity_of(replicated.code) in ("warning", "error") else "SKW016"
    declined = replace(
        replicated,
        code=code,
        declined=why,
        reason=f"declined by LowerPipelineToSlots ({why}); {replicated.reason}",
    )
    return nested_in(declined, around.replicated, around.skews)


def _lowering(
    report: LoopReport, facts: LoopFacts, core: str | None, run: _Run, around: _Around
) -> Lowering | None:
    """LowerPipelineToSlots (under PTOAS), then LowerPipelineLoops for what it leaves."""
    replicated = _replicated(report, facts)
    copies, skews = around.replicated, around.skews
    if replicated is None or replicated.verdict in ("untouched", "error"):
        return nested_in(replicated, copies, skews) if replicated is not None else None
    tiles = _output_tiles(facts, core, run.planner)
    if tiles is not None:
        tiled = _tiled(report, facts, tiles, replicated, run, core, around.declined)
        return nested_in(tiled, copies, skews)
    if run.planner != "ptoas":
        return nested_in(replicated, copies, skews)
    assert report.stage is not None
    if facts.load_time_bound is not None and (report.start is None or report.step is None):
        return nested_in(_open(replicated, f"`{facts.load_time_bound}`"), copies, skews)
    budget = run.budget(report, facts)
    verdict = rotate(
        report.stage,
        report.start,
        report.step,
        declined_above=around.declined,
        loads=facts.slot_loads,
        core=core,
        committed=budget,
    )
    if verdict.rotated:
        rotated = _rotated(report.stage, verdict, report.loop_var)
        return _charged(rotated, replicated, verdict, budget, around)
    if verdict.unknown is not None:
        return nested_in(_open(replicated, verdict.unknown), copies, skews)
    return _declined(replicated, verdict.declined or "its body is not available", around)


def _output_tiles(facts: LoopFacts, core: str | None, planner: str) -> OutputTiles | None:
    """The copies AutoTileMatmulL0 writes of a cube loop in its canonical split-K form."""
    if facts.split_k is None or core not in (None, "aic") or facts.slot_loads is None:
        return None
    return output_tiles(facts.split_k, facts.slot_loads, planner)


def _tiled(
    report: LoopReport,
    facts: LoopFacts,
    tiles: OutputTiles,
    replicated: Lowering,
    run: _Run,
    core: str | None,
    declined_above: bool,
) -> Lowering:
    """A loop AutoTileMatmulL0 wrote once per output tile (before the skew pass), the
    copies one after the other: LowerPipelineToSlots (under PTOAS) meets each on its own
    and charges its slots, narrowed loads and all, to the function's running total
    (once one does not fit, the rest do not either); LowerPipelineLoops replicates what
    it declines. (A pipeline loop around it multiplies all of them: the caller's.)"""
    written = (
        f"AutoTileMatmulL0 writes the loop {tiles.count} times, once per "
        f"[{tiles.m}, {tiles.n}] output tile of its split-K reduction"
    )
    fitted, verdict, first = 0, None, None
    if run.planner == "ptoas":
        budget = run.budget(report, facts)
        for loads in tiles.loads:
            verdict = rotate(
                report.stage or 0, report.start, report.step, declined_above=declined_above,
                loads=loads, core=core, committed=budget,
            )  # fmt: skip
            if not verdict.rotated:
                break
            for space, size in verdict.regions.items():
                budget[space] = budget.get(space, 0) + size
            first, fitted = first or verdict, fitted + 1
    left = tiles.count - fitted
    copies = fitted + left * replicated.copies
    if fitted == 0:
        lowering = replicated
        if verdict is not None and verdict.unknown is not None:
            lowering = _open(replicated, verdict.unknown)
        elif verdict is not None:
            why = verdict.declined or "its body is not available"
            warns = severity_of(replicated.code) in ("warning", "error")
            lowering = replace(
                replicated,
                code=replicated.code if warns else "SKW016",
                declined=why,
                reason=f"declined by LowerPipelineToSlots ({why}); {replicated.reason}",
            )
        return replace(
            lowering,
            nested=tiles.count,
            copies=copies,
            reason=f"{lowering.reason}; {written} ({copies} copies of this body in all)",
        )
    assert first is not None and verdict is not None and report.stage is not None
    rotated = _rotated(report.stage, first, report.loop_var)
    names = ", ".join(f"`{name}`" for name in first.loads)
    slots = (
        f"{written}, each through {report.stage} slots of its own (memory_planner=PTOAS): "
        f"{names} take slot {report.loop_var or 'i'} % {report.stage}"
    )
    rest = (
        f"; only the first {fitted} rotate: LowerPipelineToSlots declines the other "
        f"{left} ({verdict.declined}), and LowerPipelineLoops replicates them "
        f"({replicated.reason}); {copies} copies of this body in all"
        if left
        else ""
    )
    return replace(rotated, nested=tiles.count, copies=copies, reason=f"{slots}{rest}")


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


def _rotated(stage: int, verdict: SlotVerdict, loop_var: str) -> Lowering:
    """``loop_var``: the loop's own variable, which the slot index is taken of."""
    loads = ", ".join(f"`{name}`" for name in verdict.loads)
    return Lowering(
        "rotated",
        "SKW015",
        f"rotated through {stage} slots (memory_planner=PTOAS): {loads} take "
        f"slot {loop_var or 'i'} % {stage}; one body, no copies",
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


def _smaller_stage(
    report: LoopReport, lowering: Lowering | None
) -> tuple[str, StageFix | None] | None:
    """For a stage above the trip (SKW014): the stage that gives the same buffers with no
    finding, checked by lowering the loop again with it; as the report's fix line and the
    edit that writes it (unsafe when the trip is read from names: it bakes them in)."""
    if lowering is None or lowering.code != "SKW014" or not report.trip:
        return None
    trip = report.trip
    again = lower(trip, report.start, report.stop, report.step, trip)
    if again is None or again.buffers != lowering.buffers or _rank(again) >= _rank(lowering):
        return None
    if trip == 1:
        text = "stage=1 gives the same single copy (nothing to replicate)"
    else:
        text = f"stage={trip} gives the same {trip} copies and buffers"
    fix = None
    if report.stage_value is not None:
        applicability: Applicability = "unsafe" if report.bounds_read else "safe"
        fix = StageFix(Edit(report.stage_value, str(trip)), again.code, applicability)
    return text + baked(report.bounds_read, trip), fix
