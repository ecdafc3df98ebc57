"""Index expressions, substitution of names, and folding of what substitution made constant.

A clone replaces the loop variable by a literal (prologue, epilogue) or by
``k + c`` (steady loop). Only the expressions that substitution touched are
folded, so ``[i * 16, 0]`` at index 0 becomes ``[0, 0]`` and ``(i + 1) * 16``
at ``i - 2`` becomes ``(i - 1) * 16``, while the author's own constant
arithmetic elsewhere stays exactly as written.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeVar

import libcst as cst

_FOLDABLE = (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide, cst.Modulo)
# Containers in which a substituted expression never needs parentheses.
_FREE_SLOTS = (cst.Arg, cst.Element, cst.Index, cst.Assign, cst.AnnAssign)
_CODE = cst.Module(body=[])  # renders a node alone


def int_literal(value: int) -> cst.BaseExpression:
    """A literal for ``value``; negatives are a unary minus (libcst has no negative Integer)."""
    if value < 0:
        return cst.UnaryOperation(cst.Minus(), cst.Integer(str(-value)))
    return cst.Integer(str(value))


def index_expr(var: str | None, offset: int) -> cst.BaseExpression:
    """``offset`` (no variable), ``var``, ``var + offset`` or ``var - |offset|``."""
    if var is None:
        return int_literal(offset)
    if offset == 0:
        return cst.Name(var)
    op: cst.BaseBinaryOp = cst.Add() if offset > 0 else cst.Subtract()
    return cst.BinaryOperation(cst.Name(var), op, cst.Integer(str(abs(offset))))


def index_text(var: str | None, offset: int) -> str:
    """The compact spelling used in section headers: ``i``, ``i+1``, ``i-2``, ``6``."""
    if var is None:
        return str(offset)
    if offset == 0:
        return var
    return f"{var}{'+' if offset > 0 else '-'}{abs(offset)}"


def literal_value(node: cst.CSTNode) -> int | None:
    """The value of an integer literal (``-3`` included), else None."""
    if isinstance(node, cst.Integer):
        try:
            return int(node.value, 0)
        except ValueError:
            return int(node.value.replace("_", ""))
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = literal_value(node.expression)
        return None if inner is None else -inner
    return None


def _linear(node: cst.CSTNode) -> tuple[str, int] | None:
    """``v``, ``v + c`` or ``v - c`` as (v, c)."""
    if isinstance(node, cst.Name):
        return node.value, 0
    if isinstance(node, cst.BinaryOperation) and isinstance(node.left, cst.Name):
        right = literal_value(node.right)
        if right is not None and isinstance(node.operator, cst.Add):
            return node.left.value, right
        if right is not None and isinstance(node.operator, cst.Subtract):
            return node.left.value, -right
    return None


def _bare(node: cst.BaseExpression) -> cst.BaseExpression:
    if getattr(node, "lpar", None):
        return node.with_changes(lpar=[], rpar=[])
    return node


def _parened(node: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(node, (cst.Name, cst.Integer)) or getattr(node, "lpar", None):
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _compute(op: cst.BaseBinaryOp, a: int, b: int) -> int | None:
    if isinstance(op, cst.Add):
        return a + b
    if isinstance(op, cst.Subtract):
        return a - b
    if isinstance(op, cst.Multiply):
        return a * b
    if b == 0:
        return None
    if isinstance(op, cst.FloorDivide):
        return a // b
    if isinstance(op, cst.Modulo):
        return a % b
    return None


class Substituter(cst.CSTTransformer):
    """Replace read names by expressions and fold the arithmetic this touched.

    ``reads`` maps a read name to its replacement; ``defs`` renames binding
    occurrences (assignment and loop targets). Attribute names and keyword
    names are never touched. The caller decides which subtree is a read and
    which a target; inside compound statements both maps apply, since a name a
    clone (re)binds is renamed consistently wherever it appears.
    """

    def __init__(
        self,
        reads: Mapping[str, cst.BaseExpression],
        defs: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__()
        self.reads = reads
        self.defs = defs or {}
        self.touched: set[int] = set()
        self.skip: set[int] = set()

    # names that are not variables
    def visit_Attribute(self, node: cst.Attribute) -> bool:
        self.skip.add(id(node.attr))
        return True

    def visit_Arg(self, node: cst.Arg) -> bool:
        if node.keyword is not None:
            self.skip.add(id(node.keyword))
        return True

    def visit_Param(self, node: cst.Param) -> bool:
        return False

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
        if id(original_node) in self.skip:
            return updated_node
        name = original_node.value
        if name in self.defs:
            return self._mark(updated_node.with_changes(value=self.defs[name]))
        if name in self.reads:
            replacement = self.reads[name]
            if original_node.lpar:
                replacement = replacement.with_changes(
                    lpar=original_node.lpar, rpar=original_node.rpar
                )
            else:
                replacement = _parened(replacement)
            return self._mark(replacement)
        return updated_node

    def _mark(self, node: cst.BaseExpression) -> cst.BaseExpression:
        self.touched.add(id(node))
        return node

    def _is_touched(self, node: cst.CSTNode) -> bool:
        return id(node) in self.touched

    # folding
    def leave_UnaryOperation(
        self, original_node: cst.UnaryOperation, updated_node: cst.UnaryOperation
    ) -> cst.BaseExpression:
        if not self._is_touched(updated_node.expression):
            return updated_node
        value = literal_value(updated_node.expression)
        if value is not None and isinstance(updated_node.operator, cst.Minus):
            return self._mark(_keep_parens(int_literal(-value), updated_node))
        return self._mark(updated_node)

    def leave_BinaryOperation(
        self, original_node: cst.BinaryOperation, updated_node: cst.BinaryOperation
    ) -> cst.BaseExpression:
        left, right, op = updated_node.left, updated_node.right, updated_node.operator
        if not (self._is_touched(left) or self._is_touched(right)):
            return updated_node
        a, b = literal_value(left), literal_value(right)
        if a is not None and b is not None and isinstance(op, _FOLDABLE):
            value = _compute(op, a, b)
            if value is not None:
                return self._mark(_keep_parens(int_literal(value), updated_node))
        if isinstance(op, (cst.Add, cst.Subtract)):
            simpler = _combine(left, op, right)
            if simpler is not None:
                return self._mark(_keep_parens(simpler, updated_node))
        if isinstance(op, cst.Multiply) and (a == 1 or b == 1):
            kept = right if a == 1 else left
            return self._mark(_keep_parens(kept, updated_node))
        return self._mark(
            updated_node.with_changes(left=_operand(left, op), right=_operand(right, op, True))
        )

    # substituted expressions need no parentheses in these slots
    def leave_Arg(self, original_node: cst.Arg, updated_node: cst.Arg) -> cst.Arg:
        return updated_node.with_changes(value=self._free(updated_node.value))

    def leave_Element(self, original_node: cst.Element, updated_node: cst.Element) -> cst.Element:
        return updated_node.with_changes(value=self._free(updated_node.value))

    def leave_Index(self, original_node: cst.Index, updated_node: cst.Index) -> cst.Index:
        return updated_node.with_changes(value=self._free(updated_node.value))

    def leave_Assign(self, original_node: cst.Assign, updated_node: cst.Assign) -> cst.Assign:
        return updated_node.with_changes(value=self._free(updated_node.value))

    def leave_AnnAssign(
        self, original_node: cst.AnnAssign, updated_node: cst.AnnAssign
    ) -> cst.AnnAssign:
        if updated_node.value is None:
            return updated_node
        return updated_node.with_changes(value=self._free(updated_node.value))

    def leave_Slice(self, original_node: cst.Slice, updated_node: cst.Slice) -> cst.Slice:
        changes = {}
        for part in ("lower", "upper", "step"):
            value = getattr(updated_node, part)
            if value is not None:
                changes[part] = self._free(value)
        return updated_node.with_changes(**changes)

    def _free(self, node: cst.BaseExpression) -> cst.BaseExpression:
        """A touched expression in a slot that needs no parentheses loses them, unless they
        hold an expression written over several lines (without them it would not parse)."""
        if self._is_touched(node) and "\n" not in _CODE.code_for_node(node):
            return self._mark(_bare(node))
        return node


def _combine(
    left: cst.BaseExpression, op: cst.BaseBinaryOp, right: cst.BaseExpression
) -> cst.BaseExpression | None:
    """``(v + a) + b`` -> ``v + (a+b)``; ``a + (v + b)`` likewise (linear index arithmetic)."""
    sign = 1 if isinstance(op, cst.Add) else -1
    lin, lit = _linear(left), literal_value(right)
    if lin is not None and lit is not None and (lin[1] != 0 or lit == 0):
        return index_expr(lin[0], lin[1] + sign * lit)
    lin, lit = _linear(right), literal_value(left)
    if sign == 1 and lin is not None and lit is not None and (lin[1] != 0 or lit == 0):
        return index_expr(lin[0], lin[1] + lit)
    return None


def _keep_parens(result: cst.BaseExpression, node: cst.BaseExpression) -> cst.BaseExpression:
    """Keep the parentheses of the folded node only where the result is not atomic."""
    atomic = isinstance(result, (cst.Name, cst.Integer))
    if atomic or not getattr(node, "lpar", None):
        return _bare(result) if atomic else result
    return result.with_changes(lpar=node.lpar, rpar=node.rpar)


_PRECEDENCE = {
    cst.Add: 1,
    cst.Subtract: 1,
    cst.Multiply: 2,
    cst.Divide: 2,
    cst.FloorDivide: 2,
    cst.Modulo: 2,
    cst.MatrixMultiply: 2,
    cst.Power: 3,
}


def _operand(
    node: cst.BaseExpression, op: cst.BaseBinaryOp, right: bool = False
) -> cst.BaseExpression:
    """An operand of a binary operation: parentheses only where precedence needs them."""
    if isinstance(node, cst.BinaryOperation):
        inner = _PRECEDENCE.get(type(node.operator))
        outer = _PRECEDENCE.get(type(op))
        if inner is None or outer is None or inner < outer or (right and inner == outer):
            return _parened(node)
        if isinstance(op, cst.Power):
            return _parened(node)
        return node
    if isinstance(node, cst.UnaryOperation) and isinstance(op, cst.Power):
        return _parened(node)
    return node


_Node = TypeVar("_Node", bound=cst.CSTNode)


def substitute(
    node: _Node,
    reads: Mapping[str, cst.BaseExpression],
    defs: Mapping[str, str] | None = None,
) -> _Node:
    """``node`` with ``reads``/``defs`` applied and the touched arithmetic folded (of the
    same kind: an expression stays an expression, a statement that statement)."""
    if not reads and not defs:
        return node
    result = node.visit(Substituter(reads, defs))
    assert not isinstance(result, (cst.RemovalSentinel, cst.FlattenSentinel))  # never made
    return result


def leading_lines(statement: cst.BaseStatement) -> Sequence[cst.EmptyLine]:
    """The blank and comment lines above ``statement``: every statement has them (a line
    of small statements or a compound one), though libcst's BaseStatement names none."""
    assert isinstance(statement, (cst.SimpleStatementLine, cst.BaseCompoundStatement))
    return statement.leading_lines
