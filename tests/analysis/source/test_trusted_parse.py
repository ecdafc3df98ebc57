"""libcst's parse without re-validating parser-built nodes; hand-built nodes still checked."""

from __future__ import annotations

import threading
from pathlib import Path

import libcst as cst
import pytest

from skewlsp.analysis.source import trusted_parse

KERNEL = Path(__file__).resolve().parents[2] / "fixtures" / "mixed" / "models" / "mixed_llm"


def test_the_switch_is_installed_on_the_libcst_we_depend_on():
    assert trusted_parse.INSTALLED


@pytest.mark.parametrize("path", sorted(KERNEL.glob("*.py")), ids=lambda p: p.name)
def test_a_trusted_parse_is_the_same_tree_as_libcsts_own(path: Path):
    text = path.read_text(encoding="utf-8")
    trusted = trusted_parse.parse_module(text)
    assert trusted.deep_equals(cst.parse_module(text))
    assert trusted.code == text


def test_expressions_and_statements_parse_the_same_way():
    assert trusted_parse.parse_expression("pl.matmul(a, b)").deep_equals(
        cst.parse_expression("pl.matmul(a, b)")
    )
    assert trusted_parse.parse_statement("x = pl.exp(h)\n").deep_equals(
        cst.parse_statement("x = pl.exp(h)\n")
    )


def test_a_node_built_by_hand_is_still_validated():
    with pytest.raises(cst.CSTValidationError):
        cst.Name("not a name")


def test_validation_comes_back_after_a_parse_that_failed():
    with pytest.raises(cst.ParserSyntaxError):
        trusted_parse.parse_module("for x in :\n")
    with pytest.raises(cst.CSTValidationError):
        cst.Name("not a name")


def test_another_thread_parsing_does_not_switch_validation_off_here():
    inside, release = threading.Event(), threading.Event()

    def parsing_elsewhere() -> None:
        with trusted_parse.parser_built():
            inside.set()
            release.wait(10)

    worker = threading.Thread(target=parsing_elsewhere)
    worker.start()
    try:
        assert inside.wait(10)
        with pytest.raises(cst.CSTValidationError):
            cst.Name("not a name")
    finally:
        release.set()
        worker.join()


def test_inside_the_block_this_thread_skips_the_check():
    """What the switch does (the parser's nodes are valid; nothing else is built here)."""
    with trusted_parse.parser_built():
        unchecked = cst.Name("not a name")
    assert unchecked.value == "not a name"
