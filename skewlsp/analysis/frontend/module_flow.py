"""Module-level Python that decides which programs exist: ``for`` and ``if`` around them.

A ``@pl.program`` class (or a ``@pl.jit`` function) written inside a module-level
``for`` is compiled once per iteration, each time with the loop variable bound
to that iteration's value; one written inside a module-level ``if`` exists only
when Python takes that branch while importing the module. Both are decided by
the same static evaluation of module-level Python as configuration modules
(:mod:`.loadtime`), under the same assumption: the environment and command line of
the build the caller assumes (:mod:`.assumed`). What cannot be evaluated is left to
the caller, which then analyses the code as if it always ran once (the honest "unknown" verdicts
follow from the unbound names).
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from skewlsp.analysis.frontend import dsl
from skewlsp.analysis.frontend.assumed import environment_test
from skewlsp.analysis.frontend.constants import (
    Const,
    Folded,
    Folder,
    Items,
    ModuleConstants,
    Table,
    Text,
    code_of,
)
from skewlsp.analysis.frontend.values import Flag, truth
from skewlsp.analysis.source.tree_text import MadeTrees

# More iterations than this are not decided one by one (a table of shapes, not a
# handful of variants): the loop is then analysed once, with the variable unknown.
MAX_ITERATIONS = 16


@dataclass(frozen=True)
class Iteration:
    """One pass of a module-level ``for``: the names it binds, as values and as text."""

    values: dict[str, Folded]
    shown: tuple[tuple[str, str], ...]  # (("tile", "8"),) for messages and adapters


def iterations(loop: cst.For, constants: ModuleConstants) -> list[Iteration] | None:
    """Every pass of ``loop`` in order, or None when its iterable cannot be evaluated."""
    names = _target_names(loop.target)
    if names is None or loop.orelse is not None:
        return None
    items = _iterable(loop.iter, constants)
    if items is None or len(items) > MAX_ITERATIONS:
        return None
    # A literal ``(SMALL, LARGE)`` of config objects is quoted by its elements' text.
    literal = loop.iter if isinstance(loop.iter, (cst.Tuple, cst.List)) else None
    found: list[Iteration] = []
    for index, item in enumerate(items):
        if len(names) == 1:
            parts: tuple[Folded, ...] = (item,)
        elif isinstance(item, Items) and len(item.values) == len(names):
            parts = item.values
        else:
            return None
        shown: list[tuple[str, str]] = []
        for name, part in zip(names, parts, strict=True):
            text = _shown(part)
            if text is None and literal is not None and len(names) == 1:
                text = code_of(literal.elements[index].value, constants.made)[:40]
            if text is None:
                return None
            shown.append((name, text))
        found.append(Iteration(dict(zip(names, parts, strict=True)), tuple(shown)))
    return found


def branch_taken(test: cst.BaseExpression, constants: ModuleConstants) -> bool | None:
    """Whether Python takes an ``if`` with this test when the module loads (None: unknown)."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = branch_taken(test.expression, constants)
        return None if inner is None else not inner
    if isinstance(test, cst.BooleanOperation):
        left = branch_taken(test.left, constants)
        is_and = isinstance(test.operator, cst.And)
        if left is not None and left != is_and:  # short-circuit: False and ..., True or ...
            return left
        right = branch_taken(test.right, constants)
        if left is None or right is None:
            return None
        return right
    read = environment_test(test, constants.assumed)  # ``"X" in os.environ``, ...
    if read is not None:
        return read
    return truth(Folder(constants, constants.made, owner=constants).fold(test))


def header_text(node: cst.If | cst.For, made: MadeTrees | None) -> str:
    """``if MODE == "fast"`` / ``for tile in (4, 8)``: the header as a message quotes it
    (``made``: the trees the analysis made)."""
    if isinstance(node, cst.If):
        text = f"if {code_of(node.test, made)}"
    else:
        text = f"for {code_of(node.target, made)} in {code_of(node.iter, made)}"
    return text if len(text) <= 60 else text[:57] + "..."


def compiled_when_called(stmt: cst.CSTNode) -> bool:
    """A ``@pl.jit`` kernel (or jit sub-function): specialized at its first call, not here."""
    if not isinstance(stmt, cst.FunctionDef):
        return False
    for decorator in stmt.decorators:
        node = decorator.decorator
        path = dsl.dotted(node.func if isinstance(node, cst.Call) else node)
        if path is not None and "jit" in path:
            return True
    return False


def _target_names(target: cst.BaseAssignTargetExpression) -> tuple[str, ...] | None:
    if isinstance(target, cst.Name):
        return (target.value,)
    if isinstance(target, (cst.Tuple, cst.List)):
        names = [e.value.value for e in target.elements if isinstance(e.value, cst.Name)]
        if len(names) == len(target.elements) and names:
            return tuple(names)
    return None


def _iterable(node: cst.BaseExpression, constants: ModuleConstants) -> tuple[Folded, ...] | None:
    if isinstance(node, cst.Call) and dsl.dotted(node.func) == ("range",):
        return _range(node, constants)
    folded = Folder(constants, constants.made, owner=constants).fold(node)
    if isinstance(folded, Items):
        return folded.values
    if isinstance(folded, Table):  # iterating a dict gives its keys
        keys = tuple(_key_value(key) for key in folded.entries)
        return None if any(key is None for key in keys) else keys  # type: ignore[return-value]
    return None


def _range(call: cst.Call, constants: ModuleConstants) -> tuple[Folded, ...] | None:
    if any(arg.keyword is not None or arg.star for arg in call.args) or not 1 <= len(
        call.args
    ) <= 3:
        return None
    folder = Folder(constants, constants.made, owner=constants)
    bounds = [folder.fold(arg.value) for arg in call.args]
    if not all(isinstance(b, Const) for b in bounds):
        return None
    numbers = [b.value for b in bounds if isinstance(b, Const)]
    if len(numbers) == 1:
        numbers = [0, numbers[0]]
    step = numbers[2] if len(numbers) == 3 else 1
    if step == 0:
        return None
    values = range(numbers[0], numbers[1], step)
    if len(values) > MAX_ITERATIONS:
        return None
    return tuple(Const(v) for v in values)


def _key_value(key: object) -> Folded | None:
    if isinstance(key, bool):
        return None
    if isinstance(key, int):
        return Const(key)
    if isinstance(key, str):
        return Text(key)
    return None


def _shown(value: Folded) -> str | None:
    """How a value is quoted in a binding (``8``, ``'fast'``), or None for values we do not
    bind (a config object, an unknown): those iterations are not told apart."""
    if isinstance(value, Const):
        return str(value.value)
    if isinstance(value, Text):
        return repr(value.value)
    if isinstance(value, Flag):
        return str(value.value)
    if isinstance(value, Items):
        parts = [_shown(v) for v in value.values]
        if any(p is None for p in parts):
            return None
        inner = ", ".join(p for p in parts if p is not None)
        return f"({inner},)" if len(parts) == 1 else f"({inner})"
    return None
