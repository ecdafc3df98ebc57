"""Module-level functions a configuration calls when Python imports it, run statically.

A kernel's sizes may come out of a small function its module calls at import: a preset
picked from the environment (``_variant()``), an option read off the command line
(pypto-lib's ``TP_SIZE = _parse_int_argv("--tp") or 2``, a ``for`` over
``enumerate(sys.argv)``). Python runs it before the kernel is parsed, so the compiler
sees its result as a constant. This module runs such a function on the values the
caller folded (:mod:`.loadtime`, under the assumed build): straight-line assignments,
``if``, ``while`` and ``for`` over a known sequence, ``return``. Anything else leaves
the call unknown, never guessed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import libcst as cst

from skewlsp.analysis.frontend import dsl
from skewlsp.analysis.frontend.values import Const, ExpressionFolder, Folded, Items, Opaque
from skewlsp.analysis.source import parsing

MAX_CALL_DEPTH = 3
# A loop in a config's function runs at most this many times (an argument parser walks
# the command line: a few arguments).
MAX_LOOP_ITERATIONS = 64


class FunctionBodies:
    """The module's top-level functions, run by a tiny evaluator when a constant calls one."""

    def __init__(self, sources: Mapping[str, str]) -> None:
        self._sources = sources
        self._depth = 0

    def call(
        self,
        name: str,
        folder: ExpressionFolder,
        args: Sequence[Folded] = (),
        keywords: Mapping[str, Folded] | None = None,
    ) -> Folded | None:
        """What ``name(*args, **keywords)`` returns (None: not a function of the module,
        or one called with arguments its signature is not modelled for: the caller then
        folds the call as any other)."""
        text = self._sources.get(name)
        if text is None:
            return None
        unknown = Opaque(name, f"`{name}()` is computed when the module loads")
        if self._depth >= MAX_CALL_DEPTH:
            return Opaque(name, f"`{name}()` calls too deep to evaluate")
        try:
            module = parsing.dedented_module(text)
        except Exception:
            return Opaque(name, f"`{name}()` could not be read")
        fn = next((s for s in module.body if isinstance(s, cst.FunctionDef)), None)
        if fn is None:
            return unknown
        local = _bound(fn, folder, args, keywords or {})
        if local is None:  # a signature not modelled: folded as the call it was before
            return None if args or keywords else unknown
        self._depth += 1
        try:
            statements = _statements(fn.body)
            result = _run(statements, folder, name, local)
        finally:
            self._depth -= 1
        if isinstance(result, _Jump):  # a ``continue`` outside a loop: not Python
            return unknown
        return result if result is not None else Opaque(name, f"`{name}()` returns no constant")


def _bound(
    fn: cst.FunctionDef,
    folder: ExpressionFolder,
    args: Sequence[Folded],
    keywords: Mapping[str, Folded],
) -> dict[str, Folded] | None:
    """The function's parameters bound as Python binds them (defaults folded at module
    level, where Python evaluated them); None for a signature not modelled (``*args``,
    keyword-only, ``**kwargs``) or a call that does not fit it."""
    params = fn.params
    if (
        isinstance(params.star_arg, cst.Param)
        or params.kwonly_params
        or params.star_kwarg is not None
        or params.posonly_params
    ):
        return None
    names = [param.name.value for param in params.params]
    if len(args) > len(names) or any(key not in names for key in keywords):
        return None
    local: dict[str, Folded] = dict(zip(names, args, strict=False))
    for param in params.params[len(args) :]:
        key = param.name.value
        if key in keywords:
            local[key] = keywords[key]
        elif param.default is not None:
            local[key] = folder.fold(param.default)
        else:
            return None
    return local


class _Jump:
    """``continue`` or ``break``: where a loop in a config's function goes next."""


_CONTINUE, _BREAK = _Jump(), _Jump()


def _run(
    statements: Sequence[cst.CSTNode],
    folder: ExpressionFolder,
    name: str,
    local: dict[str, Folded],
) -> Folded | _Jump | None:
    """Run straight-line config code (``if``, ``while`` over the command line, ``for``
    over a known sequence); the returned value, a ``continue``/``break`` for the loop
    around, or None when it falls through."""
    opaque = Opaque(name, f"`{name}()` is computed when the module loads")
    for stmt in statements:
        scope = folder.with_bindings(local)
        result: Folded | _Jump | None
        if isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            result = _run_line(stmt, scope, local, opaque)
        elif isinstance(stmt, cst.While):
            result = _run_while(stmt, folder, name, local, opaque)
        elif isinstance(stmt, cst.For):
            result = _run_for(stmt, folder, name, local, opaque)
        elif isinstance(stmt, cst.If):
            test = scope.fold(stmt.test)
            if not isinstance(test, Const):
                return opaque
            result = _run(_branch_taken(stmt, test.value), folder, name, local)
        else:
            return opaque
        if result is not None:
            return result
    return None


def _loop_exit(result: Folded | _Jump | None) -> tuple[bool, Folded | None]:
    """Whether a loop's iteration ends the loop, and with what the loop's statement gives
    its function: a ``break`` ends it (None: the function goes on), a ``return`` ends it
    with the value; a ``continue`` or falling through goes on to the next iteration."""
    if result is _BREAK:
        return True, None
    if result is None or isinstance(result, _Jump):
        return False, None
    return True, result


def _run_while(
    stmt: cst.While,
    folder: ExpressionFolder,
    name: str,
    local: dict[str, Folded],
    opaque: Opaque,
) -> Folded | None:
    """Run a ``while`` (None: it ended; else what the function returns)."""
    body = _statements(stmt.body)
    if stmt.orelse is not None:
        return opaque
    for _ in range(MAX_LOOP_ITERATIONS):
        test = folder.with_bindings(local).fold(stmt.test)
        if not isinstance(test, Const):
            return opaque
        if not test.value:
            return None
        result = _run(body, folder, name, local)
        ends, returned = _loop_exit(result)
        if ends:
            return returned
    return opaque


def _run_for(
    stmt: cst.For,
    folder: ExpressionFolder,
    name: str,
    local: dict[str, Folded],
    opaque: Opaque,
) -> Folded | None:
    """Run a ``for`` over a sequence known when the module loads (``sys.argv``, a tuple,
    ``enumerate`` of one); None: it ended; else what the function returns."""
    body = _statements(stmt.body)
    items = _sequence(stmt.iter, folder.with_bindings(local))
    if stmt.orelse is not None or stmt.asynchronous is not None or items is None:
        return opaque
    if len(items) > MAX_LOOP_ITERATIONS:
        return opaque
    for item in items:
        if not _assign(stmt.target, item, local):
            return opaque
        result = _run(body, folder, name, local)
        ends, returned = _loop_exit(result)
        if ends:
            return returned
    return None


def _sequence(node: cst.BaseExpression, scope: ExpressionFolder) -> tuple[Folded, ...] | None:
    """The values a ``for`` walks: a known tuple or list, or ``enumerate`` of one."""
    if (
        isinstance(node, cst.Call)
        and dsl.dotted(node.func) == ("enumerate",)
        and len(node.args) == 1
        and node.args[0].keyword is None
    ):
        inner = _sequence(node.args[0].value, scope)
        if inner is None:
            return None
        return tuple(Items((Const(n), value)) for n, value in enumerate(inner))
    found = scope.fold(node)
    return found.values if isinstance(found, Items) else None


def _assign(
    target: cst.BaseExpression, value: Folded, local: dict[str, Folded]
) -> bool:
    """Bind a loop's target (a name, or a tuple of names unpacking a pair)."""
    if isinstance(target, cst.Name):
        local[target.value] = value
        return True
    if isinstance(target, (cst.Tuple, cst.List)) and isinstance(value, Items):
        if len(target.elements) != len(value.values):
            return False
        return all(
            _assign(element.value, part, local)
            for element, part in zip(target.elements, value.values, strict=True)
        )
    return False


def _run_line(
    line: cst.SimpleStatementLine | cst.SimpleStatementSuite,
    scope: ExpressionFolder,
    local: dict[str, Folded],
    opaque: Opaque,
) -> Folded | _Jump | None:
    """Run one line of config code (binding its names in ``local``): what the function
    returns here (``opaque`` when it cannot be known), a ``continue`` or ``break``, or
    None to go on to the next line."""
    for small in line.body:
        if isinstance(small, cst.Return):
            return scope.fold(small.value) if small.value is not None else opaque
        if isinstance(small, cst.Raise):
            return opaque
        if isinstance(small, (cst.Continue, cst.Break)):
            return _CONTINUE if isinstance(small, cst.Continue) else _BREAK
        if isinstance(small, cst.AugAssign):
            if not _augment(small, scope, local):
                return opaque
        elif isinstance(small, (cst.Assign, cst.AnnAssign)):
            target = small.targets[0].target if isinstance(small, cst.Assign) else small.target
            if isinstance(target, cst.Name) and small.value is not None:
                local[target.value] = scope.fold(small.value)
            elif not isinstance(target, (cst.Subscript, cst.Attribute)):
                return opaque
        elif not isinstance(small, (cst.Expr, cst.Pass)):
            return opaque
    return None


def _augment(small: cst.AugAssign, scope: ExpressionFolder, local: dict[str, Folded]) -> bool:
    """``i += 2`` / ``i -= 1`` on a local integer; False when it cannot be run."""
    target, by = small.target, scope.fold(small.value)
    if not isinstance(target, cst.Name) or not isinstance(by, Const):
        return False
    now, operator = local.get(target.value), small.operator
    if not isinstance(now, Const) or not isinstance(operator, (cst.AddAssign, cst.SubtractAssign)):
        return False
    step = by.value if isinstance(operator, cst.AddAssign) else -by.value
    local[target.value] = Const(now.value + step)
    return True


def _branch_taken(stmt: cst.If, test: int) -> list[cst.CSTNode]:
    """The statements an ``if`` runs when its test folds to ``test``."""
    if test:
        return _statements(stmt.body)
    if isinstance(stmt.orelse, cst.If):
        return [stmt.orelse]
    if isinstance(stmt.orelse, cst.Else):
        return _statements(stmt.orelse.body)
    return []


def _statements(suite: cst.BaseSuite) -> list[cst.CSTNode]:
    """The statements a suite runs: an indented block's, or the one line of small
    statements written on its header's line (run as a line: :func:`_run_line`)."""
    if isinstance(suite, cst.SimpleStatementSuite):
        return [suite]
    return list(suite.body) if isinstance(suite, cst.IndentedBlock) else []
