"""Constant folding of loop bounds and ``stage``, the way the compiler folds them.

The DSL parser evaluates module-level names at decoration time, and Simplify
later folds locals that SSA conversion proves constant. Everything else is
*dynamic*, and we remember which symbol made it so, because "dynamic" alone
does not tell a kernel author what to change.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import libcst as cst

from skewlsp.analysis.frontend.assumed import AssumedRead, Build, ModuleAssumptions
from skewlsp.analysis.frontend.loadtime import FunctionBodies, fold_python
from skewlsp.analysis.frontend.values import (
    PYTHON_ONLY,
    Const,
    Dynamic,
    Flag,
    Folded,
    Items,
    NameLookup,
    Nothing,
    Opaque,
    Real,
    RealConstant,
    Record,
    Rejected,
    Symbolic,
    Table,
    Text,
    code_of,
)
from skewlsp.analysis.source import parsing
from skewlsp.analysis.source.tree_text import MadeTrees
from skewlsp.contract import ARGV

__all__ = [
    "PYTHON_ONLY",
    "Const",
    "Dynamic",
    "Flag",
    "Folded",
    "Folder",
    "Items",
    "ModuleConstants",
    "NameLookup",
    "Nothing",
    "Opaque",
    "Real",
    "RealConstant",
    "Record",
    "Rejected",
    "Symbolic",
    "Table",
    "Text",
    "code_of",
]

# Results beyond this many bits are refused rather than computed (2**10**9 must not hang).
_MAX_BITS = 4096


class Folder:
    """Folds a libcst expression given how names resolve.

    ``lookup`` answers for a name: a folded value, or None when the name is
    unknown here (then it is dynamic, named as the culprit). ``made``: the trees the
    running analysis made, which the code of a node quoted in a reason is cut from
    (None: the expressions folded are of libcst's parse).
    """

    def __init__(
        self, lookup: NameLookup, made: MadeTrees | None, owner: ModuleConstants | None = None
    ) -> None:
        self._lookup = lookup
        self.made = made
        # Set when folding module-level Python (not DSL code): attribute access and
        # config-object construction are then ordinary Python the module runs.
        self._owner = owner

    def with_bindings(self, bindings: Mapping[str, Folded]) -> Folder:
        """This folder with some names bound first (function locals, comprehension variables)."""
        outer = self._lookup

        def lookup(name: str) -> Folded | None:
            return bindings[name] if name in bindings else outer(name)

        return Folder(lookup, self.made, self._owner)

    def with_binding(self, name: str, value: Folded) -> Folder:
        return self.with_bindings({name: value})

    def fold(self, node: cst.BaseExpression) -> Folded:
        try:
            return self._fold(node)
        except RecursionError:
            return Dynamic(code_of(node, self.made)[:40], "expression too deeply nested")

    def _fold(self, node: cst.BaseExpression) -> Folded:
        # (exact types: an ABC's isinstance costs a call when it fails)
        if type(node) is cst.Integer:
            return Const(int(node.value, 0))
        if type(node) is cst.Call and _is_dynamic_dimension(node, self.made):
            text = code_of(node, self.made)[:60]
            return Symbolic(text, f"`{text}` is a symbolic dimension")
        if self._owner is not None:
            python = fold_python(node, self, self._owner.functions, self._owner.assumed)
            if python is not None:
                return python
        if type(node) is cst.Name:
            return self._name(node)
        if type(node) is cst.UnaryOperation:
            return self._unary(node)
        if type(node) is cst.BinaryOperation:
            return self._binary(node)
        if type(node) is cst.Attribute:
            if self._owner is not None:
                return self._attribute(node)
            return Rejected(
                f"standalone attribute access `{code_of(node, self.made)}` is not supported "
                "in a loop bound"
            )
        return self._other(node)

    def _name(self, node: cst.Name) -> Folded:
        if node.value in ("True", "False"):
            return Rejected(f"`{node.value}` is a bool, not an integer")
        if node.value == "None":
            return Rejected("`None` is not an integer")
        found = self._lookup(node.value)
        if found is None:
            return Dynamic(node.value, f"`{node.value}` is not a compile-time constant")
        if self._owner is None and isinstance(found, Flag):
            return Rejected(f"`{node.value}` is a bool, not an integer")
        if self._owner is None and isinstance(found, PYTHON_ONLY):
            return Rejected(f"`{node.value}` is not an integer")
        return found

    def _unary(self, node: cst.UnaryOperation) -> Folded:
        inner = self._fold(node.expression)
        if isinstance(inner, Real) and isinstance(node.operator, (cst.Minus, cst.Plus)):
            sign = -1.0 if isinstance(node.operator, cst.Minus) else 1.0
            return Real(inner.reason, sign * inner.value)  # (refused where an int is wanted)
        if not isinstance(inner, Const):
            return inner
        if isinstance(node.operator, cst.Minus):
            return Const(-inner.value)
        if isinstance(node.operator, cst.Plus):
            return inner
        if isinstance(node.operator, cst.BitInvert):
            return Const(~inner.value)
        return Rejected(f"`{code_of(node, self.made)}` is not an integer expression")

    def _other(self, node: cst.BaseExpression) -> Folded:
        """An expression of no kind folded above: a config object built (module-level
        Python only), a literal that is not an integer, or something dynamic."""
        if isinstance(node, cst.Call) and self._owner is not None:
            built = self._owner.construct(node, self)
            if built is not None:
                return built
        if isinstance(node, cst.Float):
            return Real(f"`{code_of(node, self.made)}` is not an integer", float(node.value))
        if isinstance(node, cst.Imaginary):
            return Rejected(f"`{code_of(node, self.made)}` is not an integer")
        if isinstance(node, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
            return Rejected(f"`{code_of(node, self.made)}` is not an integer")
        # A call is quoted by its callee alone: its whole text is never rendered.
        if isinstance(node, cst.Call):
            symbol = code_of(node.func, self.made) + "(...)"
        else:
            symbol = code_of(node, self.made)
        return Dynamic(symbol[:60], f"`{symbol[:60]}` is not a compile-time constant")

    def _attribute(self, node: cst.Attribute) -> Folded:
        base = self._fold(node.value)
        name = node.attr.value
        if isinstance(base, Record):
            text = base.fields.get(name)
            if text is not None:
                return base.owner.fold_text(text)
            getter = base.properties.get(name)
            if getter is not None:
                return base.owner.fold_text(getter, this=base)
            return _computed_at_load(node, self.made)
        if isinstance(base, Rejected):
            return base
        return _computed_at_load(node, self.made)

    def _binary(self, node: cst.BinaryOperation) -> Folded:
        left = self._fold(node.left)
        if not isinstance(left, Const):
            return left
        right = self._fold(node.right)
        if not isinstance(right, Const):
            return right
        a, b = left.value, right.value
        op = node.operator
        if isinstance(op, cst.Add):
            return Const(a + b)
        if isinstance(op, cst.Subtract):
            return Const(a - b)
        if isinstance(op, cst.Multiply):
            if a.bit_length() + b.bit_length() > _MAX_BITS:
                return Rejected("constant too large")
            return Const(a * b)
        if isinstance(op, (cst.FloorDivide, cst.Modulo)):
            if b == 0:
                return Rejected(f"division by zero in `{code_of(node, self.made)}`")
            return Const(a // b if isinstance(op, cst.FloorDivide) else a % b)
        if isinstance(op, cst.Power):
            if b < 0:
                return Rejected(f"`{code_of(node, self.made)}` is not an integer")
            if a not in (0, 1, -1) and b * max(a.bit_length(), 1) > _MAX_BITS:
                return Rejected("constant too large")
            return Const(a**b)
        if isinstance(op, cst.LeftShift) and 0 <= b <= _MAX_BITS:
            return Const(a << b)
        if isinstance(op, cst.RightShift) and b >= 0:
            return Const(a >> b)
        text = code_of(node, self.made)[:60]
        return Dynamic(text, f"operator in `{text}` is not folded")


@dataclass(frozen=True)
class Assigned:
    """Where a name is bound: its expression's text, the 1-based line of the assignment
    in its module's text, and that module as imported (None: the module asked)."""

    expression: str
    line: int
    module: str | None = None


def last_assignment(text: str, name: str, before: int | None = None) -> Assigned | None:
    """Where ``name`` is assigned in ``text``, for a fix line to name it: without
    ``before``, its last top-level ``name = ...`` line (a module constant); with ``before``
    (a 1-based line), the last indented one above that line (a local of the function the
    loop is in: a line above it, the nearest). The caller says which the fold read."""
    if before is None:
        return _last(text, name, "", None)
    return _last(text, name, r"[ \t]+", before)


def _last(text: str, name: str, indent: str, before: int | None) -> Assigned | None:
    pattern = re.compile(
        rf"^{indent}{re.escape(name)}[ \t]*(?::[^=\n]+)?=(?!=)[ \t]*([^#\n]*?)[ \t]*(?:#.*)?$",
        re.MULTILINE,
    )
    found = None
    for match in pattern.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        if before is not None and line >= before:
            break
        found = Assigned(match.group(1)[:60], line)
    return found


class ModuleConstants:
    """Lazily folded module-level constants, including names imported from sibling modules.

    ``sources`` maps a name to the text of its last top-level binding;
    ``imported`` resolves ``from m import NAME`` through a caller-supplied
    function (the analysis never touches the file system itself). ``made``: the trees
    made by the analysis that reads this module's functions (its units), which what
    folds their expressions with these constants is handed; None for a module only
    imported (its texts are parsed by libcst).

    ``build``: the build the module's Python reads (its environment and command line),
    which records each read; every value remembers the reads it came from, and charges
    whoever asks for it later with them (:mod:`.assumed`). ``text``: the module's source,
    where the choices it declares for a variable it reads are found (None: not known);
    ``own``: the module is the one analysed, whose options read off the command line are
    build variables (:mod:`.assumed`).
    """

    def __init__(
        self,
        sources: Mapping[str, str],
        imported: Callable[[str], Folded | None] | None = None,
        classes: Mapping[str, str] | None = None,
        functions: Mapping[str, str] | None = None,
        made: MadeTrees | None = None,
        build: Build | None = None,
        text: str | None = None,
        own: bool = False,
    ) -> None:
        self.made = made
        self._build = build if build is not None else Build()
        self._text = text
        self._own = own
        self._from_reads: dict[str, frozenset[AssumedRead]] = {}  # the values that read some
        self._sources = sources
        self._hidden: Mapping[str, Folded] = {}
        self._imported = imported
        self._classes = classes or {}
        self._function_sources = functions or {}
        self.functions = FunctionBodies(self._function_sources)
        self._fields: dict[str, tuple[list[tuple[str, str | None]], dict[str, str]] | None] = {}
        self._cache: dict[str, Folded | None] = {}
        self._busy: set[str] = set()

    @property
    def assumed(self) -> ModuleAssumptions:
        """The build as this module's Python reads it. Made when asked rather than kept:
        it folds names with this module's constants, and a record kept here pointing back
        at them would be a reference cycle, keeping the analysis's trees alive until the
        garbage collector came."""
        return ModuleAssumptions(self._build, self._text, self, self._own)

    @property
    def sources(self) -> Mapping[str, str]:
        """Each name's last top-level binding, as text (read only)."""
        return self._sources

    @property
    def function_sources(self) -> Mapping[str, str]:
        """Each top-level function's text by name (read only): an inline helper's body is
        spliced at its calls."""
        return self._function_sources

    def function_text(self, name: str) -> str | None:
        """The text of the top-level function ``name`` is here: the module's own, else the
        one it is imported as from a sibling module (None: no function found)."""
        own = self._function_sources.get(name)
        if own is not None:
            return own
        imported = getattr(self._imported, "function", None)  # (see imports.ImportedNames)
        return imported(name) if imported is not None else None

    def enclosed(self, sources: Mapping[str, str], hidden: Mapping[str, Folded]) -> ModuleConstants:
        """What a function defined inside another function sees when the DSL parses it.

        The parser captures the enclosing function's values at the point of definition
        (a builder's ``rows = batch // 4``), which shadow the module's: ``sources``
        are those local assignments (and parameter defaults) as text, ``hidden`` the
        locals whose value Python computes in a branch or loop (not folded).
        """
        inner = ModuleConstants(
            {**self._sources, **sources},
            self._imported,
            self._classes,
            self._function_sources,
            self.made,
            self._build,
            self._text,
            self._own,
        )
        inner._hidden = {**self._hidden, **hidden}
        return inner

    def fold_text(self, text: str, this: Record | None = None) -> Folded:
        """Fold a module-level expression given as source text (``self`` is ``this``)."""
        try:
            expr = parsing.expression(text)
        except Exception:
            return Opaque(text.strip()[:40], "not an expression skewlsp can read")
        if this is None:
            return Folder(self, None, owner=self).fold(expr)  # (libcst's parse of the text)

        def lookup(name: str) -> Folded | None:
            return this if name == "self" else self(name)

        return Folder(lookup, None, owner=self).fold(expr)

    def construct(self, call: cst.Call, folder: Folder) -> Record | None:
        """``Config(a=1, ...)`` of a class defined here, or ``replace(record, a=2)``."""
        func = call.func
        if not isinstance(func, (cst.Name, cst.Attribute)):
            return None
        name = func.value if isinstance(func, cst.Name) else func.attr.value
        if name == "replace" and call.args and call.args[0].keyword is None:
            base = folder.fold(call.args[0].value)
            if not isinstance(base, Record):
                return None
            fields = dict(base.fields)
            for arg in call.args[1:]:
                if arg.keyword is None:
                    return None
                fields[arg.keyword.value] = _evaluated(arg.value, folder)
            return Record(base.type_name, fields, self, base.properties)
        if not isinstance(func, cst.Name):
            return None
        info = self._class_info(name)
        if info is None:
            return None
        declared, properties = info
        fields = {key: default for key, default in declared if default is not None}
        positional = [arg for arg in call.args if arg.keyword is None]
        if any(arg.star for arg in call.args) or len(positional) > len(declared):
            return None
        for (key, _), arg in zip(declared, positional, strict=False):
            fields[key] = code_of(arg.value, folder.made)
        for arg in call.args:
            if arg.keyword is not None:
                fields[arg.keyword.value] = code_of(arg.value, folder.made)
        return Record(name, fields, self, properties)

    def _class_info(self, name: str) -> tuple[list[tuple[str, str | None]], dict[str, str]] | None:
        """A class defined in this module: its annotated fields (with default texts) and
        the properties that return one expression."""
        if name in self._fields:
            return self._fields[name]
        text = self._classes.get(name)
        found: tuple[list[tuple[str, str | None]], dict[str, str]] | None = None
        if text is not None:
            try:
                module = parsing.dedented_module(text)
            except Exception:
                module = None
            body = module.body[0] if module and module.body else None
            if isinstance(body, cst.ClassDef) and isinstance(body.body, cst.IndentedBlock):
                found = ([], {})
                for stmt in body.body.body:
                    if isinstance(stmt, cst.FunctionDef):
                        getter = _property_expression(stmt)
                        if getter is not None:
                            found[1][stmt.name.value] = getter
                    if not isinstance(stmt, cst.SimpleStatementLine):
                        continue
                    for small in stmt.body:
                        if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                            value = small.value  # (libcst's parse of the class)
                            default = code_of(value, None) if value is not None else None
                            found[0].append((small.target.value, default))
        self._fields[name] = found
        return found

    def assigned(self, name: str, before: int | None = None) -> Assigned | None:
        """Where ``name`` is assigned, as seen from this module: with ``before`` (a
        1-based line), the function's local nearest above it; else the module's last
        top-level assignment here, or in the module it is imported from."""
        found = last_assignment(self._text, name, before) if self._text is not None else None
        if found is None and before is None:
            imported = getattr(self._imported, "assigned", None)  # (see imports.ImportedNames)
            found = imported(name) if imported is not None else None
        return found

    def __call__(self, name: str) -> Folded | None:
        if name in self._cache:
            read = self._from_reads.get(name)
            if read:
                self._build.note(read)
            return self._cache[name]
        if name in self._busy:
            return Dynamic(name, f"`{name}` is defined in terms of itself")
        self._busy.add(name)
        depth = self._build.open()
        try:
            result = self._resolve(name)
        finally:
            self._busy.discard(name)
            read = self._build.close(depth)
        self._cache[name] = result
        if any(one.variable == ARGV for one in read):
            # A name holding an option read off the command line (``TP_SIZE``, ``--tp``):
            # the option is the build variable its readers are charged with.
            option = self.assumed.option_read(name, result)
            if option is not None:
                self._build.note([option])
                read = read | {option}
        if read:
            self._from_reads[name] = read
        return result

    def _resolve(self, name: str) -> Folded | None:
        hidden = self._hidden.get(name)
        if hidden is not None:
            return hidden
        text = self._sources.get(name)
        if text is not None:
            try:
                expr = parsing.expression(text)
            except Exception:
                return Dynamic(name, f"`{name}` is not a compile-time constant")
            folded = Folder(self, None, owner=self).fold(expr)  # (libcst's parse of the text)
            if isinstance(folded, Symbolic):
                return Symbolic(name, f"`{name}` is a symbolic dimension (`{text.strip()[:60]}`)")
            if isinstance(folded, (Dynamic, Opaque)) or (
                isinstance(folded, Rejected) and not isinstance(expr, cst.Name)
            ):
                reason = f"`{name}` = `{text.strip()[:40]}` is computed when the module loads"
                if isinstance(folded, Real):
                    return RealConstant(name, reason, folded.value)
                return Opaque(name, reason)
            return folded
        if self._imported is not None:
            return self._imported(name)
        return None


def _evaluated(node: cst.BaseExpression, folder: Folder) -> str:
    """A ``replace(record, field=...)`` argument as the new record's field text: the number
    it folds to where it folds to one, as Python evaluates it when ``replace`` runs (a
    module that sets ``config.M = replace(config.M, n=config.M.n // 8)`` reads the record as
    it stood before), else its own text, folded where the record is read."""
    value = folder.fold(node)
    if isinstance(value, Const):
        return str(value.value)
    return code_of(node, folder.made)


def _is_dynamic_dimension(call: cst.Call, made: MadeTrees | None) -> bool:
    """``pl.dynamic(...)`` (any alias of ``pypto.language``, or spelled out in full)."""
    func = call.func
    if not (isinstance(func, cst.Attribute) and func.attr.value == "dynamic"):
        return False
    base = func.value
    if isinstance(base, cst.Name):
        return True
    return code_of(base, made) == "pypto.language"


def _property_expression(fn: cst.FunctionDef) -> str | None:
    """``@property def x(self): return <expr>`` -> the text of ``<expr>``, else None."""
    if not any(
        isinstance(d.decorator, cst.Name) and d.decorator.value == "property" for d in fn.decorators
    ):
        return None
    statements = list(fn.body.body) if isinstance(fn.body, cst.IndentedBlock) else []
    if statements and isinstance(statements[0], cst.SimpleStatementLine):
        first = statements[0].body[0]
        if isinstance(first, cst.Expr) and isinstance(first.value, cst.SimpleString):
            statements = statements[1:]  # a docstring
    if len(statements) != 1 or not isinstance(statements[0], cst.SimpleStatementLine):
        return None
    only = statements[0].body[0]
    if isinstance(only, cst.Return) and only.value is not None:
        return code_of(only.value, None)  # (libcst's parse of the class)
    return None


def _computed_at_load(node: cst.BaseExpression, made: MadeTrees | None) -> Opaque:
    text = code_of(node, made)
    return Opaque(text, f"`{text}` is computed when the module loads")
