"""MemoryReuse's pipeline-stage guard (pass doc 33, ``src/ir/transforms/memory_reuse_pass.cpp``).

MemoryReuse (the default ``pypto`` memory planner; ptoas skips it) lets tiles of one
memory space share a buffer when their lifetimes do not overlap. LowerPipelineLoops
stamps each replicated region's tiles with ``(group, stage)`` (its clones run at once,
though program order puts them one after the other), and the guard keeps a group's
clones apart (``IdentifyReuseOpportunities``, lines 1866-2392):

- per (space, group): the slot is the group's largest tile there, the requested depth
  ``D`` the number of its stages there, and the affordable depth starts at
  ``F = min(D, capacity // slot)`` (lines 2061-2090; 1 and ungated when the space's
  capacity is unknown). Two tiles of a group whose stages (counted densely) fall in
  different residues mod ``F`` never share (lines 2095-2138);
- per space, the tiles are packed largest first (ties: program order), each into the
  first buffer all of whose members it may share with (lines 2151-2224): no
  overlapping lifetime (one may end where the other starts), no op forbidding the
  alias, and the guard;
- the packing's footprint is the allocator's own (:mod:`.allocate_memory_addr`). While
  it exceeds the space, one group loses a level of depth and the space is packed again:
  the group whose aligned slot is largest, ties to the lowest group id (lines
  2226-2320, at most 256 times). With no group left to shed, the space is packed the
  legacy way (the L0 spaces unguarded, elsewhere only loads kept apart across stages)
  and a warning says so, unless one buffer alone exceeds the space;
- every gated group left below its requested depth, in a space without that warning,
  gets a ``PH-MR-001`` perf hint (lines 2337-2390): slot-bound when the requested
  stages of its aligned slot alone exceed the space's free bytes, else space-pressure.

The depth a group keeps, ``F``, is a residue count for the guard alone (``pipeline_blocks``
is one gate of ``can_share``): clones fewer than ``F`` stages apart never share, but
clones further apart are only *allowed* to; whether they do is the first-fit packing's,
which lifetimes decide too, and the final packing is committed as it stands after the
shed (lines 2321-2334). So a group shed to ``F`` can still hold each stage's copy of a
tile in a buffer of its own: CanonicalizeIOOrder issues every clone's loads before the
clones compute, so one stage's load is live while another's computes, and a stage's
other tiles may be packed beside an earlier stage's instead of on their own copies
(issue #41's "the IR still shows the requested number of distinct buffers"):
:func:`buffers_depth` reads that depth off the packing.

Not modelled: the phi families of ``if`` branches (a tile here has one lifetime), the
910B load + ``tpop_from_aic`` hazard, and buffers the author declared (``pl.MemRef``).
A tile's forbidden aliases (the no-alias guard of ops such as a widening ``tile.cast``)
are the caller's to list.

The entry point, :func:`memory_reuse`, is a pure function of one core function's tiles.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from skewlsp.analysis.lower_pipeline.chip import DEFAULT_CHIP, Chip
from skewlsp.analysis.memory.allocate_memory_addr import footprint

# The L0 spaces, which the legacy predicate does not guard.
L0_SPACES = frozenset({"Left", "Right", "Acc", "Bias", "LeftScale", "RightScale"})
MAX_SHEDS = 256


@dataclass(frozen=True)
class ReuseTile:
    """One tile of a function as MemoryReuse sees it.

    ``live``: (definition, last use) in program order; two tiles overlap unless one's
    last use is at or before the other's definition. ``membership``: its (group,
    stage) pairs (a clone of an inner loop an outer loop replicated is in both).
    ``load``: a ``tile.load`` (the legacy guard keeps only loads apart). ``forbid``:
    indices of tiles whose buffer this one must not take (its op reads them while it
    writes).
    """

    space: str
    bytes: int
    live: tuple[int, int]
    membership: tuple[tuple[int, int], ...] = ()
    load: bool = False
    forbid: frozenset[int] = frozenset()


@dataclass(frozen=True)
class DepthHint:
    """A ``PH-MR-001`` perf hint: a group left below the depth its stages ask for."""

    group: int
    space: str
    requested: int
    achieved: int
    slot: int  # aligned
    free: int  # the space's capacity minus its reserved region
    reserved: int
    cause: str  # "slot-bound" or "space-pressure"

    @property
    def shrink_to(self) -> int:
        """The per-stage bytes the hint says would fit the requested depth."""
        return self.free // self.requested if self.requested else self.free


@dataclass(frozen=True)
class LegacyFallback:
    """A space the guarded packing fit at no depth: packed the legacy way.

    ``still_overflows``: the legacy packing does not fit either (AllocateMemoryAddr
    will stop). ``warned``: MemoryReuse said so in a warning; it does not when one
    buffer alone is larger than the space (an impossible tile, not a lost depth).
    Either way the space's groups get no PH-MR-001 hint. ``within_budget``: the sheds
    ran out of groups to shed ("at any double-buffering depth"), not out of the re-packs
    they may take ("within the shed-repack budget").
    """

    space: str
    still_overflows: bool
    warned: bool = True
    within_budget: bool = True


@dataclass(frozen=True)
class ReuseResult:
    """The packing of one function: per space, its buffers (tile indices, the
    representative, the largest, first), in the order of their names: a buffer keeps the
    MemRef of the tile that opened it, which InitMemRef numbered in program order, and
    AllocateMemoryAddr places buffers by name (compared as text: ``mem_vec_10`` comes
    before ``mem_vec_9``; the numbers count tiles skewlsp does not see, so the tiles'
    order stands for them); each (space, group)'s requested and
    achieved depth; the hints; the spaces packed the legacy way (with or without a
    warning)."""

    buffers: Mapping[str, tuple[tuple[int, ...], ...]]
    requested: Mapping[tuple[str, int], int]
    achieved: Mapping[tuple[str, int], int]
    hints: tuple[DepthHint, ...] = ()
    fallbacks: tuple[LegacyFallback, ...] = ()

    def buffer_of(self, tile: int) -> tuple[str, int] | None:
        """(space, buffer number) of a tile."""
        for space, buffers in self.buffers.items():
            for number, members in enumerate(buffers):
                if tile in members:
                    return space, number
        return None


@dataclass
class _Groups:
    """Per (space, group): slot, requested depth, stage ordinals, current depth."""

    slot: dict[tuple[str, int], int] = field(default_factory=dict)
    requested: dict[tuple[str, int], int] = field(default_factory=dict)
    ordinal: dict[tuple[str, int], dict[int, int]] = field(default_factory=dict)
    depth: dict[tuple[str, int], int] = field(default_factory=dict)
    gated: set[str] = field(default_factory=set)


def _groups(tiles: Sequence[ReuseTile], chip: Chip) -> _Groups:
    """Each group's slot and stages per space, and its first affordable depth (from the
    space's whole capacity: the reserved region and co-residents are the shed's to
    find)."""
    found = _Groups()
    stages: dict[tuple[str, int], set[int]] = {}
    for tile in tiles:
        for group, stage in tile.membership:
            key = (tile.space, group)
            found.slot[key] = max(found.slot.get(key, 0), tile.bytes)
            stages.setdefault(key, set()).add(stage)
    for key, slot in found.slot.items():
        requested = len(stages[key])
        capacity = chip.capacity(key[0])
        depth = 1
        if capacity and slot:
            depth = max(1, min(requested, capacity // slot))
            found.gated.add(key[0])
        found.depth[key] = depth
        found.requested[key] = requested
        found.ordinal[key] = {stage: n for n, stage in enumerate(sorted(stages[key]))}
    return found


def _guard_blocks(a: ReuseTile, b: ReuseTile, groups: _Groups, legacy: bool) -> bool:
    """Whether the pipeline guard keeps two tiles of one space apart."""
    gated = not legacy and a.space in groups.gated
    if not gated and a.space in L0_SPACES:
        return False
    if not a.membership or not b.membership:
        return False
    if gated:
        for group, stage_a in a.membership:
            for other, stage_b in b.membership:
                if other != group:
                    continue
                key = (a.space, group)
                depth = groups.depth.get(key, 1) or 1
                ordinal = groups.ordinal.get(key, {})
                ra = ordinal.get(stage_a, stage_a) % depth
                rb = ordinal.get(stage_b, stage_b) % depth
                if ra != rb:
                    return True
        return False
    apart = any(
        group == other and stage_a != stage_b
        for group, stage_a in a.membership
        for other, stage_b in b.membership
    )
    return apart and (a.load or b.load)


def _overlap(a: ReuseTile, b: ReuseTile) -> bool:
    return not (a.live[1] <= b.live[0] or b.live[1] <= a.live[0])


def _pack(
    order: Sequence[int], tiles: Sequence[ReuseTile], groups: _Groups, legacy: bool
) -> list[list[int]]:
    """First fit, largest first: each tile joins the first buffer it may share."""
    buffers: list[list[int]] = []
    for index in order:
        for members in buffers:
            if all(_may_share(index, m, tiles, groups, legacy) for m in members):
                members.append(index)
                break
        else:
            buffers.append([index])
    return buffers


def _may_share(a: int, b: int, tiles: Sequence[ReuseTile], groups: _Groups, legacy: bool) -> bool:
    ta, tb = tiles[a], tiles[b]
    if _overlap(ta, tb) or b in ta.forbid or a in tb.forbid:
        return False
    return not _guard_blocks(ta, tb, groups, legacy)


def _slots(buffers: Sequence[Sequence[int]], tiles: Sequence[ReuseTile]) -> list[int]:
    return [max(tiles[i].bytes for i in members) for members in buffers]


def _shed_group(space: str, groups: _Groups, chip: Chip) -> int | None:
    """The group that frees the most bytes per level (its aligned slot), ties to the
    lowest id; None when every group of the space is at depth 1."""
    best: tuple[int, int] | None = None
    for (where, group), depth in groups.depth.items():
        if where != space or depth <= 1:
            continue
        score = (-chip.align(groups.slot[(where, group)]), group)
        if best is None or score < best:
            best = score
    return best[1] if best is not None else None


def _pack_space(
    space: str,
    order: Sequence[int],
    tiles: Sequence[ReuseTile],
    groups: _Groups,
    chip: Chip,
    reserved: int,
) -> tuple[list[list[int]], LegacyFallback | None]:
    """One space's packing, shedding depth while it overflows, else the legacy one."""
    buffers = _pack(order, tiles, groups, legacy=False)
    capacity = chip.capacity(space)
    sheds = 0
    while capacity and footprint(_slots(buffers, tiles), chip, reserved) > capacity:
        sheds += 1
        group = _shed_group(space, groups, chip) if sheds <= MAX_SHEDS else None
        if group is None:
            buffers = _pack(order, tiles, groups, legacy=True)
            slots = _slots(buffers, tiles)
            overflows = footprint(slots, chip, reserved) > capacity
            oversized = any(slot > capacity for slot in slots)
            return buffers, LegacyFallback(
                space, overflows, warned=not oversized, within_budget=sheds <= MAX_SHEDS
            )
        groups.depth[(space, group)] -= 1
        buffers = _pack(order, tiles, groups, legacy=False)
    return buffers, None


def buffers_depth(
    result: ReuseResult, tiles: Sequence[ReuseTile], space: str, group: int
) -> int | None:
    """How many stages apart the packing really keeps one group's copies of its slot tiles
    in ``space``: for each tile of the group's largest size, its copies in the group's
    stages (the clones of one body make the same tiles in the same order, so the n-th
    such tile of each stage is one tile's copies; a tile of a nested loop is matched
    within the same stage of the other groups it is in), the nearest two stages (dense
    ordinals) whose copies share a buffer are that many apart, or every stage when none
    do; the fewest over those tiles. At least the guard's depth, by its residues; more
    where lifetimes keep copies apart that the guard lets share. None when no slot tile
    has copies in two stages, or the stages do not make the same slot tiles."""
    members = [
        n
        for n, t in enumerate(tiles)
        if t.space == space and any(g == group for g, _ in t.membership)
    ]
    buffer = {n: b for b, held in enumerate(result.buffers.get(space, ())) for n in held}
    return _group_depth(tiles, members, group, buffer)


def _group_depth(
    tiles: Sequence[ReuseTile], members: Sequence[int], group: int, buffer: Mapping[int, int]
) -> int | None:
    """:func:`buffers_depth` of the group's tiles ``members`` in one space, whose buffer
    each tile is in (``buffer``, by tile)."""
    if not members:
        return None
    slot = max(tiles[n].bytes for n in members)
    stages = sorted({s for n in members for g, s in tiles[n].membership if g == group})
    ordinal = {stage: n for n, stage in enumerate(stages)}
    copies: dict[tuple[tuple[int, int], ...], dict[int, list[int]]] = {}
    for n in members:
        if tiles[n].bytes != slot:
            continue
        stage = next(s for g, s in tiles[n].membership if g == group)
        others = tuple(p for p in tiles[n].membership if p[0] != group)
        copies.setdefault(others, {}).setdefault(ordinal[stage], []).append(n)
    depths = []
    for by_stage in copies.values():
        if len(by_stage) < 2:
            continue
        if len({len(made) for made in by_stage.values()}) != 1:
            return None
        kept = sorted(by_stage)
        for position in range(len(by_stage[kept[0]])):
            on = {stage: buffer.get(by_stage[stage][position]) for stage in kept}
            gaps = [
                later - earlier
                for i, earlier in enumerate(kept)
                for later in kept[i + 1 :]
                if on[earlier] == on[later]
            ]
            depths.append(min(gaps) if gaps else len(kept))
    return min(depths, default=None)


def ir_depths(result: ReuseResult, tiles: Sequence[ReuseTile]) -> dict[tuple[str, int], int]:
    """Each hinted (space, group) whose packing keeps its stages further apart than the
    hint's depth (:func:`buffers_depth`): the depth the IR shows beside the guard's. Only
    hinted groups: a group kept whole needs no second depth. The tiles and buffers are
    read once for all of them (a scope's L0 packing has a hint per K loop)."""
    hinted = {(h.space, h.group): h.achieved for h in result.hints}
    members: dict[tuple[str, int], list[int]] = {key: [] for key in hinted}
    for n, tile in enumerate(tiles):
        for g, _ in tile.membership:
            if (tile.space, g) in members:
                members[(tile.space, g)].append(n)
    found = {}
    for space in {space for space, _ in hinted}:
        held = enumerate(result.buffers.get(space, ()))
        buffer = {n: b for b, tiles_of in held for n in tiles_of}
        for (where, group), achieved in hinted.items():
            if where != space:
                continue
            depth = _group_depth(tiles, members[(where, group)], group, buffer)
            if depth is not None and depth > achieved:
                found[(where, group)] = depth
    return found


def _hint(
    key: tuple[str, int], groups: _Groups, chip: Chip, reserved: Mapping[str, int]
) -> DepthHint | None:
    space, group = key
    requested, achieved = groups.requested[key], groups.depth[key]
    if space not in groups.gated or achieved >= requested:
        return None
    held = reserved.get(space, 0)
    capacity = chip.capacity(space)
    free = capacity - held if capacity > held else 0
    slot = chip.align(groups.slot[key])
    slot_bound = free == 0 or slot * requested > free
    cause = "slot-bound" if slot_bound else "space-pressure"
    return DepthHint(group, space, requested, achieved, slot, free, held, cause)


def memory_reuse(
    tiles: Sequence[ReuseTile],
    chip: Chip = DEFAULT_CHIP,
    reserved: Mapping[str, int] | None = None,
) -> ReuseResult:
    """Pack one core function's tiles into buffers as MemoryReuse does.

    ``reserved``: per space, where the region ``system.reserve_buffer`` keeps ends
    (buffers are placed after it).
    """
    held = reserved or {}
    groups = _groups(tiles, chip)
    by_space: dict[str, list[int]] = {}
    for index, tile in enumerate(tiles):
        by_space.setdefault(tile.space, []).append(index)
    packed: dict[str, tuple[tuple[int, ...], ...]] = {}
    legacy: list[LegacyFallback] = []
    for space in sorted(by_space):
        order = sorted(by_space[space], key=lambda i: (-tiles[i].bytes, tiles[i].live[0], i))
        buffers, fallback = _pack_space(space, order, tiles, groups, chip, held.get(space, 0))
        packed[space] = tuple(tuple(members) for members in sorted(buffers, key=lambda m: m[0]))
        if fallback is not None:
            legacy.append(fallback)
    quiet = {f.space for f in legacy}
    hints = [
        hint
        for key in sorted(groups.depth)
        if key[0] not in quiet and (hint := _hint(key, groups, chip, held)) is not None
    ]
    return ReuseResult(
        buffers=packed,
        requested=dict(groups.requested),
        achieved=dict(groups.depth),
        hints=tuple(hints),
        fallbacks=tuple(legacy),
    )
