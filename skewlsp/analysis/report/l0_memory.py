"""What MemoryReuse gives a loop's stage group in Left (L0A) and Right (L0B), onto its report.

The function stage packs each cube function's L0 tiles whole (every matmul of the
outlined scope, AutoTileMatmulL0's K loops included: ``memory/l0_tiles.py``), so what it
decides there is the compiler's decision, not a bound: per L0 space of the loop's first
stage group, a :class:`~skewlsp.contract.SpaceBuffers` with the depth MemoryReuse keeps,
and SKW080 (PH-MR-001) when that is below the stages asked for, slot-bound (the stages'
own slots exceed the space) or space-pressure (the space holds other groups too: the
finding names them, AutoTileMatmulL0's K loops in the loop first, whose own depths it
says as well, and the ``stage=`` under which the scope's L0 tiles, laid out and packed
again with the loop restaged, keep every stage apart, when one does). A hinted group the
packing keeps further apart than its hint (issue #41: the two K slices of a K loop, live
together, stay in two buffers though its guard sheds it to one) is said at both depths,
the guard's and the IR's, wherever its depth is said: the loop's own group on its record
(``ir_depth``), the loop's K loops on the record of the space (``k_loops``), any group a
message names in that message (:func:`kept_apart`). Where the L0
tiles are not known, each L0 space says why; a slot of the loop's own that leaves room
for one stage is slot-bound all the same.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from skewlsp.analysis.lower_pipeline.chip import DEFAULT_CHIP, DTYPE_BYTES
from skewlsp.analysis.memory.init_memref import allocation_bytes
from skewlsp.analysis.memory.l0_tiles import (
    L0_SPACES,
    L0Group,
    L0Memory,
    L0Tiles,
    l0_tiles,
    restaged,
)
from skewlsp.analysis.memory.memory_reuse import (
    DepthHint,
    ReuseResult,
    ReuseTile,
    memory_reuse,
)
from skewlsp.contract import DEPTH_REDUCED, Finding, KLoopBuffers, SpaceBuffers, Span

_OWN = ("main", "tail", "skew")  # a loop's own groups (a skewed loop's: its clones')
NOT_KNOWN = "the L0 tiles of the function's matmuls are not known: "


def l0_spaces(
    l0: L0Memory | None, requested: int | None, lines: Sequence[int], where: Span, on: str
) -> tuple[list[SpaceBuffers], list[Finding]]:
    """The loop's Left and Right buffers and their SKW080 findings; ``requested``: the
    stages the loop's lowering asks for (for a space whose tiles are not known);
    ``lines``: the line of each loop of the function, by index."""
    if l0 is None:
        return [], []
    if l0.tiles is None or l0.reuse is None:
        if not requested or requested < 2:
            return [], []
        return _alone(l0, requested, where, on)
    tiles, reuse = l0.tiles, l0.reuse
    mine = [n for n, g in enumerate(tiles.groups) if g.loop == l0.loop and g.kind in _OWN]
    if not mine:
        return [], []
    group = mine[0]
    spaces: list[SpaceBuffers] = []
    findings: list[Finding] = []
    for space in L0_SPACES:
        key = (space, group)
        asked = reuse.requested.get(key, 0)
        if asked < 2:
            continue
        slot = _slot(tiles, space, group)
        hint = _hint(reuse, space, group)
        deeper = {g: d for (s, g), d in (l0.ir_depths or {}).items() if s == space}
        k_loops = _k_loops(tiles, reuse, space, l0.loop, deeper)
        if hint is None:
            achieved = reuse.achieved[key]
            spaces.append(SpaceBuffers(space, slot, asked, achieved, None, True, k_loops=k_loops))
            continue
        depth = deeper.get(group)
        found = SpaceBuffers(
            space, slot, asked, hint.achieved, hint.cause, True, ir_depth=depth, k_loops=k_loops
        )
        spaces.append(found)
        kept = kept_apart(found, _largest(tiles.tiles, space, group))
        message = _message(hint, tiles, reuse, (l0.loop, lines), on, l0, (kept, deeper))
        findings.append(Finding(DEPTH_REDUCED, message, where, buffers=found))
    tail = [n for n, g in enumerate(tiles.groups) if g.loop == l0.loop and g.kind == "tail"]
    for space in L0_SPACES if tail else ():
        hint = _hint(reuse, space, tail[0])
        if hint is None:
            continue  # (a remainder kept whole says nothing beside the main loop's record)
        found = SpaceBuffers(
            space, _slot(tiles, space, hint.group), hint.requested, hint.achieved, hint.cause,
            True, remainder=True,
        )  # fmt: skip
        spaces.append(found)
        after = "remainder copies"
        message = _message(hint, tiles, reuse, (l0.loop, lines), on, copies=after)
        findings.append(Finding(DEPTH_REDUCED, message, where, buffers=found))
    return spaces, findings


def _k_loops(
    tiles: L0Tiles, reuse: ReuseResult, space: str, loop: int, deeper: Mapping[int, int]
) -> tuple[KLoopBuffers, ...]:
    """The loop's K loops in ``space`` whose two depths differ (``deeper``: the IR's, by
    group), each with its hint's numbers and the IR's depth (a skewed loop's clones each
    lower their own copy of a K loop: one record for the copies alike)."""
    found: dict[KLoopBuffers, None] = {}
    for number, depth in sorted(deeper.items()):
        group = tiles.groups[number]
        hint = _hint(reuse, space, number)
        if group.site is None or group.loop != loop or hint is None:
            continue
        site = group.site
        hinted = SpaceBuffers(
            space, hint.slot, hint.requested, hint.achieved, hint.cause, True, ir_depth=depth
        )
        matmul = f"{site.op}({site.lhs}, {site.rhs})"
        found[KLoopBuffers(matmul, group.kind == "k-tail", hinted)] = None
    return tuple(found)


def _largest(tiles: Sequence[ReuseTile], space: str, group: int) -> int:
    """The bytes of a group's largest tiles in ``space`` (unaligned: the tiles' own)."""
    return max(
        t.bytes for t in tiles if t.space == space and any(g == group for g, _ in t.membership)
    )


def kept_apart(found: SpaceBuffers, size: int, names: Sequence[str] = ()) -> str:
    """What a SKW080 message adds where the packing keeps each stage's copy of the group's
    largest tiles (``size``: their bytes; ``names``: which tiles, when known) further apart
    than the guard's depth (``found.ir_depth``; "" where it does not): both depths are the
    compiler's, the guard's PH-MR-001's, the buffers' the IR's
    (:func:`~skewlsp.analysis.memory.memory_reuse.buffers_depth`)."""
    if found.ir_depth is None:
        return ""
    which = f" ({', '.join(names)})" if names else ""
    return (
        f"; yet its packing still gives each stage's copy of the {size} B tiles{which} a "
        f"buffer of its own, {found.ir_depth} stages apart (the IR's depth; the guard's is "
        f"{found.achieved}): their lifetimes and the first fit keep them apart, so no "
        "stage's copy of them waits for another's"
    )


def _alone(
    l0: L0Memory, requested: int, where: Span, on: str
) -> tuple[list[SpaceBuffers], list[Finding]]:
    """Where the function's L0 tiles are not known: per space, why; but a space whose
    slot, the loop's own largest tile there, leaves room for one stage (a slot-bound
    hint at depth 1 when the loop's tiles are packed alone) keeps one stage whatever
    else the function holds, and SKW080 says so."""
    reason = NOT_KNOWN + (l0.why or "not modelled")
    tiles, reuse = l0.alone, l0.alone_reuse
    mine = [] if tiles is None else [n for n, g in enumerate(tiles.groups) if g.kind == "main"]
    spaces: list[SpaceBuffers] = []
    findings: list[Finding] = []
    for space in L0_SPACES:
        hint = _hint(reuse, space, mine[0]) if reuse is not None and mine else None
        certain = hint is not None and hint.cause == "slot-bound" and hint.achieved == 1
        if tiles is None or reuse is None or hint is None or not certain:
            spaces.append(SpaceBuffers(space, 0, requested, reason=reason))
            continue
        slot = _slot(tiles, space, hint.group)
        spaces.append(SpaceBuffers(space, slot, hint.requested, 1, hint.cause, True))
        message = _message(hint, tiles, reuse, (0, ()), on)
        findings.append(Finding(DEPTH_REDUCED, message, where, buffers=spaces[-1]))
    return spaces, findings


def acc_space(
    l0: L0Memory | None,
    asked: tuple[int, int],
    where: Span,
    on: str,
    skewed: bool = False,
) -> tuple[list[SpaceBuffers], list[Finding]]:
    """Acc (L0C) of a replicated loop's main group and remainder (``asked``: the stages
    of its main loop, the copies after it), or of a skewed loop's clones on the cube
    (``skewed``: ``asked`` is its depth and no remainder), where its own accumulators
    decide it.

    A ``pl.matmul`` of the body that AutoTileMatmulL0 splits into a K loop accumulates
    into a fresh ``[M, N]`` accumulator in every clone, a tile of the user loop's stage
    group (not of the K loop's); one it leaves whole puts none in the group (checked
    against the compiler: of the 176 cube loops of ``benchmarks/random_kernels.py``'s
    seeds 1-7, every one with a K loop had an Acc group, sized by that accumulator, and
    no other had one). The skew's clones put every matmul's result in theirs (240 of
    240 skewed cube copies of its ``--family skewed`` and ``attention`` kernels had an
    Acc group whose slot is the largest matmul's ``[M, N]``). So the group's slot is the
    largest such accumulator, and MemoryReuse keeps at most ``Acc // slot`` of its ``stages``
    apart whatever else the function holds: SKW080, slot-bound, said only then. Acc's
    other tiles are not modelled, so a depth that fits alone says nothing; nor is a body
    with a ``pl.matmul_acc`` (its accumulator may come from outside the clone) or one
    whose matmuls' tilings are not known (an output AutoTileMatmulL0 splits)."""
    tiles = l0.tiles or l0.alone if l0 is not None else None
    tilings = tiles.tilings.get(l0.loop) if tiles is not None and l0 is not None else None
    stages, tail = asked
    if max(stages, tail) < 2 or not tilings or any(t.site.op != "matmul" for t in tilings):
        return [], []
    sizes = []
    for t in tilings:
        if skewed or t.k_trip > 1:  # (a K loop: its accumulator is the clone's)
            acc = t.site.accumulator_dtype(DTYPE_BYTES[t.dtypes[0]])
            sizes.append(allocation_bytes((t.whole[0], t.whole[1]), acc, "Acc"))
    if not sizes:
        return [], []
    if any(size is None for size in sizes):
        return [], []
    slot = DEFAULT_CHIP.align(max(size for size in sizes if size is not None))
    capacity = DEFAULT_CHIP.capacity("Acc")
    fits = capacity // slot
    spaces: list[SpaceBuffers] = []
    findings: list[Finding] = []
    for count, copies in ((stages, "stages"), (tail, "remainder copies")):
        if not 1 <= fits < count:  # (an accumulator larger than Acc: AutoTileMatmulL0's)
            continue
        after = copies != "stages"
        found = SpaceBuffers("Acc", slot, count, fits, "slot-bound", True, remainder=after)
        message = (
            f"PH-MR-001: MemoryReuse keeps at most {fits} of the {count} {copies}' buffers "
            f"apart in Acc{on} ({slot} B per stage, slot-bound): {count} x {slot} B of the "
            f"loop's accumulators is more than its {capacity} B, whatever else the function "
            "holds"
        )
        spaces.append(found)
        findings.append(Finding(DEPTH_REDUCED, message, where, buffers=found))
    return spaces, findings


def _slot(tiles: L0Tiles, space: str, group: int) -> int:
    return DEFAULT_CHIP.align(
        max(
            t.bytes
            for t in tiles.tiles
            if t.space == space and any(g == group for g, _ in t.membership)
        )
    )


def _hint(reuse: ReuseResult, space: str, group: int) -> DepthHint | None:
    return next((h for h in reuse.hints if (h.space, h.group) == (space, group)), None)


def _message(
    hint: DepthHint,
    tiles: L0Tiles,
    reuse: ReuseResult,
    loop: tuple[int, Sequence[int]],
    on: str,
    l0: L0Memory | None = None,
    apart: tuple[str, Mapping[int, int]] | None = None,
    copies: str = "stages",
) -> str:
    """SKW080's message for an L0 space: the compiler's numbers, and for space pressure
    the groups that share the space and the ``stage=`` that keeps every stage apart,
    decided again (``l0``: what the tiles were laid out from; ``apart``: what the
    packing keeps apart beyond the guard's depth, :func:`kept_apart`, and the IR's depth
    of each other group where it exceeds its hint's, ``L0Memory.ir_depths``; ``copies``:
    what the group's buffers are kept apart for, the main loop's stages or the remainder's
    copies)."""
    kept, deeper = apart or ("", {})
    head = (
        f"PH-MR-001: MemoryReuse keeps only {hint.achieved} of the {hint.requested} "
        f"{copies}' buffers apart in {hint.space}{on} ({hint.slot} B per stage, {hint.cause})"
    )
    if hint.cause == "slot-bound":
        return (
            f"{head}: {hint.requested} x {hint.slot} B is more than its {hint.free} B, "
            f"whatever else the function holds{kept}"
        )
    number, lines = loop
    others = [
        (_described(n, g, tiles, reuse, (hint.space, deeper.get(n)), lines), g)
        for n, g in enumerate(tiles.groups)
        if n != hint.group and (hint.space, n) in reuse.requested
    ]
    ours = [text for text, g in others if g.loop == number]
    theirs = [text for text, g in others if g.loop != number]
    shared = "; ".join(_counted(ours + theirs)) or "no other group"
    message = (
        f"{head}: the {hint.free} B of {hint.space} also hold {shared} "
        "(AutoTileMatmulL0's L0 tiles of the function's matmuls, packed as MemoryReuse "
        f"packs them){kept}"
    )
    stage = _stage_that_fits(l0, hint.achieved) if l0 is not None else None
    return f"{message}; stage={stage} keeps all {stage}" if stage is not None else message


def _stage_that_fits(l0: L0Memory, most: int) -> int | None:
    """The largest ``stage=`` of at most ``most`` (and at least 2) under which MemoryReuse
    keeps every stage of the loop's first group apart in Left and Right, decided by laying
    out and packing the scope's L0 tiles again with the loop restaged; None when none
    does."""
    if not 0 <= l0.loop < len(l0.loops):
        return None
    facts, lowering = l0.loops[l0.loop]
    for stage in range(most, 1, -1):
        again = restaged(lowering, stage) if lowering is not None else None
        if again is None:
            return None
        loops = list(l0.loops)
        loops[l0.loop] = (facts, again)
        tiles = l0_tiles(loops, l0.scope, DEFAULT_CHIP)
        if not isinstance(tiles, L0Tiles):
            continue
        reuse = memory_reuse(tiles.tiles, DEFAULT_CHIP)
        mine = [
            n for n, g in enumerate(tiles.groups) if g.loop == l0.loop and g.kind == "main"
        ]
        keys = [(space, mine[0]) for space in L0_SPACES if mine]
        keys = [key for key in keys if key in reuse.requested]
        if not keys or reuse.fallbacks:
            continue
        if all(reuse.requested[k] == stage and reuse.achieved[k] == stage for k in keys):
            return stage
    return None


def _counted(texts: Sequence[str]) -> list[str]:
    """Each group's description once, with how many groups it stands for (a skewed
    loop's clones each lower their own copy of a K loop)."""
    counts: dict[str, int] = {}
    for text in texts:
        counts[text] = counts.get(text, 0) + 1
    return [text if n == 1 else f"{n} copies of {text}" for text, n in counts.items()]


def _described(
    number: int,
    group: L0Group,
    tiles: L0Tiles,
    reuse: ReuseResult,
    where: tuple[str, int | None],
    lines: Sequence[int],
) -> str:
    """One group sharing the space, with its depth (``where``: the space and the IR's
    depth of the group where it exceeds MemoryReuse's; both are then said, as
    :func:`kept_apart` says them)."""
    space, ir_depth = where
    key = (space, number)
    slot = _slot(tiles, space, number)
    achieved, requested = reuse.achieved[key], reuse.requested[key]
    depth = f"{achieved} of {requested} stages kept apart"
    if ir_depth is not None:
        found = SpaceBuffers(space, slot, requested, achieved, None, True, ir_depth=ir_depth)
        depth += kept_apart(found, _largest(tiles.tiles, space, number))
    if group.site is not None:
        site = group.site
        what = f"the K loop AutoTileMatmulL0 makes for `{site.op}({site.lhs}, {site.rhs})`"
        if group.kind == "k-tail":
            what = f"the remainder of {what}"
        if group.loop < 0:
            what += " outside the pipeline loops"
    else:
        part = "remainder" if group.kind == "tail" else "stage group"
        line = lines[group.loop] if group.loop < len(lines) else 0
        what = f"the {part} of the loop at line {line}"
    return f"{what} ({slot} B per stage, {depth})"
