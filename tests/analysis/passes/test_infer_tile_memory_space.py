"""Which statements of a loop body read one implicit move of a tile made outside it.

The per-core verdicts these moves lead to are in test_mixed_families.py (hoisted.py,
checked against the compiler); here the finding itself, on one core's statement list.
"""

from __future__ import annotations

import libcst as cst

from skewlsp.analysis.frontend.op_registry import CUBE, LAZY, VECTOR
from skewlsp.analysis.frontend.state import AnalysisState
from skewlsp.analysis.passes.body import SharedMove, Stmt
from skewlsp.analysis.passes.infer_tile_memory_space import operand_moves, shared_moves


def _stmt(code: str, defs: tuple[str, ...] = (), kind: str = "plain") -> Stmt:
    node = cst.parse_statement(code)
    if isinstance(node, cst.SimpleStatementLine):
        return Stmt(node.body[0], kind, defs, ())  # type: ignore[arg-type]
    return Stmt(node, "compound", defs, ())


OUTSIDE = {"wt": CUBE, "qt": LAZY, "norm": VECTOR}


def test_two_matmuls_taking_an_outside_tile_as_the_same_operand_share_its_move() -> None:
    stmts = [
        _stmt("h = pl.matmul(x, wt)\n", ("h",)),
        _stmt("g = pl.exp(h)\n", ("g",)),
        _stmt("y[0:32, 0:64] = pl.matmul(g, wt)\n"),
    ]
    assert shared_moves(stmts, OUTSIDE, None) == (SharedMove("wt", "Right", (0, 2)),)


def test_left_and_right_are_two_moves() -> None:
    stmts = [_stmt("a = pl.matmul(qt, x)\n", ("a",)), _stmt("b = pl.matmul(x, qt)\n", ("b",))]
    assert shared_moves(stmts, OUTSIDE, None) == ()


def test_a_transposed_operand_gets_a_view_and_a_move_of_its_own() -> None:
    stmts = [
        _stmt("s = pl.matmul(q, wt, b_trans=True)\n", ("s",)),
        _stmt("o = pl.matmul(p, wt)\n", ("o",)),
    ]
    assert shared_moves(stmts, OUTSIDE, None) == ()


def test_keywords_and_the_accumulating_matmul_name_their_operands() -> None:
    stmts = [
        _stmt("a = pl.matmul(lhs=qt, rhs=x)\n", ("a",)),
        _stmt("b = pl.matmul_acc(a, qt, y)\n", ("b",)),
    ]
    assert shared_moves(stmts, OUTSIDE, None) == (SharedMove("qt", "Left", (0, 1)),)


def test_tiles_made_in_the_body_or_living_in_vec_are_not_moved_into_the_cube() -> None:
    stmts = [
        _stmt("wt = pl.load(w, [0, 0], [64, 64])\n", ("wt",)),
        _stmt("a = pl.matmul(x, wt)\n", ("a",)),
        _stmt("b = pl.matmul(y, wt)\n", ("b",)),
        _stmt("c = pl.matmul(x, norm)\n", ("c",)),
        _stmt("d = pl.matmul(y, norm)\n", ("d",)),
    ]
    assert shared_moves(stmts, OUTSIDE, None) == ()


def test_a_nested_block_reuses_a_move_made_before_it_but_makes_none_for_later_statements() -> None:
    reuse = [
        _stmt("a = pl.matmul(x, wt)\n", ("a",)),
        _stmt("if c:\n    b = pl.matmul(y, wt)\n", ("b",)),
    ]
    assert shared_moves(reuse, OUTSIDE, None) == (SharedMove("wt", "Right", (0, 1)),)
    scoped = [
        _stmt("if c:\n    b = pl.matmul(y, wt)\n", ("b",)),
        _stmt("a = pl.matmul(x, wt)\n", ("a",)),
    ]
    assert shared_moves(scoped, OUTSIDE, None) == ()


def test_a_move_made_before_the_loop_is_reused_and_shared_by_nobody() -> None:
    stmts = [
        _stmt("h = pl.matmul(x, wt)\n", ("h",)),
        _stmt("y[0:32, 0:64] = pl.matmul(g, wt)\n"),
    ]
    assert shared_moves(stmts, OUTSIDE, None, made_before={("wt", "Right")}) == ()
    assert shared_moves(stmts, OUTSIDE, None, made_before={("wt", "Left")}) == (
        SharedMove("wt", "Right", (0, 1)),
    )


HOISTED = '''\
def main(x, w, out):
    wt = pl.load(w, [0, 0], [64, 64])  # read as the matmul's Right operand
    s = pl.add(x, x)
    a = pl.matmul(x, wt)
    b = pl.exp(s)
    for i in pl.pipeline(0, 8, 1, stage=2):
        pl.store(a, [i, 0], out)
'''


def test_the_moves_of_a_made_tree_are_libcst_s() -> None:
    expected = [[], [], [("x", "Left"), ("wt", "Right")], [], []]
    concrete = _statements(cst.parse_module(HOISTED))
    assert [list(operand_moves(stmt, None)) for stmt in concrete] == expected
    state = AnalysisState()
    made = state.analysis_module(HOISTED, lambda: state.parses.unit_tree(HOISTED, None))
    assert made is not None and state.made.holds(made)
    assert [list(operand_moves(stmt, state.made)) for stmt in _statements(made)] == expected


def _statements(module: cst.Module) -> list[cst.CSTNode]:
    fn = module.body[0]
    assert isinstance(fn, cst.FunctionDef)
    return list(fn.body.body)
