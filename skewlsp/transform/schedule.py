"""Prologue, steady loop and epilogue of a skewed loop (SKEW_RULES 4.1).

With s = start, t = trip, st = step and D the effective depth: the prologue
produces s + i*st for i < D; the steady loop ``for k in pl.range(s + D*st,
s + t*st, D*st)`` produces k + i*st and then consumes k - (D-i)*st, oldest
first; the epilogue consumes the last D indices. Iter-args thread through the
consume clones only, in program order, and the original result names are
bound at the end so the code after the loop still reads them.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from skewlsp.analysis.skew_cross_core_pipeline.fifo_order import MovedSend, moved_sends
from skewlsp.contract import PreviewUnavailable
from skewlsp.transform.clone import bound_names, clone_half
from skewlsp.transform.context import LoopContext
from skewlsp.transform.expr import index_expr, index_text, int_literal, leading_lines

# Beyond this many clones per part a preview is megabytes of text nobody reads.
MAX_PREVIEW_DEPTH = 64
# A preview holds 4 x depth clones of a half; past this many statements it is refused.
MAX_PREVIEW_STATEMENTS = 5_000
_LISTED = 4  # section headers list at most this many clones, then elide


def skewed_statements(ctx: LoopContext) -> list[cst.BaseStatement]:
    decision = ctx.model.decision
    assert decision is not None
    depth, trip = decision.depth, decision.trip
    start, step = decision.start, decision.step
    if depth is None or trip is None or start is None or step is None:
        raise PreviewUnavailable("internal: the skew decision has no depth/trip/bounds")
    if depth > MAX_PREVIEW_DEPTH:
        raise PreviewUnavailable(
            f"skew depth {depth} would print {depth} clones of each half per part; previews "
            f"are shown up to depth {MAX_PREVIEW_DEPTH}"
        )
    produce, consume = decision.produce, decision.consume
    statements = 2 * depth * (len(produce) + len(consume))
    if statements > MAX_PREVIEW_STATEMENTS:
        raise PreviewUnavailable(
            f"the preview would print about {statements} statements ({depth} clones of a "
            f"{len(produce)}-statement producer and a {len(consume)}-statement consumer per "
            f"part); previews are shown up to {MAX_PREVIEW_STATEMENTS} statements"
        )
    var = ctx.loop_var
    iters = ctx.model.iter_names
    init = _init_values(ctx)

    prologue: list[cst.BaseStatement] = []
    for i in range(depth):
        index = start + i * step
        prologue += clone_half(ctx, produce, int_literal(index), f"p{i}").statements

    steady_body: list[cst.BaseStatement] = []
    for i in range(depth):
        part = clone_half(ctx, produce, index_expr(var, i * step), f"p{depth + i}")
        steady_body += part.statements
    state: list[cst.BaseExpression] = [cst.Name(name) for name in iters]
    moved = moved_sends(decision, ctx.stmts, None)  # (a rewrite's trees are libcst's)
    for i in range(depth):
        offset = -(depth - i) * step
        part = clone_half(
            ctx,
            consume,
            index_expr(var, offset),
            f"c{i}",
            state,
            with_yield=True,
            marks=_moved_marks(moved, "steady", i),
        )
        steady_body += part.statements
        state = part.state
    results = _result_names(ctx)
    steady_results = [ctx.names.fresh(f"{name}_steady") for name in results] if iters else []
    if iters:
        steady_body.append(_yield_line(ctx, steady_results, state))
    steady = _steady_loop(ctx, start + depth * step, start + trip * step, depth * step, steady_body)

    epilogue: list[cst.BaseStatement] = []
    state = [cst.Name(name) for name in steady_results] if iters else init
    last = start + (trip - depth) * step
    for i in range(depth):
        index = last + i * step
        part = clone_half(
            ctx,
            consume,
            int_literal(index),
            f"c{depth + i}",
            state,
            with_yield=True,
            marks=_moved_marks(moved, "epilogue", i),
        )
        epilogue += part.statements
        state = part.state
    bindings = [
        cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(name))], value)])
        for name, value in zip(_original_results(ctx), state, strict=False)
        if not (isinstance(value, cst.Name) and value.value == name)
    ]

    produced = [index_text(None, start + i * step) for i in range(depth)]
    ahead = [index_text(var, i * step) for i in range(depth)]
    behind = [index_text(var, -(depth - i) * step) for i in range(depth)]
    consumed = [index_text(None, last + i * step) for i in range(depth)]
    prologue = _headed(prologue, f"prologue: {_listing('produce', produced)}")
    steady = steady.with_changes(
        leading_lines=[
            _comment(f"steady: {_listing('produce', ahead)}; {_listing('consume', behind)}")
        ]
    )
    epilogue = _headed(epilogue, f"epilogue: {_listing('consume', consumed)}")
    return [*prologue, steady, *epilogue, *bindings]


def _moved_marks(moved: Sequence[MovedSend], part: str, clone: int) -> dict[int, str]:
    """Comments for the tpushes this consume clone issues out of source order (SKW060)."""
    marks: dict[int, str] = {}
    for move in moved:
        counts = move.steady if part == "steady" else move.epilogue
        n = counts[clone]
        if n:
            fifo = f"FIFO to {move.direction.upper()}"
            note = f"issued after the next {n} produce{'s' if n != 1 else ''} ({fifo})"
            previous = marks.get(move.sender.index)
            marks[move.sender.index] = f"{previous}; {note}" if previous else f"SKW060: {note}"
    return marks


def _listing(half: str, indices: Sequence[str]) -> str:
    shown = [f"{half}({x})" for x in indices]
    if len(shown) > _LISTED:
        shown = [*shown[:2], "...", shown[-1]]
    return ", ".join(shown)


def _comment(text: str) -> cst.EmptyLine:
    return cst.EmptyLine(indent=True, comment=cst.Comment(f"# {text}"))


def _headed(statements: list[cst.BaseStatement], text: str) -> list[cst.BaseStatement]:
    if not statements:
        return statements
    first = statements[0]
    heading = [_comment(text), *leading_lines(first)]
    return [first.with_changes(leading_lines=heading), *statements[1:]]


def _init_values(ctx: LoopContext) -> list[cst.BaseExpression]:
    call = ctx.loop.iter
    assert isinstance(call, cst.Call)
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "init_values":
            value = arg.value
            if isinstance(value, (cst.Tuple, cst.List)):
                return [element.value for element in value.elements]
    return []


def _original_results(ctx: LoopContext) -> list[str]:
    node = ctx.model.yield_node
    if isinstance(node, cst.Assign):
        return [name for target in node.targets for name in bound_names(target.target)]
    if isinstance(node, cst.AnnAssign):
        return bound_names(node.target)
    return []


def _result_names(ctx: LoopContext) -> list[str]:
    """Bases for the steady loop's result names: the original results, else the iter-args."""
    names = _original_results(ctx)
    if len(names) == len(ctx.model.iter_names):
        return names
    return list(ctx.model.iter_names)


def _yield_line(
    ctx: LoopContext, targets: list[str], values: list[cst.BaseExpression]
) -> cst.SimpleStatementLine:
    node = ctx.model.yield_node
    call = getattr(node, "value", None)
    func = call.func if isinstance(call, cst.Call) else cst.parse_expression("pl.yield_")
    yielded = cst.Call(func, [cst.Arg(value) for value in values])
    if len(targets) == 1:
        target: cst.BaseAssignTargetExpression = cst.Name(targets[0])
    else:
        target = cst.Tuple([cst.Element(cst.Name(name)) for name in targets], lpar=[], rpar=[])
    return cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(target)], yielded)])


def _steady_loop(
    ctx: LoopContext, start: int, stop: int, step: int, body: list[cst.BaseStatement]
) -> cst.For:
    """``for <original target> in pl.range(start, stop, step, <other keywords>):``."""
    call = ctx.loop.iter
    assert isinstance(call, cst.Call)
    args = [cst.Arg(int_literal(value)) for value in (start, stop, step)]
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value != "stage":
            args.append(arg.with_changes(comma=cst.MaybeSentinel.DEFAULT))
    func = call.func
    if isinstance(func, cst.Attribute):
        func = func.with_changes(attr=cst.Name("range"))
    else:
        func = cst.parse_expression("pl.range")
    original = ctx.loop.body
    header = cst.TrailingWhitespace()
    if isinstance(original, cst.IndentedBlock):
        header = original.header
    return cst.For(
        target=ctx.loop.target,
        iter=cst.Call(func, args),
        body=cst.IndentedBlock(body, header=header),
    )
