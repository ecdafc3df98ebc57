"""Which copy of a replicated loop uses which buffer (issue #41): what the preview shows
next to the lowered loop (put on the report by :mod:`.finish`).

The function stage leaves, per core function, what 31 InitMemRef, 33 MemoryReuse and 34
AllocateMemoryAddr make of each loop's loads alone
(:class:`~skewlsp.analysis.memory.core_function.LoopMemory`): the tiles laid out as
CanonicalizeIOOrder leaves them, each with its origin (region, copy, load), MemoryReuse's
buffers and AllocateMemoryAddr's addresses. Here that becomes a
:class:`~skewlsp.contract.BufferAssignment` per core copy: one
:class:`~skewlsp.contract.LoadBuffer` per load of each copy, or the passes' own reason
when they did not model the loop (never a guess in its place).
"""

from __future__ import annotations

from typing import Literal, cast

from skewlsp.analysis.memory.core_function import LoopMemory
from skewlsp.contract import BufferAssignment, LoadBuffer

# Why there is no assignment under the ptoas planner (function_passes leave it alone).
PTOAS = (
    'memory-planner = "ptoas": pypto runs neither MemoryReuse nor AllocateMemoryAddr, '
    "ptoas places the buffers"
)


def buffer_assignment(memory: LoopMemory | None, planner: str) -> BufferAssignment | None:
    """The buffer of each load of each copy of the loop (``memory``: the passes' record
    of it on one core function, None when they have none) under ``planner``; None when
    the passes never saw the loop."""
    if planner != "pypto":
        return BufferAssignment(why=PTOAS)
    if memory is None:
        return None
    if memory.why is not None:
        return BufferAssignment(why=memory.why)
    if memory.tiles is None or memory.reuse is None:
        return None
    allocation = memory.allocation
    stopped = {o.space for o in allocation.overflows} if allocation is not None else set()
    loads = []
    for index, (tile, origin) in enumerate(
        zip(memory.tiles.tiles, memory.tiles.origins, strict=True)
    ):
        found = memory.reuse.buffer_of(index)
        if found is None:
            continue
        space, number = found
        offset = None
        if allocation is not None and space not in stopped and space in allocation.addresses:
            offset = allocation.addresses[space][number]
        region = cast(Literal["main", "tail"], origin.region)
        loads.append(
            LoadBuffer(region, origin.clone, origin.load, space, number, tile.bytes, offset)
        )
    return BufferAssignment(tuple(loads))

