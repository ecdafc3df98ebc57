"""What would make a loop skew deeper: hints computed from the loop, not canned text.

A kernel author who sees "depth 1, requested 2" wants the trip count that
would give the requested depth and, when the trip comes from a division by a
tile-size constant, which constant to change and by how much.
"""

from __future__ import annotations

import libcst as cst

from skewlsp.analysis.frontend import dsl
from skewlsp.analysis.frontend.constants import code_of
from skewlsp.analysis.source.tree_text import MadeTrees


def trip_for_depth(trip: int, requested: int) -> int:
    """The smallest trip >= the current one at which the requested depth is feasible."""
    target = max(trip, 2 * requested)
    remainder = target % requested
    return target if remainder == 0 else target + requested - remainder


def depth_hint(trip: int, requested: int, call: cst.Call, made: MadeTrees | None) -> str:
    """e.g. "a trip of 4 would give depth 2: e.g. halve QK_M_TILE" (``made``: the trees
    the analysis made, which the divisor's code is cut from)."""
    target = trip_for_depth(trip, requested)
    hint = f"a trip of {target} would give depth {requested}"
    stop = _stop_expression(call)
    if stop is None or trip == 0 or target % trip:
        return hint
    factor = target // trip
    if isinstance(stop, cst.BinaryOperation) and isinstance(stop.operator, cst.FloorDivide):
        divisor = code_of(stop.right, made)
        verb = "halve" if factor == 2 else f"divide by {factor}"
        return f"{hint}: e.g. {verb} {divisor}"
    if isinstance(stop, cst.Name):
        return f"{hint}: e.g. multiply {stop.value} by {factor}"
    return hint


def _stop_expression(call: cst.Call) -> cst.BaseExpression | None:
    args = dsl.positional(call)
    if len(args) == 1:
        return args[0].value
    if len(args) >= 2:
        return args[1].value
    return None
