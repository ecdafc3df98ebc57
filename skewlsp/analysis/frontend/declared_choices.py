"""The values a module declares for an environment variable or an option it reads.

A configuration module that picks a preset by an environment variable usually says
which values it takes: a tuple of supported values checked at import
(``if VARIANT not in SUPPORTED_VARIANTS: raise ...``), a dict of presets keyed by the
value (``PRESETS[VARIANT]``), or literal comparisons (``if IMPL == "separate":``,
``os.environ.get("NO_RETIRE", "0") == "1"``). Those are the builds a kernel author may
compile, so a verdict is decided again under each (``driver.variants``); a value the
module never names is not guessed.

An option read off the command line when the module loads is declared the same way
(:func:`declared_options`): ``TP_SIZE = _parse_int_argv("--tp") or 2`` checked by
``assert TP_SIZE in _TP_CHOICES``, or offered to argparse with ``choices=``.

The module's text is read with the stdlib parser (a config module is read once per
variable, not once per loop, nor once per build: :class:`ScannedTexts`); the names a
comparison quotes (``SUPPORTED_VARIANTS``) are folded with the module's constants, under
each build.
"""

from __future__ import annotations

import ast
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from skewlsp.analysis.frontend.values import Const, Folded, Items, Table, Text
from skewlsp.analysis.source.walk import stdlib_nodes

# Methods a config applies to the value it read before comparing it (``.strip().lower()``).
_NORMALISING = frozenset({"strip", "lower", "upper", "lstrip", "rstrip", "casefold"})
# The spellings of ``os.environ.get(NAME, default)`` Python configs use.
ENVIRONMENT_GETTERS = (("os", "environ", "get"), ("os", "getenv"), ("environ", "get"))


class ScannedTexts:
    """The stdlib trees of module texts, the options each reads off the command line and
    the operands it compares each variable with, for every build of an analysis or a
    batch: a text reads the same under any build, so it is parsed and scanned once, and
    only the values its names fold to are worked out per build (pypto-lib: 58 scans of
    its kernels' texts, one per build, were 5% of a cold lint; scanning a config again
    for its variable's operands under each other build, 0.4%). Not thread-safe, like the
    build that holds it."""

    def __init__(self) -> None:
        self._trees: dict[str, ast.Module | None] = {}
        self._options: dict[str, _OptionReads | None] = {}
        self._operands: dict[tuple[str, str], tuple[_Operand, ...]] = {}

    def tree(self, text: str) -> ast.Module | None:
        """The stdlib's tree of ``text`` (None: the stdlib refuses it)."""
        if text not in self._trees:
            try:
                self._trees[text] = ast.parse(text)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                self._trees[text] = None
        return self._trees[text]

    def parsed(self, text: str, tree: ast.Module) -> None:
        """``tree`` is the stdlib's tree of ``text``, parsed already (the module analysed:
        the options it reads are scanned off that tree rather than a second parse)."""
        self._trees.setdefault(text, tree)

    def option_reads(self, text: str) -> _OptionReads | None:
        """What :func:`declared_options` reads off ``text`` alone (None: no option)."""
        if text not in self._options:
            tree = self.tree(text) if "argv" in text else None
            self._options[text] = _option_reads(tree, text) if tree is not None else None
        return self._options[text]

    def operands(self, variable: str, text: str) -> tuple[_Operand, ...]:
        """What :func:`declared_choices` reads off ``text`` alone for ``variable``: the
        operands its values are named in, in the order the scan meets them."""
        key = (variable, text)
        if key not in self._operands:
            tree = self.tree(text)
            self._operands[key] = _operands(variable, tree) if tree is not None else ()
        return self._operands[key]


def declared_choices(
    variable: str,
    text: str,
    lookup: Callable[[str], Folded | None],
    scanned: ScannedTexts | None = None,
) -> tuple[str, ...]:
    """The string values the module of ``text`` compares ``variable`` with (sorted), or
    keys presets by; ``lookup`` folds its module-level names (``scanned``: the texts
    already parsed)."""
    found: set[str] = set()
    # (folded in the order the scan met them: a name folds once, the first time it is asked)
    for keyed, node in (scanned or ScannedTexts()).operands(variable, text):
        found |= _keys(node, lookup) if keyed else _literals(node, lookup)
    return tuple(sorted(found))


# An operand a variable is compared with (False), or a table it indexes (True).
_Operand = tuple[bool, ast.expr]


def _operands(variable: str, tree: ast.Module) -> tuple[_Operand, ...]:
    """The operands the module of ``tree`` compares ``variable``'s value with, and the
    tables it indexes with it, in walk order: the text alone says which they are (their
    names are folded per build, by :func:`declared_choices`)."""
    scan = _Scan(variable, tree)
    found: list[_Operand] = []
    for node in stdlib_nodes(tree):  # (ast.walk's order; why not ast.walk: stdlib_nodes)
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            for a, b in zip(operands, operands[1:], strict=False):
                if scan.is_subject(a):
                    found.append((False, b))
                if scan.is_subject(b):
                    found.append((False, a))
        elif isinstance(node, ast.Subscript) and scan.is_subject(node.slice):
            found.append((True, node.value))
    return tuple(found)


@dataclass(frozen=True)
class DeclaredOption:
    """An option a module reads off the command line when it loads (``--tp``), and the
    values it allows (``_TP_CHOICES``, as the command line spells them; none declared:
    empty)."""

    option: str
    choices: tuple[str, ...]


@dataclass(frozen=True)
class DeclaredOptions:
    """The options a module reads off the command line, by the module-level name holding
    each one's value; ``partial``: some read of it has no declared value (an option whose
    values it never lists, or a reader whose option is not a literal)."""

    by_name: dict[str, DeclaredOption]
    partial: bool


NO_OPTIONS = DeclaredOptions({}, partial=False)


@dataclass(frozen=True)
class _OptionReads:
    """What a module's text alone says of the options it reads: the module-level name
    holding each one's value (``carriers``), the expressions listing the values it allows
    (``listed``: per option, folded per build), and whether some read of an option is
    not one :func:`declared_options` can follow (``partial``)."""

    carriers: dict[str, str]
    listed: tuple[tuple[str, ast.expr], ...]
    partial: bool


def declared_options(
    text: str, lookup: Callable[[str], Folded | None], scanned: ScannedTexts | None = None
) -> DeclaredOptions:
    """The module-level names of ``text`` whose value is an option read off ``sys.argv``
    by a module function (``TP_SIZE = _parse_int_argv("--tp") or 2``,
    ``TP_SIZE = _parse_tp_argv()``), each with the option and the values the module
    allows it: ``TP_SIZE in _TP_CHOICES`` (an ``assert``, an ``if ... not in: raise``) or
    argparse's ``add_argument("--tp", choices=...)``. A reader that also reads the
    environment is left out: the variable it reads stands for the option
    (``DEEPSEEK_V4_VARIANT`` or ``--variant``), and its choices are decided once.
    ``scanned``: the texts already read (:class:`ScannedTexts`)."""
    reads = (scanned or ScannedTexts()).option_reads(text)
    if reads is None:
        return NO_OPTIONS
    declared: dict[str, set[str]] = {option: set() for option in reads.carriers.values()}
    for option, listed in reads.listed:
        declared[option] |= _values(listed, lookup)
    found = {
        carrier: DeclaredOption(option, _ordered(declared[option]))
        for carrier, option in reads.carriers.items()
    }
    partial = reads.partial or any(not option.choices for option in found.values())
    return DeclaredOptions(found, partial)


def _option_reads(tree: ast.Module, text: str) -> _OptionReads | None:
    """:class:`_OptionReads` of a module's tree (of ``text``); None when no module
    function reads ``sys.argv`` (without also reading the environment). Only a function
    whose lines spell ``argv`` is walked: a kernel's are long, and few read it."""
    lines = text.splitlines()
    readers = {
        stmt.name: stmt
        for stmt in tree.body
        if isinstance(stmt, ast.FunctionDef)
        and any("argv" in line for line in lines[_first_line(stmt) - 1 : stmt.end_lineno])
        and any(_dotted(n) == ("sys", "argv") for n in ast.walk(stmt))
        and not any(_is_environment(n) for n in ast.walk(stmt))
    }
    if not readers:
        return None
    carriers: dict[str, str] = {}
    partial = False
    for targets, value in _assignments(list(_module_level(tree.body))):
        option = _option_read(value, readers) if value is not None else None
        if option is not None and len(targets) == 1:
            carriers[next(iter(targets))] = option
        elif option is not None or (value is not None and _calls(value, readers)):
            partial = True
    options = set(carriers.values())
    listed: list[tuple[str, ast.expr]] = []
    for node in _nodes_spelling(tree, lines, [*carriers, "add_argument"] if options else []):
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            if isinstance(node.ops[0], (ast.In, ast.NotIn)) and isinstance(node.left, ast.Name):
                option = carriers.get(node.left.id)
                if option is not None:
                    listed.append((option, node.comparators[0]))
        elif isinstance(node, ast.Call) and _is_add_argument(node):
            first = node.args[0]
            named = first.value if isinstance(first, ast.Constant) else None
            if isinstance(named, str) and named in options:
                listed.extend((named, k.value) for k in node.keywords if k.arg == "choices")
    return _OptionReads(carriers, tuple(listed), partial)


def _nodes_spelling(tree: ast.Module, lines: list[str], words: list[str]) -> list[ast.AST]:
    """The nodes of the module's statements whose lines spell one of ``words`` (a
    comparison of a carrier, an ``add_argument`` call), as Python reads their names
    (NFKC: ``ＴＰ`` is ``TP``), gathered in one list (``stdlib_nodes``, not ``ast.walk``'s
    generator per node). Scanning pypto-lib's 17 kernels that read the command line:
    0.14 s of CPU over every node, 0.07 s so (731 of their 974 statements still walked:
    most name a carrier)."""
    found: list[ast.AST] = []
    for stmt in tree.body if words else ():
        text = "\n".join(lines[_first_line(stmt) - 1 : stmt.end_lineno])
        if not text.isascii():
            text = unicodedata.normalize("NFKC", text)
        if any(word in text for word in words):
            found.extend(stdlib_nodes(stmt))
    return found


def _first_line(stmt: ast.stmt) -> int:
    """The first line of ``stmt``, a definition's decorators included."""
    decorators: list[ast.expr] = getattr(stmt, "decorator_list", [])
    return min([stmt.lineno, *(decorator.lineno for decorator in decorators)])


def _calls(value: ast.expr, readers: dict[str, ast.FunctionDef]) -> bool:
    return any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in readers
        for n in ast.walk(value)
    )


def _option_read(value: ast.expr, readers: dict[str, ast.FunctionDef]) -> str | None:
    """The option a module-level value reads through one of ``readers``: the option named
    in the call (``_parse_int_argv("--tp")``), else the one its body names."""
    for node in ast.walk(value):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
            continue
        reader = readers.get(node.func.id)
        if reader is None:
            continue
        named = {_option(a) for a in node.args} - {None}
        if not named and _spells_option(reader) and node.args:
            # ``_parse_static_int("cp", 2)`` with ``flag = f"--{name}"``: the option is
            # the name passed, dashed.
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                named = {_option(ast.Constant(f"--{first.value}"))} - {None}
        if not named:
            named = {_option(n) for n in ast.walk(reader)} - {None}
        return named.pop() if len(named) == 1 else None
    return None


def _spells_option(reader: ast.FunctionDef) -> bool:
    """Whether a reader builds its option from its argument (``f"--{name}"``)."""
    return any(
        isinstance(n, ast.JoinedStr)
        and len(n.values) == 2
        and isinstance(n.values[0], ast.Constant)
        and n.values[0].value == "--"
        and isinstance(n.values[1], ast.FormattedValue)
        for n in ast.walk(reader)
    )


def _option(node: ast.AST) -> str | None:
    """``"--tp"`` (or ``"--tp="``, as a reader tests a joined ``--tp=8``): the option."""
    if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
        return None
    text = node.value.removesuffix("=")
    if not text.startswith("-") or text.strip("-") == "" or " " in text:
        return None
    return text


def _is_environment(node: ast.AST) -> bool:
    if isinstance(node, ast.Call):
        return _dotted(node.func) in ENVIRONMENT_GETTERS
    return isinstance(node, ast.Subscript) and _dotted(node.value) == ("os", "environ")


def _is_add_argument(node: ast.Call) -> bool:
    return (
        isinstance(node.func, ast.Attribute)
        and node.func.attr == "add_argument"
        and bool(node.args)
    )


def _values(node: ast.AST, lookup: Callable[[str], Folded | None]) -> set[str]:
    """The values a tuple, list or set of numbers or strings holds, as the command line
    spells them: a literal, a module-level name, or ``list(NAME)`` / ``tuple(NAME)``."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ("list", "tuple", "set", "sorted")
        and len(node.args) == 1
    ):
        node = node.args[0]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return {
            str(e.value)
            for e in node.elts
            if isinstance(e, ast.Constant)
            and isinstance(e.value, (int, str))
            and not isinstance(e.value, bool)
        }
    if isinstance(node, ast.Name):
        folded = lookup(node.id)
        if isinstance(folded, Items):
            return {
                str(v.value) for v in folded.values if isinstance(v, (Const, Text))
            }
    return set()


def _ordered(values: set[str]) -> tuple[str, ...]:
    """Numbers in their order (``2, 4, 8, 16``), other values sorted."""
    if all(v.lstrip("-").isdigit() for v in values):
        return tuple(sorted(values, key=int))
    return tuple(sorted(values))


class _Scan:
    """Which expressions of one module stand for the variable's value (its subjects)."""

    def __init__(self, variable: str, tree: ast.Module) -> None:
        self._variable = variable
        assignments = list(_assignments(list(_module_level(tree.body))))
        # Names bound to the variable's name (``VARIANT_ENV = "DEEPSEEK_V4_VARIANT"``).
        self._spellings = {
            target
            for targets, value in assignments
            if isinstance(value, ast.Constant) and value.value == variable
            for target in targets
        }
        self._readers = {
            stmt.name
            for stmt in tree.body
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and self._reads(stmt)
        }
        # Module-level names whose value comes from a read (directly, through a function
        # that reads it, or through another such name): each assignment walked once.
        self.carriers: set[str] = set()
        pending: list[tuple[set[str], set[str]]] = []
        for targets, value in assignments:
            if value is None:
                continue
            if self._reads(value):
                self.carriers |= targets
            else:
                names = {n.id for n in stdlib_nodes(value) if isinstance(n, ast.Name)}
                pending.append((targets, names))
        grown = True
        while grown:
            grown = False
            for targets, names in pending:
                if not targets <= self.carriers and names & (self._readers | self.carriers):
                    self.carriers |= targets
                    grown = True

    def is_subject(self, node: ast.AST) -> bool:
        """``VARIANT``, ``VARIANT.lower()``, ``os.environ.get("VARIANT", "pro")``,
        ``_variant()`` (a module function that reads it)."""
        while (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in _NORMALISING
            and not node.args
        ):
            node = node.func.value
        if isinstance(node, ast.Name):
            return node.id in self.carriers
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.args:
            return node.func.id in self._readers
        return self._is_read(node)

    def _reads(self, node: ast.AST) -> bool:
        # (only a call or a subscript reads: the others are not asked, a call per node
        # being what ``stdlib_nodes`` spares a kernel's functions)
        return any(
            self._is_read(inner)
            for inner in stdlib_nodes(node)
            if isinstance(inner, (ast.Call, ast.Subscript))
        )

    def _is_read(self, node: ast.AST) -> bool:
        """``os.environ.get(NAME, ...)``, ``os.getenv(NAME)``, ``os.environ[NAME]``."""
        if isinstance(node, ast.Call) and _dotted(node.func) in ENVIRONMENT_GETTERS and node.args:
            return self._names_variable(node.args[0])
        if isinstance(node, ast.Subscript) and _dotted(node.value) == ("os", "environ"):
            return self._names_variable(node.slice)
        return False

    def _names_variable(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Constant):
            return node.value == self._variable
        return isinstance(node, ast.Name) and node.id in self._spellings


def _literals(node: ast.AST, lookup: Callable[[str], Folded | None]) -> set[str]:
    """The strings an operand of a comparison names: one, or a literal or module-level
    tuple, list, set or dict of them (``lookup`` folds a module-level name)."""
    if isinstance(node, ast.Constant):
        return {node.value} if isinstance(node.value, str) else set()
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return {
            value
            for e in node.elts
            if isinstance(e, ast.Constant) and isinstance(value := e.value, str)
        }
    if isinstance(node, ast.Dict):
        return {
            value
            for k in node.keys
            if isinstance(k, ast.Constant) and isinstance(value := k.value, str)
        }
    if isinstance(node, ast.Name):
        return _strings(lookup(node.id))
    return set()


def _keys(node: ast.AST, lookup: Callable[[str], Folded | None]) -> set[str]:
    """The keys of a dict the value indexes (``PRESETS[VARIANT]``)."""
    if isinstance(node, ast.Dict):
        return _literals(node, lookup)
    if isinstance(node, ast.Name):
        folded = lookup(node.id)
        return _strings(folded) if isinstance(folded, Table) else set()
    return set()


def _module_level(statements: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements Python runs when it imports the module (not those in a function or
    a class body): the top level and inside ``if``, ``try``, ``with`` and ``for``."""
    for stmt in statements:
        yield stmt
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list):
                yield from _module_level(inner)
        for handler in getattr(stmt, "handlers", ()):
            yield from _module_level(handler.body)


def _assignments(statements: list[ast.stmt]) -> Iterator[tuple[set[str], ast.expr | None]]:
    for stmt in statements:
        if isinstance(stmt, ast.Assign):
            names = {
                n.id for t in stmt.targets for n in stdlib_nodes(t) if isinstance(n, ast.Name)
            }
            yield names, stmt.value
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            yield {stmt.target.id}, stmt.value


def _strings(folded: Folded | None) -> set[str]:
    if isinstance(folded, Items):
        return {value.value for value in folded.values if isinstance(value, Text)}
    if isinstance(folded, Table):
        return {key for key in folded.entries if isinstance(key, str)}
    if isinstance(folded, Text):
        return {folded.value}
    return set()


def _dotted(node: ast.AST) -> tuple[str, ...] | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return tuple(reversed(parts))
