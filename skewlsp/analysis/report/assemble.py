"""From a decision to a :class:`LoopReport`: positions, typed remark arguments, findings.

Pure assembly: nothing is decided here; the findings attached (SKW030, SKW060, SKW061)
are read off the decision, its statement list and the per-core split.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import libcst as cst

from skewlsp.analysis.frontend.op_registry import CUBE, VECTOR
from skewlsp.analysis.passes.body import Stmt
from skewlsp.analysis.passes.expand_mixed_kernel.core_split import ScalarAcross, message_core
from skewlsp.analysis.report.advice import StageAdvice
from skewlsp.analysis.skew_cross_core_pipeline import fifo_order
from skewlsp.analysis.skew_cross_core_pipeline.decide import Decision
from skewlsp.analysis.source.tree_text import MadeTrees
from skewlsp.contract import (
    CORE_NAMES,
    NOT_COMPILED,
    SCALAR_ACROSS,
    Core,
    CoreResult,
    Edit,
    Finding,
    Instance,
    LoopReport,
    Related,
    Span,
)

SpanOf = Callable[[cst.CSTNode], Span]


def loop_report(
    path: str | None,
    span: SpanOf,
    loop: cst.For,
    call: cst.Call,
    fn: str,
    loop_var: str,
    d: Decision,
    stmts: Sequence[Stmt],
    stage_span: Span | None,
    stage_value: Span | None = None,
    *,
    made: MadeTrees | None,
    cores: tuple[CoreResult, ...] = (),
    across: Sequence[ScalarAcross] = (),
    advice: StageAdvice | None = None,
    instance: Instance | None = None,
    helper: str = "",
) -> LoopReport:
    """The report of one decided loop, put together once from what the passes left:
    positions, the decision's values, its findings, each core's verdict when
    ExpandMixedKernel split it (``cores``, and the scalars one core computes that the
    other reads: ``across``, SKW061), and what a ``stage=`` fix needs (``advice``: what
    the bounds read, what would make it skew).
    ``made``: the trees the analysis made, which a finding's code is cut from.
    ``instance``: which copy the walk decided apart this is (a call of the inline
    ``helper``: remarked at the call too, :func:`at_call`), handed on by the walk with
    the decision, so no stage edits the report afterwards."""

    def span_of(index: int | None) -> Span | None:
        return None if index is None else span(stmts[index].located)

    hints: tuple[Finding, ...] = ()
    if d.verdict == "skewed" and d.stage == 3 and stage_span is not None:
        hints = (
            Finding(
                "SKW030",
                "stage=3 requests skew depth 2, the same as stage=2: write stage=2",
                stage_span,
                fix=Edit(stage_value, "2") if stage_value is not None else None,
            ),
        )
    hazards = fifo_order.hazards(d, stmts, span, made)  # SKW060: FIFOs the skew reorders
    hints += tuple(fifo_order.finding(h, span(call)) for h in hazards)
    hints += tuple(scalar_across(found, span) for found in across)
    hints += at_call(instance, helper, d.verdict, d.code, d.message, d.depth, span(loop))
    return LoopReport(
        path=path,
        span=span(loop),
        call_span=span(call),
        verdict=d.verdict,
        code=d.code,
        message=d.message,
        function=fn,
        loop_var=loop_var,
        stage=d.stage,
        requested_depth=d.requested_depth,
        depth=d.depth,
        trip=d.trip,
        start=d.start,
        stop=d.stop,
        step=d.step,
        dynamic_symbol=d.dynamic_symbol,
        lead=span_of(d.lead),
        offending=span_of(d.offending),
        producer_lines=line_ranges(span, stmts, d.produce),
        consumer_lines=line_ranges(span, stmts, d.consume),
        pushes=d.pushes,
        pops=d.pops,
        stage_span=stage_span,
        stage_value=advice.stage_value if advice is not None else None,
        bounds_read=advice.bounds_read if advice is not None else (),
        hints=hints,
        hazards=hazards,
        cores=cores,
        fix_hint=advice.fix_hint if advice is not None else None,
        stage_fix=advice.stage_fix if advice is not None else None,
        args=remark_args(d),
        core=_lead_core(d, stmts),
        instance=instance,
    )


def not_compiled_report(
    path: str | None,
    span: Span,
    call_span: Span,
    why: str,
    instance: Instance | None = None,
    helper: str = "",
) -> LoopReport:
    """The report of a loop the compiler never sees (SKW070): ``why``; ``instance`` and
    ``helper`` as for :func:`loop_report`."""
    message = f"not compiled: {why}"
    hints = at_call(instance, helper, "not_compiled", NOT_COMPILED, message, None, span)
    return LoopReport(
        path, span, call_span, "not_compiled", NOT_COMPILED, message, hints=hints,
        instance=instance,
    )


def _lead_core(d: Decision, stmts: Sequence[Stmt]) -> Core | None:
    """The core whose messages the loop sends and receives (from its lead message)."""
    side = message_core(stmts[d.lead]) if d.lead is not None else None
    if side == CUBE:
        return "aic"
    return "aiv" if side == VECTOR else None


def line_ranges(
    span: SpanOf, stmts: Sequence[Stmt], indices: Sequence[int]
) -> tuple[tuple[int, int], ...]:
    """The file lines the statements at ``indices`` cover, merged into ranges."""
    lines: set[int] = set()
    for index in indices:
        where = span(stmts[index].located)
        lines.update(range(where.line, where.end_line + 1))
    ranges: list[tuple[int, int]] = []
    for line in sorted(lines):
        if ranges and ranges[-1][1] == line - 1:
            ranges[-1] = (ranges[-1][0], line)
        else:
            ranges.append((line, line))
    return tuple(ranges)


def remark_args(d: Decision) -> tuple[tuple[str, str], ...]:
    """Typed remark arguments, LLVM style (``Depth: 2``), for adapters that show them."""
    values = (
        ("Verdict", d.verdict),
        ("Depth", d.depth),
        ("RequestedDepth", d.requested_depth),
        ("Trip", d.trip),
        ("Stage", d.stage),
        ("Pushes", d.pushes),
        ("Pops", d.pops),
        ("Symbol", d.dynamic_symbol),
    )
    return tuple((name, str(value)) for name, value in values if value is not None)


def at_call(
    instance: Instance | None,
    helper: str,
    verdict: str,
    code: str,
    message: str,
    depth: int | None,
    loop: Span,
) -> tuple[Finding, ...]:
    """What an inline helper's loop becomes at one call (a copy with a ``call``): remarked
    at the call itself; nothing for another copy, or for a loop left for LowerPipelineLoops
    (left at every call: only a cross-core verdict is worth a remark where the caller is).

    The remark carries the copy's own code (and so its severity): a call that demotes
    the helper's loop warns where the caller can change its argument.
    """
    if instance is None or instance.call is None or verdict == "left":
        return ()
    becomes = {
        "skewed": f"skewed at depth {depth}",
        "demoted": "demoted",
        "error": "rejected by the compiler",
        "unknown": "of unknown verdict",
    }.get(verdict, verdict)
    said = f"the inlined loop of `{helper}` (line {loop.line}) is {becomes} here: {message}"
    return (Finding(code, said, instance.call, (Related(loop, f"the loop in `{helper}`"),)),)


def scalar_across(found: ScalarAcross, span: SpanOf) -> Finding:
    """SKW061 where the other core reads the scalar, pointing at where it is computed."""
    where = CORE_NAMES[found.computed_on]
    other = CORE_NAMES["aiv" if found.computed_on == "aic" else "aic"]
    computed = span(found.computed_by)
    return Finding(
        SCALAR_ACROSS,
        f"`{found.name}` is computed on the {where} core (line {computed.line}) and read "
        f"here on the {other} core: the compiler moves only tiles between the cores, so "
        f"the {other} core's copy reads a `{found.name}` nothing defines there",
        span(found.read_by),
        (Related(computed, f"`{found.name}` is computed here, on the {where} core"),),
    )
