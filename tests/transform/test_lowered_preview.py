"""The preview of a loop the lowering passes rewrite runs as the original does.

Each kernel is run before and after its rewrite against the recording fake of
``pypto.language``: the same stores, in the same order, whatever the trip (bounds known
only at run time are run with every remainder the chain dispatches).
"""

from __future__ import annotations

import pytest

from skewlsp.api import PreviewUnavailable, analyse, preview, rewrite
from tests.transform.fake_pl import Tensor, run_kernel

KERNEL = """\
import pypto.language as pl


@pl.program
class Kernel:
    @pl.function
    def main(self, q: pl.Tensor[[64, 64], pl.FP32], out: pl.Tensor[[64, 64], pl.FP32], n: pl.INDEX):
        for i in {header}:
            t: pl.Tile[[1, 64], pl.FP32] = pl.tile.load(q, [i, 0], [1, 64])
            pl.tile.store(pl.tile.add(t, t), [i, 0], out)
"""


def _stores(source: str, n: int) -> list[tuple]:
    fake, _ = run_kernel(source, Tensor("q"), Tensor("out"), n)
    return fake.stores()


CASES = {
    "pl.pipeline(0, 8, 1, stage=2)": "SKW011",
    "pl.pipeline(0, 10, 1, stage=4)": "SKW012",
    "pl.pipeline(0, 3, 1, stage=4)": "SKW014",
    "pl.pipeline(0, 20, 2, stage=4)": "SKW012",
    "pl.pipeline(9, -1, -1, stage=4)": "SKW012",
    "pl.pipeline(0, n, 1, stage=4)": "SKW013",
    "pl.pipeline(n, 12, 1, stage=3)": "SKW013",
    "pl.pipeline(0, n, 3, stage=2)": "SKW013",
}


@pytest.mark.parametrize("header", list(CASES))
def test_the_replicated_loop_stores_what_the_loop_stores(header: str) -> None:
    source = KERNEL.format(header=header)
    (report,) = analyse(source, "k.py")
    assert report.code == CASES[header], report.message
    rewritten = rewrite(source, report.line)
    assert "stage=1" in rewritten or report.code == "SKW014"
    for n in range(0, 11):  # every remainder of the run-time bounds
        assert _stores(rewritten, n) == _stores(source, n), (header, n, rewritten)


def test_a_trip_below_the_stage_is_its_copies_without_a_main_loop() -> None:
    source = KERNEL.format(header="pl.pipeline(0, 3, 1, stage=4)")
    (report,) = analyse(source, "k.py")
    text = preview(source, report.line).rewritten
    assert "pl.pipeline" not in text
    assert text.count("pl.tile.load(q, [") == 3
    assert "[0, 0]" in text and "[1, 0]" in text and "[2, 0]" in text


def test_a_dynamic_bound_gets_the_main_end_and_a_chain_of_stage_minus_one_branches() -> None:
    source = KERNEL.format(header="pl.pipeline(0, n, 1, stage=4)")
    (report,) = analyse(source, "k.py")
    text = preview(source, report.line).rewritten
    assert "unroll_main_end = (0) + ((n) - (0)) // 4 * 4" in text
    assert "unroll_rem = (n) - unroll_main_end" in text
    assert [line.strip() for line in text.splitlines() if "unroll_rem ==" in line] == [
        "if unroll_rem == 1:",
        "elif unroll_rem == 2:",
        "elif unroll_rem == 3:",
    ]


def test_under_ptoas_a_rotated_loop_keeps_one_body_over_pl_range() -> None:
    source = KERNEL.format(header="pl.pipeline(0, 8, 1, stage=2)").replace(
        "pl.tile.store(pl.tile.add(t, t), [i, 0], out)",
        "u = pl.tile.add(t, t)\n            pl.tile.store(u, [i, 0], out)",
    )
    (report,) = analyse(source, "k.py", planner="ptoas")
    assert report.code == "SKW015", report.message
    rewritten = rewrite(source, report.line, planner="ptoas")
    assert "pl.range(0, 8, 1)" in rewritten and "slot i % 2" in rewritten
    assert _stores(rewritten, 0) == _stores(source, 0)


def test_a_stage_of_one_is_not_rewritten() -> None:
    source = KERNEL.format(header="pl.pipeline(0, 8, 1, stage=1)")
    (report,) = analyse(source, "k.py")
    with pytest.raises(PreviewUnavailable, match="stage=1: nothing replicated"):
        preview(source, report.line)


CARRIED = """\
import pypto.language as pl


@pl.program
class Kernel:
    @pl.function
    def main(self, q: pl.Tensor[[64, 64], pl.FP32], out: pl.Tensor[[64, 64], pl.FP32], n: pl.INDEX):
        acc0: pl.Tile[[1, 64], pl.FP32] = pl.tile.load(q, [0, 0], [1, 64])
        for i, (acc_iter,) in {header}:
            t: pl.Tile[[1, 64], pl.FP32] = pl.tile.load(q, [i, 0], [1, 64])
            nxt: pl.Tile[[1, 64], pl.FP32] = pl.tile.add(acc_iter, t)
            pl.tile.store(nxt, [i, 0], out)
            acc0 = pl.yield_(nxt)
        pl.tile.store(acc0, [0, 0], out)
"""


@pytest.mark.parametrize(
    "header",
    [
        "pl.pipeline(0, 8, 1, stage=2, init_values=(acc0,))",
        "pl.pipeline(0, 7, 1, stage=2, init_values=(acc0,))",
        "pl.pipeline(0, 3, 1, stage=4, init_values=(acc0,))",
        "pl.pipeline(0, n, 1, stage=3, init_values=(acc0,))",
    ],
)
def test_a_carried_value_flows_through_every_copy_as_through_the_loop(header: str) -> None:
    source = CARRIED.format(header=header)
    (report,) = analyse(source, "k.py")
    assert report.lowering is not None and report.lowering.verdict == "replicated"
    rewritten = rewrite(source, report.line)
    for n in range(0, 8):
        assert _stores(rewritten, n) == _stores(source, n), (header, n, rewritten)


def test_a_form_feed_in_a_string_stays_in_its_string_in_every_copy() -> None:
    source = (
        "import pypto.language as pl\n\n\n@pl.program\nclass Kernel:\n    @pl.function\n"
        "    def main(self, q, out):\n        for i in pl.pipeline(0, 8, 1, stage=2):\n"
        '            "\x0c  "\n'
    )
    rewritten = preview(source, 8).rewritten
    assert rewritten.count('            "\x0c  "\n') == 2
