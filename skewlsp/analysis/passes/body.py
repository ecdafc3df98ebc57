"""The loop body as the passes hand it to one another: a flat list of top-level statements.

Source is not IR. The compiler's passes hand each other a function; ours hand each other
what the skew pass reads of one ``pl.pipeline`` loop: its body's top-level statements
(:class:`Stmt`), each with its defs, its reads and, once ConvertToSSA has run
(:mod:`.convert_to_ssa`), the statement each read sees. Apart from the passes that make
and rewrite the list (:mod:`.loop_body`, :mod:`.unroll_loops`, :mod:`.simplify`) so that
each can name the records without importing another pass.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

import libcst as cst

from skewlsp.analysis.frontend import dsl
from skewlsp.analysis.frontend.constants import Const, Folded, Folder
from skewlsp.analysis.frontend.names import statement_effects, unique
from skewlsp.analysis.frontend.values import Interval
from skewlsp.analysis.source.tree_text import MadeTrees

MESSAGE_TEMP = "%msg"


# What the decision needs to know of a top-level statement: a cross-core message
# (push/pop), a simple statement, or a compound one (a nested loop, if, with).
StmtKind = Literal["push", "pop", "plain", "compound"]


@dataclass
class Stmt:
    """One top-level statement of the normalised body."""

    node: cst.CSTNode
    kind: StmtKind
    defs: tuple[str, ...]
    reads: tuple[str, ...]
    scalar_arith: bool = False
    origin: str = ""
    deps: dict[str, int] = field(default_factory=dict)
    carried_reads: tuple[str, ...] = ()
    # Values of the inlined pl.unroll variables around this copy, outermost first.
    bindings: tuple[tuple[str, int], ...] = ()
    # For a statement the compiler creates (an implicit tpush/tpop), the source
    # statement whose position it takes; ``node`` is then the synthetic statement.
    anchor: cst.CSTNode | None = None

    @property
    def located(self) -> cst.CSTNode:
        """The source node that gives this statement its position."""
        return self.anchor if self.anchor is not None else self.node


@dataclass(frozen=True)
class InnerSkew:
    """What the parent needs to splice a skewed inner pipeline into its body."""

    node: cst.For
    stmts: tuple[Stmt, ...]
    produce: tuple[int, ...]
    consume: tuple[int, ...]
    depth: int
    loop_var: str
    iter_names: tuple[str, ...]
    init_reads: tuple[str, ...]
    yield_targets: tuple[str, ...]


@dataclass
class BodyContext:
    """What normalisation needs to know about the surroundings of a body.

    ``made``: the trees the analysis made (the analysis's state holds them), which the
    code of a node is cut from.
    """

    lookup: Callable[[str], Folded | None]
    ranges: dict[str, Interval]
    aliases: dsl.Aliases
    decide_inner: Callable[[cst.For, BodyContext], InnerSkew | None]
    made: MadeTrees | None
    tile_names: frozenset[str] = frozenset()
    temp_counter: list[int] = field(default_factory=lambda: [0])
    parse_time_lookup: Callable[[str], Folded | None] | None = None
    errors: list[str] = field(default_factory=list)
    # Symbols whose unseen values decide how the body looks (e.g. an unroll count).
    unknowns: list[str] = field(default_factory=list)
    # False when the walk of the DSL checks met no cross-core call anywhere in the body:
    # then no statement can be or hold a message, and none is searched for one.
    may_message: bool = True
    # False when it met none inside an expression: then no expression is searched.
    nested_messages: bool = True

    def with_value(self, name: str, value: int) -> BodyContext:
        ranges = dict(self.ranges)
        ranges[name] = Interval(value, value)
        return replace(self, ranges=ranges)

    def resolve(self, name: str) -> Folded | None:
        """What ``name`` folds to in the body: a loop variable of one value is that
        value, any other name is ``lookup``'s."""
        known = self.ranges.get(name)
        if known is not None and known.lo == known.hi:
            return Const(known.lo)
        return self.lookup(name)

    def fold(self, node: cst.BaseExpression) -> Folded:
        return Folder(self.resolve, self.made).fold(node)


@dataclass
class Body:
    stmts: list[Stmt]
    yield_node: cst.CSTNode | None = None
    yield_targets: tuple[str, ...] = ()
    yield_reads: tuple[str, ...] = ()

@dataclass(frozen=True)
class SharedMove:
    """One move into ``memory`` of the outside tile ``name``, read by several statements.

    Also what a fenced cube store and its push share (``core_split.fence_values``): the
    computed tile, made once before them. Either way a value the first user's position
    makes and later statements read, which the skew pass sees as a carry when the lead's
    half makes it and the other half reads it.
    """

    name: str
    memory: str
    users: tuple[int, ...]  # top-level statement indices, in order; the first makes the move


@dataclass(frozen=True)
class SplicedCall:
    """What InlineFunctions puts in place of one call of an ``@pl.jit.inline`` helper: the
    helper's statements before its trailing ``return``, and the value returned (None: no
    return), each parameter replaced by the call's argument and each local renamed
    apart, as the compiler's clone of the body is. The passes after it see these ops as
    the caller's (ExpandMixedKernel gives them their core)."""

    helper: str
    statements: tuple[cst.CSTNode, ...]
    value: cst.BaseExpression | None


# InlineFunctions at a statement (the driver makes it from the module's helpers): the
# helper call it consists of spliced, or None for any other statement, or a helper that
# cannot be spliced. ``fresh`` numbers this copy's renamed locals apart from the others'.
Splicer = Callable[[cst.BaseSmallStatement, int], SplicedCall | None]


# The body walk (``loop_body``'s), handed to a pass that writes a nested block out in
# place of its statement (UnrollLoops, Simplify), so the pass need not import the walk.
Block = Callable[[Sequence[cst.CSTNode], BodyContext], list[Stmt]]


def compound(stmt: cst.CSTNode, origin: str = "") -> Stmt:
    """``stmt`` kept whole: one statement of the list, its effects read off it."""
    defs, reads = statement_effects(stmt)
    return Stmt(stmt, "compound", unique(defs), tuple(reads), origin=origin)


def loop_bounds(call: cst.Call, ctx: BodyContext) -> tuple[Folded, Folded, Folded] | None:
    """(start, stop, step) of a range-like call, folded; None when the call shape is odd."""
    args = dsl.positional(call)
    named = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    values: list[cst.BaseExpression] = [a.value for a in args]
    if len(values) == 1:
        start: cst.BaseExpression | None = named.get("start", cst.Integer("0"))
        stop: cst.BaseExpression | None = values[0]
        step: cst.BaseExpression | None = named.get("step", cst.Integer("1"))
    elif len(values) == 2:
        start, stop = values
        step = named.get("step", cst.Integer("1"))
    elif len(values) == 3:
        start, stop, step = values
    elif not values and "stop" in named:
        start = named.get("start", cst.Integer("0"))
        stop = named["stop"]
        step = named.get("step", cst.Integer("1"))
    else:
        return None
    assert start is not None and stop is not None and step is not None
    return ctx.fold(start), ctx.fold(stop), ctx.fold(step)


def const_trip(call: cst.Call, ctx: BodyContext) -> tuple[int, int, int, int] | None:
    """(start, stop, step, trip) of a range-like call whose bounds fold to constants."""
    bounds = loop_bounds(call, ctx)
    values = [b.value for b in bounds if isinstance(b, Const)] if bounds is not None else []
    if len(values) != 3:  # (start, stop, step), each a constant
        return None
    start, stop, step = values
    if step == 0:
        return None
    return start, stop, step, trip_count(start, stop, step)


INT64_MAX = 2**63 - 1


INT64_MIN = -(2**63)


def fits_int64(value: int) -> bool:
    return INT64_MIN <= value <= INT64_MAX


def trip_count(start: int, stop: int, step: int) -> int:
    """ceil((stop-start)/step) in the loop's direction, 0 if empty; saturates at INT64_MAX."""
    ascending = step > 0 and start < stop
    descending = step < 0 and start > stop
    if not (ascending or descending):
        return 0
    span = stop - start if ascending else start - stop
    magnitude = abs(step)
    return min((span + magnitude - 1) // magnitude, INT64_MAX)


@dataclass(frozen=True)
class MatmulSite:
    """A ``pl.matmul`` / ``pl.matmul_acc`` of a loop body, in program order: its op, its
    left and right operands (as the body's loads name them), the accumulator type written
    (``out_dtype``; None: the operands' default), and whether each operand is read
    transposed (``a_trans``, ``b_trans``)."""

    op: str
    lhs: str
    rhs: str
    out_dtype: str | None = None
    transposed: tuple[bool, bool] = (False, False)

    def accumulator_dtype(self, operand_bytes: int) -> str:
        """The accumulator's element type: ``out_dtype``, else the operands' default
        (INT32 for 8-bit operands, else FP32; ``operand_bytes``: the left operand's)."""
        return self.out_dtype or ("INT32" if operand_bytes == 1 else "FP32")


@dataclass(frozen=True)
class SiteBlock:
    """Where a matmul of a loop body reads its operands, for InferTileMemorySpace's
    moves into Left and Right: the block holding it (``block``: the ``(statement,
    branch)`` pairs of the ``if`` branches leading to it from the body, ``()`` for the
    body) and which binding of each operand name it reads (``bindings``: how many
    statements binding that name the walk had passed). The pass caches a move per tile
    and space for the rest of the block that made it and the blocks nested in it, so
    two matmuls with equal ``(block, binding)`` of a name read one moved tile."""

    block: tuple[tuple[int, int], ...]
    bindings: tuple[int, int]


@dataclass(frozen=True)
class BodyMatmuls:
    """The matmuls of a loop's body at its top level and in its ``if`` branches (which
    run one after the other in program order), or why they cannot be told
    (``unknown``): a matmul in a nested loop, an operand that is neither a name nor a
    slice, another cube op. ``opaque``: the body's first call that is neither a DSL op
    nor a Python builtin (an inline helper, whose ops are not seen), None when there is
    none: only then are the body's matmuls all its L0 tiles. ``places``: where each site
    is (in its order): the block holding it (the body, or a branch of an ``if`` in it)
    and its statement there, whose bindings before it are its operands (found by the
    same walk, so kept with the sites rather than walked for again). ``blocks``: each
    site's :class:`SiteBlock` (empty: not told).
    """

    sites: tuple[MatmulSite, ...] = ()
    unknown: str | None = None
    opaque: str | None = None
    places: tuple[tuple[Sequence[cst.CSTNode], int], ...] = field(default=(), compare=False)
    blocks: tuple[SiteBlock, ...] = ()


@dataclass(frozen=True)
class ScopeMatmuls:
    """The matmuls of an outlined scope outside its pipeline loops, in program order:
    each with how many of the scope's pipeline loops come before it; the statement
    blocks they are in (whose loads are their operands); or why they cannot be told.
    And of the whole scope: its pipeline loops (nested ones too), its cube-op calls, and
    its first call that is neither a DSL op nor a Python builtin (an inline helper,
    whose ops are not seen), None when there is none. ``places``: each site's block (an
    index into ``blocks``) and statement in it, since one name may be bound in several
    blocks, or twice in one, and the operand is the binding before the matmul."""

    sites: tuple[tuple[int, MatmulSite], ...] = ()
    blocks: tuple[tuple[cst.CSTNode, ...], ...] = ()
    unknown: str | None = None
    pipeline_loops: int = 0
    cube_ops: int = 0
    opaque: str | None = None
    places: tuple[tuple[int, int], ...] = ()
