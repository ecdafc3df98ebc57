"""The mixed-kernel model: how ExpandMixedKernel splits a loop body between the cores.

Kernels written with high-level ops never spell ``tpush``/``tpop``: the
compiler gives every op a side (``op_tables``), and wherever a value made on
one core is consumed on the other it inserts one message — a push on the
producing core and a pop on the consuming core — right before the first
consumer in the consumer's block. Each core keeps its own statements plus the
shared scalar ones, dead code is removed per core, and each core's copy of the
loop then goes through the *same* decision procedure as a hand-written loop.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import libcst as cst

from . import dsl, op_tables
from .body import BodyContext, InnerSkew, Stmt, resolve
from .constants import code_of
from .decide import Decision, LoopHeader, decide
from .names import body_statements, reads_of
from .report import CoreResult
from .scope import function_params
from .walk import walk

CUBE, VECTOR, SHARED, MIXED = "C", "V", "S", "M"
GM, LAZY = "G", "L"  # a GM tensor; a GM slice/load whose side its first consumer decides
TILE_SIDES = frozenset({CUBE, VECTOR, LAZY})


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
    unknown: str | None = None
    has_cube: bool = False
    has_vector: bool = False


@dataclass
class _Scan:
    sides: dict[str, str]
    unknown: list[str] = field(default_factory=list)


def op_leaf(call: cst.Call) -> str | None:
    path = dsl.dotted(call.func)
    if path is None or len(path) < 2 or path[0] not in ("pl", "pld"):
        return None
    return path[-1]


def _memory(call: cst.Call) -> str | None:
    arg = dsl.keyword(call, "target_memory")
    if arg is None:
        return None
    text = cst.Module(body=[]).code_for_node(arg.value)
    leaf = text.rsplit(".", 1)[-1]
    if leaf in op_tables.CUBE_MEMORY:
        return CUBE
    if leaf in op_tables.VECTOR_MEMORY:
        return VECTOR
    return None


class SideModel:
    """Sides of values and statements.

    ``consumed`` collects (name, side needed, side it had when read): the side at
    the read matters because ``x = pl.mul(x, 2)`` reads a cube ``x`` and rebinds
    ``x`` to a vector tile in one statement.
    """

    def __init__(self, sides: Mapping[str, str]) -> None:
        self.sides = dict(sides)
        self.unknown: list[str] = []
        # (name, side needed) for GM slices read inside nested blocks.
        self.nested_lazy_uses: list[tuple[str, str]] = []

    def side_of(self, name: str) -> str:
        return self.sides.get(name, SHARED)

    # -- expressions -------------------------------------------------------------------------

    def expr(
        self, node: cst.BaseExpression, consumed: list[tuple[str, str, str]]
    ) -> tuple[str, str]:
        """(value side, statement side) of evaluating ``node``."""
        if isinstance(node, cst.Name):
            side = self.side_of(node.value)
            return side, SHARED
        if isinstance(node, (cst.Integer, cst.Float, cst.SimpleString)):
            return SHARED, SHARED
        if isinstance(node, (cst.BinaryOperation, cst.UnaryOperation, cst.Comparison)):
            operands = reads_of(node)
            tiles = [n for n in operands if self.side_of(n) in TILE_SIDES]
            if tiles:
                consumed.extend((n, VECTOR, self.side_of(n)) for n in tiles)
                return VECTOR, VECTOR
            return SHARED, SHARED
        if isinstance(node, cst.Subscript):
            base, _ = self.expr(node.value, consumed)
            if base == GM:
                return LAZY, SHARED
            return (base if base in TILE_SIDES else SHARED), SHARED
        if isinstance(node, cst.Call):
            return self._call(node, consumed)
        return SHARED, SHARED

    def _tile_args(self, call: cst.Call) -> list[str]:
        names: list[str] = []
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value in (
                "target_memory",
                "out_dtype",
                "dtype",
            ):
                continue
            names += [n for n in reads_of(arg.value) if self.side_of(n) in TILE_SIDES | {GM}]
        return names

    def _call(self, call: cst.Call, consumed: list[tuple[str, str, str]]) -> tuple[str, str]:
        leaf = op_leaf(call)
        if leaf is None:
            path = dsl.dotted(call.func)
            if path and path[-1] == "yield_":
                return SHARED, SHARED
            if any(self.side_of(n) in TILE_SIDES for n in self._tile_args(call)):
                self.unknown.append(cst.Module(body=[]).code_for_node(call.func))
            return SHARED, SHARED
        nested_side = SHARED
        for arg in call.args:  # nested calls are flattened into statements of their own
            if isinstance(arg.value, cst.Call):
                _, inner = self._call(arg.value, consumed)
                nested_side = _join(nested_side, inner)
        args = self._tile_args(call)
        tiles = [n for n in args if self.side_of(n) in TILE_SIDES]
        nested_values = [
            self._call(a.value, [])[0] for a in call.args if isinstance(a.value, cst.Call)
        ]
        has_tile = bool(tiles) or any(v in TILE_SIDES for v in nested_values)
        if leaf in op_tables.CUBE_OPS:
            consumed.extend((n, CUBE, self.side_of(n)) for n in tiles)
            return CUBE, _join(nested_side, CUBE)
        if leaf in op_tables.LOAD_OPS:
            memory = _memory(call)
            return (memory or LAZY), _join(nested_side, memory or SHARED)
        if leaf in op_tables.CUBE_SOURCES:
            return CUBE, _join(nested_side, CUBE)
        if leaf in op_tables.MOVE_OPS or leaf in op_tables.TO_VECTOR_OPS | op_tables.TO_CUBE_OPS:
            target = _memory(call)
            if leaf in op_tables.TO_VECTOR_OPS:
                target = VECTOR
            elif leaf in op_tables.TO_CUBE_OPS:
                target = CUBE
            if target is None:
                first = next((self.side_of(n) for n in tiles), SHARED)
                return first, _join(nested_side, first if first in (CUBE, VECTOR) else SHARED)
            consumed.extend((n, target, self.side_of(n)) for n in tiles)
            return target, _join(nested_side, target)
        if leaf in op_tables.INHERIT_OPS:
            first = next((self.side_of(n) for n in args), SHARED)
            side = LAZY if first == GM else first
            return side, _join(nested_side, side if side in (CUBE, VECTOR) else SHARED)
        if leaf in op_tables.STORE_OPS:
            if not tiles:
                return GM, nested_side
            side = self.side_of(tiles[0])
            return GM, _join(nested_side, VECTOR if side == LAZY else side)
        if leaf in op_tables.GM_OPS:
            return GM, nested_side
        if leaf in op_tables.VECTOR_SOURCES:
            memory = _memory(call) or VECTOR
            return memory, _join(nested_side, memory)
        if leaf in op_tables.VECTOR_SCALAR_OPS:
            return SHARED, _join(nested_side, VECTOR)
        if leaf in op_tables.SHARED_SCALAR_OPS and not has_tile:
            return SHARED, nested_side
        # A GM tensor (or a slice of one) handed to a tile op is loaded where the op
        # runs: ConvertTensorToTileOps turns it into a tile.load to Vec.
        reads_gm = any(self.side_of(n) == GM for n in args)
        if has_tile or reads_gm or nested_side in (VECTOR, CUBE):
            consumed.extend((n, VECTOR, self.side_of(n)) for n in tiles)
            return VECTOR, _join(nested_side, VECTOR)
        return SHARED, nested_side

    # -- statements ----------------------------------------------------------------------------

    def small(
        self, small: cst.BaseSmallStatement, consumed: list[tuple[str, str, str]]
    ) -> tuple[str, list[str]]:
        """(statement side, names whose side is decided by their first consumer)."""
        lazy: list[str] = []
        if isinstance(small, (cst.Assign, cst.AnnAssign)):
            value = small.value
            if value is None:
                return SHARED, lazy
            value_side, stmt_side = self.expr(value, consumed)
            targets = (
                [t.target for t in small.targets]
                if isinstance(small, cst.Assign)
                else [small.target]
            )
            for target in targets:
                if isinstance(target, cst.Name):
                    self.sides[target.value] = value_side
                    if value_side == LAZY:
                        lazy.append(target.value)
                elif isinstance(target, cst.Subscript):
                    stored_side = value_side
                    if stored_side in (CUBE, VECTOR):
                        stmt_side = _join(stmt_side, stored_side)
                    elif stored_side == LAZY:
                        stmt_side = _join(stmt_side, VECTOR)
                    if isinstance(value, cst.Name) and stored_side == LAZY:
                        consumed.append((value.value, VECTOR, LAZY))
                elif isinstance(target, (cst.Tuple, cst.List)):
                    for element in target.elements:
                        if isinstance(element.value, cst.Name):
                            self.sides[element.value.value] = value_side
            return stmt_side, lazy
        if isinstance(small, cst.Expr):
            _, side = self.expr(small.value, consumed)
            return side, lazy
        return SHARED, lazy

    def compound(self, stmt: cst.CSTNode) -> str:
        """The side of a nested block: both cores when it holds work of each."""
        side = SHARED
        if isinstance(stmt, (cst.If, cst.For, cst.While, cst.With, cst.Else)):
            for child in body_statements(stmt.body):
                side = _join(side, self.statement(child))
            orelse = getattr(stmt, "orelse", None)
            if orelse is not None:
                side = _join(side, self.compound(orelse))
        return side

    def statement(self, stmt: cst.CSTNode) -> str:
        if isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            side = SHARED
            for small in stmt.body:
                consumed: list[tuple[str, str, str]] = []
                s, _ = self.small(small, consumed)
                side = _join(side, s)
                side = _join(side, self._crossing_side(consumed))
                for name, needed, have in consumed:
                    if have == LAZY:  # a GM slice made outside is loaded where it is used
                        self.nested_lazy_uses.append((name, needed))
            return side
        return self.compound(stmt)

    def _crossing_side(self, consumed: Iterable[tuple[str, str, str]]) -> str:
        side = SHARED
        for _name, needed, have in consumed:
            if have in (CUBE, VECTOR) and have != needed:
                side = MIXED
        return side


def _join(a: str, b: str) -> str:
    if a == b or b == SHARED:
        return a
    if a == SHARED:
        return b
    return MIXED


class OutsideSides:
    """Sides of the values each loop of one function reads from outside it (parameters
    and earlier statements), from a single walk.

    A kernel function with many loops would otherwise be walked again up to each
    of them. The walk records the sides known when it reaches each ``for``; it
    enters the bodies of ``with``/``for``/``if``/``while`` (not ``else`` branches),
    so a loop it never reaches sees the sides of the whole walk.
    """

    def __init__(self, fn_body: Sequence[cst.CSTNode], params: Mapping[str, str]) -> None:
        model = SideModel(params)
        self._at_loop: dict[int, dict[str, str]] = {}

        def walk(block: Sequence[cst.CSTNode]) -> None:
            for stmt in block:
                if isinstance(stmt, cst.For):
                    self._at_loop[id(stmt)] = dict(model.sides)
                if isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
                    model.statement(stmt)
                elif isinstance(stmt, (cst.With, cst.For, cst.If, cst.While)):
                    walk(body_statements(stmt.body))

        walk(fn_body)
        self._after = dict(model.sides)

    def before(self, loop: cst.CSTNode) -> dict[str, str]:
        """The sides of the names defined before ``loop`` (copied: the caller may change them)."""
        return dict(self._at_loop.get(id(loop), self._after))


def split_body(stmts: Sequence[Stmt], outside: Mapping[str, str], live_out: Iterable[str]) -> Split:
    """Both cores' top-level statement lists, with the implicit messages in program order.

    A GM slice is loaded once. ConvertTensorToTileOps loads a slice that feeds a matmul
    to Mat whatever else reads it, so a vector reader of that slice gets it across the
    boundary (cube -> vector); a slice only vector ops read is loaded to Vec. The
    readers are found by a first scan, and the second scan loads each slice accordingly.
    """
    first = _scan(stmts, outside, frozenset())
    to_mat = frozenset(name for name, needed in first.demand.items() if CUBE in needed)
    scan = _scan(stmts, outside, to_mat) if to_mat else first
    sides, crossings, model = scan.sides, scan.crossings, scan.model
    crossings = sorted([*crossings, *_gm_fences(stmts, sides)], key=lambda c: c.before)
    aic = _core_list(stmts, sides, crossings, CUBE, live_out)
    aiv = _core_list(stmts, sides, crossings, VECTOR, live_out)
    unknown = model.unknown[0] if model.unknown else None
    return Split(
        aic,
        aiv,
        crossings,
        sides,
        unknown,
        has_cube=any(s in (CUBE, MIXED) for s in sides) or bool(crossings),
        has_vector=any(s in (VECTOR, MIXED) for s in sides) or bool(crossings),
    )


@dataclass
class _BodyScan:
    sides: list[str]
    crossings: list[Crossing]
    model: SideModel
    demand: dict[str, set[str]]  # GM slice -> the sides of the ops that read it


def _scan(stmts: Sequence[Stmt], outside: Mapping[str, str], to_mat: frozenset[str]) -> _BodyScan:
    """One walk of the body: each statement's side and where values cross."""
    model = SideModel(outside)
    for name in to_mat:
        if model.side_of(name) == LAZY:
            model.sides[name] = CUBE  # a slice from before the loop, loaded to Mat there
    sides: list[str] = []
    crossings: list[Crossing] = []
    crossed: set[tuple[str, str]] = set()
    lazy_defs: dict[str, int] = {}
    slices = {name for name, side in outside.items() if side == LAZY}
    demand: dict[str, set[str]] = {}
    for index, stmt in enumerate(stmts):
        consumed: list[tuple[str, str, str]] = []
        lazy: list[str] = []
        message_core = _message_core(stmt)
        if message_core is not None:
            # A message of an inner pipeline already split and spliced for one core.
            side = message_core
            for name in stmt.defs:
                model.sides[name] = message_core
        elif stmt.kind == "compound":
            model.nested_lazy_uses.clear()
            side = model.compound(stmt.node)
            consumed.extend((name, needed, LAZY) for name, needed in model.nested_lazy_uses)
        elif isinstance(stmt.node, cst.BaseSmallStatement):
            side, lazy = model.small(stmt.node, consumed)
            for name in lazy:
                slices.add(name)
                if name in to_mat:
                    model.sides[name] = CUBE
                    side = _join(side, CUBE)
                else:
                    lazy_defs[name] = index
        else:
            side = SHARED
        for name, needed, have in consumed:
            if name in slices:
                demand.setdefault(name, set()).add(needed)
            if have == LAZY:
                if model.side_of(name) == LAZY:
                    model.sides[name] = needed
                if name in lazy_defs:
                    sides[lazy_defs[name]] = _join(sides[lazy_defs[name]], needed)
                continue
            if have in (CUBE, VECTOR) and have != needed:
                direction = f"{have}->{needed}"
                if (name, direction) not in crossed:
                    crossed.add((name, direction))
                    crossings.append(Crossing(name, direction, index))
        # A rebound name is a new value: it crosses again if the other core reads it.
        crossed = {(name, d) for name, d in crossed if name not in stmt.defs}
        slices -= set(stmt.defs) - set(lazy)  # rebound to something else than a slice
        sides.append(side)
    for name, index in lazy_defs.items():
        if model.side_of(name) == LAZY:
            sides[index] = _join(sides[index], VECTOR)
    return _BodyScan(sides, crossings, model, demand)


def _gm_fences(stmts: Sequence[Stmt], sides: Sequence[str]) -> list[Crossing]:
    """Cube stores that a later vector statement loads back from GM.

    Neither op is a move, so no tile crosses; ExpandMixedKernel still orders them
    with a handshake: a push of the stored tile right after the cube's store and a
    pop (a token, freed at once) right before the vector's load. Only when the cube
    stores to that tensor once, only cube -> vector, only a later load in the same
    body (a load nested deeper pops before its enclosing statement).
    """
    stores: dict[str, list[tuple[int, cst.BaseExpression]]] = {}
    for index, stmt in enumerate(stmts):
        if sides[index] != CUBE:
            continue
        found = _gm_store(stmt)
        if found is not None:
            stores.setdefault(found[0], []).append((index, found[1]))
    fences = []
    for tensor, found in stores.items():
        if len(found) != 1:
            continue
        store, tile = found[0]
        for index in range(store + 1, len(stmts)):
            if sides[index] in (VECTOR, MIXED) and _loads_from(stmts[index], tensor):
                fences.append(
                    Crossing(
                        f"{tensor}_gm_sync",
                        "C->V",
                        index,
                        push_after=store,
                        pushed=code_of(tile),
                        pushed_reads=tuple(reads_of(tile)),
                    )
                )
                break
    return fences


def _gm_store(stmt: Stmt) -> tuple[str, cst.BaseExpression] | None:
    """(tensor, stored tile) of a store written as a slice write or a store/assemble op.

    A computed tile (``ws[...] = pl.matmul(...)``) is flattened into a temporary the
    store and the push both read: the push reads what the expression reads.
    """
    node = stmt.node
    if isinstance(node, cst.Assign) and len(node.targets) == 1:
        target = node.targets[0].target
        if isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name):
            return target.value.value, node.value
    call = getattr(node, "value", None)
    if not isinstance(call, cst.Call) or op_leaf(call) not in ("store", "assemble"):
        return None
    args = [a.value for a in call.args if a.keyword is None]
    if op_leaf(call) == "store" and len(args) >= 3:
        tensor, tile = args[2], args[0]
    elif op_leaf(call) == "assemble" and len(args) >= 2:
        tensor, tile = args[0], args[1]
    else:
        return None
    return (tensor.value, tile) if isinstance(tensor, cst.Name) else None


def _loads_from(stmt: Stmt, tensor: str) -> bool:
    """Whether ``stmt`` reads ``tensor`` other than as the target of a slice write."""
    node = stmt.node
    if isinstance(node, cst.Assign):
        return tensor in reads_of(node.value)
    if isinstance(node, (cst.Expr, cst.AnnAssign)) and node.value is not None:
        return tensor in reads_of(node.value)
    return stmt.kind == "compound" and tensor in stmt.reads


def _message_core(stmt: Stmt) -> str | None:
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
) -> list[Stmt]:
    out: list[Stmt] = []
    popped: list[str] = []
    peer = "aiv" if core == CUBE else "aic"

    def push(crossing: Crossing, at: Stmt) -> Stmt:
        sent = crossing.pushed or crossing.name
        reads = crossing.pushed_reads or (sent,)
        node = _statement(f"pl.tile.tpush_to_{peer}({sent}, split=0)")
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
                node = _statement(f"{crossing.name} = pl.tile.tpop_from_{peer}(split=0)")
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
            out.append(
                Stmt(
                    stmt.node,
                    stmt.kind,
                    stmt.defs,
                    stmt.reads,
                    stmt.scalar_arith,
                    stmt.origin,
                    bindings=stmt.bindings,
                    anchor=stmt.anchor,
                )
            )
        out.extend(
            push(c, stmt)
            for c in crossings
            if c.push_after == index and c.direction[0] == core
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
        node = _statement(f"pl.system.tfree_to_{peer}({name})")
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
    if isinstance(value, cst.Call) and op_leaf(value) in op_tables.STORE_OPS:
        return True
    if isinstance(node, cst.Expr):
        return True
    if isinstance(node, cst.Assign):
        return any(isinstance(t.target, cst.Subscript) for t in node.targets)
    return not stmt.defs


# -- per-core orchestration -------------------------------------------------------------------
#
# ExpandMixedKernel hands each core its own copy of the loop; SkewCrossCorePipeline then
# decides every copy on its own. What follows builds those copies and decides them.

_CORE_NAMES = {"aic": "cube", "aiv": "vector"}
_NO_CROSSING = "no boundary crossing at the top level"

# Decides an inner pipeline loop for one parent body (None: it stays nested).
InnerDecider = Callable[[cst.For, BodyContext], "InnerSkew | None"]


@dataclass(frozen=True)
class NestedPipelines:
    """How the parent body is rebuilt when its inner pipelines differ per core.

    ``renormalise`` normalises the parent body again with another inner decider;
    ``inner_skew`` and ``inner_cores`` give each inner loop's splice and its
    per-core verdicts, as decided before the parent.
    """

    renormalise: Callable[[InnerDecider], list[Stmt]]
    inner_skew: Callable[[cst.For], InnerSkew | None]
    inner_cores: Callable[[cst.For], tuple[CoreResult, ...]]


@dataclass(frozen=True)
class PerCore:
    """Both cores' verdicts for one loop, and the loop's one-line summary."""

    cores: tuple[CoreResult, ...]
    summary: Decision | None  # None: keep the decision of the unsplit body
    stmts: list[Stmt]  # the statement list the summary's indices refer to


def param_sides(fn: cst.FunctionDef) -> dict[str, str]:
    """Sides of a kernel's parameters: tensors live in GM, tile parameters in Vec."""
    params: dict[str, str] = {}
    for name, param in function_params(fn):
        kind = dsl.annotation_kind(param.annotation)
        if kind == "Tensor":
            params[name] = GM
        elif kind == "Tile":
            params[name] = VECTOR
    return params


def dual_aiv_dispatch(fn: cst.FunctionDef, loop: cst.For) -> bool:
    """Whether the vector copy of ``loop`` runs as two identical copies.

    Without a split mode on the outlined scope (no ``pl.split(...)``, or
    ``pl.split(pl.SplitMode.NONE)``, or ``attrs={"split": pl.SplitMode.NONE}``) the
    a2a3 backend dispatches the AIV function on both vector lanes: two copies, one
    verdict. The split mode belongs to the scope the loop is outlined from (the
    ``with``/``for`` headers around it) or to the function's own decorator.
    """
    headers: list[cst.CSTNode] = [d.decorator for d in fn.decorators]
    headers += _enclosing_headers(body_statements(fn.body), loop) or []
    return not any(_splits(header) for header in headers)


def _enclosing_headers(block: Sequence[cst.CSTNode], loop: cst.For) -> list[cst.CSTNode] | None:
    """The headers of the ``with``/``for`` statements around ``loop`` (None: not in block)."""
    for stmt in block:
        if stmt is loop:
            return []
        if isinstance(stmt, (cst.With, cst.For, cst.While, cst.If, cst.Try)):
            blocks = [body_statements(stmt.body)]
            orelse = getattr(stmt, "orelse", None)
            if orelse is not None:
                blocks.append(body_statements(orelse.body))
            for inner in blocks:
                found = _enclosing_headers(inner, loop)
                if found is None:
                    continue
                if isinstance(stmt, cst.With):
                    return [*(item.item for item in stmt.items), *found]
                if isinstance(stmt, cst.For):
                    return [stmt.iter, *found]
                return found
    return None


def _splits(header: cst.CSTNode) -> bool:
    """A split mode other than NONE written in ``header``."""
    for node in walk(header):
        mode: cst.BaseExpression | None = None
        if isinstance(node, cst.Call) and node.args:
            path = dsl.dotted(node.func)
            if path and path[-1] == "split":
                mode = node.args[0].value
        elif (
            isinstance(node, cst.DictElement)
            and isinstance(node.key, cst.SimpleString)
            and node.key.evaluated_value == "split"
        ):
            mode = node.value
        if mode is not None and not _is_none_mode(mode):
            return True
    return False


def _is_none_mode(expr: cst.BaseExpression) -> bool:
    path = dsl.dotted(expr)
    return bool(path) and path[-1] == "NONE"


def per_core(
    stmts: list[Stmt],
    header: LoopHeader,
    live_out: Sequence[str],
    outside: Mapping[str, str],
    copies: int,
    nested: NestedPipelines | None = None,
) -> PerCore:
    """Per-core verdicts when the compiler, not the author, creates the messages.

    Each core's copy goes through the same decision procedure as a hand-written
    loop. A skewed inner pipeline is spliced into its parent only on the core
    whose copy of it was skewed; on the other core it stays a nested loop.
    """
    bodies = _core_bodies(stmts, nested)
    splits = {core: split_body(body, outside, live_out) for core, body in bodies.items()}
    unknown = next((s.unknown for s in splits.values() if s.unknown), None)
    spliced_messages = any(_message_core(s) is not None for s in stmts)
    if not spliced_messages and not any(s.crossings for s in splits.values()):
        split = splits["aic"]
        cores = []
        if split.has_cube:
            cores.append(CoreResult("aic", "left", "SKW010", _NO_CROSSING))
        if split.has_vector:
            cores.append(CoreResult("aiv", "left", "SKW010", _NO_CROSSING))
        if unknown and cores:
            return _unknown(tuple(cores), unknown, stmts)
        return PerCore(tuple(cores), None, stmts)
    results: list[tuple[CoreResult, Decision]] = []
    lists = {"aic": splits["aic"].aic, "aiv": splits["aiv"].aiv}
    for core, core_stmts in lists.items():
        resolve(core_stmts, header.iter_names)
        d = decide(header, core_stmts)
        result = CoreResult(
            core,  # type: ignore[arg-type]
            d.verdict,  # type: ignore[arg-type]
            d.code,
            core_reason(d),
            d.depth,
            d.requested_depth,
            d.trip,
            copies if core == "aiv" else 1,
            d.pushes,
            d.pops,
            body_lines(core_stmts),
        )
        results.append((result, d))
    if unknown:
        return _unknown(tuple(c for c, _ in results), unknown, stmts)
    chosen, summary = summarise(results)
    return PerCore(tuple(c for c, _ in results), summary, lists[chosen])


def _unknown(cores: tuple[CoreResult, ...], op: str, stmts: list[Stmt]) -> PerCore:
    reason = f"the model does not know which core runs `{op}`"
    summary = Decision("unknown", "SKW050", f"verdict unknown: {reason}")
    return PerCore(
        tuple(replace(c, verdict="unknown", code="SKW050", reason=reason) for c in cores),
        summary,
        stmts,
    )


def _core_bodies(stmts: list[Stmt], nested: NestedPipelines | None) -> dict[str, list[Stmt]]:
    """Each core's view of the parent body before it is split.

    The parent was normalised with every skewed inner pipeline spliced in, as the
    core whose copy was skewed sees it. The other core's copy of that inner loop
    was demoted (or left): it stays nested there, so that core's parent body is
    normalised again with the inner loop kept whole.
    """
    spliced = [s.node for s in stmts if s.origin == "steady" and isinstance(s.node, cst.For)]
    if nested is None or not spliced:
        return {"aic": stmts, "aiv": stmts}
    bodies: dict[str, list[Stmt]] = {}
    for core in ("aic", "aiv"):
        if all(_skewed_core(nested.inner_cores(node)) in (core, None) for node in spliced):
            bodies[core] = stmts
            continue

        def decide_for(node: cst.For, _ctx: BodyContext, core: str = core) -> InnerSkew | None:
            skew = nested.inner_skew(node)
            if skew is None:
                return None
            owner = _skewed_core(nested.inner_cores(node))
            return skew if owner in (core, None) else None

        bodies[core] = nested.renormalise(decide_for)
    return bodies


def _skewed_core(cores: Sequence[CoreResult]) -> str | None:
    """The core whose copy of an inner loop was skewed (None: not split per core)."""
    if not cores:
        return None
    return next((c.core for c in cores if c.verdict == "skewed"), "")


def body_lines(stmts: Sequence[Stmt], width: int = 60) -> tuple[str, ...]:
    """One short line per statement of a core's body, the compiler's own marked with "+ "."""
    lines = []
    for stmt in stmts:
        code = code_of(stmt.node)
        text = code.splitlines()[0] if code else stmt.kind
        if len(text) > width:
            text = text[: width - 1] + "…"
        lines.append(("+ " if stmt.origin.startswith("implicit") else "") + text)
    return tuple(lines)


def core_reason(d: Decision) -> str:
    """The part of a remark after "loop skewed:" / "loop not skewed:", for one core."""
    if d.code == "SKW002":
        return f"depth {d.depth} (requested {d.requested_depth}: {d.message.rsplit(': ', 1)[-1]})"
    message = d.message
    for prefix in ("loop not skewed: ", "loop skewed: ", "loop left as a pipeline loop: "):
        if message.startswith(prefix):
            return message[len(prefix) :]
    return message


def summarise(results: list[tuple[CoreResult, Decision]]) -> tuple[str, Decision]:
    """One verdict for the loop: the skewed core if any, else the first cross-core one."""
    parts = []
    for core, d in results:
        name = _CORE_NAMES[core.core]
        if d.verdict == "skewed" and d.code == "SKW002":
            parts.append(f"{name}: skewed at {core.reason}")
        elif d.verdict == "skewed":
            parts.append(f"{name}: skewed at depth {d.depth}")
        elif d.verdict == "demoted":
            parts.append(f"{name}: demoted, {core.reason}")
        else:
            parts.append(f"{name}: {d.verdict}, {core.reason}")
        if core.copies > 1:
            parts[-1] += f" (dual AIV dispatch: the vector body runs as {core.copies} copies)"
    chosen = next((r for r in results if r[1].verdict == "skewed"), None)
    if chosen is None:
        chosen = next((r for r in results if r[1].verdict in ("demoted", "error")), results[0])
    summary = replace(chosen[1])
    summary.message = "; ".join(parts)
    return chosen[0].core, summary
