"""Which ``if`` conditions Simplify can prove, so it can drop the ``if`` before the pass.

Simplify binds every loop variable whose bounds are constant to ``[start, stop)``
(the step is not used) and folds comparisons it can decide from those ranges
and from constants. We mirror that with interval arithmetic; anything we
cannot decide stays an ``if`` (a single nested statement), as in the compiler.

Models: ``src/ir/transforms/simplify_pass.cpp`` (the ``if`` folding it does before the
skew pass).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import libcst as cst

from skewlsp.analysis.frontend.constants import Const, Folded
from skewlsp.analysis.frontend.values import Interval

Lookup = Callable[[str], "Folded | None"]


def evaluate_condition(
    test: cst.BaseExpression, ranges: Mapping[str, Interval], lookup: Lookup
) -> bool | None:
    """True / False when provable, None otherwise."""
    try:
        return _truth(test, ranges, lookup)
    except RecursionError:
        return None


def _truth(node: cst.BaseExpression, ranges: Mapping[str, Interval], lookup: Lookup) -> bool | None:
    if isinstance(node, cst.Name) and node.value in ("True", "False"):
        return node.value == "True"
    if isinstance(node, cst.BooleanOperation):
        left = _truth(node.left, ranges, lookup)
        right = _truth(node.right, ranges, lookup)
        if isinstance(node.operator, cst.And):
            if left is False or right is False:
                return False
            return True if left is True and right is True else None
        if left is True or right is True:
            return True
        return False if left is False and right is False else None
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
        inner = _truth(node.expression, ranges, lookup)
        return None if inner is None else not inner
    if isinstance(node, cst.Comparison) and len(node.comparisons) == 1:
        left = interval_of(node.left, ranges, lookup)
        right = interval_of(node.comparisons[0].comparator, ranges, lookup)
        if left is None or right is None:
            return None
        return _compare(node.comparisons[0].operator, left, right)
    value = interval_of(node, ranges, lookup)
    if value is not None and value.lo == value.hi:
        return value.lo != 0
    return None


def _compare(op: cst.BaseCompOp, a: Interval, b: Interval) -> bool | None:
    if isinstance(op, cst.LessThan):
        return True if a.hi < b.lo else False if a.lo >= b.hi else None
    if isinstance(op, cst.LessThanEqual):
        return True if a.hi <= b.lo else False if a.lo > b.hi else None
    if isinstance(op, cst.GreaterThan):
        return _compare(cst.LessThan(), b, a)
    if isinstance(op, cst.GreaterThanEqual):
        return _compare(cst.LessThanEqual(), b, a)
    if isinstance(op, cst.Equal):
        if a.lo == a.hi == b.lo == b.hi:
            return True
        return False if a.hi < b.lo or b.hi < a.lo else None
    if isinstance(op, cst.NotEqual):
        equal = _compare(cst.Equal(), a, b)
        return None if equal is None else not equal
    return None


def interval_of(
    node: cst.BaseExpression, ranges: Mapping[str, Interval], lookup: Lookup
) -> Interval | None:
    """The range of values an integer expression can take, or None when unknown."""
    if isinstance(node, cst.Integer):
        value = int(node.value, 0)
        return Interval(value, value)
    if isinstance(node, cst.Name):
        if node.value in ranges:
            return ranges[node.value]
        found = lookup(node.value)
        if isinstance(found, Const):
            return Interval(found.value, found.value)
        return None
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = interval_of(node.expression, ranges, lookup)
        return None if inner is None else Interval(-inner.hi, -inner.lo)
    if isinstance(node, cst.BinaryOperation):
        a = interval_of(node.left, ranges, lookup)
        b = interval_of(node.right, ranges, lookup)
        if a is None or b is None:
            return None
        op = node.operator
        if isinstance(op, cst.Add):
            return Interval(a.lo + b.lo, a.hi + b.hi)
        if isinstance(op, cst.Subtract):
            return Interval(a.lo - b.hi, a.hi - b.lo)
        if isinstance(op, cst.Multiply):
            corners = [a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi]
            return Interval(min(corners), max(corners))
        if isinstance(op, cst.FloorDivide) and b.lo == b.hi and b.lo > 0:
            return Interval(a.lo // b.lo, a.hi // b.lo)
        if isinstance(op, cst.Modulo) and b.lo == b.hi and b.lo > 0:
            if a.lo == a.hi:
                return Interval(a.lo % b.lo, a.lo % b.lo)
            return Interval(0, b.lo - 1)
    return None
