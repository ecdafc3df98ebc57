"""The nesting guard in front of libcst's native parser.

libcst's parser recurses on the C stack and crashes the process on code nested
a few thousand levels deep, so the engine measures the stdlib tree first and
refuses anything deeper than MAX_SYNTAX_DEPTH. The guard skips short
expressions for speed; these tests hold it to the exhaustive answer.
"""

from __future__ import annotations

import ast

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skewlsp.analysis.source.guard import MAX_SYNTAX_DEPTH, TooDeep, _check_depth
from tests.fuzz.strategies import PYTHON


def exhaustive_depth(tree: ast.AST) -> int:
    deepest = 0
    stack = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return deepest


def guard_refuses(source: str) -> bool:
    try:
        _check_depth(ast.parse(source))
    except TooDeep:
        return True
    return False


def assert_guard_is_exact(source: str) -> None:
    assert guard_refuses(source) == (exhaustive_depth(ast.parse(source)) > MAX_SYNTAX_DEPTH)


CHAINS = {
    "unary minus": lambda n: "-" * n + "1",
    "additions": lambda n: "+".join(["i"] * n),
    "powers": lambda n: "**".join(["2"] * n),
    "attributes": lambda n: "q" + ".a" * n,
    "calls": lambda n: "f" + "()" * n,
    "subscripts": lambda n: "t" + "[0]" * n,
    "not": lambda n: "not " * n + "x",
    "lambdas": lambda n: "lambda: " * n + "0",
    "conditionals": lambda n: "a if b else " * n + "c",
    "f-string around a chain": lambda n: 'f"{' + "-" * n + '1}"',
}


@pytest.mark.parametrize("name", sorted(CHAINS))
@pytest.mark.parametrize("length", [10, 70, 74, 150, 299, 301, 400])
def test_one_line_chains_are_refused_exactly_when_too_deep(name: str, length: int) -> None:
    assert_guard_is_exact(f"def k(i):\n    x = {CHAINS[name](length)}\n")


def test_a_long_chain_is_refused_and_a_short_kernel_line_is_not() -> None:
    assert guard_refuses("x = " + "-" * 1000 + "1\n")
    assert not guard_refuses("x = pl.tile.load(q, [i * 16, 0], [16, 64])\n")


def test_the_depth_of_enclosing_blocks_adds_to_the_expressions() -> None:
    chain = "-" * 210 + "1"  # 212 levels alone, 307 under 95 ifs
    assert not guard_refuses(f"y = {chain}\n")
    ifs = "".join(" " * k + "if x:\n" for k in range(95))  # CPython allows 100 levels
    nested = ifs + " " * 95 + f"y = {chain}\n"
    assert guard_refuses(nested)
    assert_guard_is_exact(nested)


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    st.lists(st.sampled_from(sorted(CHAINS)), min_size=1, max_size=3),
    st.integers(1, 200),
    st.integers(0, 60),
)
def test_mixed_chains_at_any_depth(kinds: list[str], length: int, indent: int) -> None:
    expression = "0"
    for kind in kinds:
        expression = f"({CHAINS[kind](length)}) + ({expression})"
    body = "".join(" " * k + "if x:\n" for k in range(indent)) + " " * indent + f"y = {expression}\n"
    try:
        ast.parse(body)
    except (SyntaxError, RecursionError, MemoryError):
        return  # beyond what CPython itself parses
    assert_guard_is_exact(body)


@pytest.mark.slow  # fuzzing: any program the grammar allows
@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(PYTHON)
def test_any_python_program(source: str) -> None:
    try:
        ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return
    assert_guard_is_exact(source)
