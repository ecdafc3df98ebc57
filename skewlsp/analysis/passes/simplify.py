"""What Simplify folds: the ``if`` conditions it proves, and integer expressions that
reduce to a constant once their arithmetic is put in canonical form.

Simplify binds every loop variable whose bounds are constant to ``[start, stop)``
(the step is not used) and folds comparisons it can decide from those ranges
and from constants. We mirror that with interval arithmetic; anything we
cannot decide stays an ``if`` (a single nested statement), as in the compiler.

Simplify and the DSL parser also rewrite every integer expression with the arithmetic
analyzer (``Analyzer::Simplify``, two rounds of ``src/ir/arith/rewrite_simplify.cpp``):
its rules cancel equal terms, fold constant coefficients and distribute a constant
over a sum, so ``(c + 1) * K - c * K`` and ``c * K + K - c * K`` are ``K`` whatever ``c``
is. The parser builds a slice's extent ``upper - lower`` that way
(``_build_slice_shape_expr`` in ``python/pypto/language/parser/ast_parser.py``), and
Simplify does it to loop bounds and to the shapes in tile and tensor types before the
skew and lowering passes read them. We model the rules by what they compute: an
expression of ``+``, ``-``, ``*`` and integer literals over symbols is a polynomial
(:class:`IntegerForm`), and two such expressions are equal exactly when their forms
are. ``//`` and ``%`` by a positive constant fold when the constant divides every
coefficient of the symbols (the analyzer's ``floordiv(x * c1 + y, c2)`` rules); any
other operation is a symbol of its own.

In a pipeline body (:func:`fold_if`, :func:`collapse_short_range`, which the body walk
of :mod:`.loop_body` calls), a proved ``if`` is replaced by the branch that runs and a
``pl.range`` of one trip by its body, so the skew pass sees their statements at the top
level.

Models: ``src/ir/transforms/simplify_pass.cpp`` (the ``if`` folding it does before the
skew pass, and the integer expressions its ``SimplifyExpr`` folds), through
``src/ir/arith/analyzer.cpp``.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

import libcst as cst

from skewlsp.analysis.frontend import dsl
from skewlsp.analysis.frontend.constants import Const, Dynamic, Folded, Opaque, Real, RealConstant
from skewlsp.analysis.frontend.names import body_statements
from skewlsp.analysis.frontend.values import Interval, full_code
from skewlsp.analysis.passes.body import Block, BodyContext, Stmt, compound, const_trip
from skewlsp.analysis.source.tree_text import MadeTrees

Lookup = Callable[[str], "Folded | None"]
Fold = Callable[[cst.BaseExpression], Folded]

# The analyzer computes in int64 and leaves an operation that would overflow unfolded;
# a coefficient past it, or a form of more terms than a bound expression has, is not
# folded here either.
_INT64_BITS = 63
_MAX_TERMS = 64
# What IntegerForms reads into terms (any other node is a symbol): these operators, a sign.
_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide, cst.Modulo)
_SIGNS = (cst.Minus, cst.Plus)


def evaluate_condition(
    test: cst.BaseExpression, ranges: Mapping[str, Interval], lookup: Lookup
) -> bool | None:
    """True / False when provable, None otherwise."""
    try:
        return _truth(test, ranges, lookup)
    except RecursionError:
        return None


def _truth(node: cst.BaseExpression, ranges: Mapping[str, Interval], lookup: Lookup) -> bool | None:
    if isinstance(node, cst.Name) and node.value in ("True", "False"):
        return node.value == "True"
    if isinstance(node, cst.BooleanOperation):
        left = _truth(node.left, ranges, lookup)
        right = _truth(node.right, ranges, lookup)
        if isinstance(node.operator, cst.And):
            if left is False or right is False:
                return False
            return True if left is True and right is True else None
        if left is True or right is True:
            return True
        return False if left is False and right is False else None
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
        inner = _truth(node.expression, ranges, lookup)
        return None if inner is None else not inner
    if isinstance(node, cst.Comparison) and len(node.comparisons) == 1:
        left_range = interval_of(node.left, ranges, lookup)
        right_range = interval_of(node.comparisons[0].comparator, ranges, lookup)
        if left_range is None or right_range is None:
            return _compare_reals(node, lookup)
        return _compare(node.comparisons[0].operator, left_range, right_range)
    value = interval_of(node, ranges, lookup)
    if value is not None and value.lo == value.hi:
        return value.lo != 0
    return None


_REAL_COMPARISONS: dict[type[cst.BaseCompOp], Callable[[float, float], bool]] = {
    cst.LessThan: operator.lt,
    cst.LessThanEqual: operator.le,
    cst.GreaterThan: operator.gt,
    cst.GreaterThanEqual: operator.ge,
    cst.Equal: operator.eq,
    cst.NotEqual: operator.ne,
}


def _compare_reals(node: cst.Comparison, lookup: Lookup) -> bool | None:
    """A comparison of two float constants (``SWIGLU_LIMIT > 0.0``), which the constant
    folder decides (``FoldCompare``: both operands ``ConstFloat``). A float against an
    integer is no constant: the DSL parser refuses the comparison (``Operator 'gt'
    requires same numeric dtype category``), so it is not decided here."""
    compare = _REAL_COMPARISONS.get(type(node.comparisons[0].operator))
    left = _real(node.left, lookup)
    right = _real(node.comparisons[0].comparator, lookup)
    if compare is None or left is None or right is None:
        return None
    return compare(left, right)


def _real(node: cst.BaseExpression, lookup: Lookup) -> float | None:
    """The value of a float literal or of a name bound to a float constant, signed."""
    if isinstance(node, cst.Float):
        return float(node.value)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        inner = _real(node.expression, lookup)
        sign = -1.0 if isinstance(node.operator, cst.Minus) else 1.0
        return None if inner is None else sign * inner
    if isinstance(node, cst.Name):
        found = lookup(node.value)
        return found.value if isinstance(found, (Real, RealConstant)) else None
    return None


def _compare(op: cst.BaseCompOp, a: Interval, b: Interval) -> bool | None:
    if isinstance(op, cst.LessThan):
        return True if a.hi < b.lo else False if a.lo >= b.hi else None
    if isinstance(op, cst.LessThanEqual):
        return True if a.hi <= b.lo else False if a.lo > b.hi else None
    if isinstance(op, cst.GreaterThan):
        return _compare(cst.LessThan(), b, a)
    if isinstance(op, cst.GreaterThanEqual):
        return _compare(cst.LessThanEqual(), b, a)
    if isinstance(op, cst.Equal):
        if a.lo == a.hi == b.lo == b.hi:
            return True
        return False if a.hi < b.lo or b.hi < a.lo else None
    if isinstance(op, cst.NotEqual):
        equal = _compare(cst.Equal(), a, b)
        return None if equal is None else not equal
    return None


def interval_of(
    node: cst.BaseExpression, ranges: Mapping[str, Interval], lookup: Lookup
) -> Interval | None:
    """The range of values an integer expression can take, or None when unknown."""
    if isinstance(node, cst.Integer):
        value = int(node.value, 0)
        return Interval(value, value)
    if isinstance(node, cst.Name):
        if node.value in ranges:
            return ranges[node.value]
        found = lookup(node.value)
        if isinstance(found, Const):
            return Interval(found.value, found.value)
        return None
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = interval_of(node.expression, ranges, lookup)
        return None if inner is None else Interval(-inner.hi, -inner.lo)
    if isinstance(node, cst.BinaryOperation):
        a = interval_of(node.left, ranges, lookup)
        b = interval_of(node.right, ranges, lookup)
        if a is None or b is None:
            return None
        op = node.operator
        if isinstance(op, cst.Add):
            return Interval(a.lo + b.lo, a.hi + b.hi)
        if isinstance(op, cst.Subtract):
            return Interval(a.lo - b.hi, a.hi - b.lo)
        if isinstance(op, cst.Multiply):
            corners = [a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi]
            return Interval(min(corners), max(corners))
        if isinstance(op, cst.FloorDivide) and b.lo == b.hi and b.lo > 0:
            return Interval(a.lo // b.lo, a.hi // b.lo)
        if isinstance(op, cst.Modulo) and b.lo == b.hi and b.lo > 0:
            if a.lo == a.hi:
                return Interval(a.lo % b.lo, a.lo % b.lo)
            return Interval(0, b.lo - 1)
    return None


Monomial = tuple[str, ...]  # the keys of its symbols, sorted; a symbol twice is its square


@dataclass(frozen=True)
class IntegerForm:
    """An integer expression in canonical form: a constant plus a sum of monomials, each
    with a non-zero integer coefficient, sorted. Expressions of ``+``, ``-`` and ``*``
    that are equal for every value of their symbols have equal forms, so an expression
    whose symbols all cancel is a constant."""

    terms: tuple[tuple[Monomial, int], ...] = ()
    constant: int = 0

    @staticmethod
    def of_sum(terms: Iterable[tuple[Monomial, int]], constant: int) -> IntegerForm | None:
        """The form of ``constant + sum(coefficient * monomial)`` (like terms merged);
        None when it is beyond what the analyzer folds (int64, a bounded size)."""
        merged: dict[Monomial, int] = {}
        for monomial, coefficient in terms:
            merged[monomial] = merged.get(monomial, 0) + coefficient
        kept = tuple(sorted((m, c) for m, c in merged.items() if c != 0))
        too_big = any(c.bit_length() > _INT64_BITS for _, c in kept)
        if too_big or constant.bit_length() > _INT64_BITS or len(kept) > _MAX_TERMS:
            return None
        return IntegerForm(kept, constant)

    @property
    def value(self) -> int | None:
        """The constant the form is, or None while a symbol is left."""
        return None if self.terms else self.constant

    @property
    def symbols(self) -> frozenset[str]:
        return frozenset(key for monomial, _ in self.terms for key in monomial)

    def plus(self, other: IntegerForm, sign: int = 1) -> IntegerForm | None:
        """``self + other`` (``self - other`` with ``sign=-1``)."""
        theirs = ((m, sign * c) for m, c in other.terms)
        return IntegerForm.of_sum((*self.terms, *theirs), self.constant + sign * other.constant)

    def times(self, other: IntegerForm) -> IntegerForm | None:
        """``self * other``, multiplied out."""
        mine = (*self.terms, ((), self.constant))
        theirs = (*other.terms, ((), other.constant))
        products = [(tuple(sorted(a + b)), x * y) for a, x in mine for b, y in theirs if a or b]
        return IntegerForm.of_sum(products, self.constant * other.constant)

    def divided(self, divisor: int, remainder: bool) -> IntegerForm | None:
        """``self // divisor`` (``self % divisor`` with ``remainder``) for a positive
        divisor of every coefficient of a symbol, where the symbols drop out of the
        remainder exactly; None otherwise (the analyzer keeps the division)."""
        if divisor <= 0 or any(c % divisor for _, c in self.terms):
            return None
        if remainder:
            return IntegerForm((), self.constant % divisor)
        terms = ((m, c // divisor) for m, c in self.terms)
        return IntegerForm.of_sum(terms, self.constant // divisor)

    def text(self) -> str:
        """The form written out (``2*c*K + 1``): the key of a division kept as a symbol."""
        parts = ["*".join((str(c), *m)) for m, c in self.terms]
        return " + ".join([*parts, str(self.constant)])


class IntegerForms:
    """Canonical forms of integer expressions folded with ``fold``, sharing one table of
    symbols so that forms of different expressions (a slice's bounds) can be combined.

    A symbol is anything ``fold`` leaves dynamic or computed at load time: a name (its key
    is the name: within one expression a name is one value, as the parser makes it one
    variable), a call or any other expression (one symbol for expressions written the
    same: the analyzer compares them structurally), a division it keeps (keyed by the
    forms divided).
    """

    def __init__(self, fold: Fold) -> None:
        self._fold = fold
        self.symbols: dict[str, Folded] = {}  # key -> what fold made of it, in source order
        self._leaves: list[tuple[cst.BaseExpression, str]] = []

    def of(self, node: cst.BaseExpression) -> IntegerForm | None:
        """``node``'s form; None when some part of it is not an integer the analyzer
        reads (a float, a string, something the parser refuses) or the form grows
        beyond what it folds."""
        try:
            return self._form(node)
        except RecursionError:
            return None

    def _form(self, node: cst.BaseExpression) -> IntegerForm | None:
        if type(node) is cst.Integer:
            return IntegerForm.of_sum((), int(node.value, 0))
        if type(node) is cst.UnaryOperation and isinstance(node.operator, _SIGNS):
            inner = self._form(node.expression)
            if inner is None or isinstance(node.operator, cst.Plus):
                return inner
            return IntegerForm().plus(inner, -1)
        if type(node) is cst.BinaryOperation and type(node.operator) in _ARITHMETIC:
            return self._binary(node)
        return self._leaf(node)

    def _binary(self, node: cst.BinaryOperation) -> IntegerForm | None:
        op = node.operator
        left, right = self._form(node.left), self._form(node.right)
        if left is None or right is None:
            return None
        if isinstance(op, cst.Add):
            return left.plus(right)
        if isinstance(op, cst.Subtract):
            return left.plus(right, -1)
        if isinstance(op, cst.Multiply):
            return left.times(right)
        remainder = isinstance(op, cst.Modulo)
        if right.value is not None:
            if right.value == 0:
                return None
            divided = left.divided(right.value, remainder)
            if divided is not None:
                return divided
            if left.value is not None:  # constants: fold computes it as Python does
                return self._leaf(node)
        key = f"({left.text()}) {'%' if remainder else '//'} ({right.text()})"
        self.symbols.setdefault(key, self._culprit(left.symbols | right.symbols))
        return IntegerForm((((key,), 1),))

    def _culprit(self, keys: frozenset[str]) -> Folded:
        """What a division of these symbols is: known at run time only if one of them is
        (the first such), else computed at load time (the first)."""
        parts = [folded for key, folded in self.symbols.items() if key in keys]
        dynamic = [folded for folded in parts if isinstance(folded, Dynamic)]
        return (dynamic or parts)[0]

    def _leaf(self, node: cst.BaseExpression) -> IntegerForm | None:
        folded = self._fold(node)
        if isinstance(folded, Const):
            return IntegerForm.of_sum((), folded.value)
        if not isinstance(folded, (Dynamic, Opaque)):
            return None
        return IntegerForm((((self._leaf_key(node, folded),), 1),))

    def _leaf_key(self, node: cst.BaseExpression, folded: Dynamic | Opaque) -> str:
        if isinstance(node, cst.Name):
            key = node.value
        else:
            for seen, known in self._leaves:
                if seen.deep_equals(node):
                    return known
            # bracketed: never a name's key; numbered: never another expression's
            key = f"[{folded.symbol}]#{len(self._leaves)}"
            self._leaves.append((node, key))
        self.symbols.setdefault(key, folded)
        return key

    def decided(self, form: IntegerForm) -> Folded:
        """The value ``form`` is: a constant, or what it still depends on, named by the
        first symbol known only at run time (then the first computed at load time: a value
        the compiler knows and skewlsp does not)."""
        if form.value is not None:
            return Const(form.value)
        return self._culprit(form.symbols)


def simplified(node: cst.BaseExpression, fold: Fold) -> Folded:
    """``node`` folded as Simplify leaves it: what ``fold`` makes of it, unless that is not
    a constant and its arithmetic says more (``(c + 1) * K - c * K`` is ``K``; in ``N * c``
    it is ``c`` that is known at run time only).

    The analyzer's rules reach every constant the canonical form does for the sums of
    scaled terms bounds and extents are written with; a product of two sums of run-time
    symbols (``(a + 1) * (b + 1) - a * b - a - b``) folds here and not there.
    """
    whole = fold(node)
    if not isinstance(whole, (Dynamic, Opaque)) or not _arithmetic(node):
        return whole
    forms = IntegerForms(fold)
    form = forms.of(node)
    return whole if form is None else forms.decided(form)


def _arithmetic(node: cst.BaseExpression) -> bool:
    """Whether ``node`` is arithmetic :class:`IntegerForms` reads into terms (``+``,
    ``-``, ``*``, ``//``, ``%``, a sign). Any other node is one symbol of its form,
    decided as what ``fold`` made of it, so :func:`simplified` reads no form of it:
    2,777 of the 5,587 extents and bounds a cold lint of pypto-lib leaves unknown are
    such leaves, and their forms cost 0.4% of its instructions."""
    if type(node) is cst.BinaryOperation:
        return type(node.operator) in _ARITHMETIC
    return type(node) is cst.UnaryOperation and isinstance(node.operator, _SIGNS)


def simplified_difference(
    upper: cst.BaseExpression, lower: cst.BaseExpression, fold: Fold
) -> Folded | None:
    """``upper - lower`` as the parser's analyzer folds a slice's extent; None when a bound
    is not integer arithmetic."""
    forms = IntegerForms(fold)
    start = forms.of(lower)
    stop = forms.of(upper)
    difference = None if start is None or stop is None else stop.plus(start, -1)
    return None if difference is None else forms.decided(difference)


# -- the body Simplify leaves a pipeline loop ---------------------------------------------


def fold_if(stmt: cst.If, ctx: BodyContext, block: Block) -> list[Stmt]:
    """Simplify drops the branch of an ``if`` it proves never runs and inlines the one that
    does (walked by ``block``, the body walk); an ``if`` it cannot decide stays whole."""
    verdict = evaluate_condition(stmt.test, ctx.ranges, ctx.lookup)
    if verdict is True:
        return block(body_statements(stmt.body), ctx)
    if verdict is False:
        if stmt.orelse is None:
            return []
        if isinstance(stmt.orelse, cst.If):
            return fold_if(stmt.orelse, ctx, block)
        return block(body_statements(stmt.orelse.body), ctx)
    return [compound(stmt)]


def folded_branches(
    stmt: cst.If, ranges: Mapping[str, Interval], lookup: Lookup, made: MadeTrees | None
) -> tuple[list[cst.CSTNode], list[cst.CSTNode], str] | None:
    """An ``if`` outside a pipeline body that Simplify proves (its Fold A collapses it
    wherever it is): the statements kept, those removed with the branch that never runs
    (its loops are never compiled), and why; None when the test is not proved. ``made``:
    the trees made in the analysis, which render the test (a made node's whitespace is
    not the text's: without them the unit would be decided again on libcst's tree)."""
    verdict = evaluate_condition(stmt.test, ranges, lookup)
    if verdict is None:
        return None
    test = full_code(stmt.test, made)[:60]
    kept, removed = _branches(stmt, verdict)
    if verdict:
        return kept, removed, f"Simplify folds `if {test}` to true: its `else` never runs"
    return kept, removed, f"Simplify folds `if {test}` to false: the branch never runs"


def _branches(stmt: cst.If, verdict: bool) -> tuple[list[cst.CSTNode], list[cst.CSTNode]]:
    """The statements Simplify keeps of an ``if`` it decides, and those it removes."""
    body: list[cst.CSTNode] = list(body_statements(stmt.body))
    orelse: list[cst.CSTNode] = [stmt.orelse] if stmt.orelse is not None else []
    return (body, orelse) if verdict else (orelse, body)


def kept_by_fold(fold: Fold) -> Callable[[cst.If], list[cst.CSTNode] | None]:
    """What Simplify keeps of an ``if`` whose test ``fold`` (an outlined scope's
    constants) decides, as :func:`folded_branches` keeps it with no loop ranges (a test
    on a loop variable stays undecided here); no reason is worded for it."""

    def kept(stmt: cst.If) -> list[cst.CSTNode] | None:
        verdict = evaluate_condition(stmt.test, {}, lambda name: fold(cst.Name(name)))
        return None if verdict is None else _branches(stmt, verdict)[0]

    return kept


def collapse_short_range(stmt: cst.For, ctx: BodyContext, block: Block) -> list[Stmt]:
    """Simplify inlines a plain ``pl.range`` that runs once and drops one that never runs
    (the inlined body walked by ``block``, the body walk)."""
    call = stmt.iter
    assert isinstance(call, cst.Call)
    shape = const_trip(call, ctx)
    if shape is not None and shape[2] > 0 and isinstance(stmt.target, cst.Name):
        start, _stop, _step, trip = shape
        if trip == 0:
            return []
        if trip == 1:
            return block(body_statements(stmt.body), ctx.with_value(stmt.target.value, start))
    elif shape is None and _symbolic_one_trip(call, ctx.made):
        return block(body_statements(stmt.body), ctx)
    return [compound(stmt)]


def _symbolic_one_trip(call: cst.Call, made: MadeTrees | None) -> bool:
    """``pl.range(k, k + c)`` with 0 < c <= step: one trip whatever k is."""
    args = dsl.positional(call)
    if len(args) not in (2, 3):
        return False
    start, stop = args[0].value, args[1].value
    step = (
        int(args[2].value.value, 0)
        if len(args) == 3 and isinstance(args[2].value, cst.Integer)
        else (1 if len(args) == 2 else None)
    )
    if (
        step is None
        or not isinstance(stop, cst.BinaryOperation)
        or not isinstance(stop.operator, cst.Add)
    ):
        return False
    # The same code (rendered: a made tree's whitespace is not the text's to compare).
    if not isinstance(stop.right, cst.Integer):
        return False
    if full_code(stop.left, made) != full_code(start, made):
        return False
    return 0 < int(stop.right.value, 0) <= step
