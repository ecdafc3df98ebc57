"""One clone of a half: the loop variable substituted, every value renamed, iter-args threaded.

``produce(x)`` / ``consume(x)`` of SKEW_RULES 4.1. A clone gives each name it
binds a fresh spelling (``qa_p0``, ``e_c1``) so the D copies the steady loop
holds side by side stay distinct values, as they are in the compiler's IR;
reads inside the clone follow the clone's own bindings. Names the code around
the loop relies on keep their spelling (see ``context._kept_names``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import libcst as cst

from skewlsp.transform.context import LoopContext
from skewlsp.transform.expr import leading_lines, literal_value, substitute


@dataclass
class Clone:
    """The statements of one clone and, for a consume clone, the iter-arg values it yields."""

    statements: list[cst.BaseStatement]
    state: list[cst.BaseExpression]


def clone_half(
    ctx: LoopContext,
    indices: Sequence[int],
    index: cst.BaseExpression,
    tag: str,
    state: Sequence[cst.BaseExpression] = (),
    with_yield: bool = False,
    marks: Mapping[int, str] | None = None,
) -> Clone:
    """The half ``indices`` at loop index ``index``; ``tag`` (``p0``, ``c3``) suffixes new names.

    ``marks`` puts a comment line above the clone of a statement (by its index in
    the body): how the preview points at a tpush the skew moves (SKW060).
    """
    renames: dict[str, str] = {}
    iter_values = dict(zip(ctx.model.iter_names, state, strict=False))
    out: list[cst.BaseStatement] = []

    def reads_for(position: int) -> dict[str, cst.BaseExpression]:
        reads: dict[str, cst.BaseExpression] = {ctx.loop_var: index}
        for name, value in ctx.outer.get(position, {}).items():  # may read the loop variable
            reads[name] = substitute(value, {ctx.loop_var: index})
        reads.update(iter_values)
        reads.update({name: cst.Name(new) for name, new in renames.items()})
        return reads

    def bind(names: Iterable[str]) -> dict[str, str]:
        for name in names:
            if name not in ctx.kept and name not in renames:
                renames[name] = ctx.names.fresh(f"{name}_{tag}")
        return {name: renames[name] for name in names if name in renames}

    for position in indices:
        if position in ctx.skipped:
            continue
        stmt = ctx.stmts[position]
        reads = reads_for(position)
        if isinstance(stmt.node, cst.BaseSmallStatement):
            out.append(_line(ctx, stmt.node, _small(stmt.node, reads, bind)))
        else:
            defs = bind(stmt.defs)
            reads.update({name: cst.Name(new) for name, new in defs.items()})
            node = substitute(stmt.node, reads, defs)
            out.append(_without_blank_lines(node))  # type: ignore[arg-type]  # Stmt.node: any node
        if marks and position in marks:
            comment = cst.EmptyLine(indent=True, comment=cst.Comment(f"# {marks[position]}"))
            out[-1] = out[-1].with_changes(leading_lines=[*leading_lines(out[-1]), comment])

    new_state = list(state)
    if with_yield and ctx.model.yield_node is not None and state:
        call = _yield_call(ctx.model.yield_node)
        reads = reads_for(-1)
        new_state = []
        for name, arg in zip(ctx.model.iter_names, call.args, strict=False):
            value = substitute(arg.value, reads)
            if not _simple(value):  # bind a computed yield value once, then thread the name
                fresh = ctx.names.fresh(f"{name}_next_{tag}")
                out.append(cst.SimpleStatementLine([_assign(fresh, value)]))
                value = cst.Name(fresh)
            new_state.append(value)
    return Clone(out, new_state)


def _small(small: cst.BaseSmallStatement, reads, bind) -> cst.BaseSmallStatement:
    """Right-hand side first with the current bindings, then the targets get fresh names."""
    small = small.with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
    if isinstance(small, cst.Assign):
        value = substitute(small.value, reads)
        bound = [name for target in small.targets for name in bound_names(target.target)]
        defs = bind(bound)
        targets = [
            target.with_changes(target=substitute(target.target, _target_reads(reads, bound), defs))
            for target in small.targets
        ]
        return small.with_changes(value=value, targets=targets)
    if isinstance(small, cst.AnnAssign) and small.value is not None:
        value = substitute(small.value, reads)
        annotation = substitute(small.annotation, reads)
        bound = bound_names(small.target)
        defs = bind(bound)
        target = substitute(small.target, _target_reads(reads, bound), defs)
        return small.with_changes(value=value, annotation=annotation, target=target)
    return substitute(small, reads)


def _target_reads(reads: dict, bound: list[str]) -> dict:
    return {name: value for name, value in reads.items() if name not in bound}


def bound_names(target: cst.BaseExpression) -> list[str]:
    """Names a target binds outright (a subscript store writes into, not rebinds, its base here)."""
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [name for element in target.elements for name in bound_names(element.value)]
    if isinstance(target, cst.StarredElement):
        return bound_names(target.value)
    return []


def _yield_call(node: cst.CSTNode) -> cst.Call:
    value = getattr(node, "value", None)
    assert isinstance(value, cst.Call)
    return value


def _simple(value: cst.CSTNode) -> bool:
    return isinstance(value, cst.Name) or literal_value(value) is not None


def _assign(name: str, value: cst.BaseExpression) -> cst.Assign:
    return cst.Assign([cst.AssignTarget(cst.Name(name))], value)


def _line(ctx: LoopContext, original: cst.BaseSmallStatement, new: cst.BaseSmallStatement):
    """A statement line that keeps the comments of the original line."""
    line = ctx.lines.get(id(original))
    if line is None:
        return cst.SimpleStatementLine([new])
    first, last = line.body[0] is original, line.body[-1] is original
    return cst.SimpleStatementLine(
        [new],
        leading_lines=_comments(line.leading_lines) if first else (),
        trailing_whitespace=line.trailing_whitespace if last else cst.TrailingWhitespace(),
    )


def _comments(lines: Sequence[cst.EmptyLine]) -> list[cst.EmptyLine]:
    """Comment lines only: blank lines inside a clone would split it for no reason."""
    return [line.with_changes(indent=True) for line in lines if line.comment is not None]


def _without_blank_lines(node: cst.CSTNode) -> cst.CSTNode:
    lines = getattr(node, "leading_lines", None)
    if lines is None:
        return node
    return node.with_changes(leading_lines=_comments(lines))
