"""The index of a file whose whole stdlib tree a batch run has: blocks read from the tree."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import pytest

from skewlsp.analysis.frontend.source_index import build_index, imported_module_index

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


def test_with_the_tree_no_block_is_parsed_again(monkeypatch: pytest.MonkeyPatch) -> None:
    tree = ast.parse(BLOCKS)
    parsed: Counter[str] = Counter()
    real = ast.parse

    def counting(text: str, *args: object, **kwargs: object) -> ast.AST:
        parsed[text.lstrip("\n")] += 1
        return real(text, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(ast, "parse", counting)
    index = build_index(BLOCKS, tree)
    assert (index.constant_sources["B"], index.constant_sources["TABLE"]) == (
        "A + 2",
        '{\n    "k": BASE,\n}',
    )
    assert sorted(index.imported) == ["BASE", "TRIP"]
    assert [u.qualname for u in index.units] == ["kernel"]
    # At most the pypto import line, which the index reads wherever it is (even indented),
    # once per process: the same line starts every kernel file.
    assert set(parsed) <= {"import pypto.language as pl"}


def test_an_imported_module_is_indexed_once_per_text() -> None:
    text = "N = 4  # an imported config module, unique to this test\n"
    first = imported_module_index(text)
    assert imported_module_index(text) is first
    assert first.constant_sources == {"N": "4"}
