"""Parsing without libcst's per-node validation gives libcst's tree, and validation comes back."""

from __future__ import annotations

import threading
from pathlib import Path

import libcst as cst
import pytest

from skewlsp.analysis import trusted_parse

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SOURCES = sorted(p for p in FIXTURES.rglob("*.py") if "pipeline" in p.read_text())


def _validates() -> bool:
    try:
        cst.Name("")  # libcst refuses an empty identifier when validating
    except cst.CSTValidationError:
        return True
    return False


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_the_tree_is_the_one_libcst_gives(path: Path) -> None:
    text = path.read_text()
    try:
        expected = cst.parse_module(text)
    except cst.ParserSyntaxError:
        with pytest.raises(cst.ParserSyntaxError):
            trusted_parse.parse_module(text)
        return
    tree = trusted_parse.parse_module(text)
    assert tree.deep_equals(expected) and tree.code == text


def test_validation_is_back_after_a_parse_and_after_a_refused_text() -> None:
    assert _validates()
    trusted_parse.parse_module("x = 1\n")
    assert _validates()
    with pytest.raises(cst.ParserSyntaxError):
        trusted_parse.parse_module("def broken(:\n")
    assert _validates()


def test_parses_on_several_threads_leave_validation_on() -> None:
    text = (FIXTURES / "mixed" / "models" / "built_llm" / "inline_attention.py").read_text()
    expected = cst.parse_module(text)
    results: list[bool] = []

    def parse_many() -> None:
        for _ in range(5):
            results.append(trusted_parse.parse_module(text).deep_equals(expected))

    threads = [threading.Thread(target=parse_many) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [True] * 20
    assert _validates()
