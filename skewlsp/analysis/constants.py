"""Constant folding of loop bounds and ``stage``, the way the compiler folds them.

The DSL parser evaluates module-level names at decoration time, and Simplify
later folds locals that SSA conversion proves constant. Everything else is
*dynamic*, and we remember which symbol made it so, because "dynamic" alone
does not tell a kernel author what to change.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import libcst as cst

# Results beyond this many bits are refused rather than computed (2**10**9 must not hang).
_MAX_BITS = 4096


@dataclass(frozen=True)
class Const:
    value: int


@dataclass(frozen=True)
class Dynamic:
    """Not a compile-time integer; ``symbol`` is the source text that made it so."""

    symbol: str
    reason: str


@dataclass(frozen=True)
class Rejected:
    """The DSL parser refuses this expression outright (an SKW040 error)."""

    reason: str


@dataclass(frozen=True)
class Opaque:
    """A module-level value Python computes at decoration time that we cannot see.

    The compiler treats it as a constant, but its value is unknown statically,
    so verdicts that depend on it are reported as "unknown", never guessed.
    """

    symbol: str
    reason: str


Folded = Const | Dynamic | Rejected | Opaque

NameLookup = Callable[[str], "Folded | None"]


def code_of(node: cst.CSTNode) -> str:
    """Source text of a libcst node, for messages."""
    try:
        return cst.Module(body=[]).code_for_node(node).strip()
    except Exception:  # pragma: no cover - libcst refuses only malformed trees
        return type(node).__name__


class Folder:
    """Folds a libcst expression given how names resolve.

    ``lookup`` answers for a name: a folded value, or None when the name is
    unknown here (then it is dynamic, named as the culprit).
    """

    def __init__(self, lookup: NameLookup) -> None:
        self._lookup = lookup

    def fold(self, node: cst.BaseExpression) -> Folded:
        try:
            return self._fold(node)
        except RecursionError:
            return Dynamic(code_of(node)[:40], "expression too deeply nested")

    def _fold(self, node: cst.BaseExpression) -> Folded:
        if isinstance(node, cst.Integer):
            return Const(int(node.value, 0))
        if isinstance(node, cst.Name):
            if node.value in ("True", "False"):
                return Rejected(f"`{node.value}` is a bool, not an integer")
            if node.value == "None":
                return Rejected("`None` is not an integer")
            found = self._lookup(node.value)
            if found is None:
                return Dynamic(node.value, f"`{node.value}` is not a compile-time constant")
            return found
        if isinstance(node, cst.UnaryOperation):
            inner = self._fold(node.expression)
            if not isinstance(inner, Const):
                return inner
            if isinstance(node.operator, cst.Minus):
                return Const(-inner.value)
            if isinstance(node.operator, cst.Plus):
                return inner
            if isinstance(node.operator, cst.BitInvert):
                return Const(~inner.value)
            return Rejected(f"`{code_of(node)}` is not an integer expression")
        if isinstance(node, cst.BinaryOperation):
            return self._binary(node)
        if isinstance(node, cst.Attribute):
            return Rejected(
                f"standalone attribute access `{code_of(node)}` is not supported in a loop bound"
            )
        if isinstance(node, (cst.Float, cst.Imaginary)):
            return Rejected(f"`{code_of(node)}` is not an integer")
        if isinstance(node, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
            return Rejected(f"`{code_of(node)}` is not an integer")
        symbol = code_of(node)
        if isinstance(node, cst.Call):
            symbol = code_of(node.func) + "(...)"
        return Dynamic(symbol[:60], f"`{symbol[:60]}` is not a compile-time constant")

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
                return Rejected(f"division by zero in `{code_of(node)}`")
            return Const(a // b if isinstance(op, cst.FloorDivide) else a % b)
        if isinstance(op, cst.Power):
            if b < 0:
                return Rejected(f"`{code_of(node)}` is not an integer")
            if a not in (0, 1, -1) and b * max(a.bit_length(), 1) > _MAX_BITS:
                return Rejected("constant too large")
            return Const(a**b)
        if isinstance(op, cst.LeftShift) and 0 <= b <= _MAX_BITS:
            return Const(a << b)
        if isinstance(op, cst.RightShift) and b >= 0:
            return Const(a >> b)
        return Dynamic(code_of(node)[:60], f"operator in `{code_of(node)[:60]}` is not folded")


class ModuleConstants:
    """Lazily folded module-level constants, including names imported from sibling modules.

    ``sources`` maps a name to the text of its last top-level binding;
    ``imported`` resolves ``from m import NAME`` through a caller-supplied
    function (the analysis never touches the file system itself).
    """

    def __init__(
        self,
        sources: Mapping[str, str],
        imported: Callable[[str], Folded | None] | None = None,
    ) -> None:
        self._sources = sources
        self._imported = imported
        self._cache: dict[str, Folded | None] = {}
        self._busy: set[str] = set()

    def __call__(self, name: str) -> Folded | None:
        if name in self._cache:
            return self._cache[name]
        if name in self._busy:
            return Dynamic(name, f"`{name}` is defined in terms of itself")
        self._busy.add(name)
        try:
            result = self._resolve(name)
        finally:
            self._busy.discard(name)
        self._cache[name] = result
        return result

    def _resolve(self, name: str) -> Folded | None:
        text = self._sources.get(name)
        if text is not None:
            try:
                expr = cst.parse_expression(text.strip())
            except Exception:
                return Dynamic(name, f"`{name}` is not a compile-time constant")
            folded = Folder(self).fold(expr)
            if isinstance(folded, (Dynamic, Opaque)) or (
                isinstance(folded, Rejected) and not isinstance(expr, cst.Name)
            ):
                return Opaque(
                    name, f"`{name}` = `{text.strip()[:40]}` is computed when the module loads"
                )
            return folded
        if self._imported is not None:
            return self._imported(name)
        return None
