"""Which core each value and statement of a mixed kernel belongs to.

ExpandMixedKernel gives every op a side from the op registry (``op_tables``):
matmuls run on the cube, element-wise work on the vector, data movement where
its memory is. A GM slice has no side of its own: it is loaded where its
readers run. These sides are what ``core_split`` builds each core's body from.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import libcst as cst

from skewlsp.analysis.frontend import dsl, op_registry
from skewlsp.analysis.frontend.names import block_defs, body_statements, reads_of, statement_defs
from skewlsp.analysis.frontend.op_registry import (
    CUBE,
    GM,
    LAZY,
    MIXED,
    SHARED,
    TILE_SIDES,
    VECTOR,
    op_leaf,
)
from skewlsp.analysis.frontend.scope import function_params, opens_incore_scope
from skewlsp.analysis.frontend.values import full_code
from skewlsp.analysis.source.tree_text import MadeTrees
from skewlsp.analysis.source.walk import walk

if TYPE_CHECKING:  # fixpipe_casts reads op_leaf from here
    from skewlsp.analysis.passes.auto_tile_matmul_l0 import CubeCasts
    from skewlsp.analysis.passes.body import SplicedCall, Splicer

_TILES_OR_GM = TILE_SIDES | {GM}
# The (tile, memory) moves the cube ops of a statement need (see infer_tile_memory_space).
MovesOf = Callable[[cst.CSTNode, MadeTrees | None], Iterable[tuple[str, str]]]


_NOT_OPERANDS = frozenset({"target_memory", "out_dtype", "dtype"})  # keywords
_TO_A_CORE_OPS = op_registry.TO_VECTOR_OPS | op_registry.TO_CUBE_OPS


def _memory(call: cst.Call, made: MadeTrees | None) -> str | None:
    arg = dsl.keyword(call, "target_memory")
    if arg is None:
        return None
    text = full_code(arg.value, made)
    leaf = text.rsplit(".", 1)[-1]
    if leaf in op_registry.CUBE_MEMORY:
        return CUBE
    if leaf in op_registry.VECTOR_MEMORY:
        return VECTOR
    return None


@dataclass
class _OpInputs:
    """What an op call takes, found once for every rule of :meth:`SideModel._call`: the
    names its arguments read (see :meth:`SideModel._operands`), and what its nested calls,
    which become statements of their own, give it."""

    every: list[str]  # tiles and GM tensors any argument reads
    tiles: list[str]  # the tiles it takes as operands (as written, or through a view)
    direct: list[str]  # tiles and GM tensors the arguments that are not calls read
    nested_side: str  # the side of the nested calls' statements, joined
    nested_values: list[str]  # the sides of the nested calls' values
    value_of: dict[int, str]  # nested call (by id) -> the side of its value


class SideModel:
    """Sides of values and statements.

    ``consumed`` collects (name, side needed, side it had when read): the side at
    the read matters because ``x = pl.mul(x, 2)`` reads a cube ``x`` and rebinds
    ``x`` to a vector tile in one statement. ``made``: the trees the analysis made,
    which the code of their nodes is cut from.
    """

    def __init__(self, sides: Mapping[str, str], made: MadeTrees | None) -> None:
        self.sides = dict(sides)
        self.made = made
        self.unknown: list[str] = []
        # (name, side needed) for GM slices read inside nested blocks.
        self.nested_lazy_uses: list[tuple[str, str]] = []
        # Tile name -> the sides of the ops that read it, inside the nested block last
        # walked by :meth:`compound` (a core's copy of the block reads only its own).
        self.nested_readers: dict[str, set[str]] = {}
        # Cube tiles a vector op reads inside a nested block.
        self.nested_vector_reads: set[str] = set()
        # Casts the cube does on a matmul result's way out (see fixpipe_casts).
        self.cube_casts: CubeCasts | None = None
        self._operand_casts: set[int] = set()  # ids, found as the walk meets each matmul
        # (name, "C->V"/"V->C") already moved across in the enclosing block: a nested
        # block reads that copy (one move per tile and memory, reused by inner blocks).
        self.crossed: Collection[tuple[str, str]] = frozenset()
        # InlineFunctions at a call of an inline helper (None: no helper is seen into).
        self.inline: Splicer | None = None
        self._copies = 0  # helper copies spliced so far: each renames its locals apart

    def side_of(self, name: str) -> str:
        return self.sides.get(name, SHARED)

    # -- expressions -------------------------------------------------------------------------

    def expr(
        self, node: cst.BaseExpression, consumed: list[tuple[str, str, str]]
    ) -> tuple[str, str]:
        """(value side, statement side) of evaluating ``node``."""
        kind = type(node)  # exact types: an ABC's isinstance costs a call when it fails
        if type(node) is cst.Name:
            side = self.side_of(node.value)
            return side, SHARED
        if type(node) is cst.Call:
            return self._call(node, consumed)
        if kind is cst.Integer or kind is cst.Float or kind is cst.SimpleString:
            return SHARED, SHARED
        if kind is cst.BinaryOperation or kind is cst.UnaryOperation or kind is cst.Comparison:
            operands = reads_of(node)
            tiles = [n for n in operands if self.side_of(n) in TILE_SIDES]
            if tiles:
                consumed.extend((n, VECTOR, self.side_of(n)) for n in tiles)
                return VECTOR, VECTOR
            return SHARED, SHARED
        if type(node) is cst.Subscript:
            base, _ = self.expr(node.value, consumed)
            if base == GM and not any(isinstance(e.slice, cst.Slice) for e in node.slice):
                return SHARED, SHARED  # ``lens[b]``: an element read (tensor.read), a scalar
            if base == GM:
                return LAZY, SHARED
            return (base if base in TILE_SIDES else SHARED), SHARED
        return SHARED, SHARED

    def _operands(self, call: cst.Call) -> tuple[list[str], list[str], list[str]]:
        """Tiles and GM tensors the call's arguments read, three ways, found at once (an
        argument that is not a call reads the same names in each, and the side model asks
        all three of most ops). They differ in what an argument that is itself a call
        counts for: ``every`` counts all it reads; ``views`` only what it reads through a
        view (a slice, a reshape), which is how the op takes its operands, SSA giving any
        other nested op's value a variable; ``direct`` nothing (that call's own visit
        accounts for it)."""
        every: list[str] = []
        views: list[str] = []
        direct: list[str] = []
        side_of = self.side_of
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value in _NOT_OPERANDS:
                continue
            value = arg.value
            if type(value) is cst.Name:  # (half of all operands: reads_of's walk set up for one)
                name = value.value
                read = [name] if side_of(name) in _TILES_OR_GM else []
            else:
                read = [n for n in reads_of(value) if side_of(n) in _TILES_OR_GM]
            every += read
            if type(value) is cst.Call:
                leaf = op_leaf(value)
                if leaf is None or leaf in op_registry.INHERIT_OPS:
                    views += self._operands(value)[1]
                continue
            views += read
            direct += read
        return every, views, direct

    def _cube_cast(self, call: cst.Call) -> bool:
        """A cast the cube does as it writes a matmul result back (see fixpipe_casts)."""
        return self.cube_casts is not None and (
            id(call) in self.cube_casts.named or id(call) in self._operand_casts
        )

    def _call(self, call: cst.Call, consumed: list[tuple[str, str, str]]) -> tuple[str, str]:
        """(value side, statement side) of a call: the op registry's kind of op decides
        (the first kind, in this order, that the op is)."""
        leaf = op_leaf(call)
        if leaf is None:
            return self._unregistered_call(call)
        if leaf == "yield_":
            return self._yield(call, consumed)
        if self.cube_casts is not None and leaf in op_registry.CUBE_OPS:
            self._operand_casts.update(id(c) for c in self.cube_casts.operand_casts(call))
        inputs = self._inputs(call, consumed)
        tiles, nested_side = inputs.tiles, inputs.nested_side
        if leaf in op_registry.CUBE_OPS or self._cube_cast(call):
            consumed.extend((n, CUBE, self.side_of(n)) for n in tiles)
            return CUBE, join_sides(nested_side, CUBE)
        if leaf in op_registry.LOAD_OPS:
            memory = _memory(call, self.made)
            return (memory or LAZY), join_sides(nested_side, memory or SHARED)
        if leaf in op_registry.CUBE_SOURCES:
            return CUBE, join_sides(nested_side, CUBE)
        if leaf in op_registry.MOVE_OPS or leaf in _TO_A_CORE_OPS:
            return self._move(call, leaf, inputs, consumed)
        if leaf in op_registry.INHERIT_OPS:
            first = next((self.side_of(n) for n in inputs.every), SHARED)
            side = LAZY if first == GM else first
            return side, join_sides(nested_side, side if side in (CUBE, VECTOR) else SHARED)
        if leaf in op_registry.STORE_OPS:
            return GM, self._store_side(call, inputs)
        if leaf in op_registry.GM_OPS:
            return GM, nested_side
        if leaf in op_registry.VECTOR_SOURCES:
            memory = _memory(call, self.made) or VECTOR
            return memory, join_sides(nested_side, memory)
        if leaf in op_registry.VECTOR_SCALAR_OPS:
            return SHARED, join_sides(nested_side, VECTOR)
        if leaf in op_registry.SCALAR_FROM_TILE_OPS and tiles:
            where = CUBE if self.side_of(tiles[0]) == CUBE else VECTOR  # a GM slice: to Vec
            consumed.extend((n, where, self.side_of(n)) for n in tiles)
            return SHARED, join_sides(nested_side, where)
        return self._scalar_or_vector(call, leaf, inputs, consumed)

    def _yield(self, call: cst.Call, consumed: list[tuple[str, str, str]]) -> tuple[str, str]:
        """``pl.yield_`` is no op: the DSL parser makes it the yield of its ``if`` or loop,
        and ExpandMixedKernel's roll-up (``AnalyzeStmtAffinity``) classifies calls only,
        so a yield gives its statement no side. Its value is what it hands on: the first
        value's side here, each value's side for a tuple target (:meth:`_yielded`)."""
        sides = [self.expr(arg.value, consumed) for arg in call.args]
        statement = SHARED
        for _, inner in sides:
            statement = join_sides(statement, inner)
        return (sides[0][0] if sides else SHARED), statement

    def _yielded(self, value: cst.BaseExpression, count: int) -> list[str] | None:
        """Each value's side, when ``value`` is a ``pl.yield_`` of ``count`` values."""
        if type(value) is not cst.Call or op_leaf(value) != "yield_":
            return None
        if len(value.args) != count:
            return None
        return [self.expr(arg.value, [])[0] for arg in value.args]

    def _unregistered_call(self, call: cst.Call) -> tuple[str, str]:
        """A call the op registry does not know (a helper's call InlineFunctions did not
        splice): shared, noted as unknown if it reads tiles (``yield_`` hands values on)."""
        path = dsl.dotted(call.func)
        if path and path[-1] == "yield_":
            return SHARED, SHARED
        if any(self.side_of(n) in TILE_SIDES for n in self._operands(call)[0]):
            self.unknown.append(full_code(call.func, self.made))
        return SHARED, SHARED

    def _value(
        self,
        small: cst.BaseSmallStatement,
        value: cst.BaseExpression,
        consumed: list[tuple[str, str, str]],
    ) -> tuple[str, str]:
        """(value side, statement side) of ``value``, the value of ``small``: the copy of
        a helper's body where InlineFunctions splices one (:meth:`_helper_call`)."""
        spliced = None
        if self.inline is not None:
            self._copies += 1
            spliced = self.inline(small, self._copies)
        if spliced is None:
            return self.expr(value, consumed)
        return self._helper_call(spliced, consumed)

    def _helper_call(
        self, spliced: SplicedCall, consumed: list[tuple[str, str, str]]
    ) -> tuple[str, str]:
        """(value side, statement side) of a helper's copy: its statements, then the value
        it returns, as the caller's own. A tile crossing between the cores inside it is
        not modelled (its messages would sit inside the caller's statement): unknown."""
        statement = SHARED
        inner: list[tuple[str, str, str]] = []
        for stmt in spliced.statements:
            if isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
                for small in stmt.body:
                    statement = join_sides(statement, self.small(small, inner)[0])
            else:
                statement = join_sides(statement, self.compound(stmt))
        value = SHARED
        if spliced.value is not None:
            # ``lhs = <value>`` is a statement of its own: a helper's call is spliced too
            value, side = self._value(cst.Expr(spliced.value), spliced.value, inner)
            statement = join_sides(statement, side)
        consumed.extend(inner)
        own = set(block_defs(spliced.statements))
        if statement == MIXED or any(
            name in own and have in (CUBE, VECTOR) and have != needed
            for name, needed, have in inner
        ):
            self.unknown.append(spliced.helper)
        return value, statement

    def _inputs(self, call: cst.Call, consumed: list[tuple[str, str, str]]) -> _OpInputs:
        """What the op takes: its nested calls are visited first (each becomes a statement
        of its own), then its operands read."""
        nested_side = SHARED
        nested_values: list[str] = []
        value_of: dict[int, str] = {}
        for arg in call.args:  # nested calls are flattened into statements of their own
            if type(arg.value) is cst.Call:
                # One visit per nested call: visiting it again for its value doubled
                # the work at every level of nesting.
                value, inner = self._call(arg.value, consumed)
                nested_side = join_sides(nested_side, inner)
                nested_values.append(value)
                value_of[id(arg.value)] = value
        every, views, direct = self._operands(call)
        tiles = [n for n in views if self.side_of(n) in TILE_SIDES]
        return _OpInputs(every, tiles, direct, nested_side, nested_values, value_of)

    def _move(
        self, call: cst.Call, leaf: str, inputs: _OpInputs, consumed: list[tuple[str, str, str]]
    ) -> tuple[str, str]:
        """A move (to the memory it names, or to the core its name says), or, with no
        target, a copy that stays where its first tile is."""
        tiles, nested_side = inputs.tiles, inputs.nested_side
        target = _memory(call, self.made)
        if leaf in op_registry.TO_VECTOR_OPS:
            target = VECTOR
        elif leaf in op_registry.TO_CUBE_OPS:
            target = CUBE
        if target is None:
            first = next((self.side_of(n) for n in tiles), SHARED)
            return first, join_sides(nested_side, first if first in (CUBE, VECTOR) else SHARED)
        consumed.extend((n, target, self.side_of(n)) for n in tiles)
        return target, join_sides(nested_side, target)

    def _store_side(self, call: cst.Call, inputs: _OpInputs) -> str:
        """The side of a store: the core that holds what it stores."""
        nested_side = inputs.nested_side
        stored = store_arguments(call)
        source = stored[0] if stored else None
        if source is None:
            side = self.side_of(inputs.tiles[0]) if inputs.tiles else SHARED
        elif isinstance(source, cst.Call):
            side = inputs.value_of.get(id(source), SHARED)
        else:
            side = self.expr(source, [])[0]
        if side in (GM, LAZY):  # a GM slice stored: loaded to Vec, stored from there
            return join_sides(nested_side, VECTOR)
        if side in (CUBE, VECTOR):  # a tile is stored by the core that holds it
            return join_sides(nested_side, side)
        return nested_side

    def _scalar_or_vector(
        self, call: cst.Call, leaf: str, inputs: _OpInputs, consumed: list[tuple[str, str, str]]
    ) -> tuple[str, str]:
        """Any other op: shared scalar arithmetic when its operands are scalars, else a
        vector op (a GM tensor it reads is loaded to Vec)."""
        tiles, nested_side, nested_values = inputs.tiles, inputs.nested_side, inputs.nested_values
        has_tile = bool(tiles) or any(v in TILE_SIDES for v in nested_values)
        tensor_operand = leaf in op_registry.ELEMENTWISE_SHARED_OPS and any(
            self.expr(arg.value, [])[0] in (GM, LAZY)
            for arg in call.args
            if type(arg.value) is not cst.Call
        )
        if leaf in op_registry.SHARED_SCALAR_OPS and not has_tile and not tensor_operand:
            return SHARED, nested_side
        if (
            leaf in op_registry.SHARED_SCALAR_OPS
            and not tensor_operand
            and not any(v in TILE_SIDES for v in nested_values)
            and not any(self.side_of(n) in TILE_SIDES for n in inputs.direct)
        ):
            # A scalar op of scalars (``pl.cast(pl.read(tile, [i]), pl.INDEX)``): the tile
            # the nested call reads is not this op's operand.
            return SHARED, nested_side
        # A GM tensor (or a slice of one) handed to a tile op is loaded where the op
        # runs: ConvertTensorToTileOps turns it into a tile.load to Vec.
        reads_gm = any(self.side_of(n) == GM for n in inputs.every)
        if has_tile or reads_gm or nested_side in (VECTOR, CUBE):
            consumed.extend((n, VECTOR, self.side_of(n)) for n in tiles)
            return VECTOR, join_sides(nested_side, VECTOR)
        return SHARED, nested_side

    # -- statements ----------------------------------------------------------------------------

    def small(
        self, small: cst.BaseSmallStatement, consumed: list[tuple[str, str, str]]
    ) -> tuple[str, list[str]]:
        """(statement side, names whose side is decided by their first consumer)."""
        lazy: list[str] = []
        if type(small) is cst.Assign or type(small) is cst.AnnAssign:
            value = small.value
            if value is None:
                return SHARED, lazy
            value_side, stmt_side = self._value(small, value, consumed)
            targets = (
                [t.target for t in small.targets]
                if isinstance(small, cst.Assign)
                else [small.target]
            )
            for target in targets:
                if type(target) is cst.Name:
                    self.sides[target.value] = value_side
                    if value_side == LAZY:
                        lazy.append(target.value)
                elif isinstance(target, cst.Subscript):
                    stored_side = value_side
                    if stored_side in (CUBE, VECTOR):
                        stmt_side = join_sides(stmt_side, stored_side)
                    elif stored_side == LAZY:
                        stmt_side = join_sides(stmt_side, VECTOR)
                    if isinstance(value, cst.Name) and stored_side == LAZY:
                        consumed.append((value.value, VECTOR, LAZY))
                elif isinstance(target, (cst.Tuple, cst.List)):
                    handed = self._yielded(value, len(target.elements))
                    for index, element in enumerate(target.elements):
                        if isinstance(element.value, cst.Name):
                            side = handed[index] if handed else value_side
                            self.sides[element.value.value] = side
            return stmt_side, lazy
        if type(small) is cst.Expr:
            return self._value(small, small.value, consumed)[1], lazy
        return SHARED, lazy

    def compound(self, stmt: cst.CSTNode) -> str:
        """The side of a nested block: both cores when it holds work of each."""
        side = SHARED
        if isinstance(stmt, (cst.If, cst.For, cst.While, cst.With, cst.Else)):
            for child in body_statements(stmt.body):
                side = join_sides(side, self.statement(child))
            orelse = getattr(stmt, "orelse", None)
            if orelse is not None:
                side = join_sides(side, self.compound(orelse))
        return side

    def outlined(self) -> None:
        """An InCore scope opens here: OutlineIncoreScopes makes it a function of its own
        (inside another InCore scope too), before any tensor op becomes a tile op. What
        was made before it is a tensor there, handed in as a parameter: a view (slice,
        reshape) is not a tile its first consumer loads, and the result of an op
        (``pl.exp(w)``) is not a tile of either core. So each op of the scope that reads
        it loads it in its own half, and ``pl.read`` of it is a scalar read of GM."""
        self.sides = {name: GM if side in TILE_SIDES else side for name, side in self.sides.items()}

    def statement(self, stmt: cst.CSTNode) -> str:
        if type(stmt) is cst.SimpleStatementLine or type(stmt) is cst.SimpleStatementSuite:
            side = SHARED
            for small in stmt.body:
                consumed: list[tuple[str, str, str]] = []
                s, _ = self.small(small, consumed)
                side = join_sides(side, s)
                side = join_sides(side, self._crossing_side(consumed))
                for name, needed, have in consumed:
                    self.nested_readers.setdefault(name, set()).add(needed)
                    if have == LAZY:  # a GM slice made outside is loaded where it is used
                        self.nested_lazy_uses.append((name, needed))
                    elif have == CUBE and needed == VECTOR:
                        self.nested_vector_reads.add(name)
            return side
        return self.compound(stmt)

    def _crossing_side(self, consumed: Iterable[tuple[str, str, str]]) -> str:
        side = SHARED
        for name, needed, have in consumed:
            if (
                have in (CUBE, VECTOR)
                and have != needed
                and (name, f"{have}->{needed}") not in self.crossed
            ):
                side = MIXED
        return side


def store_arguments(call: cst.Call) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
    """(the value stored, the tensor written) of ``pl.store(value, offsets, out)`` or
    ``pl.assemble(out, value, offsets)``; None for another call or an odd one."""
    positions = op_registry.STORE_ARGUMENTS.get(op_leaf(call) or "")
    args = [a.value for a in call.args if a.keyword is None]
    if positions is None or max(positions) >= len(args):
        return None
    return args[positions[0]], args[positions[1]]


def join_sides(a: str, b: str) -> str:
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
    so a loop it never reaches sees the sides of the whole walk. It goes only as far
    as the loops asked about: what follows a function's last pipeline loop (often
    most of a real kernel's vector work) is never walked. A statement the model fails
    on fails each loop asked about after it (the driver shares one walk across builds).
    ``made``: the trees the analysis made (the function's may be one); ``inline``: as
    :func:`.core_split.split_body`'s.
    """

    def __init__(
        self,
        fn_body: Sequence[cst.CSTNode],
        params: Mapping[str, str],
        made: MadeTrees | None,
        moves_of: MovesOf | None = None,
        incore: bool = False,
        inline: Splicer | None = None,
    ) -> None:
        self._made = made
        self._model = SideModel(params, made)
        self._model.inline = inline
        self._at_loop: dict[int, dict[str, str]] = {}
        self._moves_at_loop: dict[int, frozenset[tuple[str, str]]] = {}
        self._moves_of = moves_of
        self._steps: Iterator[None] = self._walk(fn_body, frozenset(), incore)
        self._failed: Exception | None = None  # what stopped the walk, raised to each later ask

    def _walk(
        self, block: Sequence[cst.CSTNode], inherited: frozenset[tuple[str, str]], incore: bool
    ) -> Iterator[None]:
        """Walk on, pausing after each ``for`` is recorded.

        ``inherited``: the moves into cube memories made before this block in the blocks
        around it (see :meth:`moves_before`); a block made a kernel of its own (an
        InCore scope) inherits none, and what was made before it reaches it as tensors
        (:meth:`SideModel.outlined`). ``incore``: the block already runs in one.
        """
        moves = set(inherited)
        for stmt in block:
            kind = type(stmt)
            if kind is cst.For:
                self._at_loop[id(stmt)] = dict(self._model.sides)
                self._moves_at_loop[id(stmt)] = frozenset(moves)
                yield
            if kind is cst.SimpleStatementLine or kind is cst.SimpleStatementSuite:
                self._model.statement(stmt)
                if self._moves_of is not None:
                    if moves:
                        rebound = set(statement_defs(stmt))
                        moves = {key for key in moves if key[0] not in rebound}
                    moves.update(
                        (name, memory)
                        for name, memory in self._moves_of(stmt, self._made)
                        if self._model.side_of(name) in (CUBE, LAZY)
                    )
            elif isinstance(stmt, (cst.With, cst.For, cst.If, cst.While)):
                opens = opens_incore_scope(stmt, self._made, incore)
                if opens:
                    self._model.outlined()
                inner = frozenset() if opens else frozenset(moves)
                yield from self._walk(body_statements(stmt.body), inner, incore or opens)
                if moves:
                    rebound = set(statement_defs(stmt))
                    moves = {key for key in moves if key[0] not in rebound}

    def moves_before(self, loop: cst.CSTNode) -> frozenset[tuple[str, str]]:
        """(tile, memory) moves InferTileMemorySpace makes before ``loop`` in the blocks
        around it: every op of the loop body that needs one of them reuses it."""
        self.before(loop)
        return self._moves_at_loop.get(id(loop), frozenset())

    def before(self, loop: cst.CSTNode) -> dict[str, str]:
        """The sides of the names defined before ``loop`` (copied: the caller may change them)."""
        key = id(loop)
        try:  # (a failure is raised again to each later ask: the walk may be shared)
            while key not in self._at_loop and next(self._steps, _DONE) is not _DONE:
                pass
        except Exception as err:
            self._failed = err
        if key not in self._at_loop and self._failed is not None:
            raise self._failed
        return dict(self._at_loop.get(key, self._model.sides))


_DONE = object()  # the walk's end


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


def scope_multiplies(scope: cst.CSTNode, made: MadeTrees | None) -> bool:
    """Whether the outlined scope calls a cube op (the matmul family).

    ExpandMixedKernel splits an InCore function holding ops of both cores, so a loop of
    vector ops only still lands in the AIV function, dispatched twice without a split
    mode, when the function around it multiplies; a function of vector ops only is one
    AIV function. (A loop of an inline helper without a scope of its own is outlined
    with its caller's; only the helper's body is seen here.) ``made``: the trees the
    analysis made (a made scope's text shows most name no cube op).
    """
    text = made.source(scope) if made is not None else None
    if text is not None and not any(op in text for op in op_registry.CUBE_OPS):
        return False
    return any(
        type(node) is cst.Call and op_leaf(node) in op_registry.CUBE_OPS
        for node in walk(scope)
    )
