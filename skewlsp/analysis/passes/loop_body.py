"""The walk that makes a loop body's statement list (:mod:`.body`) from its source.

Source is not IR. Before the skew pass runs, ``pl.unroll`` bodies are written out
(:mod:`.unroll_loops`), nested cross-core calls are split into their own statements,
Simplify drops ``if``s it can prove and collapses one-trip ``pl.range`` loops
(:mod:`.simplify`), a ``pl.split_aiv`` region is erased (LowerAutoVectorSplit), and an
inner pipeline that was skewed is replaced by its prologue, steady loop and epilogue.
This walk visits the statements once and hands each compound one to the pass that
rewrites it; the def/use edges come after, from :mod:`.convert_to_ssa`. No pass of its
own: it is where the source's statements become the records the passes rewrite.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import libcst as cst

from skewlsp.analysis.frontend import dsl
from skewlsp.analysis.frontend.names import (
    block_effects,
    body_statements,
    has_call,
    reads_of,
    small_statement_effects,
    unique,
)
from skewlsp.analysis.passes.body import (
    MESSAGE_TEMP,
    Body,
    BodyContext,
    InnerSkew,
    Stmt,
    StmtKind,
    compound,
)
from skewlsp.analysis.passes.simplify import collapse_short_range, fold_if
from skewlsp.analysis.passes.unroll_loops import unroll
from skewlsp.analysis.source.walk import children


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


def _trailing_yield(statements: Sequence[cst.CSTNode]) -> cst.SimpleStatementLine | None:
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
        return last  # type: ignore[return-value]
    return None


def _block(statements: Sequence[cst.CSTNode], ctx: BodyContext) -> list[Stmt]:
    out: list[Stmt] = []
    for stmt in statements:
        out.extend(_statement(stmt, ctx))
    return out


def _statement(stmt: cst.CSTNode, ctx: BodyContext) -> list[Stmt]:
    kind = type(stmt)  # (exact types, none with subclasses: an ABC's failed isinstance is slow)
    if kind is cst.SimpleStatementLine or kind is cst.SimpleStatementSuite:
        out: list[Stmt] = []
        for small in stmt.body:  # type: ignore[attr-defined]
            out.extend(_small(small, ctx))
        return out
    if kind is cst.If:
        return fold_if(stmt, ctx, _block)  # type: ignore[arg-type]
    if kind is cst.For:
        return _for(stmt, ctx)  # type: ignore[arg-type]
    if kind is cst.FunctionDef or kind is cst.ClassDef:
        return []
    return [compound(stmt)]


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
        # positioned at the statement it is lifted out of, as FlattenCallExpr's are
        out.append(Stmt(call, direction, (temp,), tuple(reads_of(call)), anchor=small))
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


def _for(stmt: cst.For, ctx: BodyContext) -> list[Stmt]:
    if not isinstance(stmt.iter, cst.Call):
        return [compound(stmt)]
    kind = dsl.loop_kind(stmt.iter, ctx.aliases)
    if kind in ("pipeline", "bare_pipeline"):
        inner = ctx.decide_inner(stmt, ctx)
        if inner is None:
            return [compound(stmt)]
        return splice_skewed(inner)
    if kind == "unroll":
        return unroll(stmt, ctx, _block)
    if kind == "split_aiv":
        # A region, not a loop: the lowering leaves its statements in place, in the
        # vector function (its variable is the lane, a scalar of that core).
        return _block(body_statements(stmt.body), ctx)
    if kind == "range" and dsl.keyword(stmt.iter, "attrs") is None:
        return collapse_short_range(stmt, ctx, _block)
    return [compound(stmt)]


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


