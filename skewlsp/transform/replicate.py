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
"""

from __future__ import annotations

import libcst as cst

from skewlsp.contract import LoopReport, Lowering, PreviewUnavailable
from skewlsp.transform.demote import demoted_loop
from skewlsp.transform.expr import index_expr, int_literal, substitute

_MODULE = cst.Module(body=[])


def lowered_statements(report: LoopReport, loop: cst.For) -> list[cst.BaseStatement]:
    """The statements that replace ``loop`` after the lowering passes."""
    lowering = report.lowering
    if lowering is None or lowering.verdict not in ("replicated", "rotated", "empty"):
        why = lowering.reason if lowering is not None else "nothing is rewritten"
        raise PreviewUnavailable(f"left as a pipeline loop: {why}")
    if not isinstance(loop.target, cst.Name):
        raise PreviewUnavailable(
            "a replicated loop that carries init_values is not previewed yet (each copy "
            "would thread the carried values into the next)"
        )
    if lowering.verdict in ("rotated", "empty"):
        return [_rotated(demoted_loop(loop), lowering)]
    return _parse(_replicated(report, lowering, loop), loop)


def _rotated(loop: cst.For, lowering: Lowering) -> cst.For:
    """One body over ``pl.range``; a comment names the loads that rotate through slots."""
    if not lowering.slots:
        return loop
    names = ", ".join(lowering.slots)
    var = loop.target.value if isinstance(loop.target, cst.Name) else "i"
    note = f"# {names}: slot {var} % {lowering.stage} of {lowering.stage} (LowerPipelineToSlots)"
    return loop.with_changes(
        leading_lines=[*loop.leading_lines, cst.EmptyLine(comment=cst.Comment(note))]
    )


def _replicated(report: LoopReport, lowering: Lowering, loop: cst.For) -> str:
    var = loop.target.value  # type: ignore[attr-defined]
    step = report.step
    stage = lowering.stage
    assert step is not None and stage is not None
    lines: list[str] = []
    if lowering.main_trip != 0:
        start, stop = _header_texts(report, loop, lowering)
        if lowering.main_stop is None:
            lines.append(f"unroll_main_end = {_main_end(report, loop, stage)}")
            stop = "unroll_main_end"
        lines.append(f"for {var} in pl.pipeline({start}, {stop}, {stage * step}, stage=1):")
        for k in range(stage):
            lines.append(f"    # copy {k}: {var} + {k * step}")
            lines += _indented(_copy(loop, var, index_expr(var, k * step)), "    ")
    if lowering.main_stop is not None or lowering.main_trip == 0:
        base = (report.start or 0) + (lowering.main_trip or 0) * stage * step
        for j in range(lowering.tail):
            lines.append(f"# remainder copy {j}: {var} = {base + j * step}")
            lines += _copy(loop, var, int_literal(base + j * step))
    else:
        lines += _remainder_chain(report, loop, var, stage, step)
    return "\n".join(lines) + "\n"


def _remainder_chain(
    report: LoopReport, loop: cst.For, var: str, stage: int, step: int
) -> list[str]:
    _, stop = _header_texts(report, loop, None)
    lines = [f"unroll_rem = ({stop}) - unroll_main_end"]
    if step != 1:
        lines[0] = f"unroll_rem = -(-(({stop}) - unroll_main_end) // {step})"
    for k in range(1, stage):
        lines.append(f"{'if' if k == 1 else 'elif'} unroll_rem == {k}:")
        for j in range(k):
            offset = cst.parse_expression(f"unroll_main_end + {j * step}")
            lines += _indented(_copy(loop, var, offset), "    ")
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


def _copy(loop: cst.For, var: str, index: cst.BaseExpression) -> list[str]:
    """The body's statements with the loop variable read as ``index``."""
    body = loop.body
    statements = body.body if isinstance(body, cst.IndentedBlock) else [body]
    out = []
    for stmt in statements:
        copied = substitute(stmt, {var: index})
        out += _MODULE.code_for_node(copied.with_changes(leading_lines=[])).splitlines()
    return out


def _indented(lines: list[str], prefix: str) -> list[str]:
    return [prefix + line if line.strip() else line for line in lines]


def _parse(text: str, loop: cst.For) -> list[cst.BaseStatement]:
    try:
        return list(cst.parse_module(text).body)
    except cst.ParserSyntaxError as error:  # pragma: no cover - built from parsed code
        raise PreviewUnavailable(
            f"internal: the replicated loop does not parse ({error})"
        ) from None
