"""The index of a file whose whole stdlib tree a batch run has: blocks read from the tree."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from skewlsp.analysis.frontend.source_index import (
    build_exact_index,
    build_index,
    imported_module_index,
)

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
KERNELS = sorted(p for p in FIXTURES.rglob("*.py") if "pipeline" in p.read_text())


def _parses(path: Path) -> bool:
    try:
        ast.parse(path.read_text())
    except SyntaxError:
        return False
    return True


BLOCKS = '''\
import pypto.language as pl
from consts import (
    TRIP,
    BASE,
)

A = 1; B = A + 2
TABLE = {
    "k": BASE,
}


@pl.function
def kernel(x):
    for i in pl.pipeline(0, TRIP, 1, stage=2):
        pass
'''


@pytest.mark.parametrize("path", [p for p in KERNELS if _parses(p)], ids=lambda p: p.name)
def test_the_tree_gives_the_index_parsing_blocks_gives(path: Path) -> None:
    source = path.read_text()
    assert build_index(source, ast.parse(source)) == build_index(source)


@pytest.mark.parametrize("tree", [True, False], ids=["from the tree", "parsing blocks"])
def test_the_index_holds_the_constants_imports_and_units_as_written(tree: bool) -> None:
    index = build_index(BLOCKS, ast.parse(BLOCKS)) if tree else build_index(BLOCKS)
    assert (index.constant_sources["B"], index.constant_sources["TABLE"]) == (
        "A + 2",
        '{\n    "k": BASE,\n}',
    )
    assert sorted(index.imported) == ["BASE", "TRIP"]
    assert [u.qualname for u in index.units] == ["kernel"]


def test_an_imported_module_is_indexed_once_per_text() -> None:
    text = "N = 4  # an imported config module, unique to this test\n"
    first = imported_module_index(text)
    assert imported_module_index(text) is first
    assert first.constant_sources == {"N": "4"}


WRITES = '''\
import config
config.TILE = 64
x = config.ROWS = 8
config.A = config.B = 2
config.W += 1
'''


@pytest.mark.parametrize("tree", [True, False], ids=["from the tree", "parsing blocks"])
def test_the_index_holds_the_module_attributes_set_at_the_top_level_in_order(tree: bool) -> None:
    index = build_index(WRITES, ast.parse(WRITES)) if tree else build_index(WRITES)
    assert [(w.alias, w.attr, w.value, w.line) for w in index.attribute_writes] == [
        ("config", "TILE", "64", 2),
        ("config", "ROWS", "8", 3),
        ("config", "A", "2", 4),
        ("config", "B", "2", 4),
    ]
    assert index.attribute_writes == build_exact_index(WRITES).attribute_writes
    assert index.modules["config"].line == 1
