"""What the memory passes give each loop and core copy, for its report (issue #41).

The function stage (``driver.function_stage``) leaves, per core function, what 31
InitMemRef, 33 MemoryReuse and 34 AllocateMemoryAddr make of each loop's loads alone
(:class:`~skewlsp.analysis.memory.core_function.LoopMemory`). Here that becomes a
:class:`MemorySaid` (which :mod:`.finish` puts on the loop's report): per memory space
of the loop's first stage group (the main loop's clones, or the copies of a loop with no
main loop), a :class:`~skewlsp.contract.SpaceBuffers`, and these findings only where
what is modelled makes the fact certain:

- SKW080 (PH-MR-001, slot-bound): the stages' own slots exceed the space, so MemoryReuse
  keeps at most so many of them apart whatever else the function holds; with advice
  (a smaller ``stage=``, smaller tiles) decided again by the same passes before it is
  offered;
- SKW081: the loads alone overflow the space at any depth, or the whole function's Vec
  tiles, every one known, overflow it packed the legacy way: AllocateMemoryAddr stops the
  compile;
- SKW082: MemoryReuse fits the space at no depth and falls back to its legacy packing
  (the compiler's warning), where the loads alone, or the whole function's Vec tiles,
  make it certain.

A core copy that asks for no stage buffers but runs in a function whose Vec tiles are
laid out (the vector copy a skew demotes to a sequential loop) gets the last two where
the whole function makes them certain, and a record with no stages that says so. The
vector copy the skew runs ahead (the cube's demoted) has its clones laid out with the
function's Vec tiles, its group the skew's: it is said as a replicated loop's is.

Where every Vec tile of the function is known (:class:`~skewlsp.analysis.memory.
core_function.ScopeMemory`: the tiles the body computes and the tiles outside the loops
too), the loop's depth in Vec is the whole function's packing's, exactly: SKW080
(PH-MR-001) slot-bound, or space-pressure when the function's other tiles take the
space, naming the largest co-resident tiles and offering the ``stage=`` under which the
whole function, packed again, keeps every stage apart. The hint's depth is MemoryReuse's
guard's; where the packing (which lifetimes decide too) still keeps each stage's copy of
the group's largest tiles further apart (``memory_reuse.buffers_depth``), the record's
``ir_depth`` and the finding say that depth beside it (issue #41: both, when they differ).
Left and Right, whose tiles are modelled whole too, are :mod:`.l0_memory`'s (SKW080 of
either cause there as well, and the same two depths).
In Mat of a cube function, where the function's Mat tiles are known
(:mod:`skewlsp.analysis.memory.mat_tiles`) and keep every stage of the loop apart (all in
buffers of their own within L1, or packed with their lifetimes), the depth is known and
full; of a skewed loop's cube copy, its clones' group there is said by :mod:`.mat_memory`
(SKW080 where MemoryReuse sheds it, SKW082 and SKW081 where no depth fits). Elsewhere
(Mat where that is not known, a function with a tile not modelled) a loop
whose loads fit says so ("fits alone") and why the rest is not known.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from skewlsp.analysis.lower_pipeline.chip import DEFAULT_CHIP
from skewlsp.analysis.lower_pipeline.lowering import Lowered, copy_lowerings
from skewlsp.analysis.memory.allocate_memory_addr import SpaceOverflow, allocate_memory_addr
from skewlsp.analysis.memory.canonicalize_io_order import (
    LoopLowering,
    ReplicatedLoop,
    function_tiles,
    scope_layout,
)
from skewlsp.analysis.memory.core_function import (
    CoreFunction,
    FunctionLoop,
    LoopMemory,
    ScopeMemory,
)
from skewlsp.analysis.memory.mat_tiles import MatMemory
from skewlsp.analysis.memory.memory_reuse import (
    DepthHint,
    memory_reuse,
)
from skewlsp.analysis.memory.reserve_buffer import reserved
from skewlsp.analysis.report.buffers import buffer_assignment
from skewlsp.analysis.report.l0_memory import acc_space, l0_spaces
from skewlsp.analysis.report.legacy_packing import (
    LEGACY_OVERFLOW,
    certain_fallback,
    group_slot,
    legacy_overflow,
    legacy_words,
    unstaged_copy,
)
from skewlsp.analysis.report.mat_memory import skewed_mat
from skewlsp.analysis.report.shed_words import group_members, ir_depth_beyond, shed_words
from skewlsp.contract import (
    DEPTH_REDUCED,
    LEGACY_FALLBACK,
    MEMORY_OVERFLOW,
    BufferAssignment,
    Finding,
    LoopReport,
    Lowering,
    SpaceBuffers,
    Span,
)

FITS_ALONE = "fits alone; other tiles of the function not modelled"
# A skewed loop's vector copy in Vec, where the vector runs ahead (the cube's demoted).
SKEWED_VECTOR = "not known: the skewed vector copy's clones are not laid out in Vec"


@dataclass(frozen=True)
class CopyMemory:
    """What the memory passes give one core copy of a loop (or the loop, not split by
    core): its buffers per memory space, and which of its copies' loads is in which
    buffer (None: the passes never saw it)."""

    spaces: tuple[SpaceBuffers, ...] = ()
    buffers: BufferAssignment | None = None


@dataclass(frozen=True)
class MemorySaid:
    """What the memory passes give one loop, said: per core copy (in the report's cores'
    order; one for a loop not split by core) its :class:`CopyMemory`, and the findings
    they make certain. The report is put together from it in :mod:`.finish`."""

    copies: tuple[CopyMemory, ...]
    hints: tuple[Finding, ...] = ()


def memory_said(
    report: LoopReport, lowered: Lowered | None, functions: Sequence[CoreFunction]
) -> MemorySaid:
    """What the memory passes give ``report``'s loop on each core copy (the records of
    ``functions``, one per copy, in the report's cores' order; ``lowered``: what the
    lowering passes decided of it, the report as the walk left it)."""
    found = [_loop_memory(report, function) for function in functions]
    assigned = [
        buffer_assignment(memory, function.planner)
        for memory, function in zip(found, functions, strict=True)
    ]
    lowerings = copy_lowerings(report, lowered)
    if not any(
        memory is not None
        and (
            memory.tiles is not None
            or memory.l0 is not None
            or _laid_out(memory.vec)
            or _runs_as_written(memory.vec)
        )
        for memory in found
    ):
        return MemorySaid(
            tuple(
                CopyMemory(_not_known(memory, function, lowering, report), buffers)
                for memory, function, lowering, buffers in zip(
                    found, functions, lowerings, assigned, strict=True
                )
            )
        )
    where = report.stage_span or report.call_span
    copies: list[CopyMemory] = []
    hints: list[Finding] = []
    ons = [f" on the {c.core.upper()} core" for c in report.cores] if report.cores else [""]
    for memory, function, buffers, lowering, on in zip(
        found, functions, assigned, lowerings, ons, strict=True
    ):
        spaces, findings = _spaces(memory, where, on)
        more, l0_findings = _l0(memory, function, lowering, where, on)
        spaces = spaces or _not_known(memory, function, lowering, report)
        copies.append(CopyMemory(spaces + tuple(more), buffers))
        hints += findings + l0_findings
    return MemorySaid(tuple(copies), tuple(hints))


def _not_known(
    memory: LoopMemory | None,
    function: CoreFunction,
    lowering: Lowering | None,
    report: LoopReport,
) -> tuple[SpaceBuffers, ...]:
    """A loop LowerPipelineLoops replicates on the vector core whose Vec buffers skewlsp
    cannot lay out, its loads alone or with the function's other tiles, or a vector
    copy the skew runs ahead (its clones are not laid out): the stages it asks for and
    why their buffers are not known, said rather than left out (issue #41: an honest
    conditional, never silence or a guess)."""
    if function.core == "aiv" and lowering is None and function.planner == "pypto":
        return _skewed_vector(report, function, memory)  # (ptoas places the buffers itself)
    if memory is None or function.core != "aiv" or lowering is None:
        return ()
    if lowering.verdict != "replicated" or lowering.buffers < 2:
        return ()  # (a loop of one copy asks for one buffer per load: nothing to keep apart)
    if memory.tiles is not None or _laid_out(memory.vec):
        return ()
    why = f"not known: {memory.why or 'the loop is not modelled'}"
    if memory.vec is not None and memory.vec.why not in (None, memory.why):
        why += f"; the function's other Vec tiles are not known: {memory.vec.why}"
    return (SpaceBuffers("Vec", 0, lowering.buffers, reason=why),)


def _skewed_vector(
    report: LoopReport, function: CoreFunction, memory: LoopMemory | None
) -> tuple[SpaceBuffers, ...]:
    """The vector copy of a loop the skew runs ahead on the vector core (``report``'s)
    whose clones, the skew's group in Vec, are not laid out with the function's other
    tiles: why."""
    number = _loop_number(report, function)
    loop = function.loops[number] if number is not None else None
    if loop is None or loop.verdict != "skewed" or loop.depth < 2:
        return ()
    why = memory.vec.why if memory is not None and memory.vec is not None else None
    reason = f"{SKEWED_VECTOR}: {why}" if why else SKEWED_VECTOR
    return (SpaceBuffers("Vec", 0, loop.depth, reason=reason),)


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
    loops = function.loops
    skew = loops[memory.l0.loop].facts.skew if memory.l0.loop < len(loops) else None
    if lowering is None and skew is not None:
        requested = skew.depth  # a skewed copy: its clones' stages
    lines = [loop.span.line for loop in function.loops]
    spaces, findings = l0_spaces(memory.l0, requested, lines, where, on)
    replicated = lowering is not None and lowering.verdict == "replicated"
    acc: tuple[list[SpaceBuffers], list[Finding]] = ([], [])
    if replicated and lowering is not None and lowering.main_trip and lowering.stage:
        acc = acc_space(memory.l0, (lowering.stage, lowering.tail), where, on)
    elif lowering is None and skew is not None and requested:
        acc = acc_space(memory.l0, (requested, 0), where, on, skewed=True)
        if requested > 1:  # (its clones' stage group in Mat)
            mat = skewed_mat(memory, requested, where, on)
            spaces, findings = mat[0] + spaces, mat[1] + findings
    elif lowering is None and _demoted(memory.l0.loop, loops):  # (its function's Mat tiles)
        mat = unstaged_copy(memory, "Mat", where, on)
        spaces, findings = mat[0] + spaces, mat[1] + findings
    spaces, findings = spaces + acc[0], findings + acc[1]
    return spaces, findings


def _demoted(number: int, loops: Sequence[FunctionLoop]) -> bool:
    """Whether loop ``number`` of the function is a copy the skew pass demotes."""
    return number < len(loops) and loops[number].verdict == "demoted"


def _loop_memory(report: LoopReport, function: CoreFunction) -> LoopMemory | None:
    number = _loop_number(report, function)
    return function.memory[number] if number is not None and number < len(function.memory) else None


def _loop_number(report: LoopReport, function: CoreFunction) -> int | None:
    """Which of ``function``'s loops ``report``'s is: by its span, and the line in the
    helper's module of an imported helper's loop (every one spliced at a call is
    reported there)."""
    return next(
        (
            number
            for number, loop in enumerate(function.loops)
            if loop.span == report.span and loop.helper_line == report.helper_line
        ),
        None,
    )


def _spaces(
    memory: LoopMemory | None, where: Span, on: str
) -> tuple[tuple[SpaceBuffers, ...], list[Finding]]:
    """Per space of the loop's first stage group: its buffers, and the certain findings."""
    if memory is None:
        return (), []
    spaces: list[SpaceBuffers] = []
    findings: list[Finding] = []
    if memory.tiles is not None and memory.reuse is not None:
        tiles, reuse = memory.tiles.tiles, memory.reuse
        allocated = memory.allocation.overflows if memory.allocation else ()
        overflows = {o.space: o for o in allocated}
        for (space, group), requested in sorted(reuse.requested.items()):
            if group != 0 or requested < 2:
                continue
            first = [t for t in tiles if t.space == space and any(g == 0 for g, _ in t.membership)]
            slot = DEFAULT_CHIP.align(max(t.bytes for t in first))
            hint = next((h for h in reuse.hints if (h.space, h.group) == (space, 0)), None)
            alone = (len(first), overflows.get(space), hint)
            more, found = _space(memory, (space, requested, slot), alone, where, on)
            spaces += more
            findings += found
    vec = memory.vec
    if _laid_out(vec) and vec is not None and all(s.space != vec.space for s in spaces):
        # (no load of the loop's own lands there, or the loop is not modelled alone: a
        # loop nested in a replicated one): the whole function's tiles decide
        more, found = _whole_only(memory, where, on)
        spaces += more
        findings += found
    elif _runs_as_written(vec):  # (a copy with no stages: its function's tiles decide)
        more, found = unstaged_copy(memory, "Vec", where, on)
        spaces += more
        findings += found
    return tuple(spaces), findings


# What the loop's loads alone give a space: how many are in its first stage group, the
# overflow AllocateMemoryAddr finds placing them, MemoryReuse's hint packing them.
_Alone = tuple[int, SpaceOverflow | None, DepthHint | None]


def _whole_only(
    memory: LoopMemory, where: Span, on: str
) -> tuple[list[SpaceBuffers], list[Finding]]:
    """The space of the whole function's laid-out tiles, where no load of the loop's own
    says anything: the function's packing alone decides."""
    vec = memory.vec
    if vec is None or vec.reuse is None or not vec.groups:
        return [], []
    requested = vec.reuse.requested.get((vec.space, vec.groups[0]))
    slot = group_slot(memory, vec.space)
    if requested is None or requested < 2 or slot is None:
        return [], []
    return _space(memory, (vec.space, requested, slot), (0, None, None), where, on)


def _space(
    memory: LoopMemory, asked: tuple[str, int, int], alone: _Alone, where: Span, on: str
) -> tuple[list[SpaceBuffers], list[Finding]]:
    """One space of the loop's first stage group (``asked``: the space, the stages asking,
    their slot): its record and the certain findings, from the loop's loads alone
    (``alone``) and, where known, the whole function's tiles there."""
    space, requested, slot = asked
    count, overflow, hint = alone
    spaces: list[SpaceBuffers] = []
    findings: list[Finding] = []
    fallback, basis = certain_fallback(memory, space)
    legacy = SpaceBuffers(space, slot, requested, None, "legacy", True)
    if fallback is not None and fallback.warned:
        message = legacy_words(fallback, basis, on)
        findings.append(Finding(LEGACY_FALLBACK, message, where, buffers=legacy))
    whole_overflow = legacy_overflow(memory, space, on) if fallback is not None else None
    # The loads alone are what to change where they need what the whole function
    # does, or its other tiles are not all known; else the whole function's numbers.
    whole_needs = whole_overflow[0] if whole_overflow is not None else None
    if overflow is not None and whole_needs in (None, overflow.used):
        spaces.append(SpaceBuffers(space, slot, requested, None, "overflow", True))
        findings.append(
            Finding(
                MEMORY_OVERFLOW,
                f"the loop's loads alone overflow {space}{on}: the {count} loads of its "
                f"{requested} stages are live at once and need {overflow.used} B of its "
                f"{overflow.limit} B; AllocateMemoryAddr stops the compile "
                f"(\"{overflow.message}\")",
                where,
                buffers=spaces[-1],
            ),
        )
    elif whole_overflow is not None:  # (the function's other tiles add to the loads')
        whole_slot = group_slot(memory, space) or slot  # (its widened copies too)
        spaces.append(
            SpaceBuffers(space, whole_slot, requested, None, "overflow", True, LEGACY_OVERFLOW)
        )
        message = whole_overflow[1]
        findings.append(Finding(MEMORY_OVERFLOW, message, where, buffers=spaces[-1]))
    elif fallback is not None:
        spaces.append(legacy)
    elif hint is not None and hint.cause == "slot-bound":
        spaces.append(SpaceBuffers(space, slot, requested, hint.achieved, "slot-bound", True))
        message = _slot_bound(hint, on, memory)
        findings.append(Finding(DEPTH_REDUCED, message, where, buffers=spaces[-1]))
    elif (whole := _wholes(memory, space, on, where)) is not None:
        spaces.extend(whole[0])
        findings.extend(whole[1])
    elif space == "Mat" and memory.mat is not None and memory.mat.fits:
        # every Mat tile of the function fits in a buffer of its own: no depth shed
        spaces.append(SpaceBuffers(space, memory.mat.slot, requested, requested, None, True))
    elif count:
        spaces.append(SpaceBuffers(space, slot, requested, reason=_fits_alone(memory, space)))
    return spaces, findings


def _fits_alone(memory: LoopMemory, space: str) -> str:
    """What a loop whose loads fit alone says: why the rest of the space is not known."""
    vec, mat = memory.vec, memory.mat
    if space == vec_space(vec) and vec is not None and vec.why is not None:
        return f"fits alone; the function's other Vec tiles are not known: {vec.why}"
    if space == "Mat" and mat is not None:
        return _mat_not_known(mat)
    return FITS_ALONE


def _mat_not_known(mat: MatMemory) -> str:
    """Why the loop's depth in Mat is not known: the function's Mat tiles are not, or
    they do not fit apart and their lifetimes are not laid out, or MemoryReuse's packing
    of them sheds depth (not reported: no shed in Mat has been checked against the
    compiler)."""
    if not mat.total:
        return f"fits alone; the function's Mat tiles are not known: {mat.why}"
    apart = (
        f"fits alone; the function's Mat tiles take {mat.total} B each in a buffer of its "
        f"own, more than Mat's {DEFAULT_CHIP.capacity('Mat')} B"
    )
    if mat.why is not None:
        return f"{apart}, and their lifetimes are not laid out: {mat.why}"
    return (
        f"{apart}, and packed with their lifetimes they keep fewer of the loop's stages "
        "apart than it asks: a depth lost in Mat is not told (not checked against the "
        "compiler)"
    )


def _laid_out(vec: ScopeMemory | None) -> bool:
    """Whether the whole function's tiles of the space are laid out for the loop."""
    return vec is not None and vec.layout is not None and bool(vec.groups)


def _runs_as_written(vec: ScopeMemory | None) -> bool:
    """Whether the loop's copy runs as written among the whole function's tiles (the
    vector copy a skew demotes, a pipeline loop LowerPipelineLoops leaves untouched):
    laid out, with no stage group of its own."""
    if vec is None or vec.layout is None or not 0 <= vec.loop < len(vec.lowerings):
        return False
    lowering = vec.lowerings[vec.loop]
    return isinstance(lowering, LoopLowering) and lowering.plain


def vec_space(vec: ScopeMemory | None) -> str | None:
    return vec.space if vec is not None else None


def _wholes(
    memory: LoopMemory, space: str, on: str, where: Span
) -> tuple[list[SpaceBuffers], list[Finding]] | None:
    """:func:`_whole` of the loop, and of its second lane's copy where the vector
    function runs on both lanes (its own record and PH-MR-001: MemoryReuse may shed the
    two lanes' loops to different depths), and of its remainder where MemoryReuse keeps
    fewer of its copies apart."""
    first = _whole(memory, space, on, where)
    if first is None:
        return None
    found, findings = [first[0]], list(first[1])
    for more in (_whole(memory, space, on, where, True), _whole(memory, space, on, where, which=1)):
        if more is not None:
            found.append(more[0])
            findings += more[1]
    return found, findings


def _whole(
    memory: LoopMemory,
    space: str,
    on: str,
    where: Span,
    second_lane: bool = False,
    which: int = 0,
) -> tuple[SpaceBuffers, list[Finding]] | None:
    """The loop's first stage group in ``space`` as MemoryReuse packs the whole
    function's tiles there (every one known), and its PH-MR-001 at the loop: SKW080,
    slot-bound, or space-pressure naming the co-resident tiles (``second_lane``: of the
    second lane's copy of the loop, None where there is none; ``which`` 1: of its
    remainder, the copies after the main loop, only where it has a hint). None
    when the space's tiles are not all known, or MemoryReuse falls back to its legacy
    packing there (SKW082's, :mod:`.legacy_packing`)."""
    vec = memory.vec
    if vec is None or vec.space != space or vec.layout is None or vec.reuse is None:
        return None
    if second_lane and vec.second_loop < 0:
        return None
    groups = vec.layout.groups[vec.second_loop] if second_lane else vec.groups
    if len(groups) <= which or any(f.space == space for f in vec.reuse.fallbacks):
        return None
    lane = 2 if second_lane else None
    on = f"{on}'s second lane" if second_lane else on
    group, reuse, tiles = groups[which], vec.reuse, vec.layout.tiles
    requested = reuse.requested.get((space, group))
    if requested is None:
        return None
    members = group_members(tiles, group)
    slot = DEFAULT_CHIP.align(max(tiles[n].bytes for n in members))
    achieved = reuse.achieved[(space, group)]
    hint = next((h for h in reuse.hints if (h.space, h.group) == (space, group)), None)
    if hint is None:
        if which:
            return None  # (a remainder kept whole says nothing beside the main loop's record)
        return SpaceBuffers(space, slot, requested, achieved, None, True, lane=lane), []
    deeper = ir_depth_beyond(hint, reuse, tiles)
    found = SpaceBuffers(
        space, slot, requested, hint.achieved, hint.cause, True, ir_depth=deeper, lane=lane,
        remainder=which > 0,
    )  # fmt: skip
    copies = "remainder copies" if which else "stages"
    message = shed_words(hint, found, (members, vec.layout), on, copies)
    if hint.cause == "slot-bound":
        return found, [Finding(DEPTH_REDUCED, message, where, buffers=found)]
    stage = _stage_that_fits(vec, hint.achieved) if not which else None
    if stage is not None:
        message += f"; stage={stage} keeps all {stage}"
    return found, [Finding(DEPTH_REDUCED, message, where, buffers=found)]


def _stage_that_fits(vec: ScopeMemory, most: int) -> int | None:
    """The largest ``stage=`` of at most ``most`` (and at least 2) under which MemoryReuse
    keeps every stage of the loop's first group apart (of both lanes' copies of it, where
    the vector function runs on both), decided by laying out and packing the whole
    function again with the loop restaged; None when none does."""
    if vec.scope is None or not 0 <= vec.loop < len(vec.lowerings):
        return None
    current = vec.lowerings[vec.loop]
    if isinstance(current, str):
        return None
    copies = [vec.loop] + ([vec.second_loop] if vec.second_loop >= 0 else [])
    for stage in range(most, 1, -1):
        restaged = current.restaged(stage)
        if restaged is None:
            return None
        lowerings = list(vec.lowerings)
        for index in copies:  # (the loop's copy on each lane, where it runs on both)
            lowerings[index] = restaged
        laid = scope_layout(vec.scope, lowerings, vec.space)
        if isinstance(laid, str) or not all(laid.groups[index] for index in copies):
            continue
        reuse = memory_reuse(laid.tiles, DEFAULT_CHIP, reserved(vec.scope))
        if any(f.space == vec.space for f in reuse.fallbacks):
            continue
        keys = [(vec.space, laid.groups[index][0]) for index in copies]
        if all(reuse.requested.get(k) == stage == reuse.achieved.get(k) for k in keys):
            return stage
    return None


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
