"""MemoryReuse's legacy fallback and AllocateMemoryAddr's overflow of a loop's space, said
(issue #41): SKW082 where MemoryReuse fits a space at no depth and falls back to its
legacy packing (its own warning, which a buffer larger than the whole space silences),
SKW081 where that packing, every tile of the function known, overflows it (the buffers
that take the space, above the cube -> vector ring where one is reserved). The loop's
report puts them together in :mod:`.memory`, a loop copy that asks for no stage buffers
through :func:`unstaged_copy`; an InCore scope without a pipeline loop says them in
:mod:`.scope_memory`.
"""

from __future__ import annotations

from dataclasses import replace

from skewlsp.analysis.lower_pipeline.chip import DEFAULT_CHIP
from skewlsp.analysis.memory.allocate_memory_addr import Allocation
from skewlsp.analysis.memory.canonicalize_io_order import ScopeLayout
from skewlsp.analysis.memory.core_function import LoopMemory
from skewlsp.analysis.memory.memory_reuse import LegacyFallback, ReuseResult
from skewlsp.analysis.memory.reserve_buffer import reserved
from skewlsp.contract import LEGACY_FALLBACK, MEMORY_OVERFLOW, Finding, SpaceBuffers, Span

# An overflow record's reason where not the loads alone overflow the space (SKW081).
LEGACY_OVERFLOW = "the function's tiles, packed the legacy way, overflow"
CO_RESIDENTS = 4  # the tiles a finding names of those taking a space, largest first


# The whole function's tiles of a space, every one known: their layout, MemoryReuse's
# packing of them, AllocateMemoryAddr's placement where it fell back, the ring's bytes.
_Whole = tuple[ScopeLayout, ReuseResult, Allocation | None, int]


def _whole_packing(memory: LoopMemory, space: str) -> _Whole | None:
    """The whole function's packing of ``space`` where every tile there is known: Vec's
    (the scope's tiles), or Mat's of a cube function whose Mat tiles do not fit apart."""
    vec, mat = memory.vec, memory.mat
    if vec is not None and vec.space == space and vec.layout is not None and vec.reuse:
        return vec.layout, vec.reuse, vec.allocation, reserved(vec.scope).get(space, 0)
    packing = mat.packing if mat is not None and space == "Mat" else None
    if packing is not None and packing.layout is not None and packing.reuse is not None:
        return packing.layout, packing.reuse, mat.allocation if mat else None, packing.reserved
    return None


def certain_fallback(memory: LoopMemory, space: str) -> tuple[LegacyFallback | None, str]:
    """MemoryReuse's legacy fallback in ``space`` where it is certain, and what makes it
    so: the loop's loads alone fit at no depth (the whole function cannot either), or
    the whole function's tiles there, every one known, do not."""
    alone = memory.reuse.fallbacks if memory.reuse is not None else ()
    found = next((f for f in alone if f.space == space), None)
    packed = _whole_packing(memory, space)
    whole = None
    if packed is not None:
        whole = next((f for f in packed[1].fallbacks if f.space == space), None)
    if found is not None:
        if whole is not None:
            # Whether MemoryReuse warns is the whole function's legacy packing's: one of
            # its buffers larger than the space (a widened copy of a load, a resident
            # tile) silences the warning, however the loads alone would pack.
            found = replace(found, warned=whole.warned)
        return found, "the loop's loads alone"
    return whole, f"the function's {space} tiles packed together"


def group_slot(memory: LoopMemory, space: str) -> int | None:
    """The slot of the loop's first stage group in ``space`` among the whole function's
    tiles there (its largest member, aligned), where every one is known."""
    if space == "Mat" and memory.mat is not None and memory.mat.slot:
        return memory.mat.slot
    vec = memory.vec
    if vec is None or vec.space != space or vec.layout is None or not vec.groups:
        return None
    tiles, group = vec.layout.tiles, vec.groups[0]
    sizes = [t.bytes for t in tiles if any(g == group for g, _ in t.membership)]
    return DEFAULT_CHIP.align(max(sizes)) if sizes else None


def legacy_overflow(memory: LoopMemory, space: str, on: str) -> tuple[int, str] | None:
    """The bytes AllocateMemoryAddr finds used and SKW081's message, where the function's
    tiles in ``space``, every one known and packed the legacy way, overflow it (its
    placement of them); None where they fit or are not known."""
    packed = _whole_packing(memory, space)
    if packed is None:
        return None
    layout, reuse, allocation, ring = packed
    overflows = allocation.overflows if allocation is not None else ()
    overflow = next((o for o in overflows if o.space == space), None)
    if overflow is None:
        return None
    count = len(reuse.buffers.get(space, ()))
    buffers = (
        "its buffer (named by its largest tile: "
        if count == 1
        else (f"its {count} buffers (each named by its largest tile: ")
    )
    above = f", above the {ring} B the {ring_way(space)} ring reserves," if ring else ""
    return overflow.used, (
        f"{LEGACY_OVERFLOW} {space}{on}: {buffers}{taking(layout, reuse, space)})"
        f"{above} {'needs' if count == 1 else 'need'} {overflow.used} B of its "
        f"{overflow.limit} B; AllocateMemoryAddr "
        f'stops the compile ("{overflow.message}")'
    )


def ring_way(space: str) -> str:
    """Which way the cross-core ring whose buffer ``space``'s core reserves carries tiles:
    the cube reserves the vector -> cube ring's in Mat, the vector the other's in Vec."""
    return "vector -> cube" if space == "Mat" else "cube -> vector"


def unstaged_copy(
    memory: LoopMemory, space: str, where: Span, on: str
) -> tuple[list[SpaceBuffers], list[Finding]]:
    """A loop copy with no stage group among the whole function's tiles of ``space``
    (a copy a skew demotes to a sequential loop: the vector's in Vec, the cube's in Mat):
    it asks for no buffers of its own, but its function is packed and placed as every
    function is. MemoryReuse's legacy fallback (SKW082) and AllocateMemoryAddr's stop
    (SKW081), where the whole function's tiles, every one known, make them certain; a
    record with no stages (``requested`` 0) says which. Nothing where they fit."""
    if _whole_packing(memory, space) is None:
        return [], []
    return whole_fallback(memory, (space, 0, 0), where, on) or ([], [])


def whole_fallback(
    memory: LoopMemory, asked: tuple[str, int, int], where: Span, on: str
) -> tuple[list[SpaceBuffers], list[Finding]] | None:
    """SKW082 and SKW081 where MemoryReuse's fallback in a space is certain (``asked``:
    the space, the record's bytes per stage and the stages asking), with the record that
    says which: "legacy", or "overflow" where that packing does not fit either; None
    where there is no certain fallback."""
    space, stage_bytes, requested = asked
    fallback, basis = certain_fallback(memory, space)
    if fallback is None:
        return None
    legacy = SpaceBuffers(space, stage_bytes, requested, None, "legacy", True)
    findings = []
    if fallback.warned:
        words = legacy_words(fallback, basis, on)
        findings.append(Finding(LEGACY_FALLBACK, words, where, buffers=legacy))
    overflow = legacy_overflow(memory, space, on)
    if overflow is None:
        return [legacy], findings
    record = SpaceBuffers(space, stage_bytes, requested, None, "overflow", True, LEGACY_OVERFLOW)
    findings.append(Finding(MEMORY_OVERFLOW, overflow[1], where, buffers=record))
    return [record], findings


def taking(layout: ScopeLayout, reuse: ReuseResult, space: str) -> str:
    """The tiles that take ``space``: each buffer's largest (its size), in the buffers'
    order, the first few named and the rest counted."""
    tiles, labels = layout.tiles, layout.labels
    named = []
    for members in reuse.buffers.get(space, ()):
        largest = max(members, key=lambda n: tiles[n].bytes)
        named.append(f"{labels[largest]} {tiles[largest].bytes} B")
    shown = ", ".join(named[:CO_RESIDENTS])
    more = len(named) - CO_RESIDENTS
    return f"{shown} and {more} more" if more > 0 else shown


def legacy_words(fallback: LegacyFallback, basis: str, on: str) -> str:
    """SKW082's message: the compiler's own warning, and what skewlsp knows it from."""
    why = (
        "at any double-buffering depth"
        if fallback.within_budget
        else ("within the shed-repack budget")
    )
    also = (
        " (which also overflows — reduce tile size or stage count)"
        if fallback.still_overflows
        else ""
    )
    return (
        f"MemoryReuse fits {fallback.space}{on} at no depth ({basis} overflow it at every "
        f"depth it tries) and falls back to its legacy packing: "
        f'"capacity-gated reuse could not fit memory space {fallback.space} {why}; fell '
        f'back to the legacy packing{also}."'
    )
