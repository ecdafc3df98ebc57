"""Facts about one loop that every clone needs, computed once.

Which names keep their spelling (loop-carried or read outside the loop: the
code around the loop must still see them), what each top-level statement's
enclosing inlined loops contribute (``pl.unroll`` copies and one-trip
``pl.range`` loops that the compiler inlines before the pass), the comment
lines attached to each statement, and a generator of fresh, collision-free
names.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import libcst as cst

from skewlsp.analysis import LoopModel
from skewlsp.analysis.frontend.dsl import Aliases, keyword, loop_kind, positional
from skewlsp.analysis.passes.body import Stmt
from skewlsp.contract import PreviewUnavailable
from skewlsp.transform.expr import int_literal, substitute


@dataclass
class Names:
    """Fresh names that never collide with a name the unit already uses."""

    used: set[str]

    def fresh(self, base: str) -> str:
        candidate = base
        counter = 1
        while candidate in self.used:
            counter += 1
            candidate = f"{base}_{counter}"
        self.used.add(candidate)
        return candidate


@dataclass
class LoopContext:
    """One skewable loop, ready to be cloned."""

    model: LoopModel
    loop: cst.For
    loop_var: str
    kept: frozenset[str]
    names: Names
    outer: dict[int, dict[str, cst.BaseExpression]] = field(default_factory=dict)
    lines: dict[int, cst.SimpleStatementLine] = field(default_factory=dict)
    skipped: frozenset[int] = frozenset()

    @property
    def stmts(self) -> list[Stmt]:
        return self.model.stmts


def build_context(model: LoopModel) -> LoopContext:
    loop, module = model.node, model.module
    if loop is None or module is None or model.decision is None:
        raise PreviewUnavailable("internal: the analysis kept no body model for this loop")
    loop_var = model.report.loop_var
    parents = _parents(loop)
    context = LoopContext(
        model=model,
        loop=loop,
        loop_var=loop_var,
        kept=_kept_names(model, module, loop),
        names=Names(set(_all_names(module))),
    )
    for index, stmt in enumerate(model.stmts):
        if stmt.origin and "=" not in stmt.origin and not stmt.origin.startswith("implicit"):
            raise PreviewUnavailable(
                "the body holds a skewed inner pl.pipeline loop; previews of nested skews "
                "are not supported yet"
            )
        context.outer[index] = _outer_values(stmt, parents, loop, loop_var)
        parent = parents.get(id(stmt.node))
        if isinstance(parent, cst.SimpleStatementLine):
            context.lines[id(stmt.node)] = parent
    context.skipped = _nested_call_stmts(model)
    _check_carried(model, context.kept)
    return context


def _parents(root: cst.CSTNode) -> dict[int, cst.CSTNode]:
    parents: dict[int, cst.CSTNode] = {}
    work = [root]
    while work:
        node = work.pop()
        for child in node.children:
            parents[id(child)] = node
            work.append(child)
    return parents


def _outer_values(
    stmt: Stmt, parents: dict[int, cst.CSTNode], loop: cst.For, loop_var: str
) -> dict[str, cst.BaseExpression]:
    """Values of the variables of inlined loops around a top-level statement (outermost first)."""
    chain: list[cst.For] = []
    node = parents.get(id(stmt.node))
    while node is not None and node is not loop:
        if isinstance(node, cst.For):
            chain.append(node)
        node = parents.get(id(node))
    values: dict[str, cst.BaseExpression] = {}
    unrolled = dict(stmt.bindings)
    for inlined in reversed(chain):
        if not isinstance(inlined.target, cst.Name) or not isinstance(inlined.iter, cst.Call):
            raise PreviewUnavailable("internal: an inlined loop without a simple target")
        var = inlined.target.value
        kind = loop_kind(inlined.iter, _ANY_ALIAS)
        if kind == "unroll":
            if var not in unrolled:
                raise PreviewUnavailable(
                    f"internal: no unrolled value of `{var}` recorded for this statement"
                )
            values[var] = int_literal(unrolled[var])
        else:  # a one-trip pl.range collapsed into the body: its variable is its start
            args = positional(inlined.iter)
            start_arg = keyword(inlined.iter, "start")
            start: cst.BaseExpression = int_literal(0)
            if len(args) >= 2:
                start = args[0].value
            elif start_arg is not None:
                start = start_arg.value
            values[var] = substitute(start, dict(values))
    values.pop(loop_var, None)
    return values


# Loop kinds are recognised by their attribute name (the DSL parser ignores the root).
_ANY_ALIAS = Aliases(frozenset(), frozenset())


def _nested_call_stmts(model: LoopModel) -> frozenset[int]:
    """Calls the analysis split out of an expression: rendered inline in their statement.

    Valid only when the statement that reads the call's value is in the same
    half, which holds for every skewed loop (otherwise the value would be a
    carried tile and the loop demoted); checked anyway.
    """
    decision = model.decision
    assert decision is not None
    produce = set(decision.produce)
    skipped: set[int] = set()
    for index, stmt in enumerate(model.stmts):
        if not isinstance(stmt.node, cst.Call):
            continue
        temp = stmt.defs[0] if stmt.defs else None
        reader = next(
            (k for k in range(index + 1, len(model.stmts)) if temp in model.stmts[k].reads),
            None,
        )
        if reader is not None and (reader in produce) != (index in produce):
            raise PreviewUnavailable(
                "internal: a nested cross-core call and its statement fall in different halves"
            )
        skipped.add(index)
    return frozenset(skipped)


def _check_carried(model: LoopModel, kept: frozenset[str]) -> None:
    decision = model.decision
    assert decision is not None
    carried = {name for stmt in model.stmts for name in stmt.carried_reads}
    for index in decision.produce:
        if index in decision.consume:
            continue
        for name in model.stmts[index].defs:
            if name in carried and name not in model.iter_names:
                raise PreviewUnavailable(
                    f"the producer half rebinds `{name}`, which the consumer half reads from "
                    "the previous iteration; no faithful preview can be printed"
                )


def _all_names(node: cst.CSTNode) -> Iterator[str]:
    work = [node]
    while work:
        current = work.pop()
        if isinstance(current, cst.Name):
            yield current.value
        work.extend(current.children)


def _kept_names(model: LoopModel, module: cst.Module, loop: cst.For) -> frozenset[str]:
    """Names bound in the body that must keep their spelling.

    Loop-carried names (read before they are bound in the body) and names the
    code after the loop (or an enclosing loop) reads: renaming them would cut
    the link the surrounding code relies on. Sequential rebinding keeps
    them correct, because every clone runs in program order.
    """
    defined = {name for stmt in model.stmts for name in stmt.defs}
    carried = {name for stmt in model.stmts for name in stmt.carried_reads}
    outside = set(_names_after(module, loop))
    return frozenset((carried | outside) & defined) - set(model.iter_names)


def _names_after(root: cst.CSTNode, loop: cst.For) -> Iterator[str]:
    path = _path_to(root, loop)
    if path is None:
        return
    for depth, node in enumerate(path[:-1]):
        child = path[depth + 1]
        if isinstance(node, (cst.For, cst.While)) and node is not loop:
            yield from _names_outside(node, loop)
        body = getattr(node, "body", None)
        if isinstance(node, (cst.IndentedBlock, cst.Module)) and isinstance(body, Sequence):
            position = next((k for k, s in enumerate(body) if s is child), None)
            if position is not None:
                for later in body[position + 1 :]:
                    yield from _all_names(later)


def _names_outside(node: cst.CSTNode, loop: cst.For) -> Iterator[str]:
    work = [node]
    while work:
        current = work.pop()
        if current is loop:
            continue
        if isinstance(current, cst.Name):
            yield current.value
        work.extend(current.children)


def _path_to(root: cst.CSTNode, target: cst.CSTNode) -> list[cst.CSTNode] | None:
    stack: list[tuple[cst.CSTNode, list[cst.CSTNode]]] = [(root, [root])]
    while stack:
        node, path = stack.pop()
        if node is target:
            return path
        for child in node.children:
            stack.append((child, [*path, child]))
    return None
