"""``system.reserve_buffer``: the region of a core's memory the cross-core ring keeps,
which MemoryReuse and AllocateMemoryAddr place every tile above
(``include/pypto/ir/transforms/utils/reserve_buffer_utils.h``,
``ResolveReserveBufferBases``: the space's reserved end, aligned).

ExpandMixedKernel builds the ring of a mixed function (``BuildAutomaticPipeSetup``,
``src/ir/transforms/utils/cross_core_pipe.cpp``): each direction's buffer is reserved on
its consumer, the cube -> vector one in the vector core's Vec, ``slot_num`` slots of the
largest tile crossing (``slot_num=`` of the scope, else ``kDefaultAutoPipeSlotNum``, 2).
Both directions share one slot size, the largest tile crossing either way
(``GetCommonSlotSizeBytes``): the tiles the vector pops and those it pushes
(:mod:`skewlsp.analysis.passes.op_conversion`). The vector -> cube buffer is the cube
core's, in Mat, as large (:func:`reserved_on_cube`).
"""

from __future__ import annotations

from skewlsp.analysis.lower_pipeline.chip import DEFAULT_CHIP, Chip
from skewlsp.analysis.passes.scope_tile_ops import ScopeTiles

DEFAULT_SLOT_NUM = 2  # kDefaultAutoPipeSlotNum (cross_core_pipe.h)


def reserved(scope: ScopeTiles | None, chip: Chip = DEFAULT_CHIP) -> dict[str, int]:
    """Per space, where the vector core's reserved region of ``scope``'s function ends
    (empty: nothing is reserved, no tile crosses from the cube)."""
    if scope is None or not scope.popped:
        return {}
    return {"Vec": _ring_buffer(scope, chip)}


def reserved_on_cube(scope: ScopeTiles | None, chip: Chip = DEFAULT_CHIP) -> dict[str, int]:
    """Per space, where the cube core's reserved region of ``scope``'s function ends: the
    vector -> cube buffer in Mat, where the vector pushes a tile to the cube (empty:
    none is pushed)."""
    if scope is None or not scope.pushed:
        return {}
    return {"Mat": _ring_buffer(scope, chip)}


def _ring_buffer(scope: ScopeTiles, chip: Chip) -> int:
    """Either direction's buffer: ``slot_num`` slots of the largest tile crossing either
    way (``BuildAutomaticPipeSetup``'s ``buffer_size``), aligned."""
    slots = scope.slot_num if scope.slot_num is not None else DEFAULT_SLOT_NUM
    return chip.align(slots * max(scope.popped + scope.pushed))
