"""A parent loop skewed after its inner pipeline (inner depth 1, SKEW_RULES §6): the
preview rewrites the inner loop first, then the parent on the flattened body."""

from __future__ import annotations

import textwrap

import libcst as cst

from skewlsp.api import analyse, preview, rewrite
from tests.transform.fake_pl import Tensor, run_kernel

NESTED = """\
import pypto.language as pl


@pl.program
class Kernel:
    @pl.function
    def main(self, q: pl.Tensor[[128, 64], pl.FP32], kv: pl.Tensor[[128, 64], pl.FP32], out: pl.Tensor[[128, 64], pl.FP32], init):
        for i in pl.pipeline(0, 4, 1, stage=2):
            for j in pl.pipeline(0, 3, 1, stage=2):
                qa: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(q, [j * 16, i * 16], [16, 64])
                pl.tile.tpush_to_aiv(qa, split=0)
                e: pl.Tile[[16, 64], pl.FP32] = pl.tile.tpop_from_aiv(split=0)
                pl.tile.store(e, [j * 16, i * 16], out)
        return init
"""
OUTER, INNER = 8, 9
ARGS = (Tensor("q"), Tensor("kv"), Tensor("out"), "init")


def test_the_parent_is_skewed_after_its_depth_one_inner_loop() -> None:
    reports = {r.line: r for r in analyse(NESTED)}
    assert (reports[INNER].code, reports[INNER].depth) == ("SKW002", 1)
    assert (reports[OUTER].code, reports[OUTER].depth) == ("SKW001", 2)
    assert [h.code for h in reports[OUTER].hints] == ["SKW060"]  # the inner steady pushes move


def test_the_parent_preview_holds_the_inner_rewrite_in_every_clone() -> None:
    text = preview(NESTED, OUTER).rewritten
    cst.parse_module(textwrap.dedent(text))
    assert "for i in pl.range(2, 4, 2):" in text  # the parent's steady loop
    assert text.count("for j in pl.range(1, 3, 1):") == 4  # one inner steady loop per consume
    assert "pl.pipeline" not in text


def test_the_nested_rewrite_runs_the_same_work_in_the_compilers_order() -> None:
    """The inner loop's steady pushes are nested, so the pass does not count them: after the
    parent's skew they follow the next two produces. The stores are the same and in the same
    order; the FIFO to the vector core receives the same tiles in another order (what
    SKW060 warns about)."""
    before, _ = run_kernel(NESTED, *ARGS)
    after, _ = run_kernel(rewrite(NESTED, OUTER), *ARGS)
    destinations = [store[1:3] for store in before.stores()]
    assert len(destinations) == 12
    assert [store[1:3] for store in after.stores()] == destinations
    assert sorted(map(repr, after.pushes)) == sorted(map(repr, before.pushes))
    first_pushes = [push[2] for push in after.pushes[:4]]
    assert first_pushes == [(0, 0), (0, 16), (0, 32), (0, 48)]  # produce(i) for i = 0..3
    assert [push[2] for push in before.pushes[:4]] == [(0, 0), (16, 0), (32, 0), (0, 16)]
