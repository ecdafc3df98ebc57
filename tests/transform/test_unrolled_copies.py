"""A pipeline loop under ``pl.unroll``: the compiler rewrites each copy with its own
constants, so the preview must be right for every copy, not only the first."""

from __future__ import annotations

import textwrap

import libcst as cst

from skewlsp.api import preview, rewrite
from tests.transform.fake_pl import Tensor, run_kernel

UNROLLED = """\
import pypto.language as pl


@pl.program
class Kernel:
    @pl.function
    def main(self, q: pl.Tensor[[128, 64], pl.FP32], kv: pl.Tensor[[128, 64], pl.FP32], out: pl.Tensor[[128, 64], pl.FP32], init):
        for g in pl.unroll(2):
            for i in pl.pipeline(g * 4, g * 4 + 4, stage=2):
                qa: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(q, [i * 16, 0], [16, 64])
                pl.tile.tpush_to_aiv(qa, split=0)
                e: pl.Tile[[16, 64], pl.FP32] = pl.tile.tpop_from_aiv(split=0)
                pl.tile.store(e, [i * 16, 0], out)
        return init
"""
LOOP_LINE = 9
ARGS = (Tensor("q"), Tensor("kv"), Tensor("out"), "init")


def test_each_unrolled_copy_is_rewritten_with_its_own_bounds() -> None:
    text = preview(UNROLLED, LOOP_LINE).rewritten
    assert "if g == 0:" in text and "elif g == 1:" in text
    assert "for i in pl.range(2, 4, 2):" in text  # copy g = 0 runs i in 0..3
    assert "for i in pl.range(6, 8, 2):" in text  # copy g = 1 runs i in 4..7
    assert "# prologue: produce(4), produce(5)" in text
    cst.parse_module(textwrap.dedent(text))


def test_the_rewritten_copies_do_the_same_work_as_the_original() -> None:
    before, _ = run_kernel(UNROLLED, *ARGS)
    after, _ = run_kernel(rewrite(UNROLLED, LOOP_LINE), *ARGS)
    assert len(before.stores()) == 8
    assert after.stores() == before.stores()
    assert after.pushes == before.pushes and after.pops == before.pops
