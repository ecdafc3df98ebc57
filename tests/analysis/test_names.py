"""Def/use facts of statements, and their memo during one unit's analysis."""

from __future__ import annotations

import libcst as cst
import pytest

from skewlsp.analysis import names
from skewlsp.analysis.names import memoised_effects, statement_effects

LOOP = cst.parse_statement(
    "for i in pl.range(4):\n"
    "    a = b + i\n"
    "    t[i:i + 1] = a\n"
    "    if a:\n"
    "        c = a\n"
)


def test_a_loop_defines_what_its_body_assigns_and_reads_what_comes_from_outside() -> None:
    defs, reads = statement_effects(LOOP)
    assert defs == ["a", "t", "c"]
    assert reads == ["pl", "b", "t"]


def test_inside_the_memo_each_statement_is_worked_out_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[cst.CSTNode] = []
    real = names._statement_effects

    def counting(stmt: cst.CSTNode) -> tuple[list[str], list[str]]:
        calls.append(stmt)
        return real(stmt)

    monkeypatch.setattr(names, "_statement_effects", counting)
    plain = statement_effects(LOOP)
    calls.clear()
    with memoised_effects():
        first = statement_effects(LOOP)
        first[0].append("mutated by a caller")
        second = statement_effects(LOOP)
        after_first = len(calls)
        statement_effects(LOOP)
        assert len(calls) == after_first  # answered from the memo
    assert second == plain and first[0][:-1] == plain[0]
    statement_effects(LOOP)
    assert len(calls) > after_first  # outside the block: no memo
