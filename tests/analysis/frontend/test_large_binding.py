"""A huge top-level binding (a data table) is kept as text (that it is never parsed into a
tree is a budget, measured in ``benchmarks/``)."""

from __future__ import annotations

from skewlsp.analysis import analyze
from skewlsp.analysis.frontend.source_index import LARGE_BINDING, build_index

TABLE = "TABLE = [\n" + "    1, 2, 3, 4, 5, 6, 7, 8, 9, 10,\n" * (LARGE_BINDING // 30) + "]\n"
KERNEL = """import pypto.language as pl

N = 8

def kernel(x):
    for i in pl.pipeline(0, N, 1, stage=2):
        t = pl.tile.load(x, [i * 16, 0], [16, 64])
        pl.tile.store(t, [i * 16, 0], x)
"""


def test_large_binding_is_kept_as_its_text() -> None:
    index = build_index(KERNEL + TABLE)
    assert index.constant_sources["TABLE"].startswith("[\n    1, 2,")
    assert index.constant_sources["TABLE"].endswith("9, 10,\n]")
    assert index.constant_sources["N"] == "8"


def test_loops_next_to_a_large_table_are_still_analysed() -> None:
    reports = analyze(TABLE + KERNEL)
    assert [(r.code, r.stop, r.span.line) for r in reports] == [("SKW011", 8, TABLE.count("\n") + 6)]


def test_later_small_binding_of_the_same_name_wins() -> None:
    index = build_index(TABLE + "TABLE = 3\n")
    assert index.constant_sources["TABLE"] == "3"


def test_chained_large_binding_is_parsed_as_before() -> None:
    index = build_index("A = " + TABLE)
    assert index.constant_sources["A"].startswith("[") and index.constant_sources["TABLE"].startswith("[")


def test_a_large_table_set_on_another_module_is_kept_as_its_text_in_order() -> None:
    written = "import config\nconfig.TILE = 8\n" + "config." + TABLE + "config.N = 4\n"
    index = build_index(written)
    assert [(w.alias, w.attr, w.line) for w in index.attribute_writes] == [
        ("config", "TILE", 2),
        ("config", "TABLE", 3),
        ("config", "N", written.count("\n")),
    ]
    table = index.attribute_writes[1].value
    assert table.startswith("[\n    1, 2,") and table.endswith("9, 10,\n]")
