"""29 CanonicalizeIOOrder (``canonicalize_io_order_pass.cpp``): the order a core function's
stage-group tiles are laid out in, from what the analysis already knows of its loops.

The memory passes need a function's tiles (space, bytes, lifetime, stage group). Of
those, the analysis already finds the loads of each pipeline loop's body
(:mod:`skewlsp.analysis.lower_pipeline.slot_loads`: each one's memory space and bytes,
as LowerPipelineToSlots sizes a slot) and how LowerPipelineLoops replicates the loop
(:class:`skewlsp.contract.Lowering`: its main loop's trip and its remainder). This
module turns them into :class:`~skewlsp.analysis.memory.memory_reuse.ReuseTile` records
the way the compiler lays the lowered code out:

- each replicated region (the main loop's ``stage`` clones, then the remainder's
  copies) is one stage group, numbered in the order LowerPipelineLoops meets them
  (``ReplicateBody`` in ``lower_pipeline_loops_pass.cpp``: one group per call);
- CanonicalizeIOOrder (``canonicalize_io_order_pass.cpp``, pass doc 29) reorders the
  body of the main loop (the one still marked Pipeline) only: there every clone's
  loads come ahead of the clones' compute, so the loads are defined one after the
  other and each lives until its own clone's compute begins. The remainder's copies
  are written out after the loop and keep their order: a copy's loads, its compute;
- regions follow each other in program order (their tiles never overlap).

:func:`function_tiles` lays out one loop's loads alone. :func:`scope_layout` lays out
a whole InCore scope's Vec tiles (the loads, the tiles the body computes, the tiles
outside the loops: ConvertTensorToTileOps' conversions,
:mod:`skewlsp.analysis.passes.op_conversion`) the same way, each clone's computed tiles
after all the loads, in the clone's order. Neither lays out the L0 moves of a matmul's
operands (Left, Right: :mod:`.l0_tiles` does) or the remainder chain of a loop whose
bounds are known only at run time beyond ``stage=2``'s (one ``if rem == 1`` branch of
one copy, laid out as a remainder). A loop nested in the scope's loops (at any depth)
is laid out in each copy of each loop around it, its tiles in their groups too, its own groups
numbered first and shared by every copy (LowerPipelineLoops lowers it first and the
replication around it copies its tiles, stamps and all). A branch of an ``if`` is laid
out once where it stands, in the copy it is in: the ``if`` is one statement of the body,
so its loads are not lifted above the other clones' compute, only to the top of the
branch's own statements (CanonicalizeIOOrder reorders each statement list apart). A
loop SkewCrossCorePipeline skews on this core is laid out as it clones it: its producer
half ahead, a sequential steady loop, its consumer half after it, in one stage group of
the skew's own (:meth:`_Layout.skewed`). A load with no static size makes the whole
function unknown (None, or the reason).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from skewlsp.analysis.lower_pipeline.loop_facts import SkewClones, SlotLoad
from skewlsp.analysis.lower_pipeline.lower_pipeline_loops import replicated_regions
from skewlsp.analysis.memory.init_memref import allocation_bytes
from skewlsp.analysis.memory.memory_reuse import ReuseTile
from skewlsp.analysis.passes.scope_tile_ops import ScopeLoop, ScopeTiles, TileOp
from skewlsp.contract import Lowering


@dataclass(frozen=True)
class ReplicatedLoop:
    """One pipeline loop of a core function that LowerPipelineLoops replicates: its
    body's top-level loads, its ``stage``, its main loop's trip (0: the copies only;
    None: a trip known only at run time) and its remainder copies."""

    loads: tuple[SlotLoad, ...]
    stage: int
    main_trip: int | None
    tail: int = 0


@dataclass(frozen=True)
class TileOrigin:
    """Where a tile of :func:`canonicalize_io_order` comes from: the loop (its index), the
    region ("main" or "tail"), the clone, and the load's name."""

    loop: int
    region: str
    clone: int
    load: str


@dataclass(frozen=True)
class FunctionTiles:
    """The function's tiles for :func:`~.memory_reuse.memory_reuse`, and their origins."""

    tiles: tuple[ReuseTile, ...]
    origins: tuple[TileOrigin, ...]


def _regions(loop: ReplicatedLoop) -> list[tuple[str, int]]:
    """The replicated regions of a loop: (kind, clones)."""
    return replicated_regions(loop.stage, loop.main_trip, loop.tail)


def _layout(
    region: str, clones: int, per_clone: int, at: int
) -> list[tuple[int, int, tuple[int, int]]]:
    """(clone, load, (definition, last use)) of a region's loads from program point
    ``at``: the main loop's loads all first, each read by its clone's compute after
    them; a remainder copy by copy."""
    placed = []
    for clone in range(clones):
        for index in range(per_clone):
            if region == "main":
                defined, used = at + clone * per_clone + index, at + clones * per_clone + clone
            else:
                defined = at + clone * (per_clone + 1) + index
                used = at + clone * (per_clone + 1) + per_clone
            placed.append((clone, index, (defined, used)))
    return placed


def function_tiles(loops: Sequence[ReplicatedLoop]) -> FunctionTiles | None:
    """The loads of ``loops`` (one core function's, in program order) as stage-group
    tiles; None when a load has no static size."""
    tiles: list[ReuseTile] = []
    origins: list[TileOrigin] = []
    group, at = 0, 0
    for number, loop in enumerate(loops):
        if any(load.size is None for load in loop.loads):
            return None
        for region, clones in _regions(loop):
            for clone, index, live in _layout(region, clones, len(loop.loads), at):
                load = loop.loads[index]
                assert load.size is not None
                tiles.append(ReuseTile(load.space, load.size, live, ((group, clone),), load=True))
                origins.append(TileOrigin(number, region, clone, load.name))
            group += 1
            at += clones * (len(loop.loads) + 1) + 1
    return FunctionTiles(tuple(tiles), tuple(origins))


# The whole function's Vec tiles (the loads, what the body computes, the tiles outside
# the loops: :mod:`skewlsp.analysis.passes.op_conversion`), laid out the same way.


@dataclass(frozen=True)
class LoopLowering:
    """How LowerPipelineLoops leaves one loop of a scope: ``clones`` per replicated
    region (the main loop's ``stage`` clones, then the remainder's copies, as
    :func:`_regions` finds them), ``plain`` for a loop run as written (a ``pl.range``,
    an untouched pipeline). A loop SkewCrossCorePipeline skews on this core is one
    ``skew`` region of its depth's clones per half, ``halves`` telling which half each
    top-level statement of its body is cloned into (:func:`skewed_lowering`)."""

    regions: tuple[tuple[str, int], ...]
    trip: int | None = None  # a replicated loop's iterations (main loop's and remainder's)
    halves: tuple[bool | None, ...] | None = None  # a skewed loop's (True: the producer's)

    @property
    def plain(self) -> bool:
        return not self.regions

    def restaged(self, stage: int) -> LoopLowering | None:
        """The same loop under ``stage=`` (its trip split again into a main loop of
        ``stage`` clones and a remainder); None when its trip is not known."""
        if self.trip is None or stage < 1:
            return None
        main, tail = divmod(self.trip, stage)
        return LoopLowering(tuple(replicated_regions(stage, main, tail)), self.trip)


@dataclass(frozen=True)
class ScopeLayout:
    """A scope's tiles of one space as MemoryReuse sees them, each one's label (the name
    it is bound to and the op that makes it), and each scope loop's stage groups (in
    the order of its regions)."""

    tiles: tuple[ReuseTile, ...]
    labels: tuple[str, ...]
    groups: tuple[tuple[int, ...], ...]


class _Unknown(Exception):
    """A tile read the layout cannot place."""


@dataclass
class _Laid:
    bytes: int
    defined: int
    last: int
    membership: tuple[tuple[int, int], ...]
    load: bool
    label: str
    forbid: frozenset[int] = frozenset()
    merged: bool = False


@dataclass
class _Layout:
    """The layout's state: program point, tiles, each value's tile, next group."""

    space: str
    tiles: list[_Laid]
    env: dict[str, int]
    lowerings: Sequence[LoopLowering | str] = ()
    blocks: Sequence[ScopeLoop] = ()  # the scope's loops and branches
    at: int = 0
    group: int = 0
    groups: dict[int, tuple[int, ...]] = field(default_factory=dict)
    skews: int = 0  # the skewed loops' groups numbered so far

    def place(self, op: TileOp, env: dict[str, int], member: tuple[tuple[int, int], ...]) -> None:
        for read in op.reads:
            if read not in env:
                raise _Unknown(f"`{read}` is read before it is made")
            tile = self.tiles[env[read]]
            tile.last = max(tile.last, self.at)
        if op.out is not None and op.view_of is not None:
            env[op.out] = env[op.view_of]
        elif op.out is not None and op.shape is not None:
            size = allocation_bytes(op.shape[0], op.shape[1], self.space)  # 31 InitMemRef
            if size is None:
                raise _Unknown(f"a {op.shape[1]} tile InitMemRef cannot size ({op.label})")
            forbid = frozenset(env[value] for value in op.forbid)
            env[op.out] = len(self.tiles)
            self.tiles.append(_Laid(size, self.at, self.at, member, op.load, op.label, forbid))
        self.at += 1

    def loop(
        self, number: int, body: Sequence[TileOp], env: dict[str, int], outer: Member = ()
    ) -> tuple[int, ...]:
        """Lay out loop ``number``'s regions (``body``: its ops and its nested loops', in
        program order; ``env``: the values bound around it; ``outer``: the stage of the
        loop around it this copy is in); its stage groups."""
        lowering = self.lowering(number)
        if lowering.halves is not None:
            return self.skewed(number, body, env, outer, lowering.halves)
        carried, outer_reads = _carried(body, env)
        if carried and len(lowering.regions) > 1:
            raise _Unknown("a value carried through a loop with a remainder")
        items = _items(body, number, self.blocks)
        self.lower_inner(items, body)
        groups = self.own_groups(number)
        previous = dict(env)
        for n, (region, clones) in enumerate(lowering.regions or (("plain", 1),)):
            envs = [dict(previous) for _ in range(clones)]
            members = [
                (((groups[n], c),) if region != "plain" else ()) + outer for c in range(clones)
            ]
            own = [i for i in items if isinstance(i, TileOp)]
            hoisted = [(c, op) for c in range(clones) for op in own if op.load and region == "main"]
            order: list[tuple[int, TileOp | int]] = list(hoisted)
            order += [
                (c, item)
                for c in range(clones)
                for item in items
                if not (isinstance(item, TileOp) and item.load and region == "main")
            ]
            for clone, item in order:
                current = envs[clone]
                if clone > 0:  # a carried value is the previous clone's
                    for name in carried:
                        if current.get(name) == previous.get(name):
                            current[name] = envs[clone - 1][name]
                if isinstance(item, int):
                    inner = _inside(body, item, self.blocks)
                    self.nested(item, inner, current, members[clone], region == "main")
                else:
                    self.place(item, current, members[clone])
            previous = dict(envs[-1])
        end = self.at
        for name in outer_reads:
            tile = self.tiles[env[name]]
            tile.last = max(tile.last, end)
        for name in carried:  # the phi family: the initial value's buffer, to the end
            family, final = self.tiles[env[name]], previous[name]
            if final != env[name]:
                last = self.tiles[final]
                family.bytes = max(family.bytes, last.bytes)
                family.last = max(family.last, last.last)
                last.merged = True
            family.last = max(family.last, end)
        self.at += 1
        return groups

    def skewed(
        self,
        number: int,
        body: Sequence[TileOp],
        env: dict[str, int],
        outer: Member,
        halves: tuple[bool | None, ...],
    ) -> tuple[int, ...]:
        """Lay out the clones SkewCrossCorePipeline makes of loop ``number``
        (``skew_cross_core_pipeline_pass.cpp``): the prologue's D producer clones, a
        sequential steady loop of D producer then D consumer clones, the epilogue's D
        consumer clones; clone i of either half in stage i of the skew's one group (its
        ``MembershipTagger``). Each clone keeps its statements' order: the steady loop is
        no pipeline loop, so CanonicalizeIOOrder lifts no load in it."""
        items = _items(body, number, self.blocks)
        if any(isinstance(item, int) for item in items):
            raise _Unknown("a block nested in a skewed loop")
        ops = [item for item in items if isinstance(item, TileOp)]
        if any(not 0 <= op.statement < len(halves) or halves[op.statement] is None for op in ops):
            raise _Unknown("a tile of a skewed loop in neither half of its clones")
        carried, outer_reads = _carried(body, env)
        if carried:
            raise _Unknown("a value carried through a skewed loop")
        (group,) = self.own_groups(number)
        depth = self.lowering(number).regions[0][1]

        def clones(produce: bool) -> None:
            for clone in range(depth):
                mine, member = dict(env), ((group, clone), *outer)
                for op in ops:
                    if halves[op.statement] is produce:
                        self.place(op, mine, member)

        clones(True)  # the prologue
        clones(True)  # the steady loop: a value read in it lives to its end
        clones(False)
        for name in outer_reads:
            tile = self.tiles[env[name]]
            tile.last = max(tile.last, self.at)
        self.at += 1
        clones(False)  # the epilogue
        return (group,)

    def nested(
        self,
        number: int,
        body: Sequence[TileOp],
        env: dict[str, int],
        member: Member,
        reordered: bool,
    ) -> None:
        """Lay out block ``number`` (a loop, or a branch of an ``if``: :meth:`branch`)."""
        if self.blocks[number].branch:
            self.branch(number, body, env, member, reordered)
        else:
            self.loop(number, body, env, member)

    def branch(
        self,
        number: int,
        body: Sequence[TileOp],
        env: dict[str, int],
        member: Member,
        reordered: bool,
    ) -> None:
        """Lay out a branch of an ``if`` (``body``: its ops and its blocks'): once, where
        it stands, its tiles in the stage of the copy it is in (``member``). In a pipeline
        loop's main body (``reordered``) CanonicalizeIOOrder reorders the branch's own
        statement list, its loads first; the values it binds are not read after it."""
        items = _items(body, number, self.blocks)
        self.lower_inner(items, body)
        local = dict(env)
        ordered = sorted(items, key=lambda item: not _lifted(item, reordered))  # (stable)
        for item in ordered:
            if isinstance(item, int):
                self.nested(item, _inside(body, item, self.blocks), local, member, reordered)
            else:
                self.place(item, local, member)

    def lower_inner(self, items: Sequence[TileOp | int], body: Sequence[TileOp]) -> None:
        """Number the stage groups of the loops nested in a block (``items``: its own ops
        and its blocks), those of a branch's loops too: LowerPipelineLoops lowers an
        inner loop first, once."""
        for child in (item for item in items if isinstance(item, int)):
            if self.blocks[child].branch:
                inner = _inside(body, child, self.blocks)
                self.lower_inner(_items(inner, child, self.blocks), inner)
            else:
                self.own_groups(child)

    def lowering(self, number: int) -> LoopLowering:
        found = self.lowerings[number] if number < len(self.lowerings) else "a loop not lowered"
        if isinstance(found, str):
            raise _Unknown(found)
        return found

    def own_groups(self, number: int) -> tuple[int, ...]:
        """Loop ``number``'s stage groups (one per replicated region), numbered the first
        time they are asked for: every copy of a nested loop shares them."""
        if number not in self.groups and self.lowering(number).halves is not None:
            # (the skew numbers its groups after every one LowerPipelineLoops numbers)
            self.groups[number] = (SKEW_GROUP_BASE + self.skews,)
            self.skews += 1
        if number not in self.groups:
            regions = [r for r, _ in self.lowering(number).regions if r != "plain"]
            self.groups[number] = tuple(range(self.group, self.group + len(regions)))
            self.group += len(regions)
        return self.groups[number]


Member = tuple[tuple[int, int], ...]
# SkewCrossCorePipeline's first group id (``kSkewGroupBase``): above LowerPipelineLoops'.
SKEW_GROUP_BASE = 1 << 20


def skewed_lowering(skew: SkewClones) -> LoopLowering:
    """A skewed copy of a loop as the layout reads it: D clones of each half."""
    return LoopLowering((("skew", skew.depth),), halves=skew.statements)


def _items(body: Sequence[TileOp], number: int, blocks: Sequence[ScopeLoop]) -> list[TileOp | int]:
    """A block's body as its own ops and, in their place, the blocks nested in it (their
    index, once)."""
    items: list[TileOp | int] = []
    for op in body:
        if op.loop == number:
            items.append(op)
            continue
        child = _child(op.loop, number, blocks)
        if not items or items[-1] != child:
            items.append(child)
    return items


def _lifted(item: TileOp | int, reordered: bool) -> bool:
    """Whether CanonicalizeIOOrder lifts ``item`` to the top of its statement list: a
    load, in a list it reorders."""
    return reordered and isinstance(item, TileOp) and item.load


def _child(at: int, number: int, blocks: Sequence[ScopeLoop]) -> int:
    """The block nested right in block ``number`` (-1: the scope) that holds block
    ``at``."""
    while blocks[at].parent != number:
        at = blocks[at].parent
    return at


def _inside(body: Sequence[TileOp], number: int, blocks: Sequence[ScopeLoop]) -> list[TileOp]:
    """The ops of ``body`` in block ``number`` or a block nested in it."""
    found = []
    for op in body:
        at = op.loop
        while at >= 0 and at != number:
            at = blocks[at].parent
        if at == number:
            found.append(op)
    return found


def _carried(body: Sequence[TileOp], env: Mapping[str, int]) -> tuple[list[str], list[str]]:
    """The values a loop carries (read before the body binds them again, bound before
    the loop) and the outer values it only reads."""
    written = {op.out for op in body if op.out is not None}
    bound: set[str] = set()
    carried: list[str] = []
    outer: list[str] = []
    for op in body:
        for read in op.reads:
            if read in bound:
                continue
            if read not in env:
                raise _Unknown(f"`{read}` is read before it is made")
            found = carried if read in written else outer
            if read not in found:
                found.append(read)
        if op.out is not None:
            bound.add(op.out)
    return carried, outer


def lowering_of(lowering: Lowering | None, nested_here: bool = False) -> LoopLowering | str:
    """A pipeline loop's lowering as the layout reads it, or why its tiles cannot be laid
    out (not lowered here, nested in a replicated loop the layout does not lay out
    (``nested_here``: the loop around it is one of the scope's), a remainder chain of
    dynamic bounds)."""
    if lowering is None:
        return "a pipeline loop of the function that LowerPipelineLoops does not lower here"
    if lowering.nested > 1 and not nested_here:
        return "a pipeline loop of the function inside a replicated or skewed one"
    if lowering.branches == 1 and lowering.stage == 2 and lowering.verdict == "replicated":
        # run-time bounds, stage=2: the main loop's 2 clones, then the one `if rem == 1`
        # branch of one copy (its own ReplicateBody: its own group), in program order
        return LoopLowering((("main", 2), ("tail", 1)))
    if lowering.branches or lowering.main_trip is None:
        return "a pipeline loop of the function whose trip is known only at run time"
    if lowering.verdict == "untouched":
        return LoopLowering(())
    if lowering.verdict != "replicated" or lowering.stage is None:
        return f"a pipeline loop of the function that LowerPipelineLoops leaves {lowering.verdict}"
    loop = ReplicatedLoop((), lowering.stage, lowering.main_trip, lowering.tail)
    trip = lowering.main_trip * lowering.stage + lowering.tail
    return LoopLowering(tuple(_regions(loop)), trip)


def scope_layout(
    scope: ScopeTiles, lowerings: Sequence[LoopLowering | str], space: str = "Vec"
) -> ScopeLayout | str:
    """``scope``'s tiles (:func:`~skewlsp.analysis.passes.op_conversion.scope_tiles`) laid
    out in program order: a replicated loop's regions as :func:`function_tiles` lays out
    its loads, now with each clone's computed tiles after the loads, in the clone's order
    (each stage's compute and store together: CanonicalizeIOOrder's ladder); a value read in a loop
    lives to its end, a value carried through it is one buffer with its initial value
    (MemoryReuse's yield retargeting, lines 82-110). ``lowerings``: per scope loop (a
    string: why it is not known). A string says why the scope cannot be laid out."""
    if scope.unknown is not None:
        return scope.unknown
    state = _Layout(space, [], {}, lowerings, scope.loops)
    ops = list(scope.ops)
    root = [_child(n, -1, scope.loops) for n in range(len(scope.loops))]
    try:
        index = 0
        while index < len(ops):
            op = ops[index]
            if op.loop < 0:
                state.place(op, state.env, ())
                index += 1
                continue
            end = index
            while end < len(ops) and ops[end].loop >= 0 and root[ops[end].loop] == root[op.loop]:
                end += 1
            state.nested(root[op.loop], ops[index:end], state.env, (), False)
            index = end
    except _Unknown as reason:
        return str(reason)
    groups = tuple(state.groups.get(n, ()) for n in range(len(scope.loops)))
    kept = [n for n, t in enumerate(state.tiles) if not t.merged]
    number = {old: new for new, old in enumerate(kept)}
    tiles = []
    for old in kept:
        t = state.tiles[old]
        forbid = frozenset(number[i] for i in t.forbid if i in number)
        tiles.append(ReuseTile(space, t.bytes, (t.defined, t.last), t.membership, t.load, forbid))
    return ScopeLayout(tuple(tiles), tuple(state.tiles[old].label for old in kept), groups)
