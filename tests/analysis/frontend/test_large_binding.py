"""A huge top-level binding (a data table) is kept as text, never parsed into a tree."""

from __future__ import annotations

from skewlsp.analysis import analyze
from skewlsp.analysis.frontend import source_index
from skewlsp.analysis.frontend.source_index import LARGE_BINDING, build_index

TABLE = "TABLE = [\n" + "    1, 2, 3, 4, 5, 6, 7, 8, 9, 10,\n" * (LARGE_BINDING // 30) + "]\n"
KERNEL = """import pypto.language as pl

N = 8

def kernel(x):
    for i in pl.pipeline(0, N, 1, stage=2):
        t = pl.tile.load(x, [i * 16, 0], [16, 64])
        pl.tile.store(t, [i * 16, 0], x)
"""


def test_large_binding_is_kept_as_text_without_parsing(monkeypatch) -> None:
    parsed: list[str] = []
    real = source_index._parse_block

    def recording(lines, block):
        parsed.append(block.header)
        return real(lines, block)

    monkeypatch.setattr(source_index, "_parse_block", recording)
    index = build_index(KERNEL + TABLE)
    assert "TABLE = [" not in parsed and "N = 8" in parsed
    assert index.constant_sources["TABLE"].startswith("[\n    1, 2,")
    assert index.constant_sources["TABLE"].endswith("9, 10,\n]")
    assert index.constant_sources["N"] == "8"


def test_loops_next_to_a_large_table_are_still_analysed() -> None:
    reports = analyze(TABLE + KERNEL)
    assert [(r.code, r.stop, r.span.line) for r in reports] == [("SKW010", 8, TABLE.count("\n") + 6)]


def test_later_small_binding_of_the_same_name_wins() -> None:
    index = build_index(TABLE + "TABLE = 3\n")
    assert index.constant_sources["TABLE"] == "3"


def test_chained_large_binding_is_parsed_as_before() -> None:
    index = build_index("A = " + TABLE)
    assert index.constant_sources["A"].startswith("[") and index.constant_sources["TABLE"].startswith("[")
