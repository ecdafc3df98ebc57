"""The Left (L0A) and Right (L0B) tiles of a cube function's matmuls, for MemoryReuse.

Every matmul's matrix operands reach the cube through L0: InferTileMemorySpace
(``infer_tile_memory_space_pass.cpp``) moves a whole operand from Mat into Left or
Right, unless AutoTileMatmulL0 (``auto_tile_matmul_l0_pass.cpp``, run before it) has
rewritten the matmul into a K loop of L0 slices: ``ChooseL0Tile``
(:mod:`skewlsp.analysis.passes.l0_tile_chooser`) picks ``(m, n, k)`` for the matmul
with the backend's L0 sizes and cost model; the whole ``(M, N, K)`` leaves it alone; a
``k < K`` with the whole ``m, n`` makes a ``pl.pipeline(0, K, k, stage=2)`` whose body
extracts ``[M, k]`` into Left and ``[k, N]`` into Right. LowerPipelineLoops replicates
that K loop (its own stage group; its remainder another) before the user's loop around
it, whose clones then copy it: each slice is in the K loop's group and in the user
loop's. MemoryReuse packs each space on its own (``memory_reuse_pass.cpp``), so the
function's Left and Right tiles decide their depths whatever its Vec and Mat tiles are.

Laid out as the lowered code runs, each region after the one before: per user loop in
source order, its regions (the main loop's ``stage`` clones, then the remainder's
copies), per clone its matmuls in program order (an ``if``'s branches one after the
other), per matmul its two whole operands (read by it next; one block's matmuls share a
move, :mod:`.l0_moves`) or its K loop (CanonicalizeIOOrder puts both clones' extracts
ahead of their matmuls, so all four are live at once; a remainder copy after it). Groups
are numbered as LowerPipelineLoops meets the loops: a user loop's K loops before the
user loop's own regions (only ties of MemoryReuse's shed read the numbers). A loop
SkewCrossCorePipeline rewrites on the cube is laid out as its clones (:func:`_skewed`):
they carry the skew's own group (numbered from ``1 << 20``, after all of
LowerPipelineLoops'), and each clone's K loops are lowered one group each; a consumer-
half operand the vector made and the cube pops is shaped from the body
(:mod:`skewlsp.analysis.passes.cube_operands`), and so is such an operand of a
replicated loop's matmul, or a tile made before the loop.

Not modelled, and said so (the function's L0 tiles are then not known): a matmul
outside the function's pipeline loops or in a nested block, a call whose ops are not
seen (an inline helper), an operand that is neither a static load of the body nor a
tile of known shape it computes or the scope makes before it, a move into L0 not
modelled (:mod:`.l0_moves`), other cube ops, a tile ``ChooseL0Tile`` splits in M or N
or whose K it peels, a loop nested in a replicated or skewed loop, a remainder
known only at run time beyond ``stage=2`` (an ``if`` chain of several branches; at
``stage=2`` it is one copy after the loop). An operand of a matmul outside the loops, or
in a branch of an ``if`` of a loop body, is the binding of its name before the matmul in
its block (a name bound in two blocks, or twice in one, is a tile per binding). What is
modelled is the default planner's: the PTOAS planner skips MemoryReuse.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property

import libcst as cst

from skewlsp.analysis.frontend.names import block_defs, body_statements, statement_defs
from skewlsp.analysis.lower_pipeline.chip import DEFAULT_CHIP, DTYPE_BYTES, L0_FRACTAL, Chip
from skewlsp.analysis.lower_pipeline.loop_facts import (
    CubeScope,
    LoopFacts,
    OutsideMatmul,
    SkewClones,
    SlotLoad,
)
from skewlsp.analysis.lower_pipeline.lower_pipeline_loops import lower, replicated_regions
from skewlsp.analysis.lower_pipeline.slot_loads import UsesOf, calls_of, statement_loads
from skewlsp.analysis.memory.init_memref import allocation_bytes
from skewlsp.analysis.memory.l0_moves import ONE_MOVE, Shares, shared_moves
from skewlsp.analysis.memory.memory_reuse import ReuseResult, ReuseTile
from skewlsp.analysis.passes.auto_tile_matmul_l0 import scope_matmuls
from skewlsp.analysis.passes.body import BodyMatmuls, MatmulSite
from skewlsp.analysis.passes.convert_tensor_to_tile_ops import Fold, LoopSurroundings, Tensor
from skewlsp.analysis.passes.cube_operands import block_operand
from skewlsp.analysis.passes.l0_tile_chooser import choose_l0_tile
from skewlsp.analysis.passes.simplify import kept_by_fold
from skewlsp.contract import Lowering

L0_SPACES = ("Left", "Right")


@dataclass(frozen=True)
class L0Tiling:
    """What AutoTileMatmulL0 makes of one matmul: its L0 slice shapes ``(m, n, k)`` of
    the whole ``(M, N, K)`` (``whole``: left as it is), and the element types."""

    site: MatmulSite
    whole: tuple[int, int, int]
    tile: tuple[int, int, int]
    dtypes: tuple[str, str]
    shares: Shares = (None, None)  # per operand moved whole: whose move it reads (index)

    @property
    def k_trip(self) -> int:
        """Iterations of its K loop (1: no K loop)."""
        return self.whole[2] // self.tile[2]


@dataclass(frozen=True)
class L0Group:
    """A stage group with tiles in Left or Right: the user loop it belongs to (its index
    in the function's loops), "main" or "tail" of that loop, or "k-main" / "k-tail" of
    the K loop AutoTileMatmulL0 makes for ``site`` (a matmul of that loop)."""

    loop: int
    kind: str
    site: MatmulSite | None = None


@dataclass(frozen=True)
class L0Tiles:
    """A cube function's Left and Right tiles in program order, each tile's group
    numbers in ``groups`` (by id), and each loop's matmul tilings (by loop index)."""

    tiles: tuple[ReuseTile, ...]
    groups: tuple[L0Group, ...]
    tilings: dict[int, tuple[L0Tiling, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class L0Memory:
    """What the memory passes make of the L0 tiles of a loop's function (shared by the
    loops of one outlined scope): the tiles, the loop's index among the function's
    loops, MemoryReuse's packing of them (after 33), or why they are not known."""

    tiles: L0Tiles | None = None
    loop: int = 0
    reuse: ReuseResult | None = None
    why: str | None = None
    # where the function's tiles are not known: the loop's own, laid out alone (see
    # :func:`l0_alone`), and their packing
    alone: L0Tiles | None = None
    alone_reuse: ReuseResult | None = None
    # the IR's depth of each hinted (space, group) the packing keeps deeper than its hint
    # (``memory_reuse.ir_depths``, once per scope, after 33)
    ir_depths: Mapping[tuple[str, int], int] | None = None
    # what the tiles were laid out from (the function's loops and the outlined scope), so
    # advice can lay the scope out again with the loop changed
    loops: tuple[Loop, ...] = ()
    scope: int = 0


Loop = tuple[LoopFacts, Lowering | None]


def restaged(lowering: Lowering, stage: int) -> Lowering | None:
    """The loop as LowerPipelineLoops lowers it under ``stage=`` instead (its trip split
    again into a main loop of ``stage`` clones and the copies after it), for advice laid
    out and packed again; None when its trip is not known."""
    if lowering.verdict != "replicated" or lowering.main_trip is None or not lowering.stage:
        return None
    trip = lowering.main_trip * lowering.stage + lowering.tail
    again = lower(stage, 0, trip, 1, trip)
    if again is None or again.verdict != "replicated":
        return None
    return replace(again, nested=lowering.nested)


def l0_tiles(loops: Sequence[Loop], scope: int, chip: Chip = DEFAULT_CHIP) -> L0Tiles | str | None:
    """The Left and Right tiles of the matmuls of outlined scope ``scope`` (the loops of
    it among ``loops``, one core function's: facts and lowering), or why they are not
    known; None when the scope holds no matmul."""
    mine = [
        (n, facts)
        for n, (facts, _) in enumerate(loops)
        if facts.scope_matmuls is not None and facts.scope_matmuls.scope == scope
    ]
    around = next(
        (f.scope_matmuls for _, f in mine if f.scope_matmuls and f.scope_matmuls.cube_ops),
        None,
    )
    if around is None:
        return None
    if around.opaque is not None:
        return f"the function calls `{around.opaque}(...)`, whose ops are not seen"
    if around.outside_unknown is not None:
        return around.outside_unknown
    found = len(around.outside)
    tilings: dict[int, tuple[L0Tiling, ...]] = {}
    for number, facts in mine:
        matmuls = facts.matmuls
        if matmuls is None or matmuls.unknown is not None:
            return matmuls.unknown if matmuls is not None else "a loop's matmuls are not read"
        found += len(matmuls.sites)
        if matmuls.sites:
            tiled = _tilings(facts, matmuls.sites, chip)
            if isinstance(tiled, str):
                return tiled
            tilings[number] = tiled
    if found != around.cube_ops:
        return "a matmul of the function is not seen where the compiler meets it"
    outside: list[tuple[int, L0Tiling]] = []
    for matmul in around.outside:
        tiling = _tiling(matmul.site, matmul.lhs, matmul.rhs, chip)
        if isinstance(tiling, str):
            return tiling
        outside.append((matmul.after_loops, tiling))
    if outside and len(mine) != around.pipeline_loops:
        return "a pipeline loop of the function is not on this core: the order is not known"
    order = [n for n, _ in mine]
    skews = {n: facts.skew for n, facts in mine if facts.skew is not None}
    return _laid_out([lowering for _, lowering in loops], tilings, order, outside, skews)


def l0_alone(loop: Loop, number: int, chip: Chip = DEFAULT_CHIP) -> L0Tiles | None:
    """The Left and Right tiles of loop ``number``'s own matmuls, laid out as if the
    function held nothing else (None: its body's matmuls are not all known). A group's
    slot is its own largest tile, whatever else the function holds, so what these decide
    of the loop's slots stands where the function's other tiles are not known."""
    facts, lowering = loop
    matmuls = facts.matmuls
    if matmuls is None or matmuls.unknown or matmuls.opaque or not matmuls.sites:
        return None
    tilings = _tilings(facts, matmuls.sites, chip)
    if isinstance(tilings, str):
        return None
    lowerings: list[Lowering | None] = [None] * number
    lowerings.append(lowering)
    found = _laid_out(lowerings, {number: tilings}, [number], ())
    return found if isinstance(found, L0Tiles) else None


def _tilings(
    facts: LoopFacts, sites: Sequence[MatmulSite], chip: Chip
) -> tuple[L0Tiling, ...] | str:
    loads: dict[str, SlotLoad | None] = {}
    computed = facts.skew.computed if facts.skew is not None else ()
    for load in (*(facts.slot_loads or ()), *computed):
        # two of one name: which? (either, when their tiles are alike)
        seen = loads.get(load.name, load)
        alike = seen is not None and _tile_of(seen) == _tile_of(load)
        loads[load.name] = load if alike else None
    operands = facts.matmul_operands
    if operands is None or len(operands) != len(sites):
        operands = tuple((loads.get(site.lhs), loads.get(site.rhs)) for site in sites)
    found = []
    for site, (lhs, rhs) in zip(sites, operands, strict=True):
        tiling = _tiling(site, lhs, rhs, chip)
        if isinstance(tiling, str):
            return tiling
        found.append(tiling)
    blocks = facts.matmuls.blocks if facts.matmuls is not None else ()
    shares = shared_moves(
        sites, [t.k_trip == 1 for t in found], blocks if len(blocks) == len(found) else None
    )
    if isinstance(shares, str):
        return shares
    return tuple(replace(t, shares=pair) for t, pair in zip(found, shares, strict=True))


def _tile_of(load: SlotLoad) -> tuple[str, tuple[int, ...] | None, str | None]:
    return load.space, load.extents, load.dtype


def _matrix(load: SlotLoad, transposed: bool) -> tuple[int, int] | None:
    """The operand as the matmul reads it: 2D (FlattenTileNdTo2D folds the leading
    dimensions into the rows), transposed when the matmul says so."""
    extents = load.extents
    if not extents or any(e <= 0 for e in extents):
        return None
    rows = 1
    for extent in extents[:-1]:
        rows *= extent
    return (extents[-1], rows) if transposed else (rows, extents[-1])


def _tiling(
    site: MatmulSite, lhs: SlotLoad | None, rhs: SlotLoad | None, chip: Chip
) -> L0Tiling | str:
    """The matmul's L0 tiling, as AutoTileMatmulL0 configures and applies the chooser."""
    for name, load in ((site.lhs, lhs), (site.rhs, rhs)):
        if load is None or load.space != "Mat" or load.extents is None or load.dtype is None:
            return f"the operand `{name}` of `{site.op}` is not a load of static shape"
        if load.dtype not in DTYPE_BYTES:
            return f"the operand `{name}` of `{site.op}` is not of a known type"
    assert lhs is not None and rhs is not None and lhs.dtype and rhs.dtype
    left, right = _matrix(lhs, site.transposed[0]), _matrix(rhs, site.transposed[1])
    if left is None or right is None:
        return f"an operand of `{site.op}` has no static shape"
    (m, k), (k_right, n) = left, right
    whole = (m, n, k)
    dtypes = (lhs.dtype, rhs.dtype)
    if k != k_right:
        return f"the operands of `{site.op}` do not agree on K"
    acc = site.accumulator_dtype(DTYPE_BYTES[lhs.dtype])
    if k % L0_FRACTAL or min(m, n, k) < L0_FRACTAL or acc not in ("INT32", "FP32"):
        return L0Tiling(site, whole, whole, dtypes)  # PH-AT-007 / the chooser's own refusal
    config = chip.l0_tile_config(
        (m, n, k), dtypes, acc,
        allow_a_stationary=True, allow_b_stationary=True, c_read=site.op == "matmul_acc",
    )  # fmt: skip
    try:
        chosen = choose_l0_tile(config)
    except ValueError:
        return L0Tiling(site, whole, whole, dtypes)  # PH-AT-005: left untouched
    tile = (chosen.m, chosen.n, chosen.k)
    if tile == whole:
        return L0Tiling(site, whole, whole, dtypes)
    if (chosen.m, chosen.n) != (m, n):
        return f"`{site.op}`'s output is split into L0 tiles ({tile}): not modelled"
    if k % chosen.k:
        return f"`{site.op}`'s last K block is peeled (k={chosen.k} of {k}): not modelled"
    return L0Tiling(site, whole, tile, dtypes)


@dataclass
class _Layout:
    """The tiles as they are laid out, the groups as they are numbered."""

    tiles: list[ReuseTile] = field(default_factory=list)
    groups: list[L0Group] = field(default_factory=list)
    at: int = 0

    def group(self, found: L0Group) -> int:
        self.groups.append(found)
        return len(self.groups) - 1

    def operands(
        self,
        tiling: L0Tiling,
        shape: tuple[int, int, int],
        member: tuple[tuple[int, int], ...],
        reads: tuple[int | None, int | None] = (None, None),
    ) -> tuple[int, int]:
        """One matmul's Left and Right tiles (``shape``: ``(m, n, k)``), read by it next
        (their indices); ``reads``: a tile moved before (its index), live until here."""
        m, n, k = shape
        sizes = (allocation_bytes((m, k), tiling.dtypes[0], "Left") or 0,
                 allocation_bytes((k, n), tiling.dtypes[1], "Right") or 0)  # fmt: skip
        found = []
        for side, read in enumerate(reads):
            if read is None:
                live = (self.at + side, self.at + 2)
                self.tiles.append(ReuseTile(L0_SPACES[side], sizes[side], live, member))
                read = len(self.tiles) - 1
            else:
                moved = self.tiles[read]
                self.tiles[read] = replace(moved, live=(moved.live[0], self.at + 2))
            found.append(read)
        self.at += 3
        return found[0], found[1]

    def k_loop(
        self, tiling: L0Tiling, groups: tuple[int, int | None], outer: tuple[tuple[int, int], ...]
    ) -> None:
        """A K loop's main clones (both extracts first) and its remainder copy."""
        main, tail = groups
        m, n, k = tiling.tile
        left = allocation_bytes((m, k), tiling.dtypes[0], "Left") or 0
        right = allocation_bytes((k, n), tiling.dtypes[1], "Right") or 0
        for clone in range(2):
            member = ((main, clone), *outer)
            used = self.at + 4 + clone
            self.tiles.append(ReuseTile("Left", left, (self.at + 2 * clone, used), member))
            self.tiles.append(ReuseTile("Right", right, (self.at + 2 * clone + 1, used), member))
        self.at += 6
        if tail is not None:
            self.operands(tiling, tiling.tile, ((tail, 0), *outer))


def _regions(lowering: Lowering | None) -> list[tuple[str, int]] | str:
    if lowering is None or lowering.verdict != "replicated" or lowering.stage is None:
        return "a loop holding a matmul is not replicated by LowerPipelineLoops"
    if lowering.nested > 1:
        return "a loop holding a matmul is nested in a replicated or skewed loop"
    if lowering.main_trip is None and lowering.branches:
        # LowerDynamic: the main loop's clones, then one `if unroll_rem == r` branch of r
        # copies per r < stage; at stage 2 the one branch is one copy after the loop,
        # laid out as a static remainder of one (several branches: phi families of an
        # `if` chain, which the packing does not model)
        if lowering.branches != 1:
            return "the remainder of a loop holding a matmul is known only at run time"
        return [("main", lowering.stage), ("tail", 1)]
    return replicated_regions(lowering.stage, lowering.main_trip, lowering.tail)


def _laid_out(
    lowerings: Sequence[Lowering | None],
    tilings: dict[int, tuple[L0Tiling, ...]],
    order: Sequence[int],
    outside: Sequence[tuple[int, L0Tiling]],
    skews: Mapping[int, SkewClones] | None = None,
) -> L0Tiles | str:
    """The tiles in program order: the scope's loops (``order``: their indices), each
    after the matmuls outside them that come before it (``outside``: how many loops come
    before each); a loop the skew pass rewrites (``skews``) as its clones."""
    layout = _Layout()
    for position in range(len(order) + 1):
        for _, tiling in (o for o in outside if o[0] == position):
            _outside(layout, tiling)
        if position < len(order) and order[position] in tilings:
            number = order[position]
            skew = (skews or {}).get(number)
            if skew is not None:
                why = _skewed(layout, number, skew, tilings[number])
            else:
                why = _loop(layout, number, lowerings, tilings)
            if why:
                return why
    return _skew_groups_last(L0Tiles(tuple(layout.tiles), tuple(layout.groups), tilings))


def _outside(layout: _Layout, tiling: L0Tiling) -> None:
    """A matmul outside the pipeline loops: its whole operands, or its K loop."""
    if tiling.k_trip == 1:
        layout.operands(tiling, tiling.whole, ())
        return
    main = layout.group(L0Group(-1, "k-main", tiling.site))
    tail = layout.group(L0Group(-1, "k-tail", tiling.site)) if tiling.k_trip % 2 else None
    layout.k_loop(tiling, (main, tail), ())


def _loop(
    layout: _Layout,
    number: int,
    lowerings: Sequence[Lowering | None],
    tilings: dict[int, tuple[L0Tiling, ...]],
) -> str | None:
    """A user loop's regions, each clone's matmuls (K loops numbered first)."""
    regions = _regions(lowerings[number])
    if isinstance(regions, str):
        return regions
    k_groups = {}
    for index, tiling in enumerate(tilings[number]):
        if tiling.k_trip > 1:
            main = layout.group(L0Group(number, "k-main", tiling.site))
            tail = (
                layout.group(L0Group(number, "k-tail", tiling.site))
                if tiling.k_trip % 2
                else None
            )
            k_groups[index] = (main, tail)
    for kind, clones in regions:
        group = layout.group(L0Group(number, kind))
        for clone in range(clones):
            outer = ((group, clone),)
            moved: dict[int, tuple[int, int]] = {}  # each whole matmul's L0 tiles
            for index, tiling in enumerate(tilings[number]):
                if index in k_groups:
                    layout.k_loop(tiling, k_groups[index], outer)
                    continue
                reads = [None if o is None else moved[o][n] for n, o in enumerate(tiling.shares)]
                moved[index] = layout.operands(tiling, tiling.whole, outer, (reads[0], reads[1]))
    return None


def _skewed(
    layout: _Layout, number: int, skew: SkewClones, tilings: Sequence[L0Tiling]
) -> str | None:
    """A skewed loop's clones (``LowerSkewed`` in ``skew_cross_core_pipeline_pass.cpp``):
    the prologue's D producer clones, the steady body's D producer then D consumer
    clones, the epilogue's D consumer clones; clone i of either half in stage i of the
    skew's group. Each clone's K loops are lowered after the skew, one group each."""
    if len(skew.produce) != len(tilings):
        return "the matmuls of a skewed loop's halves are not told apart"
    if any(tiling.shares != (None, None) for tiling in tilings):
        return ONE_MOVE
    group = layout.group(L0Group(number, "skew"))
    halves = (True,) * 2 + (False,) * 2  # prologue, steady producers, consumers, epilogue
    for produce in halves:
        for clone in range(skew.depth):
            outer = ((group, clone),)
            for tiling, mine in zip(tilings, skew.produce, strict=True):
                if mine != produce:
                    continue
                if tiling.k_trip == 1:
                    layout.operands(tiling, tiling.whole, outer)
                    continue
                main = layout.group(L0Group(number, "k-main", tiling.site))
                tail = (
                    layout.group(L0Group(number, "k-tail", tiling.site))
                    if tiling.k_trip % 2
                    else None
                )
                layout.k_loop(tiling, (main, tail), outer)
    return None


def _skew_groups_last(tiles: L0Tiles) -> L0Tiles:
    """The skew pass numbers its groups from ``1 << 20``, after every group
    LowerPipelineLoops numbers (MemoryReuse's shed breaks ties by the lowest number)."""
    order = sorted(range(len(tiles.groups)), key=lambda n: (tiles.groups[n].kind == "skew", n))
    if order == list(range(len(order))):
        return tiles
    number = {old: new for new, old in enumerate(order)}
    moved = tuple(
        replace(t, membership=tuple((number[g], s) for g, s in t.membership)) for t in tiles.tiles
    )
    return L0Tiles(moved, tuple(tiles.groups[old] for old in order), tiles.tilings)


def cube_scope(around: LoopSurroundings, fold: Fold, uses_of: UsesOf | None = None) -> CubeScope:
    """The scope's cube ops, and the matmuls outside its pipeline loops with the loads
    their operands are (read once per scope): what :func:`l0_tiles` lays out
    besides a pipeline loop's own matmuls (the statements Simplify keeps of the scope,
    as ``fold`` decides its ``if`` tests: not read off the tree alone; ``uses_of``: how
    a block's uses are got, as for ``slot_loads.statement_loads``)."""
    if around.opened_by is None:
        return CubeScope(around.scope)
    # (Simplify ran before)
    found = scope_matmuls(around.opened_by, kept_by_fold(fold), calls_of(fold))
    scope = CubeScope(around.scope, found.cube_ops, found.opaque, (), found.unknown)
    scope = replace(scope, pipeline_loops=found.pipeline_loops)
    if found.unknown is not None or found.opaque is not None or not found.sites:
        return scope
    loads: dict[str, SlotLoad | None] = {}  # the scope's loads, by name (None: two)
    for block in found.blocks:
        for load in statement_loads(block, around.tensors, fold, uses_of=uses_of):
            loads[load.name] = None if load.name in loads else load
    outside = []
    for (after, site), (number, at) in zip(found.sites, found.places, strict=True):
        place = _Place(found.blocks[number], at, around.tensors, fold, uses_of)
        lhs, rhs = (place.operand(name, loads) for name in (site.lhs, site.rhs))
        outside.append(OutsideMatmul(after, site, lhs, rhs))
    return replace(scope, outside=tuple(outside))


def body_operands(
    loop: cst.For,
    matmuls: BodyMatmuls,
    tensors: Mapping[str, Tensor],
    fold: Fold,
    loads: Sequence[SlotLoad],
    scope: cst.CSTNode | None = None,
    uses_of: UsesOf | None = None,
) -> tuple[tuple[SlotLoad | None, SlotLoad | None], ...] | None:
    """The loads each of ``matmuls`` (``loop``'s body's) reads, in order: the bindings
    of its operands before it in its block (the body, or the branch of an ``if`` that
    loads its own), else the body's one top-level load of that name (``loads``), else the
    tile the block computes or the scope (``scope``: the statement opening it) makes
    before the loop (:func:`~skewlsp.analysis.passes.cube_operands.block_operand`, as
    the Mat tile the cube reads); None when the sites are not told."""
    places = matmuls.places
    if matmuls.unknown or len(places) != len(matmuls.sites):
        return None
    top: dict[str, SlotLoad | None] = {}
    for load in loads:
        top[load.name] = None if load.name in top else load
    body = body_statements(loop.body)
    names = [name for site in matmuls.sites for name in (site.lhs, site.rhs)]
    if all(block is body for block, _ in places) and all(top.get(n) for n in names):
        return None  # (each a top-level load of a name of its own: `_tilings` reads by name)
    found = []
    for site, (statements, at) in zip(matmuls.sites, places, strict=True):
        place = _Place(statements, at, tensors, fold, uses_of)
        pair = [place.operand(name, top) for name in (site.lhs, site.rhs)]
        for k, name in enumerate((site.lhs, site.rhs)):
            if pair[k] is None and not name.endswith("[...]"):
                pair[k] = place.computed(loop, name, scope)
        found.append((pair[0], pair[1]))
    return tuple(found)


@dataclass(frozen=True)
class _Place:
    """Statement ``at`` of a block of the scope, where a matmul outside the pipeline
    loops reads its operands."""

    statements: Sequence[cst.CSTNode]
    at: int
    tensors: Mapping[str, Tensor]
    fold: Fold
    uses_of: UsesOf | None = None  # (see :func:`cube_scope`)

    @cached_property
    def _through(self) -> tuple[SlotLoad, ...]:
        """The block's loads up to the matmul's statement (read by it: in Mat)."""
        through = self.statements[: self.at + 1]
        return statement_loads(through, self.tensors, self.fold, uses_of=self.uses_of)

    def _loads_of(self, at: int) -> tuple[SlotLoad, ...]:
        one = self.statements[at : at + 1]
        return statement_loads(one, self.tensors, self.fold, uses_of=self.uses_of)

    def computed(self, loop: cst.For, name: str, scope: cst.CSTNode | None) -> SlotLoad | None:
        """``name`` as the Mat tile of the shape the block computes it (or the scope makes
        it before the loop) with, where that is known."""
        shapes = {
            load.name: (load.extents, load.dtype)
            for load in self._through
            if load.extents and load.dtype
        }
        shape = block_operand(
            loop, self.statements, self.at, name, shapes, scope, self.fold, self.tensors
        )
        return SlotLoad(name, "Mat", extents=shape[0], dtype=shape[1]) if shape else None

    def operand(self, name: str, scope: dict[str, SlotLoad | None]) -> SlotLoad | None:
        """The load ``name`` is here (None: not one load): a slice written in the
        matmul's call is a load of its statement; a name is the block's last binding of
        it before the matmul, when that binding is a load (ConvertToSSA gives each
        binding its own tile), or the scope's one load of that name when the block binds
        it nowhere."""
        if name.endswith("[...]"):
            named = [load for load in self._loads_of(self.at) if load.name == name]
            return named[0] if len(named) == 1 else None
        earlier = self.statements[: self.at]
        binders = [n for n, stmt in enumerate(earlier) if name in statement_defs(stmt)]
        if not binders:
            return None if name in block_defs(self.statements) else scope.get(name)
        if not any(load.name == name for load in self._loads_of(binders[-1])):
            return None  # (bound last by an op that is no load)
        # a load named so comes only from a binding of the name: the last is the last one's
        named = [load for load in self._through if load.name == name]
        return named[-1] if named else None
