"""A left loop as the lowering passes write it: replicated copies, or one rotating body.

LowerPipelineLoops (pass doc 28): a main loop of stride ``stage * step`` whose body is
``stage`` copies, the copy ``k`` reading the loop variable as ``i + k * step``, kept as
``pl.pipeline(..., stage=1)`` (the marker CanonicalizeIOOrder scopes on); then the
remainder: with constant bounds, ``trip % stage`` copies written out at their indices;
otherwise ``unroll_main_end`` / ``unroll_rem`` and an ``if unroll_rem == k`` chain.
LowerPipelineToSlots (pass doc 27, PTOAS): the same body over ``pl.range``, each rotated
load taking slot ``i % stage``.

The compiler also gives each copy's values fresh names (SSA); the preview keeps the
author's names, which each copy binds again in order, so it runs as the original does.
A loop carrying ``init_values`` hands each copy's yielded values to the next copy; the
last copy of the main loop yields, and the remainder starts from the main loop's results.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst

from skewlsp.analysis.frontend import dsl
from skewlsp.contract import LoopReport, Lowering, PreviewUnavailable
from skewlsp.transform.buffers import buffer_comments
from skewlsp.transform.demote import demoted_loop
from skewlsp.transform.expr import index_expr, int_literal, substitute

_MODULE = cst.Module(body=[])


def lowered_statements(report: LoopReport, loop: cst.For) -> list[cst.BaseStatement] | str:
    """The statements that replace ``loop`` after the lowering passes: a replicated loop's
    as code (its copies are written as text; parsing and printing them again would cost
    more than writing them, and print the same), under the buffers its copies use
    (:func:`.buffers.buffer_comments`)."""
    lowering = report.lowering
    if lowering is None or lowering.verdict not in ("replicated", "rotated", "empty"):
        why = lowering.reason if lowering is not None else "nothing is rewritten"
        raise PreviewUnavailable(f"left as a pipeline loop: {why}")
    notes = buffer_comments(report)
    if lowering.verdict in ("rotated", "empty"):
        rotated = _rotated(demoted_loop(loop), lowering)
        above = [cst.EmptyLine(comment=cst.Comment(note)) for note in notes]
        return [rotated.with_changes(leading_lines=[*above, *rotated.leading_lines])]
    replicated = _replicated(report, lowering, loop, _carried(loop))
    return "".join(f"{note}\n" for note in notes) + replicated


def _rotated(loop: cst.For, lowering: Lowering) -> cst.For:
    """One body over ``pl.range``; a comment names the loads that rotate through slots."""
    if not lowering.slots:
        return loop
    names = ", ".join(lowering.slots)
    var = (
        _code(loop.target.elements[0].value)
        if isinstance(loop.target, cst.Tuple)
        else _code(loop.target)
    )
    note = f"# {names}: slot {var} % {lowering.stage} of {lowering.stage} (LowerPipelineToSlots)"
    return loop.with_changes(
        leading_lines=[*loop.leading_lines, cst.EmptyLine(comment=cst.Comment(note))]
    )


@dataclass(frozen=True)
class _Carried:
    """A loop's ``init_values``: the names each copy reads them by (``iters``), their
    first values, and the body's last statement ``targets = pl.yield_(values)``."""

    iters: str  # "a_iter, b_iter"
    init: str  # the init_values expression
    targets: str  # "a, b": the loop's results after it
    values: tuple[cst.BaseExpression, ...]  # what the yield hands on


def _carried(loop: cst.For) -> _Carried | None:
    """None for a loop that carries nothing; refuses a carrying loop it cannot write out."""
    if isinstance(loop.target, cst.Name):
        return None
    target, call = loop.target, loop.iter
    found = dsl.keyword(call, "init_values") if isinstance(call, cst.Call) else None
    init = found.value if found is not None else None
    statements = _statements(loop)
    last = statements[-1] if statements else None
    small = last.body[0] if isinstance(last, cst.SimpleStatementLine) and last.body else None
    if not (
        isinstance(target, cst.Tuple)
        and len(target.elements) == 2
        and isinstance(target.elements[1].value, (cst.Tuple, cst.List))
        and init is not None
        and isinstance(small, cst.Assign)
        and isinstance(small.value, cst.Call)
        and _code(small.value.func).endswith("yield_")
    ):
        raise PreviewUnavailable(
            "a replicated loop that carries init_values is written out only when its last "
            "statement assigns what `pl.yield_(...)` returns"
        )
    iters = ", ".join(_code(e.value) for e in target.elements[1].value.elements)
    targets = ", ".join(_code(t.target) for t in small.targets)
    return _Carried(iters, _code(init), targets, tuple(a.value for a in small.value.args))


def _replicated(
    report: LoopReport, lowering: Lowering, loop: cst.For, carried: _Carried | None
) -> str:
    target = loop.target
    var = _code(target.elements[0].value) if isinstance(target, cst.Tuple) else _code(target)
    step, stage = report.step, lowering.stage
    assert step is not None and stage is not None
    fixed = _unread(loop, var)
    lines: list[str] = []
    if lowering.main_trip != 0:
        lines += _main_loop(report, lowering, loop, var, carried, fixed)
    if lowering.main_stop is not None or lowering.main_trip == 0:
        base = (report.start or 0) + (lowering.main_trip or 0) * stage * step
        if carried is not None and lowering.tail:
            handed = carried.targets if lowering.main_trip else None
            lines.append(_bind(carried.iters, handed, carried.init))
        for j in range(lowering.tail):
            lines.append(f"# remainder copy {j}: {var} = {base + j * step}")
            lines += _copy(loop, var, int_literal(base + j * step), carried, fixed=fixed)
    else:
        lines += _remainder_chain(report, loop, var, stage, step, carried, fixed)
    return "\n".join(lines) + "\n"


def _main_loop(
    report: LoopReport,
    lowering: Lowering,
    loop: cst.For,
    var: str,
    carried: _Carried | None,
    fixed: Sequence[list[str] | None],
) -> list[str]:
    """``for`` over the main trip, ``stage`` copies in its body (the last one yields)."""
    step, stage = report.step or 1, lowering.stage or 1
    start, stop = _header_texts(report, loop, lowering)
    lines: list[str] = []
    if lowering.main_stop is None:
        if carried is not None:  # what the loop leaves when it runs no iteration
            lines.append(_bind(carried.targets, None, carried.init))
        lines.append(f"unroll_main_end = {_main_end(report, loop, stage)}")
        stop = "unroll_main_end"
    head, init = var, ""
    if carried is not None:
        head, init = f"{var}, ({carried.iters},)", f", init_values={carried.init}"
    lines.append(f"for {head} in pl.pipeline({start}, {stop}, {stage * step}{init}, stage=1):")
    for k in range(stage):
        lines.append(f"    # copy {k}: {var} + {k * step}")
        index = index_expr(var, k * step)
        copy = _copy(loop, var, index, carried, yields=k == stage - 1, fixed=fixed)
        lines += _indented(copy, "    ")
    return lines


def _remainder_chain(
    report: LoopReport,
    loop: cst.For,
    var: str,
    stage: int,
    step: int,
    carried: _Carried | None,
    fixed: Sequence[list[str] | None],
) -> list[str]:
    _, stop = _header_texts(report, loop, None)
    lines = [f"unroll_rem = ({stop}) - unroll_main_end"]
    if step != 1:
        lines[0] = f"unroll_rem = -(-(({stop}) - unroll_main_end) // {step})"
    for k in range(1, stage):
        lines.append(f"{'if' if k == 1 else 'elif'} unroll_rem == {k}:")
        if carried is not None:
            lines.append(f"    {carried.iters} = {carried.targets}")
        for j in range(k):
            offset = cst.parse_expression(f"unroll_main_end + {j * step}")
            lines += _indented(_copy(loop, var, offset, carried, fixed=fixed), "    ")
    return lines


def _header_texts(report: LoopReport, loop: cst.For, lowering: Lowering | None) -> tuple[str, str]:
    """The start and stop of the main loop as code."""
    call = loop.iter
    assert isinstance(call, cst.Call)
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    start = "0" if len(positional) < 2 else _MODULE.code_for_node(positional[0])
    stop = _MODULE.code_for_node(positional[0] if len(positional) == 1 else positional[1])
    if lowering is not None and lowering.main_stop is not None:
        return str(lowering.main_start), str(lowering.main_stop)
    return start, stop


def _main_end(report: LoopReport, loop: cst.For, stage: int) -> str:
    start, stop = _header_texts(report, loop, None)
    step = report.step or 1
    trip = f"(({stop}) - ({start}))" if step == 1 else f"-(-(({stop}) - ({start})) // {step})"
    return f"({start}) + {trip} // {stage} * {stage * step}"


def _copy(
    loop: cst.For,
    var: str,
    index: cst.BaseExpression,
    carried: _Carried | None = None,
    yields: bool = False,
    fixed: Sequence[list[str] | None] = (),
) -> list[str]:
    """The body's statements with the loop variable read as ``index``; a copy that does not
    end an iteration hands what it yields to the next copy instead (``yields``: it does).
    ``fixed``: per statement, its code when it never reads the variable (:func:`_unread`),
    the same in every copy."""
    statements = _statements(loop)
    out = []
    for position, stmt in enumerate(statements):
        if carried is not None and position == len(statements) - 1 and not yields:
            values = ", ".join(_code(substitute(v, {var: index})) for v in carried.values)
            out += [f"{carried.targets} = {values}", f"{carried.iters} = {carried.targets}"]
            continue
        same = fixed[position] if position < len(fixed) else None
        if same is not None:
            out += same
            continue
        copied = substitute(stmt, {var: index}).with_changes(leading_lines=[])
        out += _lines(_code(copied))
    return out


def _unread(loop: cst.For, var: str) -> list[list[str] | None]:
    """Per statement of the body, its code (lines) when no word of it is ``var``, else
    None: a statement that cannot read the loop variable is the same in every copy, so it
    is printed once, not substituted and printed once per copy (a word of a string or an
    attribute only costs the substitution, which changes nothing then)."""
    word = re.compile(rf"\b{re.escape(var)}\b")
    found: list[list[str] | None] = []
    for stmt in _statements(loop):
        code = _code(stmt.with_changes(leading_lines=[]))
        found.append(None if word.search(code) else _lines(code))
    return found


def _lines(code: str) -> list[str]:
    """The lines of a statement's code, split at newlines only: ``splitlines`` also
    breaks at a form feed or other separators a string literal may hold."""
    lines = code.split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


def _bind(names: str, values: str | None, init: str) -> str:
    """``names = values``, or the names unpacked from ``init_values`` (a tuple)."""
    return f"{names} = {values}" if values is not None else f"({names},) = {init}"


def _statements(loop: cst.For) -> list[cst.BaseStatement]:
    body = loop.body
    if isinstance(body, cst.IndentedBlock):
        return list(body.body)
    return [body]  # type: ignore[list-item]  # a one-line suite, rendered as it is


def _code(node: cst.CSTNode) -> str:
    return _MODULE.code_for_node(node)


def _indented(lines: list[str], prefix: str) -> list[str]:
    return [prefix + line if line.strip() else line for line in lines]
