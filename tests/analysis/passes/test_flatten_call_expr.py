"""Nested calls on the other core become statements of their own, as SSA makes them."""

from __future__ import annotations

import libcst as cst

from skewlsp.analysis.frontend.constants import code_of
from skewlsp.analysis.frontend.names import small_statement_effects
from skewlsp.analysis.passes.body import Stmt
from skewlsp.analysis.passes.flatten_call_expr import flatten_crossing_calls


def stmt(code: str) -> Stmt:
    small = cst.parse_statement(code + "\n").body[0]
    defs, reads = small_statement_effects(small)
    return Stmt(small, "plain", tuple(defs), tuple(reads))


def shown(stmts: list[Stmt]) -> list[tuple[str, tuple[str, ...], tuple[str, ...]]]:
    # (the statements are libcst's parses: no made trees to cut their code from)
    return [(code_of(s.node, None), s.defs, s.reads) for s in stmts]


def test_a_matmul_inside_an_element_wise_op_is_lifted_before_it() -> None:
    original = stmt("s = pl.exp(pl.matmul(q, w, out_dtype=pl.FP32))")
    out = flatten_crossing_calls([original], None)
    assert shown(out) == [
        ("_matmul1 = pl.matmul(q, w, out_dtype=pl.FP32)", ("_matmul1",), ("pl", "q", "w", "pl")),
        ("s = pl.exp(_matmul1)", ("s",), ("pl", "_matmul1")),
    ]
    # Both take their position from the statement the author wrote.
    assert [s.located for s in out] == [original.node, original.node]


def test_lifting_goes_innermost_first_through_both_directions() -> None:
    out = flatten_crossing_calls(
        [stmt("o[r] = pl.matmul(pl.cast(pl.exp(pl.matmul(q, w)), target_type=pl.BF16), w)")],
        None,
    )
    assert [code_of(s.node, None) for s in out] == [
        "_matmul1 = pl.matmul(q, w)",
        "_cast1 = pl.cast(pl.exp(_matmul1), target_type=pl.BF16)",
        "o[r] = pl.matmul(_cast1, w)",
    ]


def test_calls_on_the_same_core_or_without_one_stay_nested() -> None:
    same = [
        stmt("p = pl.cast(pl.exp(s), target_type=pl.BF16)"),
        stmt("o = pl.assemble(o, pl.matmul(q, w), [r, 0])"),
        stmt("s = pl.matmul(pl.slice(q, [16, 16], [r, 0]), pl.transpose(w))"),
        stmt("n = pl.cast(pl.read(t, [0]), pl.INDEX)"),
        stmt("a = pl.matmul_acc(a, pl.matmul(q, w), w)"),
    ]
    assert flatten_crossing_calls(same, None) == same


def test_a_view_between_two_cores_does_not_hide_the_crossing() -> None:
    out = flatten_crossing_calls([stmt("e = pl.exp(pl.reshape(pl.matmul(q, w), [1, 64]))")], None)
    assert [code_of(s.node, None) for s in out] == [
        "_matmul1 = pl.matmul(q, w)",
        "e = pl.exp(pl.reshape(_matmul1, [1, 64]))",
    ]


def test_a_lifted_name_never_takes_one_the_body_uses() -> None:
    out = flatten_crossing_calls(
        [stmt("_matmul1 = pl.load(x, [0, 0], [16, 16])"), stmt("s = pl.add(_matmul1, pl.matmul(q, w))")],
        None,
    )
    assert [code_of(s.node, None) for s in out][1:] == [
        "_matmul2 = pl.matmul(q, w)",
        "s = pl.add(_matmul1, _matmul2)",
    ]
