"""What the function's Mat tiles give the cube copy of a loop SkewCrossCorePipeline
skews, said (issue #41).

The skew's clones carry its own stage group (``MembershipTagger``: clone i of either
half in stage i of D), and MemoryReuse's guard keeps them apart in Mat as it does a
replicated loop's. :mod:`skewlsp.analysis.memory.mat_tiles` lays the function's Mat tiles
out with the skew's clones (its prologue, steady loop and epilogue:
:meth:`.canonicalize_io_order._Layout.skewed`) above the vector -> cube ring's buffer,
and packs them; here that becomes the copy's Mat record and the findings it makes
certain: SKW080 (PH-MR-001) where MemoryReuse sheds the skew's group, slot-bound or
space-pressure; SKW082 where it falls back to its legacy packing; SKW081 where that
packing overflows L1 and AllocateMemoryAddr stops the compile. Checked against the
compiler on ``benchmarks/random_kernels.py --family attention`` and on
tests/fixtures/memory/models/mem_llm/skewed_weights.py. Where the function's Mat tiles
are not known, or not laid out, the record says why.
"""

from __future__ import annotations

from skewlsp.analysis.memory.core_function import LoopMemory
from skewlsp.analysis.memory.mat_tiles import MatMemory
from skewlsp.analysis.report.legacy_packing import whole_fallback
from skewlsp.analysis.report.shed_words import group_members, ir_depth_beyond, shed_words
from skewlsp.contract import DEPTH_REDUCED, Finding, SpaceBuffers, Span

MAT = "Mat"


def skewed_mat(
    memory: LoopMemory, depth: int, where: Span, on: str
) -> tuple[list[SpaceBuffers], list[Finding]]:
    """The skewed cube copy's stage group in Mat (``depth``: the skew's D, its clones'
    stages): its record, and the findings the function's Mat tiles, every one known and
    laid out with the skew's clones, make certain."""
    mat = memory.mat
    if mat is None:  # (its matmuls are read, not all seen: no Mat tile is looked for)
        return [_not_known(depth, "the loop's matmuls are not all seen")], []
    if mat.why is not None and not mat.total:
        return [_not_known(depth, f"the function's Mat tiles are not known: {mat.why}")], []
    if mat.fits:  # (every stage kept apart: in buffers of their own, or packed)
        return [SpaceBuffers(MAT, mat.slot, depth, depth, None, True)], []
    fallen = whole_fallback(memory, (MAT, mat.slot, depth), where, on)
    return fallen if fallen is not None else _shed(mat, depth, where, on)


def _shed(
    mat: MatMemory, depth: int, where: Span, on: str
) -> tuple[list[SpaceBuffers], list[Finding]]:
    """The group MemoryReuse keeps fewer of its stages apart than it asks, with no
    fallback: its PH-MR-001 at the loop (SKW080)."""
    packing, group = mat.packing, mat.group
    if packing is None or packing.layout is None or packing.reuse is None or group is None:
        why = mat.why or "the skew's clones are not laid out"
        return [_not_known(depth, f"the function's Mat tiles do not fit apart: {why}")], []
    layout, reuse = packing.layout, packing.reuse
    hint = next((h for h in reuse.hints if (h.space, h.group) == (MAT, group)), None)
    if hint is None:
        return [_not_known(depth, "the skew's group has no stage in Mat")], []
    members = group_members(layout.tiles, group)
    deeper = ir_depth_beyond(hint, reuse, layout.tiles)
    found = SpaceBuffers(
        MAT, mat.slot, hint.requested, hint.achieved, hint.cause, True, ir_depth=deeper
    )
    message = shed_words(hint, found, (members, layout), on)
    return [found], [Finding(DEPTH_REDUCED, message, where, buffers=found)]


def _not_known(depth: int, why: str) -> SpaceBuffers:
    """The copy's record in Mat where its depth there is not known, and why."""
    return SpaceBuffers(MAT, 0, depth, reason=f"not known: {why}")
