"""InitMemRef (pass doc 31, ``src/ir/transforms/init_memref.cpp``): each tile's buffer.

The pass gives every tile-typed variable a MemRef in its memory space: a fresh buffer
(``CreateMemRef``, lines 349-378) sized by ``StaticPhysicalAllocationBytes``
(``include/pypto/ir/transforms/utils/l0c_footprint.h`` lines 66-110: the element count
times the element's storage bits, 4-bit types packed; in Acc the rows rounded up to the
chip's row group first), or, for the result of a view op (slice, reshape, ... : an op
whose output inherits its input's memory), the buffer of the tile it views, at an
offset (``ShareMemRefFrom``, lines 468-525). ``tile.transpose`` inherits nothing: its
output always gets a buffer of its own (lines 72-76). A tile whose shape is not a
constant has no size: the compiler stops (an internal check, lines 357-366), and so
this model says None.

What the memory passes after it need of a view is only that it holds no buffer of its
own: a buffer is as large as its largest member, and the tile a view is taken from is
at least as large as the view. The element sizes and the slot size are LowerPipelineToSlots' own
(:func:`skewlsp.analysis.lower_pipeline.slot_capacity.slot_bytes`): one fact, one place.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from skewlsp.analysis.lower_pipeline.chip import DEFAULT_CHIP, Chip
from skewlsp.analysis.lower_pipeline.slot_capacity import slot_bytes


@dataclass(frozen=True)
class TileShape:
    """A tile as InitMemRef sees it: its static shape (None: an extent known only at run
    time), element type, memory space, and the tile it is a view of (an index into the
    function's tiles; None: it needs a buffer of its own)."""

    extents: tuple[int, ...] | None
    dtype: str
    space: str
    view_of: int | None = None


@dataclass(frozen=True)
class MemRef:
    """A tile's buffer: which one (``base``, numbered in program order per function) and
    its bytes (a view's are its buffer's)."""

    base: int
    space: str
    bytes: int


def allocation_bytes(
    extents: Sequence[int], dtype: str, space: str, chip: Chip = DEFAULT_CHIP
) -> int | None:
    """The bytes a tile of ``extents`` x ``dtype`` takes in ``space`` (None: a shape or
    type the compiler cannot size): LowerPipelineToSlots' slot size, with ``chip``'s
    accumulator row group."""
    return slot_bytes(extents, dtype, space, chip.acc_row_group(dtype))


def init_memrefs(
    tiles: Sequence[TileShape], chip: Chip = DEFAULT_CHIP
) -> list[MemRef | None]:
    """Each tile's MemRef, in order: a new buffer per tile that is not a view, a view
    its source's. None for a tile with no static size (the compiler stops there) and
    for a view of such a tile."""
    refs: list[MemRef | None] = []
    next_base = 0
    for tile in tiles:
        if tile.view_of is not None:
            refs.append(refs[tile.view_of] if 0 <= tile.view_of < len(refs) else None)
            continue
        size = (
            allocation_bytes(tile.extents, tile.dtype, tile.space, chip)
            if tile.extents is not None
            else None
        )
        if size is None:
            refs.append(None)
            continue
        refs.append(MemRef(next_base, tile.space, size))
        next_base += 1
    return refs
