"""Kernel sources the server tests open: one skewed, one demoted, one with the SKW030 hint."""

from __future__ import annotations

HEADER = """\
import pypto.language as pl


@pl.program
class Kernel:
    @pl.function
    def main(self, q: pl.Tensor[[64, 64], pl.FP32], out: pl.Tensor[[64, 64], pl.FP32]):
"""

SKEWED_LOOP = """\
        for i in pl.pipeline(0, 8, 1, stage=2):
            qa: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(q, [i * 16, 0], [16, 64])
            pl.tile.tpush_to_aiv(qa, split=0)
            e: pl.Tile[[16, 64], pl.FP32] = pl.tile.tpop_from_aiv(split=0)
            pl.tile.store(e, [i * 16, 0], out)
"""

DEMOTED_LOOP = """\
        for j in pl.pipeline(0, 8, 1, stage=2):
            e: pl.Tile[[16, 64], pl.FP32] = pl.tile.tpop_from_aiv(split=0)
            pl.tile.tpush_to_aiv(e, split=0)
"""

SKEWED = HEADER + SKEWED_LOOP
STAGE3 = HEADER + SKEWED_LOOP.replace("stage=2", "stage=3")
DEMOTED = HEADER + DEMOTED_LOOP
BOTH = HEADER + SKEWED_LOOP + DEMOTED_LOOP

FOR_LINE = 7  # 0-based LSP line of the first `for` in every kernel above
SECOND_FOR_LINE = FOR_LINE + 5  # the demoted loop in BOTH

LEFT_LOOP = """\
        for k in pl.pipeline(0, 4, 1, stage=2):
            t: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(q, [k * 16, 0], [16, 64])
            pl.tile.store(t, [k * 16, 0], out)
"""

LEFT = HEADER + LEFT_LOOP
SKEWED_AND_LEFT = HEADER + SKEWED_LOOP + LEFT_LOOP  # the left loop's `for` is SECOND_FOR_LINE
