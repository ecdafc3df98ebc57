"""The values a module declares for an environment variable it reads.

A configuration module that picks a preset by an environment variable usually says
which values it takes: a tuple of supported values checked at import
(``if VARIANT not in SUPPORTED_VARIANTS: raise ...``), a dict of presets keyed by the
value (``PRESETS[VARIANT]``), or literal comparisons (``if IMPL == "separate":``,
``os.environ.get("NO_RETIRE", "0") == "1"``). Those are the builds a kernel author may
compile, so a verdict is decided again under each (``driver.variants``); a value the
module never names is not guessed.

The module's text is read with the stdlib parser (a config module is read once per
variable, not once per loop); the names a comparison quotes (``SUPPORTED_VARIANTS``)
are folded with the module's constants.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator

from skewlsp.analysis.frontend.values import Folded, Items, Table, Text

# Methods a config applies to the value it read before comparing it (``.strip().lower()``).
_NORMALISING = frozenset({"strip", "lower", "upper", "lstrip", "rstrip", "casefold"})
# The spellings of ``os.environ.get(NAME, default)`` Python configs use.
ENVIRONMENT_GETTERS = (("os", "environ", "get"), ("os", "getenv"), ("environ", "get"))


def declared_choices(
    variable: str, text: str, lookup: Callable[[str], Folded | None]
) -> tuple[str, ...]:
    """The string values the module of ``text`` compares ``variable`` with (sorted), or
    keys presets by; ``lookup`` folds its module-level names."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ()
    scan = _Scan(variable, tree, lookup)
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            for a, b in zip(operands, operands[1:], strict=False):
                if scan.is_subject(a):
                    found |= scan.literals(b)
                if scan.is_subject(b):
                    found |= scan.literals(a)
        elif isinstance(node, ast.Subscript) and scan.is_subject(node.slice):
            found |= scan.keys(node.value)
    return tuple(sorted(found))


class _Scan:
    """Which expressions of one module stand for the variable's value (its subjects)."""

    def __init__(
        self, variable: str, tree: ast.Module, lookup: Callable[[str], Folded | None]
    ) -> None:
        self._variable = variable
        self._lookup = lookup
        top = list(_module_level(tree.body))
        # Names bound to the variable's name (``VARIANT_ENV = "DEEPSEEK_V4_VARIANT"``).
        self._spellings = {
            target
            for targets, value in _assignments(top)
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
        for targets, value in _assignments(top):
            if value is None:
                continue
            if self._reads(value):
                self.carriers |= targets
            else:
                names = {n.id for n in ast.walk(value) if isinstance(n, ast.Name)}
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

    def literals(self, node: ast.AST) -> set[str]:
        """The strings an operand of a comparison names: one, or a literal or module-level
        tuple, list, set or dict of them."""
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
            return _strings(self._lookup(node.id))
        return set()

    def keys(self, node: ast.AST) -> set[str]:
        """The keys of a dict the value indexes (``PRESETS[VARIANT]``)."""
        if isinstance(node, ast.Dict):
            return self.literals(node)
        if isinstance(node, ast.Name):
            folded = self._lookup(node.id)
            return _strings(folded) if isinstance(folded, Table) else set()
        return set()

    def _reads(self, node: ast.AST) -> bool:
        return any(self._is_read(inner) for inner in ast.walk(node))

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
            names = {n.id for t in stmt.targets for n in ast.walk(t) if isinstance(n, ast.Name)}
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
