"""Def/use facts of statements."""

from __future__ import annotations

import libcst as cst

from skewlsp.analysis.frontend.names import block_defs, statement_defs, statement_effects

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


def test_a_caller_changing_an_answer_does_not_change_the_next_one() -> None:
    first = statement_effects(LOOP)
    first[0].append("mutated by a caller")
    assert statement_effects(LOOP) == (["a", "t", "c"], ["pl", "b", "t"])


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


def test_the_names_bound_are_those_of_the_full_effects() -> None:
    assert statement_defs(LOOP) == statement_effects(LOOP)[0] == ["a", "t", "c"]
