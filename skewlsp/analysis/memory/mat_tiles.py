"""The Mat (L1) tiles of a cube function, for MemoryReuse's depth there.

MemoryReuse packs each memory space on its own (``memory_reuse_pass.cpp``), so a loop's
depth in Mat is decided by the function's Mat tiles alone. On the cube core those are
the tiles ``tile.load`` brings into L1 (InitMemRef, ``init_memref.cpp``, gives each a
buffer of its own, sized by its shape and dtype): a slice of a tensor a matmul reads
(InferTileMemorySpace puts it in Mat), a ``pl.load(..., target_memory=Mat)``, a whole
tensor a matmul takes; a loop LowerPipelineLoops replicates holds them once per copy of
its body (``Lowering.copies``: its clones, its remainder's copies, the copies the loops
around it write). A matmul's ``a_trans``/``b_trans`` operand is read through a
``transpose_view`` of its buffer: no bytes of its own, but inside a clone the view is one
of the clone's tiles, so the view of a tile loaded before the loop counts towards the
loop's slot (the stage group's largest tile: ``memory_reuse_pass.cpp``'s slot).

What is decided from these, and why it is exact where it says so: when every Mat tile
of the function, each in a buffer of its own (no reuse at all), fits in L1, the guarded
packing MemoryReuse makes (each buffer as large as its largest member, placed aligned by
AllocateMemoryAddr) takes no more than that, and each group's first affordable depth
``min(D, capacity // slot)`` is its whole ``D``: no depth is shed and no PH-MR-001 is
made, whatever the lifetimes. When they do not all fit, the tiles are laid out in program
order with their lifetimes (:func:`.canonicalize_io_order.scope_layout`, the layout the
whole-function Vec tiles use: each clone's loads ahead of the clones' reads in a main
loop, a tile read in a loop live to its end) and packed as MemoryReuse packs them
(:func:`.memory_reuse.memory_reuse`); a loop whose first group keeps every stage apart
there, with no fallback, is known, and a packing that falls back to the legacy one is
(``MatMemory.packing``, placed by 34 AllocateMemoryAddr: ``allocation``; checked against
the compiler on random kernels and tests/fixtures/memory/models/mem_llm/accumulators.py:
its warning, and its stop where the legacy packing overflows L1). A skewed loop's
cube copy is laid out as SkewCrossCorePipeline clones it (``SkewClones``: its depth and
which half each top-level statement of its body is in, each op told by its statement:
:meth:`.canonicalize_io_order._Layout.skewed`), a copy it demotes as a sequential loop,
and the depth MemoryReuse sheds from the skew's group in Mat is told too (checked
against the compiler on ``random_kernels.py --family attention`` and
tests/fixtures/memory/models/mem_llm/skewed_weights.py: slot-bound, space-pressure, the
fallback and the stop; a demoted copy's stop: vector_ahead.py). A packing that sheds a replicated
loop's depth in Mat is not told (none has been seen from the compiler), nor is a layout
the model cannot make (a Mat tile of one branch of an ``if`` read after it, a
``pl.unroll`` loop loading into Mat): the record says why. Loops nest to any depth (a K
loop in two ``pl.range`` loops, as LM heads tile the vocabulary: checked against the
compiler on tests/fixtures/memory/models/mem_llm/vocab_tiles.py and pypto-lib). A
``pl.split_aiv`` region (LowerAutoVectorSplit's lanes) is vector code and holds no Mat
tile; one with a matmul is not modelled.

A matmul operand the vector computes and pushes to the cube (``ScopeMat.popped``, each
one the vector's walk pushes: :func:`cube_ring`) is popped into the vector -> cube ring's
buffer, which the cube reserves at the bottom of Mat: no tile of its own, and every Mat
tile is packed and placed above that region (checked against the compiler on
``random_kernels.py --family pushed``: its stops in Mat, "the first N bytes of that
space are reserved by system.reserve_buffer", and on the fixture
tests/fixtures/memory/models/mem_llm/sent_operands.py).

Not modelled, and said so (the function's Mat tiles are then not known): an op that may
make a Mat tile of its own (a pop from the vector, ``create_l1``, a gather, a move, ...),
a call whose ops are not seen (an inline helper), a matmul operand that is neither a
load into Mat of the scope nor a tile the vector is seen to push, a load of
no static size, a statement the walk does not read (``with``, ``while``, ...), a loop
whose lowering on this core is not known (a remainder chain of run-time bounds, ...).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import libcst as cst

from skewlsp.analysis.frontend import dsl
from skewlsp.analysis.frontend.names import (
    binding_of,
    body_statements,
    reads_of,
    statement_defs,
)
from skewlsp.analysis.frontend.op_registry import CUBE_OPS, PYTHON_BUILTINS, op_leaf
from skewlsp.analysis.lower_pipeline.chip import DEFAULT_CHIP, Chip
from skewlsp.analysis.lower_pipeline.loop_facts import MatLoad, ScopeMat, SlotLoad
from skewlsp.analysis.lower_pipeline.slot_loads import UsesOf, calls_of, statement_loads_each
from skewlsp.analysis.memory.allocate_memory_addr import Allocation
from skewlsp.analysis.memory.canonicalize_io_order import (
    LoopLowering,
    ScopeLayout,
    lowering_of,
    scope_layout,
)
from skewlsp.analysis.memory.memory_reuse import ReuseResult, memory_reuse
from skewlsp.analysis.memory.reserve_buffer import reserved_on_cube
from skewlsp.analysis.passes.convert_tensor_to_tile_ops import Fold, Tensor
from skewlsp.analysis.passes.op_tables import ELEMENTWISE_OPS, REDUCTION_OPS, SCALAR_CALLS
from skewlsp.analysis.passes.scope_tile_ops import ScopeLoop, ScopeTiles, TileOp
from skewlsp.contract import Lowering, Span

# Ops that make no Mat tile but the loads the walk finds (statement_loads): a matmul's
# result is in Acc, the vector's ops make Vec tiles, a view shares its source's buffer,
# a store or an assemble writes a tile out, a loop header makes nothing.
NO_MAT_TILE_OPS = frozenset(
    {
        *CUBE_OPS, *ELEMENTWISE_OPS, *REDUCTION_OPS, *SCALAR_CALLS,
        "cast", "full", "reshape", "store", "assemble", "load", "slice", "yield_",
        "range", "pipeline", "parallel", "unroll", "create_tensor", "fillpad",
        "set_validshape", "cast_index", "transpose_view",
    }
)  # fmt: skip
LOOP_OPS = frozenset({"range", "pipeline", "parallel"})
# Ops whose result is a view of their first operand's buffer (InitMemRef shares it).
VIEW_OPS = frozenset({"reshape", "slice", "transpose_view"})
# Ops whose result the cube makes (an accumulator in Acc): a matmul's, a new tensor's.
CUBE_MADE_OPS = CUBE_OPS | {"create_tensor"}


@dataclass(frozen=True)
class MatMemory:
    """What the function's Mat tiles decide of one loop's stage group there.

    ``total``: the bytes of every Mat tile of the function, each in a buffer of its own
    (aligned); ``slot``: the loop's stage slot in Mat (its largest Mat tile of a clone,
    the transposed views of tiles loaded before it included, aligned); ``fits``:
    MemoryReuse keeps every stage apart (the total fits in Mat, or its packing of the
    tiles laid out with their lifetimes does). ``why``: why the function's Mat tiles
    are not known (then the rest is 0), or, with a total that does not fit, why they
    cannot be laid out."""

    total: int = 0
    slot: int = 0
    fits: bool = False
    why: str | None = None
    # where the total does not fit: MemoryReuse's packing of the tiles laid out (its
    # legacy fallback, if it falls back) and 34 AllocateMemoryAddr's placement of it
    packing: MatPacking | None = None
    allocation: Allocation | None = None
    group: int | None = None  # the loop's first stage group in the packing's layout


class _NotModelled(Exception):
    """A statement whose Mat tiles this model does not know."""


@dataclass
class _Walk:
    """The walk of a scope: the Mat loads met (with the pipeline loop each is in), the
    pipeline loops (their spans and parents), the matmul operands read transposed; and,
    for the lifetimes, the scope's Mat tiles and their readers in program order
    (:class:`~skewlsp.analysis.passes.op_conversion.ScopeTiles`, every loop of the scope
    among its loops), or why they cannot be laid out (``why``)."""

    tensors: Mapping[str, Tensor]
    fold: Fold
    span_of: Callable[[cst.For], Span]
    uses_of: UsesOf | None  # how a block's uses are got (see :func:`scope_mat`)
    loads: list[MatLoad] = field(default_factory=list)
    loops: list[Span] = field(default_factory=list)
    parents: list[int] = field(default_factory=list)
    views: list[tuple[int, str]] = field(default_factory=list)
    operands: list[str] = field(default_factory=list)
    ops: list[TileOp] = field(default_factory=list)
    all_loops: list[ScopeLoop] = field(default_factory=list)
    at_loop: int = -1  # the loop of ``all_loops`` the walk is in
    statement: int = -1  # the top-level statement of that loop's body the walk is in
    bound: set[str] = field(default_factory=set)  # names bound to a Mat tile now
    poisoned: set[str] = field(default_factory=set)  # names whose Mat tile is not one
    cube_made: set[str] = field(default_factory=set)  # names bound by a cube op now
    defined: set[str] = field(default_factory=set)  # every name the scope binds
    temps: int = 0
    why: str | None = None

    def block(self, statements: Sequence[cst.CSTNode], loop: int, top: bool = True) -> None:
        """Walk a block's statements (``top``: a loop's or the scope's body, each of
        whose statements its ops are told by; else a branch's, in its ``if``'s)."""
        each = statement_loads_each(statements, self.tensors, self.fold, self.uses_of)
        for load in (load for loads in each for load in loads):
            if load.space == "Mat" and load.size is None:
                raise _NotModelled(f"the load of `{load.name}` into Mat has no static size")
            if load.space == "Mat" and load.size is not None:
                self.loads.append(MatLoad(load.name, load.size, loop))
        around = self.statement
        for index, (stmt, mine) in enumerate(zip(statements, each, strict=True)):
            self.statement = index if top else around
            if isinstance(stmt, cst.SimpleStatementLine):
                self._calls(stmt, loop)
                if len(stmt.body) == 1:
                    self._order(stmt.body[0], mine)
                else:
                    self._unlaid("several statements on one line")
            elif isinstance(stmt, cst.For):
                if mine and any(x.space == "Mat" for x in mine):
                    self._unlaid("a `pl.unroll` loop loading into Mat")
                self._loop(stmt, loop)
            elif isinstance(stmt, cst.If):
                before = set(self.bound)
                self._branch(stmt, loop)
                changed = (self.bound - before) | (before - self.bound)
                self.poisoned |= changed  # (one tile per branch: a phi, not modelled)
                self.bound -= changed
            else:
                raise _NotModelled(f"a `{type(stmt).__name__}` statement")
        self.statement = around

    def _unlaid(self, why: str) -> None:
        if self.why is None:
            self.why = why

    def _order(self, small: cst.BaseSmallStatement, mine: Sequence[SlotLoad]) -> None:
        """One statement in program order: its Mat loads, then what it reads of the Mat
        tiles (an inline load is read by the op that takes it)."""
        target, value, _ = binding_of(small)
        defs = set(statement_defs(small))
        temps: list[str] = []
        outs: set[str] = set()
        for load in mine:
            if load.space != "Mat" or load.extents is None or load.dtype is None:
                continue
            named = load.name in defs and isinstance(target, cst.Name)
            out = load.name if named else self._temp()
            shape = (tuple(load.extents), load.dtype)
            label = f"{load.name} (load)"
            loaded = TileOp(out, (), shape, label, None, True, self.at_loop, (), self.statement)
            self.ops.append(loaded)
            (outs.add if named else temps.append)(out)
        if value is None:
            names = reads_of(small)
        else:
            stored = reads_of(target) if isinstance(target, cst.Subscript) else []
            names = reads_of(value) + stored
        if any(name in self.poisoned for name in names):
            self._unlaid("a Mat tile bound in a branch of an `if` is read after it")
        reads = [n for n in dict.fromkeys(names) if n in self.bound and n not in outs]
        viewed = _view_source(value)
        if isinstance(target, cst.Name) and viewed in self.bound and not temps:
            # `b = a`, a view of `a` (a reshape, a slice, a transposed view): `b` is
            # `a`'s buffer, whose lifetime its reads extend (InitMemRef shares it)
            view = TileOp(
                target.value, tuple(reads), None, "a view", viewed, loop=self.at_loop,
                statement=self.statement,
            )  # fmt: skip
            self.ops.append(view)
            outs.add(target.value)
        elif temps or reads:
            reading = TileOp(
                None, (*temps, *reads), None, "a read", loop=self.at_loop,
                statement=self.statement,
            )  # fmt: skip
            self.ops.append(reading)
        made = isinstance(value, cst.Call) and op_leaf(value) in CUBE_MADE_OPS
        self.defined |= defs
        for name in defs:
            self.poisoned.discard(name)
            (self.bound.add if name in outs else self.bound.discard)(name)
            (self.cube_made.add if made else self.cube_made.discard)(name)

    def _temp(self) -> str:
        self.temps += 1
        return f"%{self.temps}"

    def _branch(self, stmt: cst.If, loop: int) -> None:
        self._calls(stmt.test, loop)
        if any(name in self.bound or name in self.poisoned for name in reads_of(stmt.test)):
            self._unlaid("an `if` reads a Mat tile")
        self.block(body_statements(stmt.body), loop, top=False)
        other = stmt.orelse
        if isinstance(other, cst.If):
            self._branch(other, loop)
        elif isinstance(other, cst.Else):
            self.block(body_statements(other.body), loop, top=False)

    def _loop(self, stmt: cst.For, loop: int) -> None:
        call = stmt.iter
        leaf = op_leaf(call) if isinstance(call, cst.Call) else None
        if leaf == "unroll":  # its loads are its block's (statement_loads writes it out)
            for inner in body_statements(stmt.body):
                if isinstance(inner, cst.For) and op_leaf_of(inner) == "unroll":
                    self._loop(inner, loop)
                elif isinstance(inner, cst.SimpleStatementLine):
                    self._calls(inner, loop)
                    if any(n in self.bound for n in reads_of(inner)):
                        self._unlaid("a `pl.unroll` loop reading a Mat tile")
                else:
                    raise _NotModelled("a compound statement in a `pl.unroll` loop")
            return
        if leaf == "split_aiv":  # (LowerAutoVectorSplit's lane regions: vector code alone)
            if any(op_leaf(c) in CUBE_OPS for c in calls_of(self.fold)(stmt)):
                raise _NotModelled("a matmul in a `pl.split_aiv` region")
            return
        if leaf not in LOOP_OPS:
            raise _NotModelled("a loop that is not `pl.pipeline`, `pl.range` or `pl.unroll`")
        assert isinstance(call, cst.Call)
        self._calls(call, loop)
        outer = self.at_loop
        span = self.span_of(stmt)
        self.all_loops.append(ScopeLoop(span, leaf == "pipeline", outer))
        self.at_loop = len(self.all_loops) - 1
        if leaf == "pipeline":
            self.loops.append(span)
            self.parents.append(loop)
            loop = len(self.loops) - 1
        self.block(body_statements(stmt.body), loop)
        self.at_loop = outer

    def _calls(self, node: cst.CSTNode, loop: int) -> None:
        """Every call of ``node`` is an op known to make no Mat tile of its own; a
        matmul's operands are noted (checked once every load is met)."""
        for found in calls_of(self.fold)(node):
            leaf = op_leaf(found)
            if leaf is None:
                path = dsl.dotted(found.func)
                if path is not None and path[0] in PYTHON_BUILTINS:
                    continue  # (Python's own: no op)
                raise _NotModelled(f"the call `{_text(found.func)}(...)`, whose ops are not seen")
            if leaf not in NO_MAT_TILE_OPS:
                raise _NotModelled(f"the op `{leaf}`, whose Mat tiles are not modelled")
            if leaf in CUBE_OPS:
                self._matmul(found, leaf, loop)

    def _matmul(self, call: cst.Call, leaf: str, loop: int) -> None:
        args = dsl.positional(call)
        first = 1 if leaf.endswith("_acc") else 0
        operands = args[first : first + 2]
        others = [arg.value for n, arg in enumerate(args) if not first <= n < first + 2]
        for other in others:  # an accumulator, a bias: made on the cube, not pushed to it
            if isinstance(other, cst.Name) and other.value not in self.cube_made:
                # (a tile the vector makes reaches the cube through the cross-core ring,
                # a region system.reserve_buffer keeps in Mat)
                what = f"the operand `{other.value}` of `{leaf}`"
                raise _NotModelled(f"{what} is not made on the cube")
        for arg, keyword in zip(operands, ("a_trans", "b_trans"), strict=False):
            if not isinstance(arg.value, cst.Name):
                continue  # (a slice written in the call: a load of its own, found)
            name = arg.value.value
            self.operands.append(name)
            flag = dsl.keyword(call, keyword)
            if flag is not None and dsl.dotted(flag.value) == ("True",) and loop >= 0:
                self.views.append((loop, name))


def _view_source(value: cst.BaseExpression | None) -> str | None:
    """The name ``value`` views (``a``, ``pl.reshape(a, ...)``, ``pl.slice(a, ...)``,
    ``pl.tile.transpose_view(a)``), None for any other value."""
    if isinstance(value, cst.Name):
        return value.value
    if isinstance(value, cst.Call) and op_leaf(value) in VIEW_OPS:
        args = dsl.positional(value)
        if args and isinstance(args[0].value, cst.Name):
            return args[0].value.value
    return None


def op_leaf_of(stmt: cst.CSTNode) -> str | None:
    """The op of a loop's header call (``pipeline`` of ``pl.pipeline(...)``; None for
    another statement)."""
    if not isinstance(stmt, cst.For) or not isinstance(stmt.iter, cst.Call):
        return None
    return op_leaf(stmt.iter)


def _text(node: cst.CSTNode) -> str:
    path = dsl.dotted(node) if isinstance(node, cst.BaseExpression) else None
    return ".".join(path) if path else "a call"


def scope_mat(
    node: cst.CSTNode | None,
    tensors: Mapping[str, Tensor],
    fold: Fold,
    span_of: Callable[[cst.For], Span],
    uses_of: UsesOf | None = None,
) -> ScopeMat:
    """The Mat loads of the InCore scope ``node`` opens (a ``with pl.at(...)``, a
    ``pl.spmd`` loop, an InCore function; None: not known), with the pipeline loop each
    is in, or why they are not all known. ``uses_of``: how a block's uses are got
    (:func:`~skewlsp.analysis.lower_pipeline.slot_loads.statement_loads`'; a caller
    keeps them for every build and copy, as they are read off the tree alone)."""
    if not isinstance(node, (cst.With, cst.For, cst.FunctionDef)):
        return ScopeMat(unknown="the InCore scope holding the loop is not known")
    found = _Walk(tensors, fold, span_of, uses_of)
    try:
        found.block(body_statements(node.body), -1)
    except _NotModelled as reason:
        return ScopeMat(unknown=str(reason))
    mat = {load.name for load in found.loads}
    strays = [n for n in dict.fromkeys(found.operands) if n not in mat and n not in tensors]
    stray = next((n for n in strays if n not in found.defined), None)
    if stray is not None:
        return ScopeMat(unknown=_not_a_load(stray))
    ordered = ScopeTiles(tuple(found.ops), tuple(found.all_loops), found.why)
    return ScopeMat(
        tuple(found.loads),
        tuple(found.loops),
        tuple(found.parents),
        tuple(found.views),
        ordered,
        popped=tuple(strays),
    )


def cube_ring(mat: ScopeMat, vec: ScopeTiles | None) -> dict[str, int] | str:
    """Where the cube's reserved region of Mat ends (the vector -> cube ring's buffer,
    :func:`.reserve_buffer.reserved_on_cube`) when the scope's matmuls read tiles the
    vector pushes (``mat.popped``, each one the vector's walk of the scope, ``vec``,
    pushes); why the Mat tiles are not known where one is not."""
    if mat.popped and vec is not None and vec.unknown is not None:
        return (
            f"the matmul operand `{mat.popped[0]}` comes from the vector, whose tiles are "
            f"not known: {vec.unknown}"
        )
    missing = next((n for n in mat.popped if vec is None or n not in vec.sent), None)
    if missing is not None:
        return _not_a_load(missing)
    return reserved_on_cube(vec) if mat.popped else {}


def _not_a_load(name: str) -> str:
    """Why the Mat tiles are not known: a matmul reads ``name``, which is neither a load
    into Mat nor a tile the vector is seen to push."""
    return f"the matmul operand `{name}` is not a load into Mat"


@dataclass(frozen=True)
class MatPacking:
    """What one core function's Mat tiles come to: ``total``, the bytes of every one in
    a buffer of its own (aligned); where that is more than Mat holds, their layout in
    program order (``layout``, CanonicalizeIOOrder's) and MemoryReuse's packing of it
    (``reuse``), or why they cannot be laid out (``unlaid``). ``why``: why the tiles are
    not known at all."""

    total: int = 0
    layout: ScopeLayout | None = None
    reuse: ReuseResult | None = None
    unlaid: str | None = None
    why: str | None = None
    reserved: int = 0  # the vector -> cube ring's buffer at the bottom of Mat


def mat_packing(
    scope: ScopeMat,
    lowerings: Mapping[Span, Lowering | None],
    chip: Chip = DEFAULT_CHIP,
    held: Mapping[str, int] | str | None = None,
    rewritten: Mapping[Span, LoopLowering] | None = None,
) -> MatPacking:
    """The function's Mat tiles (``scope``'s, each pipeline loop's as ``lowerings``, by
    its span, has it on this core, or as ``rewritten`` has what the skew pass makes of
    it: a skewed copy's clones, a demoted copy run as written): their
    bytes, and, when they do not all fit apart, MemoryReuse's packing of them laid out
    with their lifetimes, above the region the cross-core ring reserves at the bottom of
    Mat (``held``: per space, where it ends; a string: why that is not known)."""
    if scope.unknown is not None:
        return MatPacking(why=scope.unknown)
    if isinstance(held, str):
        return MatPacking(why=held)
    reserved = (held or {}).get("Mat", 0)
    rewritten = rewritten or {}
    copies = []
    for span in scope.loops:
        lowering = lowerings.get(span)
        if span in rewritten:  # (a skew clones each half D times twice)
            laid = rewritten[span]
            copies.append(2 * laid.regions[0][1] if laid.halves is not None else 1)
            continue
        if lowering is None or lowering.verdict not in ("replicated", "untouched", "empty"):
            return MatPacking(why=f"the copies of the loop at line {span.line} are not known")
        copies.append(lowering.copies)
    total = sum(
        chip.align(load.bytes) * (copies[load.loop] if load.loop >= 0 else 1)
        for load in scope.loads
    )
    if total + reserved <= chip.capacity("Mat"):
        return MatPacking(total, reserved=reserved)
    ordered = scope.ordered
    laid_from: list[LoopLowering | str] = [
        LoopLowering(())
        if not at.pipeline or at.span is None
        else rewritten[at.span]
        if at.span in rewritten
        else lowering_of(lowerings.get(at.span), at.parent >= 0)
        for at in ordered.loops
    ]
    layout = scope_layout(ordered, laid_from, "Mat")
    if isinstance(layout, str):
        return MatPacking(total, unlaid=layout, reserved=reserved)
    reuse = memory_reuse(layout.tiles, chip, {"Mat": reserved} if reserved else None)
    return MatPacking(total, layout, reuse, reserved=reserved)


def mat_memory(
    scope: ScopeMat, packing: MatPacking, loop: Span, chip: Chip = DEFAULT_CHIP
) -> MatMemory:
    """What the function's Mat tiles (``scope``'s, come to ``packing``) decide of
    ``loop``'s group: every stage kept apart when they all fit apart, or when MemoryReuse's
    packing of them keeps every stage of the loop's first group apart with no fallback."""
    if packing.why is not None:
        return MatMemory(why=packing.why)
    if loop not in scope.loops:
        return MatMemory(why="the loop is not one of its scope's")
    mine = scope.loops.index(loop)
    inside = set(_subtree(mine, scope.parents))
    sizes = [load.bytes for load in scope.loads if load.loop in inside]
    for at, name in scope.views:
        if at not in inside or any(x.name == name and x.loop in inside for x in scope.loads):
            continue
        viewed = {x.bytes for x in scope.loads if x.name == name}
        if len(viewed) != 1:
            return MatMemory(why=f"the tile `{name}` the loop reads transposed is not one load")
        sizes.extend(viewed)
    if not sizes:
        return MatMemory(why="the loop loads nothing into Mat")
    slot = chip.align(max(sizes))
    if packing.total + packing.reserved <= chip.capacity("Mat"):
        return MatMemory(packing.total, slot, True)
    group = _loop_group(scope, packing, loop)
    full = group is not None and _packed_full(packing, group)
    return MatMemory(packing.total, slot, full, packing.unlaid, packing, group=group)


def _loop_group(scope: ScopeMat, packing: MatPacking, loop: Span) -> int | None:
    """The loop's first stage group in the layout of the function's Mat tiles (None:
    not laid out, or the loop has none there)."""
    layout = packing.layout
    where = [n for n, at in enumerate(scope.ordered.loops) if at.span == loop]
    if layout is None or len(where) != 1 or not layout.groups[where[0]]:
        return None
    return layout.groups[where[0]][0]


def _packed_full(packing: MatPacking, group: int) -> bool:
    """Whether MemoryReuse's packing keeps every stage of ``group`` apart in Mat, with
    no fallback to its legacy packing there."""
    reuse = packing.reuse
    if reuse is None or any(f.space == "Mat" for f in reuse.fallbacks):
        return False
    requested = reuse.requested.get(("Mat", group))
    return requested is not None and reuse.achieved.get(("Mat", group)) == requested


def _subtree(loop: int, parents: Sequence[int]) -> Iterator[int]:
    """``loop`` and the pipeline loops nested in it (their clones are in its clones)."""
    yield loop
    for child, parent in enumerate(parents):
        if parent == loop:
            yield from _subtree(child, parents)
