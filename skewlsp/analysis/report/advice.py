"""What would make a loop skew deeper: hints computed from the loop, not canned text.

A kernel author who sees "depth 1, requested 2" wants the trip count that
would give the requested depth and, when the trip comes from a division by a
tile-size constant, which constant to change and by how much. Nothing is offered
that was not checked: the changed loop is decided again, and a constant's new value
is folded again into the trip it must give.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import PurePath

import libcst as cst

from skewlsp.analysis.frontend import dsl
from skewlsp.analysis.frontend.constants import Assigned, Const, Folded, code_of
from skewlsp.analysis.passes.body import Stmt, trip_count
from skewlsp.analysis.skew_cross_core_pipeline.decide import Decision, LoopHeader, decide
from skewlsp.analysis.source.tree_text import MadeTrees
from skewlsp.contract import Origin, Span, StageFix, baked


@dataclass(frozen=True)
class StageAdvice:
    """What a ``stage=`` fix of one loop needs, handed to the report as it is put
    together (:func:`.assemble.loop_report`): where the stage's value is, what the
    bounds read (a fix bakes it in), and for a loop skewed below its requested depth
    (SKW002) the advice (:func:`depth_advice`) and the edit that writes its stage."""

    stage_value: Span | None
    bounds_read: tuple[Origin, ...]
    fix_hint: str | None = None
    stage_fix: StageFix | None = None


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
    origins: Sequence[Origin] = (),
) -> tuple[str | None, int | None]:
    """What would give a loop skewed below its requested depth (SKW002) that depth, or its
    depth without asking for more: each change decided again before it is offered; and
    the ``stage=`` that gives the same depth, if any (the one part an edit can make).

    e.g. "a trip of 4 would give depth 2: e.g. halve QK_M_TILE". ``stmts`` are the body
    the decision was made on (a mixed loop's: the skewed core's); ``fold`` folds an
    expression of the header as the bounds were folded; ``made``: the trees the analysis
    made, which a constant's code is cut from; ``origins``: what the bounds read
    (:func:`bounds_read`), which a stage chosen for this trip bakes in.
    """
    trip, requested, depth = decision.trip, decision.requested_depth, decision.depth
    if not trip or not requested or depth is None:
        return None, None
    advice: list[str] = []
    target = trip_for_depth(trip, requested)
    again = _decided_with_trip(header, stmts, target)
    if again is not None and again.verdict == "skewed" and (again.depth or 0) >= requested:
        advice.append(
            f"a trip of {target} would give depth {again.depth}"
            + _constant_to_change(header, call, target, fold, made)
        )
    fixed = None
    if depth >= 2:  # the smallest stage asking for exactly this depth
        stage = 2 if depth == 2 else depth + 1  # (stage=3 asks for depth 2 too: SKW030)
        again = decide(replace(header, stage=Const(stage)), stmts)
        if again.code == "SKW001" and again.depth == depth:
            advice.append(
                f"stage={stage} gives the same depth {depth} without asking for more"
                + baked(origins, stage)
            )
            fixed = stage
    return "; or ".join(advice) or None, fixed


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


def bounds_read(
    call: cst.Call,
    fold: Callable[[cst.BaseExpression], Folded],
    assigned: Callable[[str], Assigned | None],
    path: str | None,
    made: MadeTrees | None,
) -> tuple[Origin, ...]:
    """What the bounds of ``call`` read besides integer literals, each with where it is
    assigned: a ``stage=`` fix that keeps the verdict for this trip bakes their values
    into the kernel, so it names them (none: the trip is the loop's own text).

    A name is looked up where the analysis folded it (``assigned``: this module's text,
    else the module it is imported from); anything else (``cfg.rows``, a call) is named
    by its code, with no place.
    """
    found: dict[str, Origin] = {}
    for arg in dsl.positional(call):
        for leaf in _leaves(arg.value):
            if isinstance(leaf, cst.Integer) or code_of(leaf, made) in found:
                continue
            value = fold(leaf)
            number = value.value if isinstance(value, Const) else None
            if not isinstance(leaf, cst.Name):
                text = code_of(leaf, made)
                found[text] = Origin(text, "", number)
                continue
            where = assigned(leaf.value)
            if where is None:
                found[leaf.value] = Origin(leaf.value, "", number)
                continue
            # The file's name (what the line shows; a report's own path is its ``path``).
            module = PurePath(path).name if where.module is None and path else None
            if where.module is not None:
                module = where.module.rsplit(".", 1)[-1] + ".py"
            found[leaf.value] = Origin(leaf.value, where.expression, number, module, where.line)
    return tuple(found.values())


def _leaves(node: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The operands of an arithmetic expression, left to right (parentheses dropped)."""
    if isinstance(node, cst.BinaryOperation):
        return _leaves(node.left) + _leaves(node.right)
    if isinstance(node, cst.UnaryOperation):
        return _leaves(node.expression)
    return [node]
