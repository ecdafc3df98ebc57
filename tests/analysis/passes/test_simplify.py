"""Simplify's integer arithmetic: an expression of ``+``, ``-`` and ``*`` over symbols is
folded through its canonical form, so equal expressions fold alike and one whose symbols
cancel is a constant, as the compiler's arithmetic analyzer folds it
(``src/ir/arith/rewrite_simplify.cpp``: cancellation, constant coefficients, a constant
distributed over a sum, ``floordiv(x * c1 + y, c2)``).

In the kernels below ``K`` is a compile-time constant (64), ``c`` and ``d`` are known only
at run time (a loop variable, a scalar parameter), ``T`` is a symbolic dimension and ``N``
is computed when the module loads: the compiler knows its value, skewlsp does not.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable, Mapping

import libcst as cst
import pytest
from hypothesis import given
from hypothesis import strategies as st

from skewlsp.analysis.frontend.constants import (
    Const,
    Dynamic,
    Folded,
    Folder,
    Opaque,
    RealConstant,
    Symbolic,
)
from skewlsp.analysis.passes.simplify import (
    IntegerForm,
    IntegerForms,
    evaluate_condition,
    folded_branches,
    simplified,
    simplified_difference,
)
from skewlsp.analysis.source.cst_from_ast import convert
from skewlsp.analysis.source.tree_text import MadeTrees

KNOWN: Mapping[str, Folded] = {
    "K": Const(64),
    "T": Symbolic("T", "`T` is a symbolic dimension"),
    "N": Opaque("N", "`N` = `int(os.environ['N'])` is computed when the module loads"),
}


def fold(node: cst.BaseExpression) -> Folded:
    return Folder(KNOWN.get, None).fold(node)


def expr(text: str) -> cst.BaseExpression:
    return cst.parse_expression(text)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("(c + 1) * K - c * K", 64),
        ("c * K + K - c * K", 64),
        ("K * (c + 1) - K * c", 64),
        ("2 * (c + K) - 2 * c", 128),
        ("(c + 2) * K - (c + 1) * K", 64),
        ("(c - 1) * K - c * K", -64),
        ("-(c * K) + (c + 1) * K", 64),
        ("(c + d + 1) * K - (d + c) * K", 64),
        ("(c // 2 + 1) * K - c // 2 * K", 64),
        ("((c + 1) * K) // 2 - (c * K) // 2", 32),
        ("(c * K + 8) % 16", 8),
        ("(c + 1) * d - c * d - d", 0),
    ],
)
def test_an_expression_whose_symbols_cancel_is_a_constant(text: str, value: int) -> None:
    assert fold(expr(text)) != Const(value)  # folded operand by operand, it is not
    assert simplified(expr(text), fold) == Const(value)


@pytest.mark.parametrize(
    ("upper", "lower", "value"),
    [
        ("(c + 1) * K", "c * K", 64),
        ("c * K + K", "c * K", 64),
        ("32 + c * 16 + 16", "32 + c * 16", 16),
        ("(c + 1) * 2 * K", "2 * c * K", 128),
    ],
)
def test_a_slice_s_extent_is_folded_as_the_parser_folds_upper_minus_lower(
    upper: str, lower: str, value: int
) -> None:
    assert simplified_difference(expr(upper), expr(lower), fold) == Const(value)


def test_what_is_left_of_an_extent_is_named_by_the_run_time_value_it_depends_on() -> None:
    # ``(c + 1) * T - c * T`` is ``T``: its shape depends on the symbolic dimension, not on c
    left = simplified_difference(expr("(c + 1) * T"), expr("c * T"), fold)
    assert left == KNOWN["T"]
    assert simplified_difference(expr("c * K + d"), expr("c * K"), fold) == Dynamic(
        "d", "`d` is not a compile-time constant"
    )


def test_an_extent_of_values_computed_at_load_time_is_known_to_the_compiler_only() -> None:
    assert simplified_difference(expr("(c + 1) * N"), expr("c * N"), fold) == KNOWN["N"]
    assert simplified(expr("(c + 2) * N - c * N"), fold) == KNOWN["N"]


def test_a_run_time_factor_outweighs_a_load_time_one() -> None:
    # N * c is known at run time only, whatever N is
    assert fold(expr("N * c")) == KNOWN["N"]
    assert simplified(expr("N * c"), fold) == Dynamic("c", "`c` is not a compile-time constant")


@pytest.mark.parametrize(
    "text",
    [
        "(c + 1) // 2 - c // 2",  # 0 or 1: the analyzer keeps both divisions
        "c % 3 - c",
        "(c * 6 + 1) // 4 - c",  # 4 does not divide 6
        "c // -2 * -2 - c",  # a negative divisor stays a division
        "c ** 2 - c * c",  # a power is a symbol of its own
        "c * 2.0 - c * 2.0",  # not integer arithmetic
        "(c + 2**62) * 4 - c * 4",  # past int64: the analyzer leaves it unfolded
    ],
)
def test_what_the_analyzer_does_not_fold_stays_as_it_was(text: str) -> None:
    assert simplified(expr(text), fold) == fold(expr(text))


def test_a_constant_or_a_refusal_is_left_to_the_fold() -> None:
    assert simplified(expr("K * 2 - 1"), fold) == Const(127)
    assert simplified(expr("K // 0"), fold) == fold(expr("K // 0"))


@pytest.mark.parametrize("text", ["c", "N", "pl.tile.get_block_idx()", "c ** 2"])
def test_a_value_left_unknown_that_is_not_arithmetic_is_folded_once(text: str) -> None:
    # Its canonical form is one symbol, the value ``fold`` made of it: nothing more to read
    # (an extent or bound is folded for every loop copy and build).
    asked: list[str] = []

    def counted(node: cst.BaseExpression) -> Folded:
        asked.append(cst.Module([]).code_for_node(node))
        return fold(node)

    assert simplified(expr(text), counted) == fold(expr(text))
    assert asked == [text]


def test_equal_expressions_have_equal_forms_and_a_call_is_one_symbol() -> None:
    forms = IntegerForms(fold)
    assert forms.of(expr("(c + d) * (c - d)")) == forms.of(expr("c * c - d * d"))
    assert forms.of(expr("pl.tile.get_block_idx() * K + K - pl.tile.get_block_idx() * K")) == (
        IntegerForm((), 64)
    )
    # two calls written differently are two symbols
    assert forms.of(expr("f(c) - f(d)")) != IntegerForm()


# -- the form evaluates as the expression does ------------------------------------------------

Drawn = tuple[str, Callable[[Mapping[str, int]], int]]
LEAVES: st.SearchStrategy[Drawn] = st.one_of(
    st.sampled_from(["a", "b"]).map(lambda n: (n, lambda env, n=n: env[n])),
    st.integers(-5, 5).map(lambda v: (f"({v})", lambda env, v=v: v)),
)


def _extend(inner: st.SearchStrategy[Drawn]) -> st.SearchStrategy[Drawn]:
    def binary(op: str, fn: Callable[[int, int], int]) -> st.SearchStrategy[Drawn]:
        return st.tuples(inner, inner).map(
            lambda p: (f"({p[0][0]} {op} {p[1][0]})", lambda env: fn(p[0][1](env), p[1][1](env)))
        )

    def divided(op: str) -> st.SearchStrategy[Drawn]:
        # (d * x + r) // d and % d: a divisor of every coefficient of a symbol
        return st.tuples(inner, st.integers(1, 6), st.integers(-7, 7)).map(
            lambda t: (
                f"(({t[1]} * {t[0][0]} + ({t[2]})) {op} {t[1]})",
                lambda env: (
                    (t[1] * t[0][1](env) + t[2]) // t[1]
                    if op == "//"
                    else (t[1] * t[0][1](env) + t[2]) % t[1]
                ),
            )
        )

    return st.one_of(
        binary("+", lambda x, y: x + y),
        binary("-", lambda x, y: x - y),
        binary("*", lambda x, y: x * y),
        inner.map(lambda p: (f"-{p[0]}", lambda env: -p[1](env))),
        divided("//"),
        divided("%"),
    )


EXPRESSIONS = st.recursive(LEAVES, _extend, max_leaves=8)


def _evaluated(form: IntegerForm, env: Mapping[str, int]) -> int:
    return form.constant + sum(c * math.prod(env[k] for k in m) for m, c in form.terms)


@given(EXPRESSIONS, st.integers(-50, 50), st.integers(-50, 50))
def test_the_form_of_an_expression_evaluates_as_the_expression_does(
    drawn: Drawn, a: int, b: int
) -> None:
    text, evaluate = drawn
    form = IntegerForms(fold).of(expr(text))
    assert form is not None
    assert _evaluated(form, {"a": a, "b": b}) == evaluate({"a": a, "b": b})


@given(EXPRESSIONS)
def test_an_expression_minus_itself_written_again_is_zero(drawn: Drawn) -> None:
    text, _ = drawn
    assert simplified_difference(expr(text), expr(text), fold) == Const(0)


def test_an_if_simplify_folds_on_a_tree_made_from_the_stdlib_s_is_worded_from_the_text() -> None:
    # A lint reads trees made from the stdlib's, whose whitespace is not the text's: the
    # fold's reason quotes the test as written (not rendered from placeholders, which
    # would make the whole function be decided again on libcst's own tree).
    text = "def kernel():\n    if TP_SIZE  ==  2:  # the default build\n        pass\n    else:\n        pass\n"
    converted = convert(ast.parse(text), text)
    made = MadeTrees()
    made.add(converted)
    fn = converted.module.body[0]
    assert isinstance(fn, cst.FunctionDef) and isinstance(fn.body, cst.IndentedBlock)
    stmt = fn.body.body[0]
    assert isinstance(stmt, cst.If)
    folded = folded_branches(stmt, {}, {"TP_SIZE": Const(2)}.get, made)
    assert folded is not None
    kept, removed, why = folded
    assert (len(kept), len(removed)) == (1, 1)
    assert why == "Simplify folds `if TP_SIZE  ==  2` to true: its `else` never runs"


FLOATS: Mapping[str, Folded] = {
    "LIMIT": RealConstant(
        "LIMIT", "`LIMIT` = `M.swiglu_limit` is computed when the module loads", 10.0
    ),
    "FLOOR": RealConstant("FLOOR", "`FLOOR` = `M.floor` is computed when the module loads", 0.0),
    "K": Const(64),
}


@pytest.mark.parametrize(
    ("test", "known"),
    [
        ("LIMIT > 0.0", True),
        ("FLOOR > 0.0", False),
        ("-LIMIT < 0.0", True),
        ("LIMIT == 10.0", True),
        ("LIMIT != 10.0", False),
        ("0.5 <= FLOOR", False),
        ("LIMIT >= FLOOR", True),
    ],
)
def test_a_comparison_of_two_float_constants_is_folded_as_the_constant_folder_folds_it(
    test: str, known: bool
) -> None:
    # pypto e2d0f78ae drops `if SWIGLU_LIMIT > 0.0:` (10.0 in the build) before the skew
    # pass and keeps its body (tests/fixtures/memory/models/mem_llm/clamped.py)
    assert evaluate_condition(expr(test), {}, FLOATS.get) is known


@pytest.mark.parametrize("test", ["LIMIT > 0", "K > 0.5", "UNSEEN > 0.0", "LIMIT * 2.0 > 1.0"])
def test_a_float_against_an_integer_or_an_unknown_value_is_not_decided(test: str) -> None:
    # The DSL parser refuses `LIMIT > 0` ("Operator 'gt' requires same numeric dtype
    # category, got fp32 and index"); the rest are not constants this fold reads
    assert evaluate_condition(expr(test), {}, FLOATS.get) is None
