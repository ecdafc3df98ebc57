"""The ``pl.pipeline(...)`` header: stage, bounds and target, folded as the DSL parser does.

What the parser refuses here (a missing or non-constant ``stage``, ``*args``, a
builtin call in a bound, a malformed target) is appended to ``errors`` and
becomes SKW040; everything else is a folded value for the decision.

Models the DSL parser's reading of a ``for`` over ``pl.pipeline``
(``python/pypto/language/parser/ast_parser.py``), its bounds folded with Simplify's
ranges of the enclosing loops and its integer arithmetic (``passes.simplify``).
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from skewlsp.analysis.frontend import dsl
from skewlsp.analysis.frontend.constants import Folder
from skewlsp.analysis.frontend.names import target_effects
from skewlsp.analysis.frontend.scope import BUILTIN_CALLS, FunctionScope
from skewlsp.analysis.frontend.values import Const, Dynamic, Folded, Rejected
from skewlsp.analysis.passes.body import BodyContext
from skewlsp.analysis.passes.simplify import simplified
from skewlsp.analysis.source.walk import walk
from skewlsp.contract import Span

INT32_MAX = 2**31 - 1
SpanOf = Callable[[cst.CSTNode], Span]


def stage_of(
    call: cst.Call, scope: FunctionScope, errors: list[str], span: SpanOf
) -> tuple[Folded | None, Span | None, Span | None]:
    """The folded ``stage=``, the span of the argument and the span of its value."""
    arg = dsl.keyword(call, "stage")
    if arg is None:
        errors.append("pl.pipeline() requires stage= (a positive integer)")
        return None, None, None
    arg_span = span(arg)
    folded = fold_stage(arg.value, scope)
    if isinstance(folded, Rejected):
        errors.append(folded.reason)
    elif isinstance(folded, Dynamic):
        errors.append(
            f"pl.pipeline() stage must be a compile-time constant integer ({folded.reason})"
        )
    elif isinstance(folded, Const):
        if folded.value < 1:
            errors.append(f"pl.pipeline() stage must be >= 1, got {folded.value}")
        elif folded.value > INT32_MAX:
            errors.append(f"pl.pipeline() stage {folded.value} does not fit in a 32-bit int")
    return folded, arg_span, span(arg.value)


def bounds_of(call: cst.Call, ctx: BodyContext, errors: list[str]) -> tuple[Folded, Folded, Folded]:
    """(start, stop, step) of the ``pl.pipeline(...)`` call, folded; refusals go to ``errors``."""
    for arg in call.args:
        if arg.star:
            errors.append("pl.pipeline() does not accept *args or **kwargs")
        elif arg.keyword is not None and arg.keyword.value not in (
            "init_values",
            "stage",
            "attrs",
        ):
            errors.append(f"unknown keyword argument '{arg.keyword.value}' in pl.pipeline()")
    values = [a.value for a in dsl.positional(call)]
    if not values:
        errors.append("pl.pipeline() requires at least 1 argument (stop)")
        zero = Const(0)
        return zero, zero, Const(1)
    if len(values) == 1:
        exprs: list[cst.BaseExpression | None] = [None, values[0], None]
    elif len(values) == 2:
        exprs = [values[0], values[1], None]
    else:
        exprs = list(values[:3])
    folded: list[Folded] = []
    for expr, default in zip(exprs, (0, None, 1), strict=True):
        if expr is None:
            folded.append(Const(default or 0))
            continue
        value = fold_bound(expr, ctx)
        if isinstance(value, Rejected):
            errors.append(value.reason)
        folded.append(value)
    return folded[0], folded[1], folded[2]


def fold_stage(expr: cst.BaseExpression, scope: FunctionScope) -> Folded:
    if isinstance(expr, cst.Call):
        path = dsl.dotted(expr.func)
        if path == ("pl", "const") and expr.args:
            return fold_stage(expr.args[0].value, scope)
        if path is not None and len(path) == 1:
            return Rejected(f"unsupported function call `{path[0]}(...)` in stage")
    return Folder(scope.stage_lookup, scope.module.made).fold(expr)


def fold_bound(expr: cst.BaseExpression, ctx: BodyContext) -> Folded:
    """A bound as the skew and lowering passes read it: Simplify has canonicalised its
    arithmetic (``SimplifyExpr`` of the loop's start, stop and step)."""
    bad = builtin_call(expr)
    if bad:
        return Rejected(f"unsupported function call `{bad}(...)` in a loop bound")
    if isinstance(expr, cst.Call) and dsl.dotted(expr.func) == ("pl", "const") and expr.args:
        return simplified(expr.args[0].value, ctx.fold)
    return simplified(expr, ctx.fold)


def builtin_call(expr: cst.CSTNode) -> str | None:
    for node in walk(expr):
        if (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Name)
            and node.func.value in BUILTIN_CALLS
        ):
            return node.func.value
    return None


def loop_target(loop: cst.For, call: cst.Call) -> tuple[str, tuple[str, ...], str | None]:
    init = dsl.keyword(call, "init_values")
    target = loop.target
    if isinstance(target, cst.Name):
        if init is not None:
            return target.value, (), "for loop target must be a tuple when init_values is provided"
        return target.value, (), None
    if isinstance(target, cst.Tuple) and len(target.elements) == 2:
        first, second = target.elements[0].value, target.elements[1].value
        var = first.value if isinstance(first, cst.Name) else ""
        if isinstance(second, cst.Tuple):
            names = tuple(e.value.value for e in second.elements if isinstance(e.value, cst.Name))
            if init is None:
                return var, names, "iter-args given in the target but no init_values"
            if not isinstance(init.value, (cst.Tuple, cst.List)):
                return var, names, "init_values must be a tuple or list literal"
            if len(init.value.elements) != len(names):
                return (
                    var,
                    names,
                    f"mismatch: {len(names)} iter_args but {len(init.value.elements)} init_values",
                )
            return var, names, None
        defs, _ = target_effects(second)
        return var, tuple(defs), "iter-args must be written as a tuple: `for i, (a,) in ...`"
    return "", (), "for loop target must be a simple name or (loop_var, (iter_args...))"
