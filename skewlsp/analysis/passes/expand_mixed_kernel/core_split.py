"""Both cores' copies of one loop body, with the messages the compiler adds.

Wherever a value made on one core is consumed on the other, ExpandMixedKernel
inserts one message — a push on the producing core and a pop on the consuming
core — where InferTileMemorySpace put the move: right before the first consumer.
A cube store that the vector loads back from GM gets a fence pair instead. Each
core keeps its own statements plus the shared scalar ones, pops are freed after
their last use, and dead code is removed per core.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import libcst as cst

from skewlsp.analysis.frontend import op_registry
from skewlsp.analysis.frontend.constants import code_of
from skewlsp.analysis.frontend.names import reads_of
from skewlsp.analysis.frontend.op_registry import CUBE, LAZY, MIXED, SHARED, VECTOR, op_leaf
from skewlsp.analysis.passes.auto_tile_matmul_l0 import CubeCasts
from skewlsp.analysis.passes.body import SharedMove, Splicer, Stmt
from skewlsp.analysis.passes.expand_mixed_kernel.core_sides import (
    SideModel,
    join_sides,
    store_arguments,
)
from skewlsp.analysis.source.tree_text import MadeTrees


@dataclass
class Crossing:
    """One value crossing the cube/vector boundary before a top-level statement."""

    name: str
    direction: str  # "C->V" or "V->C"
    before: int  # the pop goes before this statement (and the push, unless push_after)
    # A GM fence (a cube store read back by a vector load): the push follows the store
    # and sends the stored tile; the popped value is only a token.
    push_after: int | None = None
    pushed: str | None = None  # the source of the pushed tile
    pushed_reads: tuple[str, ...] = ()


@dataclass
class Split:
    """Both cores' statement lists for one loop body."""

    aic: list[Stmt]
    aiv: list[Stmt]
    crossings: list[Crossing]
    sides: list[str]
    body: list[Stmt]  # the body split: the statements ``sides`` and crossings index
    unknown: str | None = None
    has_cube: bool = False
    has_vector: bool = False
    # Scalars only one core computes (a value read out of a tile): name -> (that core,
    # the index of the statement that computes it). No message carries a scalar.
    one_core_scalars: dict[str, tuple[str, int]] = field(default_factory=dict)


@dataclass(frozen=True)
class ScalarAcross:
    """A scalar one core computes and a statement of the other core reads.

    ExpandMixedKernel sends only tiles between the cores: the reading core's copy of
    the statement reads a variable nothing defines there (SKW061).
    """

    name: str
    computed_on: str  # "aic" / "aiv"
    computed_by: cst.CSTNode  # the statement that computes it (where a span is taken)
    read_by: cst.CSTNode  # the first statement of the other core that reads it


def split_body(
    stmts: Sequence[Stmt],
    outside: Mapping[str, str],
    live_out: Iterable[str],
    made: MadeTrees | None,
    casts: CubeCasts,
    inline: Splicer | None = None,
) -> Split:
    """Both cores' top-level statement lists, with the implicit messages in program order.

    A GM slice is loaded once. ConvertTensorToTileOps loads a slice that feeds a matmul
    to Mat whatever else reads it, so a vector reader of that slice gets it across the
    boundary (cube -> vector); a slice only vector ops read is loaded to Vec. The
    readers are found by a first scan, and the second scan loads each slice accordingly.
    ``stmts`` is the body as FlattenCallExpr leaves it (nested calls on the other core
    than the op around them are statements of their own) and ``casts`` the casts
    AutoTileMatmulL0 folds into a matmul's result: the driver runs both passes first,
    as the compiler does. ``made``: the trees the analysis made, which the code of
    their nodes is cut from. ``inline``: InlineFunctions at a call of an inline helper
    (its ops are the caller's, wherever its body is written).
    """
    first = _scan(stmts, outside, frozenset(), frozenset(), casts, made, inline)
    to_mat = frozenset(name for name, needed in first.demand.items() if CUBE in needed)
    to_vec = frozenset(first.vector_read)
    stored = any(_stored_tile(stmt, to_vec) for stmt in stmts)
    scan = _scan(stmts, outside, to_mat, to_vec, casts, made, inline) if to_mat or stored else first
    sides, crossings, model = scan.sides, scan.crossings, scan.model
    crossings = sorted([*crossings, *_gm_fences(stmts, sides, made)], key=lambda c: c.before)
    aic = _core_list(stmts, sides, crossings, CUBE, live_out, scan.readers)
    aiv = _core_list(stmts, sides, crossings, VECTOR, live_out, scan.readers)
    unknown = model.unknown[0] if model.unknown else None
    return Split(
        aic,
        aiv,
        crossings,
        sides,
        list(stmts),
        unknown,
        has_cube=any(s in (CUBE, MIXED) for s in sides) or bool(crossings),
        has_vector=any(s in (VECTOR, MIXED) for s in sides) or bool(crossings),
        one_core_scalars={
            name: (side, index)
            for index, (stmt, side) in enumerate(zip(stmts, sides, strict=True))
            if side in (CUBE, VECTOR)
            for name in stmt.defs
            if model.side_of(name) == SHARED
        },
    )


def scalars_across(
    core: str, core_stmts: Sequence[Stmt], split: Split, body: Sequence[Stmt]
) -> list[ScalarAcross]:
    """The scalars the other core computes that ``core``'s statements ("aic"/"aiv") read,
    each at its first read; ``body`` is the statement list ``split`` was made from."""
    own = CUBE if core == "aic" else VECTOR
    defined = {name for stmt in core_stmts for name in stmt.defs}
    found: dict[str, ScalarAcross] = {}
    for stmt in core_stmts:
        for name in stmt.reads:
            owner = split.one_core_scalars.get(name)
            if owner is None or owner[0] == own or name in defined or name in found:
                continue
            found[name] = ScalarAcross(
                name, _CORE_OF_SIDE[owner[0]], body[owner[1]].located, stmt.located
            )
    return list(found.values())


_CORE_OF_SIDE = {CUBE: "aic", VECTOR: "aiv"}


@dataclass
class _BodyScan:
    sides: list[str]
    crossings: list[Crossing]
    model: SideModel
    demand: dict[str, set[str]]  # GM slice -> the sides of the ops that read it
    vector_read: set[str]  # cube tiles some vector op of the body reads
    # Per compound statement (by index): tile name -> the sides of the ops reading it.
    readers: dict[int, dict[str, set[str]]]


def _scan(
    stmts: Sequence[Stmt],
    outside: Mapping[str, str],
    to_mat: frozenset[str],
    to_vec: frozenset[str],
    cube_casts: CubeCasts | None,
    made: MadeTrees | None,
    inline: Splicer | None,
) -> _BodyScan:
    """One walk of the body: each statement's side and where values cross.

    ``to_vec`` are the cube tiles a vector op reads somewhere in the body (found by a
    first walk): a store of one of them runs on the vector (see ``_stored_tile``).
    """
    walk = _BodyWalk(outside, to_mat, to_vec, cube_casts, made)
    walk.model.inline = inline
    for index, stmt in enumerate(stmts):
        walk.statement(index, stmt)
    return walk.result()


class _BodyWalk:
    """What :func:`_scan` has found so far, statement by statement: each statement's side
    is decided, then what its ops read decides where values cross and slices load."""

    def __init__(
        self,
        outside: Mapping[str, str],
        to_mat: frozenset[str],
        to_vec: frozenset[str],
        cube_casts: CubeCasts | None,
        made: MadeTrees | None,
    ) -> None:
        model = SideModel(outside, made)
        model.cube_casts = cube_casts
        for name in to_mat:
            if model.side_of(name) == LAZY:
                model.sides[name] = CUBE  # a slice from before the loop, loaded to Mat there
        self.model = model
        self.to_mat = to_mat
        self.to_vec = to_vec
        self.sides: list[str] = []
        self.crossings: list[Crossing] = []
        # (name, direction) already crossed: one message per value, until it is rebound.
        self.crossed: set[tuple[str, str]] = set()
        # GM slices made in the body whose loading core is not known yet -> their statement.
        self.lazy_defs: dict[str, int] = {}
        self.slices = {name for name, side in outside.items() if side == LAZY}
        self.demand: dict[str, set[str]] = {}
        self.readers: dict[int, dict[str, set[str]]] = {}

    def statement(self, index: int, stmt: Stmt) -> None:
        model = self.model
        consumed: list[tuple[str, str, str]] = []
        lazy: list[str] = []
        owner = message_core(stmt)
        if owner is not None:
            # A message of an inner pipeline already split and spliced for one core.
            side = owner
            for name in stmt.defs:
                model.sides[name] = owner
        elif stmt.kind == "compound":
            model.nested_lazy_uses.clear()
            model.nested_readers = {}
            model.crossed = self.crossed
            side = model.compound(stmt.node)
            self.readers[index] = model.nested_readers
            consumed.extend((name, needed, LAZY) for name, needed in model.nested_lazy_uses)
        elif isinstance(stmt.node, cst.BaseSmallStatement):
            side, lazy = self._small(index, stmt, consumed)
        else:
            side = SHARED
        self._consume(index, consumed)
        # A rebound name is a new value: it crosses again if the other core reads it.
        self.crossed = {(name, d) for name, d in self.crossed if name not in stmt.defs}
        self.slices -= set(stmt.defs) - set(lazy)  # rebound to something else than a slice
        self.sides.append(side)

    def _small(
        self, index: int, stmt: Stmt, consumed: list[tuple[str, str, str]]
    ) -> tuple[str, list[str]]:
        """A small statement's side, and the GM slices it makes (loaded where read)."""
        model = self.model
        side, lazy = model.small(stmt.node, consumed)  # type: ignore[arg-type]  # a small one
        stored = _stored_tile(stmt, self.to_vec) if side == CUBE else None
        if stored is not None:
            side = VECTOR
            consumed.append((stored, VECTOR, CUBE))
        for name in lazy:
            self.slices.add(name)
            if name in self.to_mat:
                model.sides[name] = CUBE
                side = join_sides(side, CUBE)
            else:
                self.lazy_defs[name] = index
        return side, lazy

    def _consume(self, index: int, consumed: list[tuple[str, str, str]]) -> None:
        """What statement ``index`` reads, as (name, side needed, side it had): a GM slice
        is loaded where it is read, a tile the other core made crosses before it."""
        model = self.model
        for name, needed, have in consumed:
            if name in self.slices:
                self.demand.setdefault(name, set()).add(needed)
            if have == LAZY:
                if model.side_of(name) == LAZY:
                    model.sides[name] = needed
                made = self.lazy_defs.get(name)
                if made is not None:
                    self.sides[made] = join_sides(self.sides[made], needed)
                continue
            if have in (CUBE, VECTOR) and have != needed:
                direction = f"{have}->{needed}"
                if (name, direction) not in self.crossed:
                    self.crossed.add((name, direction))
                    self.crossings.append(Crossing(name, direction, index))

    def result(self) -> _BodyScan:
        model = self.model
        sides = self.sides
        for name, index in self.lazy_defs.items():
            if model.side_of(name) == LAZY:
                sides[index] = join_sides(sides[index], VECTOR)
        vector_read = {c.name for c in self.crossings if c.direction == "C->V"}
        vector_read |= model.nested_vector_reads
        return _BodyScan(sides, self.crossings, model, self.demand, vector_read, self.readers)


def _gm_fences(
    stmts: Sequence[Stmt], sides: Sequence[str], made: MadeTrees | None
) -> list[Crossing]:
    """Cube stores that a later vector statement loads back from GM.

    Neither op is a move, so no tile crosses; ExpandMixedKernel still orders them
    with a handshake: a push of the stored tile right after the cube's store and a
    pop (a token, freed at once) right before the vector's load. Only when the cube's
    store is the only store to that tensor by either core (CollectGmCrossLaneSyncs
    wants a unique producer), only cube -> vector, only a later load in the same
    body (a load nested deeper pops before its enclosing statement).
    """
    stores: dict[str, list[tuple[int, cst.BaseExpression]]] = {}
    for index, stmt in enumerate(stmts):
        if sides[index] not in (CUBE, VECTOR):
            continue
        found = _gm_store(stmt)
        if found is not None:
            stores.setdefault(found[0], []).append((index, found[1]))
    fences = []
    for tensor, stored in stores.items():
        if len(stored) != 1 or sides[stored[0][0]] != CUBE:
            continue
        store, tile = stored[0]
        for index in range(store + 1, len(stmts)):
            if sides[index] in (VECTOR, MIXED) and _loads_from(stmts[index], tensor):
                fences.append(
                    Crossing(
                        f"{tensor}_gm_sync",
                        "C->V",
                        index,
                        push_after=store,
                        pushed=code_of(tile, made),
                        pushed_reads=tuple(reads_of(tile)),
                    )
                )
                break
    return fences


def fence_values(
    core_stmts: Sequence[Stmt], crossings: Sequence[Crossing], body: Sequence[Stmt]
) -> tuple[SharedMove, ...]:
    """The computed tile a fenced cube store writes, read by the store and by the push.

    ExpandMixedKernel flattens ``ws[...] = pl.matmul(...)`` into a tile that the store
    and the fence's push (right after it) both read, made once before them. When that
    push leads the cube's body, the tile is in the lead's half and the store, in the
    other half, reads it: a carry, as for a named tile the store writes. (``body`` is
    the statement list the crossings index; ``core_stmts`` the cube's own list.)
    """
    found = []
    for crossing in crossings:
        if crossing.push_after is None:
            continue
        store_stmt = body[crossing.push_after]
        stored = _gm_store(store_stmt)
        if stored is None or isinstance(stored[1], cst.Name):
            continue  # a named tile: its own statement defines it, the deps show the carry
        store = next((k for k, s in enumerate(core_stmts) if s.node is store_stmt.node), None)
        if store is None or store + 1 >= len(core_stmts) or core_stmts[store + 1].kind != "push":
            continue
        found.append(SharedMove(f"%{crossing.name}", "Acc", (store, store + 1)))
    return tuple(found)


def _stored_tile(stmt: Stmt, to_vec: frozenset[str]) -> str | None:
    """The cube tile a store writes, when a vector op of the body also reads that tile.

    tile.store takes Vec or Acc, Vec first (its memory spec). InferTileMemorySpace makes
    one Vec copy of a cube tile that some op needs in Vec, at the first op of the block
    whose first choice is Vec, and hands that copy to the later ones: a store of the
    tile, before or after the vector op, then stores the copy and runs on the vector. A
    cube tile no vector op reads is stored by the cube, from Acc.
    """
    found = _gm_store(stmt)
    if found is None or not isinstance(found[1], cst.Name):
        return None
    return found[1].value if found[1].value in to_vec else None


def _gm_store(stmt: Stmt) -> tuple[str, cst.BaseExpression] | None:
    """(tensor, stored tile) of a store written as a slice write or a store/assemble op.

    A computed tile (``ws[...] = pl.matmul(...)``) is flattened into a temporary the
    store and the push both read: the push reads what the expression reads.
    """
    node = stmt.node
    if type(node) is cst.Assign and len(node.targets) == 1:
        target = node.targets[0].target
        if type(target) is cst.Subscript and type(target.value) is cst.Name:
            return target.value.value, node.value
    call = getattr(node, "value", None)
    stored = store_arguments(call) if isinstance(call, cst.Call) else None
    if stored is None:
        return None
    tile, tensor = stored
    return (tensor.value, tile) if isinstance(tensor, cst.Name) else None


def _loads_from(stmt: Stmt, tensor: str) -> bool:
    """Whether ``stmt`` reads ``tensor`` other than as the target of a write (a slice
    write, or the tensor a store/assemble op writes into)."""
    node = stmt.node
    if isinstance(node, (cst.Assign, cst.Expr, cst.AnnAssign)) and node.value is not None:
        value = node.value
        if isinstance(value, cst.Call) and (stored := store_arguments(value)) is not None:
            args = [a.value for a in value.args if a.keyword is None]
            return any(tensor in reads_of(arg) for arg in args if arg is not stored[1])
        return tensor in reads_of(value)
    return stmt.kind == "compound" and tensor in stmt.reads


def message_core(stmt: Stmt) -> str | None:
    """The core a tpush/tpop/tfree statement belongs to (None: not a message)."""
    call = getattr(stmt.node, "value", None)
    if stmt.kind == "compound" or not isinstance(call, cst.Call):
        return None
    leaf = op_leaf(call) or ""
    if not leaf.startswith(("tpush_", "tpop_", "tfree_")):
        return None
    if leaf.endswith(("_to_aiv", "_from_aiv")):
        return CUBE
    if leaf.endswith(("_to_aic", "_from_aic")):
        return VECTOR
    return None


def _core_list(
    stmts: Sequence[Stmt],
    sides: Sequence[str],
    crossings: Sequence[Crossing],
    core: str,
    live_out: Iterable[str],
    readers: Mapping[int, Mapping[str, set[str]]] | None = None,
) -> list[Stmt]:
    """``core``'s statements, with the messages where values cross. A nested block
    holding work of both cores reads, in this core's copy, only the tiles this core's
    ops read (``readers``: per block, each tile's reading sides)."""
    out: list[Stmt] = []
    popped: list[str] = []
    peer = "aiv" if core == CUBE else "aic"

    def push(crossing: Crossing, at: Stmt) -> Stmt:
        sent = crossing.pushed or crossing.name
        reads = crossing.pushed_reads or (sent,)
        node = _tpush(peer, sent)
        return Stmt(node, "push", (), reads, origin="implicit push", anchor=at.located)

    for index, stmt in enumerate(stmts):
        for crossing in crossings:
            if crossing.before != index:
                continue
            producer = crossing.direction[0]
            if producer == core:
                if crossing.push_after is None:
                    out.append(push(crossing, stmt))
            else:
                node = _tpop(peer, crossing.name)
                out.append(
                    Stmt(
                        node,
                        "pop",
                        (crossing.name,),
                        (),
                        origin="implicit pop",
                        anchor=stmt.located,
                    )
                )
                popped.append(crossing.name)
        if sides[index] in (core, SHARED, MIXED):
            reads = stmt.reads
            tile_readers = readers.get(index) if readers and sides[index] == MIXED else None
            if tile_readers:
                reads = tuple(n for n in reads if core in tile_readers.get(n, (core,)))
            out.append(
                Stmt(
                    stmt.node,
                    stmt.kind,
                    stmt.defs,
                    reads,
                    stmt.scalar_arith,
                    stmt.origin,
                    bindings=stmt.bindings,
                    anchor=stmt.anchor,
                )
            )
        out.extend(
            push(c, stmt) for c in crossings if c.push_after == index and c.direction[0] == core
        )
    out = _add_tfrees(out, popped, "aiv" if core == CUBE else "aic")
    return _eliminate_dead(out, set(live_out))


def _add_tfrees(stmts: list[Stmt], popped: Sequence[str], peer: str) -> list[Stmt]:
    """A popped slot is freed right after the popped tile's last use in the same block.

    "Last use" is of the popped *value*: a later statement that rebinds the name
    (``x = pl.mul(x, 2)``) is its last possible use.
    """
    result = list(stmts)
    for name in popped:
        pop = next((k for k, s in enumerate(result) if s.kind == "pop" and name in s.defs), None)
        if pop is None:
            continue
        last = pop
        for k in range(pop + 1, len(result)):
            if name in result[k].reads:
                last = k
            if name in result[k].defs:
                break
        node = _tfree(peer, name)
        anchor = result[last].located
        result.insert(
            last + 1, Stmt(node, "plain", (), (name,), origin="implicit tfree", anchor=anchor)
        )
    return result


def _statement(code: str) -> cst.BaseSmallStatement:
    """A statement the compiler adds, as source, for previews of the core's function."""
    line = cst.parse_statement(code + "\n")
    assert isinstance(line, cst.SimpleStatementLine)
    return line.body[0]


def _dotted_call(path: str, args: Sequence[cst.Arg]) -> cst.Call:
    parts = path.split(".")
    func: cst.BaseExpression = cst.Name(parts[0])
    for part in parts[1:]:
        func = cst.Attribute(func, cst.Name(part))
    return cst.Call(func, args)


def _split() -> cst.Arg:
    """``split=0`` as the parser builds it (a new node each time: nodes are told apart by id)."""
    equal = cst.AssignEqual(
        whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
    )
    return cst.Arg(cst.Integer("0"), keyword=cst.Name("split"), equal=equal)


def _tfree(peer: str, name: str) -> cst.BaseSmallStatement:
    """``pl.system.tfree_to_<peer>(name)``, built as the parser would build it: the
    compiler's messages were parsed from text for every crossing, which cost as much
    as the rest of the per-core split."""
    if not name.isidentifier():
        return _statement(f"pl.system.tfree_to_{peer}({name})")
    return cst.Expr(_dotted_call(f"pl.system.tfree_to_{peer}", [cst.Arg(cst.Name(name))]))


def _tpush(peer: str, sent: str) -> cst.BaseSmallStatement:
    """``pl.tile.tpush_to_<peer>(sent, split=0)`` (parsed when ``sent`` is an expression)."""
    if not sent.isidentifier():
        return _statement(f"pl.tile.tpush_to_{peer}({sent}, split=0)")
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    args = [cst.Arg(cst.Name(sent), comma=comma), _split()]
    return cst.Expr(_dotted_call(f"pl.tile.tpush_to_{peer}", args))


def _tpop(peer: str, name: str) -> cst.BaseSmallStatement:
    """``name = pl.tile.tpop_from_<peer>(split=0)``."""
    if not name.isidentifier():
        return _statement(f"{name} = pl.tile.tpop_from_{peer}(split=0)")
    call = _dotted_call(f"pl.tile.tpop_from_{peer}", [_split()])
    return cst.Assign([cst.AssignTarget(cst.Name(name))], call)


def _eliminate_dead(stmts: list[Stmt], live_out: set[str]) -> list[Stmt]:
    """Per-core dead-code elimination: what the other core needed is gone from this one."""
    keep = [True] * len(stmts)
    changed = True
    while changed:
        changed = False
        needed = set(live_out)
        for k, stmt in enumerate(stmts):
            if keep[k]:
                needed.update(stmt.reads)
        for k, stmt in enumerate(stmts):
            if not keep[k] or _is_root(stmt):
                continue
            if not any(name in needed for name in stmt.defs):
                keep[k] = False
                changed = True
    return [s for k, s in enumerate(stmts) if keep[k]]


def _is_root(stmt: Stmt) -> bool:
    if stmt.kind in ("push", "pop", "compound") or stmt.origin == "implicit tfree":
        return True
    node = stmt.node
    value = getattr(node, "value", None)
    if isinstance(value, cst.Call) and op_leaf(value) in op_registry.STORE_OPS:
        return True
    if isinstance(node, cst.Expr):
        return True
    if isinstance(node, cst.Assign):
        return any(isinstance(t.target, cst.Subscript) for t in node.targets)
    return not stmt.defs
