"""ConvertToSSA's edges: each read bound to the definition it sees; a read before the
body defines the name is the previous iteration's value (carried)."""

from __future__ import annotations

import libcst as cst

from skewlsp.analysis.passes.body import Stmt
from skewlsp.analysis.passes.convert_to_ssa import resolve


def stmt(defs: tuple[str, ...], reads: tuple[str, ...]) -> Stmt:
    return Stmt(cst.Pass(), "plain", defs, reads)


def test_a_read_sees_the_last_definition_before_it_and_one_before_any_is_carried() -> None:
    stmts = [stmt(("a",), ("acc",)), stmt(("acc",), ("a", "q")), stmt(("b",), ("acc", "a"))]
    resolve(stmts, iter_names=())
    assert [s.deps for s in stmts] == [{}, {"a": 0}, {"acc": 1, "a": 0}]
    assert [s.carried_reads for s in stmts] == [("acc",), (), ()]


def test_an_iter_arg_read_before_the_body_sets_it_is_carried() -> None:
    stmts = [stmt(("x",), ("state",))]
    resolve(stmts, iter_names=("state",))
    assert stmts[0].carried_reads == ("state",)
