"""What the memory passes give each loop and core copy, onto its report (issue #41).

The function stage (``driver.function_stage``) leaves, per core function, what 31
InitMemRef, 33 MemoryReuse and 34 AllocateMemoryAddr make of each loop's loads alone
(:class:`~skewlsp.analysis.memory.core_function.LoopMemory`). Here that becomes, per
memory space of the loop's first stage group (the main loop's clones, or the copies of
a loop with no main loop), a :class:`~skewlsp.contract.SpaceBuffers`, and two findings
only where the loads alone make the fact certain:

- SKW080 (PH-MR-001, slot-bound): the stages' own slots exceed the space, so MemoryReuse
  keeps at most so many of them apart whatever else the function holds; with advice
  (a smaller ``stage=``, smaller tiles) decided again by the same passes before it is
  offered;
- SKW081: the loads alone overflow the space at any depth: AllocateMemoryAddr stops the
  compile.

Space pressure from the function's other tiles (computed tiles, tiles outside the loop)
is not seen: a loop whose loads fit says so ("fits alone") and nothing more. Left and
Right, whose tiles are modelled whole, are :mod:`.l0_memory`'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from skewlsp.analysis.lower_pipeline.chip import DEFAULT_CHIP
from skewlsp.analysis.memory.allocate_memory_addr import allocate_memory_addr
from skewlsp.analysis.memory.canonicalize_io_order import ReplicatedLoop, function_tiles
from skewlsp.analysis.memory.core_function import CoreFunction, LoopMemory
from skewlsp.analysis.memory.memory_reuse import DepthHint, memory_reuse
from skewlsp.analysis.report.buffers import buffer_assignment, with_buffers
from skewlsp.analysis.report.l0_memory import l0_spaces
from skewlsp.contract import (
    MEMORY_OVERFLOW,
    SLOT_BOUND,
    Finding,
    LoopReport,
    Lowering,
    SpaceBuffers,
    Span,
)

FITS_ALONE = "fits alone; other tiles of the function not modelled"


def with_memory(report: LoopReport, functions: Sequence[CoreFunction]) -> LoopReport:
    """``report`` with what the memory passes give its loop on each core copy (the
    records of ``functions``, one per copy, in the report's cores' order)."""
    found = [_loop_memory(report.span, function) for function in functions]
    assigned = [
        buffer_assignment(memory, function.planner)
        for memory, function in zip(found, functions, strict=True)
    ]
    report = with_buffers(report, assigned)
    if not any(
        memory is not None and (memory.tiles is not None or memory.l0 is not None)
        for memory in found
    ):
        return report
    where = report.stage_span or report.call_span
    hints: list[Finding] = []
    if report.cores:
        cores = []
        for core, memory, function in zip(report.cores, found, functions, strict=True):
            on = f" on the {core.core.upper()} core"
            spaces, findings = _spaces(memory, where, on)
            more, l0_findings = _l0(memory, function, core.lowering, where, on)
            spaces += tuple(more)
            cores.append(replace(core, memory=spaces) if spaces else core)
            hints += findings + l0_findings
        return replace(report, cores=tuple(cores), hints=report.hints + tuple(hints))
    spaces, findings = _spaces(found[0], where, "")
    more, l0_findings = _l0(found[0], functions[0], report.lowering, where, "")
    return replace(
        report,
        memory=spaces + tuple(more),
        hints=report.hints + tuple(findings + l0_findings),
    )


def _l0(
    memory: LoopMemory | None,
    function: CoreFunction,
    lowering: Lowering | None,
    where: Span,
    on: str,
) -> tuple[list[SpaceBuffers], list[Finding]]:
    """The loop's Left and Right buffers (``l0_memory``), when its function has L0 tiles."""
    if memory is None or memory.l0 is None:
        return [], []
    requested = lowering.stage if lowering is not None else None
    lines = [loop.span.line for loop in function.loops]
    return l0_spaces(memory.l0, requested, lines, where, on)


def _loop_memory(span: Span, function: CoreFunction) -> LoopMemory | None:
    for loop, memory in zip(function.loops, function.memory, strict=False):
        if loop.span == span:
            return memory
    return None


def _spaces(
    memory: LoopMemory | None, where: Span, on: str
) -> tuple[tuple[SpaceBuffers, ...], list[Finding]]:
    """Per space of the loop's first stage group: its buffers, and the certain findings."""
    if memory is None or memory.tiles is None or memory.reuse is None:
        return (), []
    tiles, reuse = memory.tiles.tiles, memory.reuse
    overflows = {o.space: o for o in (memory.allocation.overflows if memory.allocation else ())}
    spaces: list[SpaceBuffers] = []
    findings: list[Finding] = []
    for (space, group), requested in sorted(reuse.requested.items()):
        if group != 0 or requested < 2:
            continue
        first = [t for t in tiles if t.space == space and any(g == 0 for g, _ in t.membership)]
        slot = DEFAULT_CHIP.align(max(t.bytes for t in first))
        hint = next((h for h in reuse.hints if (h.space, h.group) == (space, 0)), None)
        if space in overflows:
            overflow = overflows[space]
            count = len(first)
            spaces.append(SpaceBuffers(space, slot, requested, None, "overflow", True))
            findings.append(
                Finding(
                    MEMORY_OVERFLOW,
                    f"the loop's loads alone overflow {space}{on}: the {count} loads of its "
                    f"{requested} stages are live at once and need {overflow.used} B of its "
                    f"{overflow.limit} B; AllocateMemoryAddr stops the compile "
                    f"(\"{overflow.message}\")",
                    where,
                ),
            )
        elif hint is not None and hint.cause == "slot-bound":
            spaces.append(
                SpaceBuffers(space, slot, requested, hint.achieved, "slot-bound", True)
            )
            findings.append(Finding(SLOT_BOUND, _slot_bound(hint, on, memory), where))
        else:
            spaces.append(SpaceBuffers(space, slot, requested, reason=FITS_ALONE))
    return tuple(spaces), findings


def _slot_bound(hint: DepthHint, on: str, memory: LoopMemory) -> str:
    """SKW080's message: the compiler's numbers and the advice that was decided again."""
    message = (
        f"PH-MR-001: MemoryReuse keeps at most {hint.achieved} of the {hint.requested} "
        f"stages' buffers apart in {hint.space}{on}: {hint.requested} x {hint.slot} B per "
        f"stage is more than its {hint.free} B, whatever else the function holds"
    )
    advice = _advice(hint, memory)
    return f"{message}; {advice}" if advice else message


def _advice(hint: DepthHint, memory: LoopMemory) -> str | None:
    """What would fit, each checked by packing the changed loop again: a ``stage=`` of the
    depth that fits (a loop of static trip), loads of at most the hint's per-stage bytes
    in that space."""
    loop = memory.loop
    if loop is None:
        return None
    offers = []
    trip = loop.main_trip * loop.stage + loop.tail if loop.main_trip is not None else None
    stage = hint.achieved
    if trip is not None and stage >= 2:
        fewer = ReplicatedLoop(loop.loads, stage, trip // stage, trip % stage)
        if _fits(fewer, hint.space):
            offers.append(f"stage={stage} fits")
    step = DEFAULT_CHIP.address_alignment
    most = hint.shrink_to // step * step
    if most > 0:
        loads = tuple(
            replace(load, size=min(load.size, most))
            if load.space == hint.space and load.size is not None
            else load
            for load in loop.loads
        )
        if _fits(replace(loop, loads=loads), hint.space):
            offers.append(f"loads of at most {most} B in {hint.space} keep all {hint.requested}")
    return ", or ".join(offers) or None


def _fits(loop: ReplicatedLoop, space: str) -> bool:
    """Whether MemoryReuse gives every stage group of ``loop`` in ``space`` its whole
    depth, and AllocateMemoryAddr places its buffers."""
    laid = function_tiles([loop])
    if laid is None:
        return False
    reuse = memory_reuse(laid.tiles, DEFAULT_CHIP)
    slots = {
        where: [max(laid.tiles[i].bytes for i in members) for members in buffers]
        for where, buffers in reuse.buffers.items()
    }
    placed = allocate_memory_addr(slots, DEFAULT_CHIP)
    return not any(h.space == space for h in reuse.hints) and not placed.overflows
