"""Def/use facts of statements, and their memo during one unit's analysis."""

from __future__ import annotations

import libcst as cst
import pytest

from skewlsp.analysis.frontend import names
from skewlsp.analysis.frontend.names import (
    block_defs,
    memoised_effects,
    statement_defs,
    statement_effects,
)

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

    def counting(stmt: cst.CSTNode, read: names._Reader) -> tuple[list[str], list[str]]:
        calls.append(stmt)
        return real(stmt, read)

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


FUNCTION_BODY = cst.parse_module(
    "x, *rest = f(a)\n"
    "y: int\n"
    "z: int = 3\n"
    "n += 1\n"
    "q[k] = v\n"
    "with pl.at(level=1) as (s, u):\n"
    "    w = s\n"
    "try:\n"
    "    e1 = 1\n"
    "except E as err:\n"
    "    e2 = 2\n"
    "else:\n"
    "    e3 = 3\n"
    "finally:\n"
    "    e4 = 4\n"
    "while c:\n"
    "    wv = 1\n"
    "if p:\n"
    "    b1 = 1\n"
    "elif r:\n"
    "    b2 = 2\n"
    "else:\n"
    "    b3 = 3\n"
    "for (i, j) in pl.range(4):\n"
    "    fv = i\n"
    "def helper():\n"
    "    inner = 1\n"
    "class Config:\n"
    "    field = 1\n"
    "import os\n"
).body

BOUND = [
    "x", "rest", "z", "n", "q", "s", "u", "w", "e1", "e2", "e3", "e4", "wv",
    "b1", "b2", "b3", "fv", "helper", "Config",
]  # fmt: skip


def test_the_names_a_block_binds_are_listed_in_source_order() -> None:
    assert block_defs(FUNCTION_BODY) == BOUND
    assert [name for stmt in FUNCTION_BODY for name in statement_defs(stmt)] == BOUND


def test_asking_only_for_the_names_bound_reads_no_expression(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(node: cst.CSTNode | None) -> list[str]:
        raise AssertionError("an expression was read")

    monkeypatch.setattr(names, "reads_of", refuse)
    assert block_defs(FUNCTION_BODY) == BOUND
    assert statement_defs(LOOP) == ["a", "t", "c"]


def test_the_names_bound_asked_first_leave_the_full_effects_whole() -> None:
    with memoised_effects():
        assert statement_defs(LOOP) == ["a", "t", "c"]
        assert statement_effects(LOOP) == (["a", "t", "c"], ["pl", "b", "t"])


def test_full_effects_known_answer_for_the_names_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with memoised_effects():
        statement_effects(LOOP)

        def refuse(stmt: cst.CSTNode, read: names._Reader) -> tuple[list[str], list[str]]:
            raise AssertionError("worked out again")

        monkeypatch.setattr(names, "_statement_effects", refuse)
        assert statement_defs(LOOP) == ["a", "t", "c"]
