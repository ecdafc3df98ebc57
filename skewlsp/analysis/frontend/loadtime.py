"""Module-level Python the compiler's decorator sees already evaluated.

Kernels take their sizes from configuration modules: dataclass instances,
tables of presets keyed by name, a preset chosen by a small function that
reads an environment variable. Python runs all of that when the module is
imported, before the kernel is parsed, so the compiler sees plain integers.
This module evaluates that Python statically, for the value shapes configs
use (strings, tuples, dicts, comprehensions, subscripts), under one stated
assumption: the environment and command line of the build the caller assumes
(:mod:`.assumed`; by default an empty environment and no arguments, so that
``os.environ.get(K, default)`` is ``default`` and ``sys.argv`` is one entry long),
each read recorded. Anything else stays opaque: the verdict is then reported as
unknown, not guessed.
"""

from __future__ import annotations

import libcst as cst

from skewlsp.analysis.frontend import dsl
from skewlsp.analysis.frontend.assumed import ModuleAssumptions, environment_name
from skewlsp.analysis.frontend.config_functions import FunctionBodies
from skewlsp.analysis.frontend.values import (
    Const,
    ExpressionFolder,
    Flag,
    Folded,
    Items,
    Nothing,
    Opaque,
    ProgramPath,
    Rejected,
    Table,
    Text,
    code_of,
    truth,
)
from skewlsp.analysis.source.tree_text import MadeTrees

_STRING_METHODS = {"strip", "lower", "upper", "lstrip", "rstrip"}


def fold_python(
    node: cst.BaseExpression,
    folder: ExpressionFolder,
    functions: FunctionBodies,
    assumed: ModuleAssumptions,
) -> Folded | None:
    """The value of a module-level expression of a kind only Python (not the DSL) has
    (``assumed``: the build the module reads its environment and arguments from)."""
    fold, made = folder.fold, folder.made
    if isinstance(node, (cst.Name, cst.UnaryOperation)):
        return _bool(node, folder)
    if isinstance(
        node,
        (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.BooleanOperation),
    ):
        return _composed(node, folder)
    if isinstance(node, (cst.Tuple, cst.List)):
        return Items(tuple(fold(element.value) for element in node.elements))
    if isinstance(node, cst.Dict):
        entries: dict[object, Folded] = {}
        for element in node.elements:
            if not isinstance(element, cst.DictElement):
                return Opaque(code_of(node, made), "dict unpacking")
            key = _key(fold(element.key))
            if key is None:
                return Opaque(code_of(node, made), "a dict key skewlsp cannot evaluate")
            entries[key] = fold(element.value)
        return Table(entries)
    if isinstance(node, cst.DictComp):
        return _dict_comprehension(node, folder)
    if isinstance(node, cst.Attribute) and dsl.dotted(node) == ("sys", "argv"):
        return assumed.argv()
    if isinstance(node, cst.Subscript) and len(node.slice) == 1:
        return _subscript_of(node, folder, assumed)
    if isinstance(node, cst.Comparison):
        return _comparison(node, folder)
    if isinstance(node, cst.IfExp):  # ``8 if M.name == "flash" else 14``: one side runs
        known = truth(fold(node.test))
        if known is not None:
            return fold(node.body if known else node.orelse)
        return None
    if isinstance(node, cst.Call):
        return _call(node, folder, functions, assumed)
    return None


def _composed(
    node: cst.SimpleString | cst.ConcatenatedString | cst.FormattedString | cst.BooleanOperation,
    folder: ExpressionFolder,
) -> Folded | None:
    """A string (an f-string of known parts too), and ``a or b`` / ``a and b`` as Python
    runs them (``_parse_int_argv("--tp") or 2``: the default when the option is absent)."""
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        value = node.evaluated_value
        if isinstance(value, str):
            return Text(value)
        return Opaque(code_of(node, folder.made), "bytes")
    if isinstance(node, cst.FormattedString):
        return _formatted(node, folder)
    left = folder.fold(node.left)
    known = truth(left)
    if known is None:
        return Opaque(code_of(node, folder.made)[:60], "a test skewlsp cannot evaluate")
    return left if known == isinstance(node.operator, cst.Or) else folder.fold(node.right)


def _formatted(node: cst.FormattedString, folder: ExpressionFolder) -> Folded | None:
    """``f"{name}="``: the text, when every part is a known string or integer (no
    conversion or format spec)."""
    parts = []
    for part in node.parts:
        if isinstance(part, cst.FormattedStringText):
            parts.append(part.value)
            continue
        if not isinstance(part, cst.FormattedStringExpression):
            return None
        if part.conversion is not None or part.format_spec is not None:
            return None
        value = folder.fold(part.expression)
        if not isinstance(value, (Text, Const)):
            return None
        parts.append(str(value.value))
    return Text("".join(parts))


def _bool(node: cst.Name | cst.UnaryOperation, folder: ExpressionFolder) -> Flag | Nothing | None:
    """``True``, ``False``, ``None`` and ``not x`` as Python has them (a switch, or its
    negation); None for any other name or operator (an unknown ``x`` too: what it depends
    on is what the folder says)."""
    if isinstance(node, cst.Name):
        if node.value == "None":
            return Nothing()
        return Flag(node.value == "True") if node.value in ("True", "False") else None
    if not isinstance(node.operator, cst.Not):
        return None
    known = truth(folder.fold(node.expression))
    return None if known is None else Flag(not known)


def _subscript_of(
    node: cst.Subscript, folder: ExpressionFolder, assumed: ModuleAssumptions
) -> Folded | None:
    """``table[key]``, ``items[2]``, ``os.environ[NAME]``."""
    index = node.slice[0].slice
    if not isinstance(index, cst.Index):
        return None
    if dsl.dotted(node.value) == ("os", "environ"):
        return _environment(node, index.value, folder, assumed, None)
    return _subscript(folder.fold(node.value), folder.fold(index.value), node, folder.made)


def _environment(
    call: cst.BaseExpression,
    name: cst.BaseExpression,
    folder: ExpressionFolder,
    assumed: ModuleAssumptions,
    default: cst.BaseExpression | None,
) -> Folded:
    """``os.environ.get(name, default)`` (``default`` None: without one) or
    ``os.environ[name]`` (``call`` a subscript) under the assumed build."""
    key = folder.fold(name)
    text = code_of(call, folder.made)[:60]
    if not isinstance(key, Text):  # which variable is not known: only an empty one is
        if default is None or assumed.build.assumptions.environment:
            return Opaque(text, "an environment variable skewlsp cannot name")
        return folder.fold(default)

    def unset() -> Folded:
        if default is not None:
            return folder.fold(default)
        if isinstance(call, cst.Subscript):
            return Opaque(text, f"`{key.value}` is unset (a KeyError when the module loads)")
        return Nothing()  # unset: ``get`` gives None

    return assumed.environment(key.value, unset)


def _key(value: Folded) -> object | None:
    if isinstance(value, (Const, Flag)):
        return value.value
    if isinstance(value, Text):
        return value.value
    return None


def _subscript(base: Folded, index: Folded, node: cst.CSTNode, made: MadeTrees | None) -> Folded:
    if isinstance(base, Table):
        key = _key(index)
        if key is not None and key in base.entries:
            return base.entries[key]
    if (
        isinstance(base, Items)
        and isinstance(index, Const)
        and -len(base.values) <= index.value < len(base.values)
    ):
        return base.values[index.value]
    if isinstance(base, Rejected):
        return base
    text = code_of(node, made)[:60]
    return Opaque(text, f"`{text}` is computed when the module loads")


def _dict_comprehension(node: cst.DictComp, folder: ExpressionFolder) -> Folded:
    loop = node.for_in
    if loop.inner_for_in is not None or loop.ifs or not isinstance(loop.target, cst.Name):
        return Opaque(code_of(node, folder.made)[:60], "a comprehension skewlsp does not evaluate")
    source = folder.fold(loop.iter)
    if not isinstance(source, Items):
        return Opaque(
            code_of(node, folder.made)[:60], "a comprehension over values computed at load time"
        )
    name = loop.target.value
    entries: dict[object, Folded] = {}
    for item in source.values:
        bound = folder.with_binding(name, item)
        key = _key(bound.fold(node.key))
        if key is None:
            return Opaque(code_of(node, folder.made)[:60], "a dict key skewlsp cannot evaluate")
        entries[key] = bound.fold(node.value)
    return Table(entries)


def _comparison(node: cst.Comparison, folder: ExpressionFolder) -> Folded:
    fold = folder.fold
    left = fold(node.left)
    for target in node.comparisons:
        right = fold(target.comparator)
        outcome = _compare(target.operator, left, right)
        if outcome is None:
            return Opaque(code_of(node, folder.made)[:60], "a comparison skewlsp cannot evaluate")
        if not outcome:
            return Const(0)
        left = right
    return Const(1)


def _singleton(value: Folded) -> tuple[bool | None] | None:
    """``(None,)``, ``(True,)`` or ``(False,)`` for the values Python has one object of;
    None for any other value."""
    if isinstance(value, Nothing):
        return (None,)
    if isinstance(value, Flag):
        return (value.value,)
    return None


def _known(value: Folded) -> bool:
    return isinstance(value, (Const, Text, Flag, Nothing))


def _compare_python_singletons(op: cst.BaseCompOp, left: Folded, right: Folded) -> bool | None:
    """``x is None``, ``FLAG is True``, ``os.environ.get("X") == "1"`` (None when unset):
    what Python answers when a side is ``None`` or the comparison is one of identity."""
    if isinstance(op, (cst.Is, cst.IsNot)):
        a, b = _singleton(left), _singleton(right)
        if a is None and b is None:
            return None
        if (a is None and not _known(left)) or (b is None and not _known(right)):
            return None
        same = a is not None and b is not None and a[0] is b[0]
        return same if isinstance(op, cst.Is) else not same
    nothing = isinstance(left, Nothing) or isinstance(right, Nothing)
    if nothing and isinstance(op, (cst.Equal, cst.NotEqual)) and _known(left) and _known(right):
        same = isinstance(left, Nothing) and isinstance(right, Nothing)
        return same if isinstance(op, cst.Equal) else not same
    return None


def _compare(op: cst.BaseCompOp, left: Folded, right: Folded) -> bool | None:
    for program, other in ((left, right), (right, left)):
        equality = isinstance(op, (cst.Equal, cst.NotEqual))
        if equality and isinstance(program, ProgramPath) and isinstance(other, Text):
            return isinstance(op, cst.NotEqual) if program.is_not(other.value) else None
    identity = isinstance(op, (cst.Is, cst.IsNot))
    if identity or isinstance(left, Nothing) or isinstance(right, Nothing):
        return _compare_python_singletons(op, left, right)
    a, b = _key(left), _key(right)
    if isinstance(op, (cst.In, cst.NotIn)):
        if a is None or not isinstance(right, (Items, Table)):
            return None
        members = (
            [_key(v) for v in right.values] if isinstance(right, Items) else list(right.entries)
        )
        found = a in members
        return found if isinstance(op, cst.In) else not found
    if a is None or b is None or type(a) is not type(b):
        return None
    table = {
        cst.Equal: a == b,
        cst.NotEqual: a != b,
    }
    for kind, outcome in table.items():
        if isinstance(op, kind):
            return outcome
    if isinstance(a, int) and isinstance(b, int):
        if isinstance(op, cst.LessThan):
            return a < b
        if isinstance(op, cst.LessThanEqual):
            return a <= b
        if isinstance(op, cst.GreaterThan):
            return a > b
        if isinstance(op, cst.GreaterThanEqual):
            return a >= b
    return None


def _call(
    node: cst.Call, folder: ExpressionFolder, functions: FunctionBodies, assumed: ModuleAssumptions
) -> Folded | None:
    fold = folder.fold
    path = dsl.dotted(node.func)
    args = [arg for arg in node.args if arg.keyword is None]
    name = environment_name(node)
    if name is not None and len(args) == len(node.args) <= 2:
        default = args[1].value if len(args) == 2 else None
        return _environment(node, name, folder, assumed, default)
    if path == ("len",) and len(args) == 1:
        value = fold(args[0].value)
        if isinstance(value, (Items, Table, Text)):
            size = len(
                value.values
                if isinstance(value, Items)
                else value.entries
                if isinstance(value, Table)
                else value.value
            )
            return Const(size)
        return None
    if path == ("bool",) and len(args) == 1 == len(node.args):
        known = truth(fold(args[0].value))
        return None if known is None else Flag(known)
    if path in (("min",), ("max",)) and args and len(args) == len(node.args):
        return _min_max(path[0], [fold(arg.value) for arg in args])
    if isinstance(node.func, cst.Attribute) and len(args) == len(node.args):
        return _string_method(node.func, [fold(arg.value) for arg in args], folder)
    if path == ("int",) and len(args) == 1 == len(node.args):
        return _int(fold(args[0].value), node, folder)
    if isinstance(node.func, cst.Name) and not any(arg.star for arg in node.args):
        keywords = {a.keyword.value: fold(a.value) for a in node.args if a.keyword is not None}
        return functions.call(node.func.value, folder, [fold(a.value) for a in args], keywords)
    return None


def _int(value: Folded, node: cst.Call, folder: ExpressionFolder) -> Folded | None:
    """``int(text)`` of an argument read off the command line (a ValueError when the
    module loads, if it is no integer), ``int(n)`` of an integer."""
    if isinstance(value, Const):
        return value
    if not isinstance(value, Text):
        return None
    try:
        return Const(int(value.value))
    except ValueError:
        text = code_of(node, folder.made)[:60]
        return Opaque(text, f"`{text}` raises ValueError when the module loads")


def _string_method(
    func: cst.Attribute, args: list[Folded], folder: ExpressionFolder
) -> Folded | None:
    """``text.lower()``, ``token.startswith("--variant=")``, ``token.split("=", 1)``: what a
    config does to a value it read from the environment or the command line."""
    method = func.attr.value
    if method not in _STRING_METHODS and method not in ("startswith", "endswith", "split"):
        return None
    base = folder.fold(func.value)
    if isinstance(base, ProgramPath) and method == "startswith" and len(args) == 1:
        known = isinstance(args[0], Text) and base.is_not(args[0].value)
        return Const(0) if known else None
    if not isinstance(base, Text):
        return None
    if method in _STRING_METHODS:
        return Text(getattr(base.value, method)()) if not args else None
    if method in ("startswith", "endswith"):
        if len(args) != 1 or not isinstance(args[0], Text):
            return None
        return Const(int(getattr(base.value, method)(args[0].value)))
    if not 1 <= len(args) <= 2 or not isinstance(args[0], Text) or not args[0].value:
        return None
    limit = -1
    if len(args) == 2:
        if not isinstance(args[1], Const):
            return None
        limit = args[1].value
    return Items(tuple(Text(part) for part in base.value.split(args[0].value, limit)))


def _min_max(which: str, values: list[Folded]) -> Folded | None:
    """``min(...)`` / ``max(...)`` of integers, or of one tuple or list of them (Python's
    builtins, run when the module loads: a tile size clamped to a config value)."""
    if len(values) == 1 and isinstance(values[0], Items):
        values = list(values[0].values)
    numbers = [value.value for value in values if isinstance(value, Const)]
    if not numbers or len(numbers) != len(values):
        return None
    return Const(min(numbers) if which == "min" else max(numbers))
