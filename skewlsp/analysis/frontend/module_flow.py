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

from collections.abc import Sequence
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
from skewlsp.analysis.frontend.names import body_statements
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


def program_definitions(
    module: cst.Module, constants: ModuleConstants
) -> dict[str, ProgramDefinitions]:
    """The ``@pl.program`` classes a module defines more than once at its top level (in
    the branches of module-level ``if``s too), by name, in source order.

    The DSL reads a class's source through ``inspect`` (``source_lookup.py`` in pypto's
    parser), which before CPython 3.13 finds a class by its name, the first definition in
    the file winning: whichever definition Python runs, its decorator parses the first
    one's source. So the first definition is compiled when any of them is defined, and
    the others never are (on 3.13+, ``__firstlineno__`` picks the one Python ran).
    """
    found: dict[str, list[tuple[cst.ClassDef, bool | None]]] = {}
    _collect_programs(module.body, True, constants, found)
    return {
        name: ProgramDefinitions(tuple(node for node, _ in defs), _any_reached(defs))
        for name, defs in found.items()
        if len(defs) > 1
    }


@dataclass(frozen=True)
class ProgramDefinitions:
    """Every top-level definition of one program class name, and whether Python runs
    one of them (None: it depends on a value skewlsp cannot see). Only the first
    definition's loops are ever compiled, and only when one of them runs."""

    nodes: tuple[cst.ClassDef, ...]
    defined: bool | None


def _collect_programs(
    body: Sequence[cst.CSTNode],
    reached: bool | None,
    constants: ModuleConstants,
    found: dict[str, list[tuple[cst.ClassDef, bool | None]]],
) -> None:
    for stmt in body:
        if isinstance(stmt, cst.ClassDef) and _is_program(stmt):
            found.setdefault(stmt.name.value, []).append((stmt, reached))
        elif isinstance(stmt, cst.If):
            taken = branch_taken(stmt.test, constants)
            inside = _and(reached, taken)
            _collect_programs(body_statements(stmt.body), inside, constants, found)
            orelse = stmt.orelse
            other = _and(reached, None if taken is None else not taken)
            if isinstance(orelse, cst.If):
                _collect_programs([orelse], other, constants, found)
            elif isinstance(orelse, cst.Else):
                _collect_programs(body_statements(orelse.body), other, constants, found)


def _and(a: bool | None, b: bool | None) -> bool | None:
    if a is False or b is False:
        return False
    return True if a is True and b is True else None


def _any_reached(defs: Sequence[tuple[cst.ClassDef, bool | None]]) -> bool | None:
    flags = [reached for _, reached in defs]
    if any(flag is True for flag in flags):
        return True
    return None if any(flag is None for flag in flags) else False


def _is_program(node: cst.ClassDef) -> bool:
    for decorator in node.decorators:
        inner = decorator.decorator
        path = dsl.dotted(inner.func if isinstance(inner, cst.Call) else inner)
        if path is not None and path[-1] == "program":
            return True
    return False


def shadowed_reason(name: str) -> str:
    """Why a later definition of a program class is never compiled."""
    return (
        f"the compiler parses the first `class {name}` of the file (the DSL finds a "
        "class's source by its name; Python before 3.13)"
    )


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
        keys = tuple(key for key in map(_key_value, folded.entries) if key is not None)
        return keys if len(keys) == len(folded.entries) else None
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
