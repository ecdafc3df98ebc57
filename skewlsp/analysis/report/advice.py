"""What would make a loop skew deeper: hints computed from the loop, not canned text.

A kernel author who sees "depth 1, requested 2" wants the trip count that
would give the requested depth and, when the trip comes from a division by a
tile-size constant, which constant to change and by how much. Nothing is offered
that was not checked: the changed loop is decided again, and a constant's new value
is folded again into the trip it must give.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import libcst as cst

from skewlsp.analysis.frontend import dsl
from skewlsp.analysis.frontend.constants import Const, Folded, code_of
from skewlsp.analysis.passes.body import Stmt, trip_count
from skewlsp.analysis.skew_cross_core_pipeline.decide import Decision, LoopHeader, decide
from skewlsp.analysis.source.tree_text import MadeTrees


def trip_for_depth(trip: int, requested: int) -> int:
    """The smallest trip >= the current one at which the requested depth is feasible."""
    target = max(trip, 2 * requested)
    remainder = target % requested
    return target if remainder == 0 else target + requested - remainder


def depth_advice(
    header: LoopHeader,
    stmts: Sequence[Stmt],
    decision: Decision,
    call: cst.Call,
    fold: Callable[[cst.BaseExpression], Folded],
    made: MadeTrees | None,
) -> str | None:
    """What would give a loop skewed below its requested depth (SKW002) that depth, or its
    depth without asking for more: each change decided again before it is offered.

    e.g. "a trip of 4 would give depth 2: e.g. halve QK_M_TILE". ``stmts`` are the body
    the decision was made on (a mixed loop's: the skewed core's); ``fold`` folds an
    expression of the header as the bounds were folded; ``made``: the trees the analysis
    made, which a constant's code is cut from.
    """
    trip, requested, depth = decision.trip, decision.requested_depth, decision.depth
    if not trip or not requested or depth is None:
        return None
    advice: list[str] = []
    target = trip_for_depth(trip, requested)
    again = _decided_with_trip(header, stmts, target)
    if again is not None and again.verdict == "skewed" and (again.depth or 0) >= requested:
        advice.append(
            f"a trip of {target} would give depth {again.depth}"
            + _constant_to_change(header, call, target, fold, made)
        )
    if depth >= 2:  # the smallest stage asking for exactly this depth
        stage = 2 if depth == 2 else depth + 1  # (stage=3 asks for depth 2 too: SKW030)
        again = decide(replace(header, stage=Const(stage)), stmts)
        if again.code == "SKW001" and again.depth == depth:
            advice.append(f"stage={stage} gives the same depth {depth} without asking for more")
    return "; or ".join(advice) or None


def _decided_with_trip(header: LoopHeader, stmts: Sequence[Stmt], trip: int) -> Decision | None:
    """The decision for the same loop running ``trip`` times (None: bounds not constant)."""
    start, step = header.start, header.step
    if not isinstance(start, Const) or not isinstance(step, Const) or step.value <= 0:
        return None
    return decide(replace(header, stop=Const(start.value + trip * step.value)), stmts)


def _constant_to_change(
    header: LoopHeader,
    call: cst.Call,
    target: int,
    fold: Callable[[cst.BaseExpression], Folded],
    made: MadeTrees | None,
) -> str:
    """``: e.g. halve TILE`` when the stop is ``N // TILE`` or ``N`` and changing that one
    constant (folded again with its new value) gives exactly the ``target`` trip."""
    stop, trip = _stop_expression(call), header_trip(header)
    if stop is None or not trip or target % trip:
        return ""
    factor = target // trip
    if isinstance(stop, cst.BinaryOperation) and isinstance(stop.operator, cst.FloorDivide):
        numerator, divisor = fold(stop.left), fold(stop.right)
        if not isinstance(numerator, Const) or not isinstance(divisor, Const):
            return ""
        if divisor.value % factor or not _gives(
            header, numerator.value // (divisor.value // factor), target
        ):
            return ""
        verb = "halve" if factor == 2 else f"divide by {factor}"
        return f": e.g. {verb} {code_of(stop.right, made)}"
    if isinstance(stop, cst.Name):
        value = fold(stop)
        if isinstance(value, Const) and _gives(header, value.value * factor, target):
            return f": e.g. multiply {stop.value} by {factor}"
    return ""


def header_trip(header: LoopHeader) -> int | None:
    """The trip count of a header with constant bounds and a positive step."""
    start, stop, step = header.start, header.stop, header.step
    if not (isinstance(start, Const) and isinstance(stop, Const) and isinstance(step, Const)):
        return None
    return trip_count(start.value, stop.value, step.value) if step.value > 0 else None


def _gives(header: LoopHeader, stop: int, target: int) -> bool:
    """Whether the header with its stop changed to ``stop`` runs ``target`` times."""
    return header_trip(replace(header, stop=Const(stop))) == target


def _stop_expression(call: cst.Call) -> cst.BaseExpression | None:
    args = dsl.positional(call)
    if len(args) == 1:
        return args[0].value
    if len(args) >= 2:
        return args[1].value
    return None
