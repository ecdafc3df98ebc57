"""The memory passes as the driver's function stage runs them: 31 InitMemRef, 33
MemoryReuse and 34 AllocateMemoryAddr, each a function of a
:class:`~.core_function.CoreFunction` that returns it with its result added.

Each loop's loads are modelled alone (:class:`~.core_function.LoopMemory`): what they
cannot fit by themselves, the function cannot fit either. Where every Vec tile of the
InCore scope holding a loop is known (ConvertTensorToTileOps' conversions of its
statements: :mod:`skewlsp.analysis.passes.op_conversion`), the scope's Vec tiles are
also packed together (:class:`~.core_function.ScopeMemory`, ``LoopMemory.vec``): then a
loop's depth there is the whole function's. Left and Right are packed on their own too:
MemoryReuse packs each space apart, and skewlsp sees every L0 tile of a cube function's
matmuls (:mod:`.l0_tiles`), so those are laid out and packed once per outlined scope,
whole, and each loop of it reads the result (``LoopMemory.l0``). Mat is read off the
cube function's Mat loads (:mod:`.mat_tiles`, ``LoopMemory.mat``): where every one of
them fits in a buffer of its own, or MemoryReuse's packing of them laid out with their
lifetimes keeps a loop's stages apart, every stage there keeps its buffer. Under the
``ptoas`` planner pypto runs neither MemoryReuse nor AllocateMemoryAddr (ptoas places
the buffers): the passes leave the function alone.

The chip is the compiler's default, the Ascend910B (:data:`.chip.DEFAULT_CHIP`). Where a
scope's Vec tiles are known, so is the cross-core ring its vector core reserves at the
bottom of Vec (:mod:`.reserve_buffer`): its tiles are packed and placed above it. A
loop's loads alone are packed in the whole space: a reserved region only makes a space
smaller, so what overflows without one overflows with one.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import replace
from typing import Protocol

from skewlsp.analysis.lower_pipeline.chip import DEFAULT_CHIP
from skewlsp.analysis.lower_pipeline.loop_facts import ScopeMat
from skewlsp.analysis.lower_pipeline.lower_pipeline_to_slots import on_core
from skewlsp.analysis.memory.allocate_memory_addr import allocate_memory_addr, footprint
from skewlsp.analysis.memory.canonicalize_io_order import (
    LoopLowering,
    ReplicatedLoop,
    ScopeLayout,
    function_tiles,
    lowering_of,
    scope_layout,
    skewed_lowering,
)
from skewlsp.analysis.memory.core_function import (
    CoreFunction,
    FunctionLoop,
    LoopMemory,
    ScopeAlone,
    ScopeMemory,
)
from skewlsp.analysis.memory.l0_tiles import L0Memory, L0Tiles, l0_alone, l0_tiles
from skewlsp.analysis.memory.mat_tiles import (
    MatMemory,
    MatPacking,
    cube_ring,
    mat_memory,
    mat_packing,
)
from skewlsp.analysis.memory.memory_reuse import (
    ReuseResult,
    ReuseTile,
    ir_depths,
    memory_reuse,
)
from skewlsp.analysis.memory.reserve_buffer import reserved
from skewlsp.analysis.passes.scope_options import SPLIT_HALVES
from skewlsp.analysis.passes.scope_tile_ops import ScopeTiles
from skewlsp.analysis.passes.split_vector_kernel import replayed_per_lane
from skewlsp.contract import Span


class Packings(Protocol):
    """What keeps MemoryReuse's packing of a list of tiles for the analysis
    (``AnalysisState.syntactic_fact``, by the tiles and the reserved region)."""

    def __call__(self, key: Hashable, make: Callable[[], ReuseResult]) -> ReuseResult: ...


def replicated_loop(loop: FunctionLoop, core: str | None = None) -> ReplicatedLoop | str:
    """The loop as :func:`.canonicalize_io_order.function_tiles` reads it on ``core``
    (the loads landing on that core's copy of a mixed loop: ExpandMixedKernel gives the
    cube the slices its matmuls read), or why it cannot be: only a loop
    LowerPipelineLoops replicates, at the top of its function, with loads of static
    size, has stage groups skewlsp can lay out."""
    lowering = loop.lowering
    if lowering is None or lowering.verdict != "replicated" or lowering.stage is None:
        return "not replicated by LowerPipelineLoops"
    if lowering.nested > 1:
        return "inside a loop that is replicated or skewed: its groups are not modelled"
    scope = loop.facts.scope_tiles
    if core == "aiv" and scope is not None and scope.halved:
        return SPLIT_HALVES  # (a lane's loads are half those written)
    loads = tuple(load for load in loop.facts.slot_loads or () if on_core(load, core))
    if not loads:
        return "no load of its body is known"
    unsized = next((load.name for load in loads if load.size is None), None)
    if unsized is not None:
        return f"the size of the load of {unsized} is not static"
    return ReplicatedLoop(loads, lowering.stage, lowering.main_trip, lowering.tail)


def init_memref(function: CoreFunction) -> CoreFunction:
    """31 InitMemRef: each loop's loads as sized tiles, in CanonicalizeIOOrder's layout,
    and the whole function's Vec tiles where every one is known (:func:`vec_scope`)."""
    if function.planner != "pypto":
        return function
    found = []
    laid: dict[ScopeTiles, tuple[ScopeLayout | str, tuple[LoopLowering | str, ...]]] = {}
    for loop in function.loops:
        vec = vec_scope(function, loop, laid)
        replicated = replicated_loop(loop, function.core)
        if isinstance(replicated, str):
            found.append(LoopMemory(why=replicated, vec=vec))
            continue
        found.append(LoopMemory(replicated, function_tiles([replicated]), vec=vec))
    l0, mat = _l0_memory(function), _mat_memory(function)
    return replace(
        function,
        memory=tuple(replace(memory, l0=l0[n], mat=mat[n]) for n, memory in enumerate(found)),
    )


def vec_scope(
    function: CoreFunction,
    loop: FunctionLoop,
    laid: dict[ScopeTiles, tuple[ScopeLayout | str, tuple[LoopLowering | str, ...]]],
) -> ScopeMemory | None:
    """The Vec tiles of the InCore scope holding ``loop`` (the function the compiler
    outlines), laid out once per scope (``laid``: the loops of a scope hold equal
    records, each made with its own loop's folding): what
    ConvertTensorToTileOps makes of its statements, each loop as LowerPipelineLoops
    left it, once per lane where the AIV function runs on both. None on the cube core
    (no Vec tiles)."""
    written = loop.facts.scope_tiles
    if function.core == "aic" or written is None:
        return None
    lanes = 2 if loop.copies == 2 else 1  # (23 SplitVectorKernel's dual dispatch)
    scope = replayed_per_lane(written) if lanes == 2 else written
    found = laid.get(scope)
    if found is None:
        lowerings = tuple(_lowerings(function, written)) * lanes
        found = laid[scope] = (scope_layout(scope, lowerings), lowerings)
    layout, lowerings = found
    if isinstance(layout, str):
        return ScopeMemory("Vec", why=layout)
    where = loop.facts.scope_loop
    if not 0 <= where < len(layout.groups):
        return ScopeMemory("Vec", why="the loop is not one of its scope's")
    second = where + len(written.loops) if lanes == 2 else -1
    return ScopeMemory(
        "Vec",
        layout,
        groups=layout.groups[where],
        scope=scope,
        lowerings=lowerings,
        loop=where,
        second_loop=second,
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
            alone = l0_alone(loops[number], number, DEFAULT_CHIP)
            found.append(L0Memory(loop=number, why=tiles, alone=alone))
        else:
            found.append(L0Memory(tiles, number, loops=tuple(loops), scope=scope.scope))
    return found


def _mat_memory(function: CoreFunction) -> list[MatMemory | None]:
    """What the Mat tiles of each loop's outlined scope decide of its group in Mat
    (:mod:`.mat_tiles`), on the cube core: each pipeline loop's copies as this core's
    lowering writes them, the tiles packed once per scope."""
    if function.core != "aic":
        return [None] * len(function.loops)
    lowerings = {loop.own_span: loop.lowering for loop in function.loops}
    rewritten: dict[Span, LoopLowering] = {}  # (SkewCrossCorePipeline's loops on the cube)
    for loop in function.loops:
        if loop.verdict == "skewed" and loop.facts.skew is not None:
            rewritten[loop.own_span] = skewed_lowering(loop.facts.skew)
        elif loop.verdict == "demoted":  # (run as a sequential loop)
            rewritten[loop.own_span] = LoopLowering(())
    packed: dict[ScopeMat, MatPacking] = {}
    found: list[MatMemory | None] = []
    for loop in function.loops:
        scope = loop.facts.scope_mat
        if scope is None:
            found.append(None)
            continue
        if scope not in packed:
            held = cube_ring(scope, loop.facts.scope_tiles)
            packed[scope] = mat_packing(scope, lowerings, DEFAULT_CHIP, held, rewritten)
        found.append(mat_memory(scope, packed[scope], loop.own_span, DEFAULT_CHIP))
    return found


def _lowerings(function: CoreFunction, scope: ScopeTiles) -> list[LoopLowering | str]:
    """Each loop of ``scope`` as the layout reads it: a pipeline loop as this core's
    lowering left it (a string: why not known), a sequential loop as written, and so
    a copy the skew pass demotes on this core (a ``pl.range``: the vector copy of a loop
    whose cube half runs ahead, a loop demoted on both cores); the copy the skew runs
    ahead as its clones."""
    found: list[LoopLowering | str] = []
    mine = [f for f in function.loops if f.facts.scope_tiles == scope]
    for number, at in enumerate(scope.loops):
        if not at.pipeline:
            found.append(LoopLowering(()))
            continue
        loop = next((f for f in mine if f.facts.scope_loop == number), None)
        if loop is None and at.span is not None:  # (a copy that read no scope: demoted)
            loop = next((f for f in function.loops if f.span == at.span), None)
        if loop is not None and loop.verdict == "demoted":
            found.append(LoopLowering(()))
            continue
        vector_skew = loop.facts.vector_skew if loop is not None else None
        if loop is not None and loop.verdict == "skewed" and vector_skew is not None:
            found.append(skewed_lowering(vector_skew))  # (the vector copy runs ahead)
            continue
        nested_here = scope.enclosing_loop(number) >= 0
        found.append(lowering_of(loop.lowering if loop is not None else None, nested_here))
    return found


def reuse_memory(function: CoreFunction, packings: Packings | None = None) -> CoreFunction:
    """33 MemoryReuse: each modelled loop's loads packed into buffers (depth, hints), each
    known scope's Vec tiles packed together and its function's L0 tiles (each once per
    scope: each space on its own).

    ``packings``: where the analysis (or its batch) keeps a packing by its tiles (a pure
    function of them), asked before one is made. A loop's tiles are the same on both
    cores of a split loop, in each copy of a helper, in the module decided again under
    another build and in a batch's copies of one kernel: pypto-lib packs 164 distinct
    lists of tiles 773 times without it, and a cold serial lint takes 1.4% fewer
    instructions with it (benchmarks/README.md, "Cache layers")."""
    packed: dict[int, ReuseResult] = {}  # by the scope's one record, alive while this runs
    deeper: dict[int, dict[tuple[str, int], int]] = {}  # each L0 packing's IR depths, once
    found = []
    for memory in function.memory:
        if memory.tiles is not None:
            memory = replace(memory, reuse=_packing(memory.tiles.tiles, None, packings))
        vec = memory.vec
        if vec is not None and vec.layout is not None:
            held = reserved(vec.scope)
            reuse = _packed_once(packed, vec.layout, vec.layout.tiles, held, packings)
            memory = replace(memory, vec=replace(vec, reuse=reuse))
        l0 = memory.l0
        if l0 is not None and l0.tiles is not None:
            reuse = _packed_once(packed, l0.tiles, l0.tiles.tiles, None, packings)
            if id(l0.tiles) not in deeper:
                deeper[id(l0.tiles)] = ir_depths(reuse, l0.tiles.tiles)
            depths = deeper[id(l0.tiles)]
            memory = replace(memory, l0=replace(l0, reuse=reuse, ir_depths=depths))
        elif l0 is not None and l0.alone is not None:  # (the loop's own tiles only)
            alone = _packing(l0.alone.tiles, None, packings)
            memory = replace(memory, l0=replace(l0, alone_reuse=alone))
        found.append(memory)
    return replace(function, memory=tuple(found))


def allocate_memory(function: CoreFunction) -> CoreFunction:
    """34 AllocateMemoryAddr: each packed loop's buffers placed, its overflows found; a
    known scope's Vec tiles, and a cube function's Mat tiles, placed where MemoryReuse
    packed them the legacy way."""
    placed = []
    for found in function.memory:
        vec = found.vec
        if vec is not None and vec.layout is not None and vec.reuse and vec.reuse.fallbacks:
            slots = _slots(vec.layout.tiles, vec.reuse)
            allocation = allocate_memory_addr(slots, DEFAULT_CHIP, reserved(vec.scope))
            found = replace(found, vec=replace(vec, allocation=allocation))
        if found.tiles is not None and found.reuse is not None:
            slots = _slots(found.tiles.tiles, found.reuse)
            found = replace(found, allocation=allocate_memory_addr(slots, DEFAULT_CHIP))
        mat = _placed_mat(found.mat)
        if mat is not found.mat:
            found = replace(found, mat=mat)
        placed.append(found)
    return replace(function, memory=tuple(placed))


def _placed_mat(mat: MatMemory | None) -> MatMemory | None:
    """A cube function's Mat tiles placed where MemoryReuse packed them the legacy way
    (``mat`` as it is elsewhere)."""
    packing = mat.packing if mat is not None else None
    if mat is None or packing is None or packing.layout is None or packing.reuse is None:
        return mat
    if not packing.reuse.fallbacks:
        return mat
    slots = _slots(packing.layout.tiles, packing.reuse)
    held = {"Mat": packing.reserved} if packing.reserved else None
    return replace(mat, allocation=allocate_memory_addr(slots, DEFAULT_CHIP, held))


def _slots(tiles: Sequence[ReuseTile], reuse: ReuseResult) -> dict[str, list[int]]:
    """Per space, each buffer's bytes: its largest tile's."""
    return {
        space: [max(tiles[i].bytes for i in members) for members in buffers]
        for space, buffers in reuse.buffers.items()
    }


def scope_alone(scope: ScopeTiles, planner: str = "pypto") -> ScopeAlone | None:
    """31, 33 and 34 over the Vec tiles of an InCore scope that holds no pipeline loop
    (its sequential loops run as written), or None when there is nothing to say: a
    planner that runs neither MemoryReuse nor AllocateMemoryAddr (ptoas), a tile not
    known, or tiles that fit each in a buffer of its own (no packing can overflow then,
    so none is made: most scopes stop here)."""
    if planner != "pypto" or scope.unknown is not None:
        return None
    if any(loop.pipeline for loop in scope.loops):
        return None  # (a scope with a pipeline loop is its loops' function's)
    layout = scope_layout(scope, [LoopLowering(()) for _ in scope.loops])
    if isinstance(layout, str):
        return None
    capacity, held = DEFAULT_CHIP.capacity("Vec"), reserved(scope)
    bytes_ = [tile.bytes for tile in layout.tiles]
    if footprint(bytes_, DEFAULT_CHIP, held.get("Vec", 0)) <= capacity:
        return None
    reuse = memory_reuse(layout.tiles, DEFAULT_CHIP, held)
    allocation = allocate_memory_addr(_slots(layout.tiles, reuse), DEFAULT_CHIP, held)
    return ScopeAlone(layout, reuse, allocation)


def _packed_once(
    packed: dict[int, ReuseResult],
    layout: object,
    tiles: Sequence[ReuseTile],
    held: Mapping[str, int] | None = None,
    packings: Packings | None = None,
) -> ReuseResult:
    """MemoryReuse's packing of a scope's one layout, which each of its loops' records
    shares (``packed``: by the layout's id, while the function stage runs; ``held``:
    the reserved region's end per space)."""
    reuse = packed.get(id(layout))
    if reuse is None:
        reuse = packed[id(layout)] = _packing(tiles, held, packings)
    return reuse


def _packing(
    tiles: Sequence[ReuseTile], held: Mapping[str, int] | None, packings: Packings | None
) -> ReuseResult:
    """:func:`.memory_reuse.memory_reuse` of ``tiles`` on the default chip, kept by
    ``packings`` when given (by everything it reads: the tiles and the reserved region)."""
    if packings is None:
        return memory_reuse(tiles, DEFAULT_CHIP, held)
    key = (memory_reuse, tuple(tiles), tuple(sorted(held.items())) if held else ())
    return packings(key, lambda: memory_reuse(tiles, DEFAULT_CHIP, held))
