"""The memory passes as the driver's function stage runs them: 31 InitMemRef, 33
MemoryReuse and 34 AllocateMemoryAddr, each a function of a
:class:`~.core_function.CoreFunction` that returns it with its result added.

Each loop is modelled alone (:class:`~.core_function.LoopMemory`): its loads are all
skewlsp sees of a function's tiles (not the tiles the body computes, not a matmul's L0
operands, not the tiles outside the loops), so a result of the whole function would
claim more than is known. What a loop's loads cannot fit by themselves, the function
cannot fit either. Under the ``ptoas`` planner pypto runs neither MemoryReuse nor
AllocateMemoryAddr (ptoas places the buffers): the passes leave the function alone.

The chip is the compiler's default, the Ascend910B (:data:`.chip.DEFAULT_CHIP`), and no
region is reserved (``system.reserve_buffer`` is not seen): a reserved region only
makes a space smaller, so what overflows without one overflows with one.
"""

from __future__ import annotations

from dataclasses import replace

from skewlsp.analysis.lower_pipeline.chip import DEFAULT_CHIP
from skewlsp.analysis.memory.allocate_memory_addr import allocate_memory_addr
from skewlsp.analysis.memory.canonicalize_io_order import ReplicatedLoop, function_tiles
from skewlsp.analysis.memory.core_function import CoreFunction, FunctionLoop, LoopMemory
from skewlsp.analysis.memory.memory_reuse import memory_reuse


def replicated_loop(loop: FunctionLoop) -> ReplicatedLoop | str:
    """The loop as :func:`.canonicalize_io_order.function_tiles` reads it, or why it
    cannot be: only a loop LowerPipelineLoops replicates, at the top of its function,
    with loads of static size, has stage groups skewlsp can lay out."""
    lowering = loop.lowering
    if lowering is None or lowering.verdict != "replicated" or lowering.stage is None:
        return "not replicated by LowerPipelineLoops"
    if lowering.nested > 1:
        return "inside a loop that is replicated or skewed: its groups are not modelled"
    loads = loop.facts.slot_loads
    if not loads:
        return "no load of its body is known"
    unsized = next((load.name for load in loads if load.size is None), None)
    if unsized is not None:
        return f"the size of the load of {unsized} is not static"
    return ReplicatedLoop(loads, lowering.stage, lowering.main_trip, lowering.tail)


def init_memref(function: CoreFunction) -> CoreFunction:
    """31 InitMemRef: each loop's loads as sized tiles, in CanonicalizeIOOrder's layout."""
    if function.planner != "pypto":
        return function
    found = []
    for loop in function.loops:
        replicated = replicated_loop(loop)
        if isinstance(replicated, str):
            found.append(LoopMemory(why=replicated))
            continue
        found.append(LoopMemory(replicated, function_tiles([replicated])))
    return replace(function, memory=tuple(found))


def reuse_memory(function: CoreFunction) -> CoreFunction:
    """33 MemoryReuse: each modelled loop's loads packed into buffers (depth, hints)."""
    return replace(
        function,
        memory=tuple(
            replace(found, reuse=memory_reuse(found.tiles.tiles, DEFAULT_CHIP))
            if found.tiles is not None
            else found
            for found in function.memory
        ),
    )


def allocate_memory(function: CoreFunction) -> CoreFunction:
    """34 AllocateMemoryAddr: each packed loop's buffers placed, its overflows found."""
    placed = []
    for found in function.memory:
        if found.tiles is None or found.reuse is None:
            placed.append(found)
            continue
        tiles = found.tiles.tiles
        slots = {
            space: [max(tiles[i].bytes for i in members) for members in buffers]
            for space, buffers in found.reuse.buffers.items()
        }
        placed.append(replace(found, allocation=allocate_memory_addr(slots, DEFAULT_CHIP)))
    return replace(function, memory=tuple(placed))
