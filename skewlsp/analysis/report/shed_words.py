"""The words of a PH-MR-001 finding (SKW080) of a whole function's packing, in Vec
(:mod:`.memory`) and in Mat (:mod:`.mat_memory`) alike: the cause, where the space's
free bytes start, which tiles are live beside the group that lost depth, and the depth
the IR keeps where the packing keeps more apart."""

from __future__ import annotations

from collections.abc import Sequence

from skewlsp.analysis.memory.canonicalize_io_order import ScopeLayout
from skewlsp.analysis.memory.memory_reuse import (
    DepthHint,
    ReuseResult,
    ReuseTile,
    buffers_depth,
)
from skewlsp.analysis.report.l0_memory import kept_apart
from skewlsp.analysis.report.legacy_packing import CO_RESIDENTS, ring_way
from skewlsp.contract import SpaceBuffers


def group_members(tiles: Sequence[ReuseTile], group: int) -> list[int]:
    """The tiles of a stage group (any of its stages), by index."""
    return [n for n, t in enumerate(tiles) if any(g == group for g, _ in t.membership)]


def ir_depth_beyond(hint: DepthHint, reuse: ReuseResult, tiles: Sequence[ReuseTile]) -> int | None:
    """The depth the IR keeps for the hint's group where the packing keeps its stages
    further apart than the hint's depth (:func:`.memory_reuse.buffers_depth`), else None."""
    depth = buffers_depth(reuse, tiles, hint.space, hint.group)
    return depth if depth is not None and depth > hint.achieved else None


def above_ring(hint: DepthHint) -> str:
    """Where the space's free bytes start when the cross-core ring reserves its bottom."""
    if not hint.reserved:
        return ""
    return f" (above the {hint.reserved} B the {ring_way(hint.space)} ring reserves)"


def co_residents(members: Sequence[int], layout: ScopeLayout) -> str:
    """The largest distinct tiles live while the group is (its own tiles, the tiles
    around the loop read in it, other groups' that overlap), largest first."""
    tiles = layout.tiles
    start = min(tiles[n].live[0] for n in members)
    end = max(tiles[n].live[1] for n in members)
    seen: dict[str, int] = {}
    for tile, label in zip(tiles, layout.labels, strict=True):
        if tile.live[0] < end and start < tile.live[1]:
            seen[label] = max(seen.get(label, 0), tile.bytes)
    ranked = sorted(seen.items(), key=lambda item: -item[1])[:CO_RESIDENTS]
    return ", ".join(f"{label} {size} B" for label, size in ranked)


def shed_words(
    hint: DepthHint,
    found: SpaceBuffers,
    at: tuple[Sequence[int], ScopeLayout],
    on: str,
    copies: str = "stages",
) -> str:
    """SKW080's message for a group of a whole function's packing (``at``: its members
    and the layout): slot-bound (its stages' slots alone exceed the space), or
    space-pressure naming the co-resident tiles, with the depth the IR keeps where the
    packing keeps more apart (``found.ir_depth``)."""
    members, layout = at
    kept = _kept_apart(found, members, layout, hint.group)
    space = hint.space
    if hint.cause == "slot-bound":
        return (
            f"PH-MR-001: MemoryReuse keeps at most {hint.achieved} of the {hint.requested} "
            f"{copies}' buffers apart in {space}{on}: {hint.requested} x {hint.slot} B per "
            f"stage is more than its {hint.free} B{above_ring(hint)}, whatever else the "
            f"function holds{kept}"
        )
    return (
        f"PH-MR-001: MemoryReuse keeps only {hint.achieved} of the {hint.requested} {copies}' "
        f"buffers apart in {space}{on}: the function's {space} tiles packed together fit "
        f"no greater depth in its {hint.free} B{above_ring(hint)} ({hint.slot} B per "
        f"stage); co-resident: {co_residents(members, layout)}; stages {hint.achieved} "
        f"apart share storage and serialize{kept}"
    )


def _kept_apart(
    found: SpaceBuffers, members: Sequence[int], layout: ScopeLayout, group: int
) -> str:
    """:func:`.l0_memory.kept_apart` for a whole function's tiles of a space, naming the
    tiles of the group's first stage of its largest size."""
    if found.ir_depth is None:
        return ""
    tiles = layout.tiles
    size = max(tiles[n].bytes for n in members)
    first = min(s for n in members for g, s in tiles[n].membership if g == group)
    names = dict.fromkeys(
        layout.labels[n]
        for n in members
        if tiles[n].bytes == size and (group, first) in tiles[n].membership
    )
    return kept_apart(found, size, tuple(names))
