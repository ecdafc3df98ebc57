"""The memory passes as the driver's function stage runs them: 31 InitMemRef, 33
MemoryReuse and 34 AllocateMemoryAddr, each a function of a
:class:`~.core_function.CoreFunction` that returns it with its result added.

Each loop's loads are modelled alone (:class:`~.core_function.LoopMemory`): they are
all skewlsp sees of a function's Vec and Mat tiles (not the tiles the body computes,
not the tiles outside the loops), so a result of the whole function would claim more
than is known. What a loop's loads cannot fit by themselves, the function cannot fit
either. Left and Right are another matter: MemoryReuse packs each space on its own, and
skewlsp sees every L0 tile of a cube function's matmuls (:mod:`.l0_tiles`), so those
are laid out and packed once per outlined scope, whole, and each loop of it reads the
result (``LoopMemory.l0``). Under the ``ptoas`` planner pypto runs neither MemoryReuse nor
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
from skewlsp.analysis.memory.l0_tiles import L0Memory, L0Tiles, l0_tiles
from skewlsp.analysis.memory.memory_reuse import ReuseResult, memory_reuse


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
    l0 = _l0_memory(function)
    return replace(
        function,
        memory=tuple(replace(memory, l0=l0[n]) for n, memory in enumerate(found)),
    )


def _l0_memory(function: CoreFunction) -> list[L0Memory | None]:
    """Each loop's view of the Left and Right tiles of its outlined scope's matmuls,
    laid out once per scope (:func:`.l0_tiles.l0_tiles`); only a cube function has
    them."""
    if function.core == "aiv":
        return [None] * len(function.loops)
    loops = [(loop.facts, loop.lowering) for loop in function.loops]
    by_scope: dict[int, L0Tiles | str | None] = {}
    found: list[L0Memory | None] = []
    for number, loop in enumerate(function.loops):
        scope, matmuls = loop.facts.scope_matmuls, loop.facts.matmuls
        if scope is None or matmuls is None or not (matmuls.sites or matmuls.unknown):
            found.append(None)
            continue
        if scope.scope not in by_scope:
            by_scope[scope.scope] = l0_tiles(loops, scope.scope, DEFAULT_CHIP)
        tiles = by_scope[scope.scope]
        if tiles is None:
            found.append(None)
        elif isinstance(tiles, str):
            found.append(L0Memory(loop=number, why=tiles))
        else:
            found.append(L0Memory(tiles, number))
    return found


def reuse_memory(function: CoreFunction) -> CoreFunction:
    """33 MemoryReuse: each modelled loop's loads packed into buffers (depth, hints), and
    its function's L0 tiles (packed once per scope: each space on its own)."""
    packed: dict[int, ReuseResult] = {}
    memory = []
    for found in function.memory:
        if found.tiles is not None:
            found = replace(found, reuse=memory_reuse(found.tiles.tiles, DEFAULT_CHIP))
        l0 = found.l0
        if l0 is not None and l0.tiles is not None:
            key = id(l0.tiles)  # (the scope's one record, alive while this runs)
            if key not in packed:
                packed[key] = memory_reuse(l0.tiles.tiles, DEFAULT_CHIP)
            found = replace(found, l0=replace(l0, reuse=packed[key]))
        memory.append(found)
    return replace(function, memory=tuple(memory))


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
