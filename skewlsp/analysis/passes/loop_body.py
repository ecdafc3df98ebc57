"""The loop body as the pass sees it: a flat list of top-level statements.

Source is not IR. Before the pass runs, ``pl.unroll`` bodies are inlined,
nested calls are split into their own statements, Simplify drops ``if``s it
can prove and collapses one-trip ``pl.range`` loops, and an inner pipeline that
was skewed is replaced by its prologue, steady loop and epilogue. This module
re-creates that flat list from libcst nodes, with each statement's defs and
reads, then binds every read to the statement whose definition it sees (the
SSA edges the backward slice follows).

Models the body as it leaves UnrollLoops (``unroll_loops_pass.cpp``), Simplify
(``simplify_pass.cpp``, with :mod:`.simplify`) and ConvertToSSA (``convert_to_ssa_pass.cpp``:
the def/use edges), the input of ``skew_cross_core_pipeline_pass.cpp``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

import libcst as cst

from skewlsp.analysis.frontend import dsl
from skewlsp.analysis.frontend.constants import Const, Folded, Folder, Opaque
from skewlsp.analysis.frontend.names import (
    block_effects,
    body_statements,
    has_call,
    reads_of,
    small_statement_effects,
    statement_effects,
    unique,
)
from skewlsp.analysis.frontend.values import Interval, full_code
from skewlsp.analysis.passes.simplify import evaluate_condition
from skewlsp.analysis.source.tree_text import MadeTrees
from skewlsp.analysis.source.walk import children, walk

# Unrolled copies beyond this are not modelled one by one (the compiler would, but
# such a body is far outside anything that reaches the skew pass in practice).
MAX_UNROLL_TRIP = 1024

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

    def fold(self, node: cst.BaseExpression) -> Folded:
        def lookup(name: str) -> Folded | None:
            known = self.ranges.get(name)
            if known is not None and known.lo == known.hi:
                return Const(known.lo)
            return self.lookup(name)

        return Folder(lookup, self.made).fold(node)


@dataclass
class Body:
    stmts: list[Stmt]
    yield_node: cst.CSTNode | None = None
    yield_targets: tuple[str, ...] = ()
    yield_reads: tuple[str, ...] = ()


def normalise(block: Sequence[cst.CSTNode], ctx: BodyContext) -> Body:
    """The flat top-level statement list of a loop body, with the trailing yield split off."""
    body = Body(stmts=[])
    statements = list(block)
    last = _trailing_yield(statements)
    if last is not None:
        small = last.body[-1]
        body.yield_node = small
        defs, reads = small_statement_effects(small)
        body.yield_targets = tuple(defs)
        body.yield_reads = tuple(reads)
        rest = list(last.body[:-1])
        statements = statements[:-1]
        body.stmts.extend(_block(statements, ctx))
        for extra in rest:
            body.stmts.extend(_small(extra, ctx))
    else:
        body.stmts.extend(_block(statements, ctx))
    return body


def _trailing_yield(
    statements: Sequence[cst.CSTNode],
) -> cst.SimpleStatementLine | cst.SimpleStatementSuite | None:
    if not statements:
        return None
    last = statements[-1]
    if not isinstance(last, (cst.SimpleStatementLine, cst.SimpleStatementSuite)) or not last.body:
        return None
    small = last.body[-1]
    value = None
    if isinstance(small, (cst.Expr, cst.Assign, cst.AnnAssign)):
        value = small.value
    if isinstance(value, cst.Call) and dsl.is_yield(value):
        return last
    return None


def _block(statements: Sequence[cst.CSTNode], ctx: BodyContext) -> list[Stmt]:
    out: list[Stmt] = []
    for stmt in statements:
        out.extend(_statement(stmt, ctx))
    return out


def _statement(stmt: cst.CSTNode, ctx: BodyContext) -> list[Stmt]:
    kind = type(stmt)  # (exact types, none with subclasses: an ABC's failed isinstance is slow)
    if type(stmt) is cst.SimpleStatementLine or type(stmt) is cst.SimpleStatementSuite:
        out: list[Stmt] = []
        for small in stmt.body:
            out.extend(_small(small, ctx))
        return out
    if type(stmt) is cst.If:
        return _if(stmt, ctx)
    if type(stmt) is cst.For:
        return _for(stmt, ctx)
    if kind is cst.FunctionDef or kind is cst.ClassDef:
        return []
    return [_compound(stmt)]


def _compound(stmt: cst.CSTNode, origin: str = "") -> Stmt:
    defs, reads = statement_effects(stmt)
    return Stmt(stmt, "compound", unique(defs), tuple(reads), origin=origin)


def _small(small: cst.BaseSmallStatement, ctx: BodyContext) -> list[Stmt]:
    if isinstance(small, cst.Pass):
        return []
    if isinstance(small, cst.Expr) and isinstance(
        small.value, (cst.SimpleString, cst.ConcatenatedString, cst.Ellipsis)
    ):
        return []
    value = getattr(small, "value", None)
    defs, reads = small_statement_effects(small)
    out: list[Stmt] = []
    # Nested cross-core calls become statements of their own (FlattenCallExpr).
    if not (ctx.may_message and ctx.nested_messages):
        nested = []
    elif isinstance(value, cst.Call):
        nested = _nested_messages(value)
    elif isinstance(value, cst.BaseExpression):
        nested = _nested_messages(value, include_root=True)
    else:
        nested = []
    extra_reads: list[str] = []
    for call, direction in nested:
        ctx.temp_counter[0] += 1
        temp = f"{MESSAGE_TEMP}{ctx.temp_counter[0]}"
        out.append(Stmt(call, direction, (temp,), tuple(reads_of(call))))
        extra_reads.append(temp)
    kind: StmtKind = "plain"
    if ctx.may_message and isinstance(value, cst.Call):
        kind = dsl.message_kind(value) or "plain"
    out.append(
        Stmt(
            small,
            kind,
            unique(defs),
            tuple(extra_reads + reads),
            scalar_arith=_is_scalar_arith(small, ctx),
        )
    )
    return out


def _nested_messages(
    value: cst.BaseExpression, include_root: bool = False
) -> list[tuple[cst.Call, dsl.MessageKind]]:
    """Cross-core calls nested inside an expression, innermost first (argument order)."""
    found: list[tuple[cst.Call, dsl.MessageKind]] = []

    def post_order(node: cst.CSTNode) -> None:  # arguments are evaluated before the call
        for child in children(node):
            post_order(child)
        if isinstance(node, cst.Call) and (node is not value or include_root):
            kind = dsl.message_kind(node)
            if kind is not None:
                found.append((node, kind))

    if _may_message(value):
        post_order(value)
    return found


def _may_message(value: cst.BaseExpression) -> bool:
    """Whether an attribute name in the expression holds "tp" (tpush, tpop): a cheap
    filter before the deep walk, stopping at the first such name."""
    stack: list[cst.CSTNode] = [value]
    while stack:
        node = stack.pop()
        if type(node) is cst.Attribute and "tp" in node.attr.value:
            return True
        stack.extend(children(node))
    return False


def _is_scalar_arith(small: cst.BaseSmallStatement, ctx: BodyContext) -> bool:
    """A scalar assignment from plain arithmetic: what the compiler can recompute anywhere."""
    if isinstance(small, cst.Assign):
        if len(small.targets) != 1 or not isinstance(small.targets[0].target, cst.Name):
            return False
        value: cst.BaseExpression | None = small.value
    elif isinstance(small, cst.AnnAssign):
        if not isinstance(small.target, cst.Name) or small.value is None:
            return False
        if dsl.annotation_kind(small.annotation):
            return False
        value = small.value
    elif isinstance(small, cst.AugAssign):
        if not isinstance(small.target, cst.Name):
            return False
        if small.target.value in ctx.tile_names:
            return False
        value = small.value
    else:
        return False
    if has_call(value):
        return False
    return not any(name in ctx.tile_names for name in reads_of(value))


def _if(stmt: cst.If, ctx: BodyContext) -> list[Stmt]:
    verdict = evaluate_condition(stmt.test, ctx.ranges, ctx.lookup)
    if verdict is True:
        return _block(body_statements(stmt.body), ctx)
    if verdict is False:
        if stmt.orelse is None:
            return []
        if isinstance(stmt.orelse, cst.If):
            return _if(stmt.orelse, ctx)
        return _block(body_statements(stmt.orelse.body), ctx)
    return [_compound(stmt)]


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


def _const_trip(call: cst.Call, ctx: BodyContext) -> tuple[int, int, int, int] | None:
    bounds = loop_bounds(call, ctx)
    values = [b.value for b in bounds if isinstance(b, Const)] if bounds is not None else []
    if len(values) != 3:  # (start, stop, step), each a constant
        return None
    start, stop, step = values
    if step == 0:
        return None
    return start, stop, step, trip_count(start, stop, step)


def _for(stmt: cst.For, ctx: BodyContext) -> list[Stmt]:
    if not isinstance(stmt.iter, cst.Call):
        return [_compound(stmt)]
    kind = dsl.loop_kind(stmt.iter, ctx.aliases)
    if kind in ("pipeline", "bare_pipeline"):
        inner = ctx.decide_inner(stmt, ctx)
        if inner is None:
            return [_compound(stmt)]
        return splice_skewed(inner)
    if kind == "unroll":
        return _unroll(stmt, ctx)
    if kind == "split_aiv":
        # A region, not a loop: the lowering leaves its statements in place, in the
        # vector function (its variable is the lane, a scalar of that core).
        return _block(body_statements(stmt.body), ctx)
    if kind == "range" and dsl.keyword(stmt.iter, "attrs") is None:
        return _collapse_short_range(stmt, ctx)
    return [_compound(stmt)]


def _unroll(stmt: cst.For, ctx: BodyContext) -> list[Stmt]:
    """UnrollLoops runs first: one copy of the body per iteration, the variable a literal.

    Its bounds must be constants when the kernel is *parsed*: literals and module
    constants only (a local is not folded yet), else the kernel does not compile.
    """
    call = stmt.iter
    assert isinstance(call, cst.Call)
    parse_ctx = ctx if ctx.parse_time_lookup is None else replace(ctx, lookup=ctx.parse_time_lookup)
    shape = _const_trip(call, parse_ctx)
    if shape is None or not isinstance(stmt.target, cst.Name):
        bounds = loop_bounds(call, parse_ctx)
        opaque = [b for b in bounds or () if isinstance(b, Opaque)]
        if opaque:  # a constant we cannot see: the copies are real, their count unknown
            if _names_a_cross_core_op(stmt.body):
                ctx.unknowns.append(opaque[0].symbol)  # the count decides the messages
        else:
            ctx.errors.append("pl.unroll() requires compile-time constant integer bounds")
        return [_compound(stmt)]
    start, _stop, step, trip = shape
    if trip > MAX_UNROLL_TRIP:
        ctx.errors.append(
            f"pl.unroll() trip {trip} exceeds the maximum allowed ({MAX_UNROLL_TRIP})"
        )
        return [_compound(stmt)]
    var = stmt.target.value
    out: list[Stmt] = []
    for k in range(trip):
        value = start + k * step
        copy = _block(body_statements(stmt.body), ctx.with_value(var, value))
        out.extend(
            replace(s, origin=f"{var}={value}", bindings=((var, value), *s.bindings)) for s in copy
        )
    return out


_CROSS_CORE_WORDS = ("tpush", "tpop", "matmul", "gemv")


def _names_a_cross_core_op(block: cst.BaseSuite) -> bool:
    """Whether a name in ``block`` says tpush, tpop, matmul or gemv (an op, a helper, a
    tile named after one). Names, not the block's code: a made tree's block has no
    code of its own to cut, and a comment saying "matmul" is no op."""
    return any(
        type(node) is cst.Name and any(word in node.value for word in _CROSS_CORE_WORDS)
        for node in walk(block)
    )


def _collapse_short_range(stmt: cst.For, ctx: BodyContext) -> list[Stmt]:
    """Simplify inlines a plain ``pl.range`` that runs once and drops one that never runs."""
    call = stmt.iter
    assert isinstance(call, cst.Call)
    shape = _const_trip(call, ctx)
    if shape is not None and shape[2] > 0 and isinstance(stmt.target, cst.Name):
        start, _stop, _step, trip = shape
        if trip == 0:
            return []
        if trip == 1:
            return _block(body_statements(stmt.body), ctx.with_value(stmt.target.value, start))
    elif shape is None and _symbolic_one_trip(call, ctx.made):
        return _block(body_statements(stmt.body), ctx)
    return [_compound(stmt)]


def _symbolic_one_trip(call: cst.Call, made: MadeTrees | None) -> bool:
    """``pl.range(k, k + c)`` with 0 < c <= step: one trip whatever k is."""
    args = dsl.positional(call)
    if len(args) not in (2, 3):
        return False
    start, stop = args[0].value, args[1].value
    step = (
        int(args[2].value.value, 0)
        if len(args) == 3 and isinstance(args[2].value, cst.Integer)
        else (1 if len(args) == 2 else None)
    )
    if (
        step is None
        or not isinstance(stop, cst.BinaryOperation)
        or not isinstance(stop.operator, cst.Add)
    ):
        return False
    # The same code (rendered: a made tree's whitespace is not the text's to compare).
    if not isinstance(stop.right, cst.Integer):
        return False
    if full_code(stop.left, made) != full_code(start, made):
        return False
    return 0 < int(stop.right.value, 0) <= step


def splice_skewed(inner: InnerSkew) -> list[Stmt]:
    """The prologue, steady loop and epilogue of a skewed inner pipeline, as parent statements."""
    out: list[Stmt] = []
    carried = {name: f"iter::{name}" for name in inner.iter_names}

    def clone(stmt: Stmt, origin: str, rename: dict[str, str]) -> Stmt:
        reads = tuple(rename.get(name, name) for name in stmt.reads if name != inner.loop_var)
        return replace(stmt, reads=reads, origin=origin, deps={}, carried_reads=())

    for i in range(inner.depth):
        out.extend(clone(inner.stmts[k], f"prologue {i}", {}) for k in inner.produce)
    steady_defs, steady_reads = block_effects(body_statements(inner.node.body))
    hidden = {inner.loop_var, *inner.iter_names}
    out.append(
        Stmt(
            inner.node,
            "compound",
            unique([*steady_defs, *carried.values()]),
            tuple(inner.init_reads) + tuple(n for n in steady_reads if n not in hidden),
            origin="steady",
        )
    )
    for i in range(inner.depth):
        out.extend(clone(inner.stmts[k], f"epilogue {i}", carried) for k in inner.consume)
    if inner.yield_targets:
        out.append(
            Stmt(
                inner.node, "plain", inner.yield_targets, tuple(carried.values()), origin="results"
            )
        )
    return out


def resolve(stmts: list[Stmt], iter_names: Sequence[str]) -> None:
    """Bind each read to the statement whose definition it sees, as SSA conversion would.

    A read of a name that the body (re)defines, before any definition in the
    body, sees the value from the previous iteration: loop-carried state.
    """
    defined_somewhere = set(iter_names)
    for stmt in stmts:
        defined_somewhere.update(stmt.defs)
    current: dict[str, int] = {}
    for index, stmt in enumerate(stmts):
        deps: dict[str, int] = {}
        carried: list[str] = []
        for name in stmt.reads:
            if name in current:
                deps.setdefault(name, current[name])
            elif name in defined_somewhere and name not in carried:
                carried.append(name)
        stmt.deps = deps
        stmt.carried_reads = tuple(carried)
        for name in stmt.defs:
            current[name] = index


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
