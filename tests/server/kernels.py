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

# The SKEWED kernel's loop as SkewCrossCorePipeline rewrites it (depth 2, trip 8), written
# out by hand from the schedule in SKEW_RULES.md: produce 0 and 1, then three steady
# iterations that produce i, i+1 and consume i-2, i-1, then consume 6 and 7.
SKEWED_REWRITE = """\
# prologue: produce(0), produce(1)
qa_p0: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(q, [0, 0], [16, 64])
pl.tile.tpush_to_aiv(qa_p0, split=0)
qa_p1: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(q, [16, 0], [16, 64])
pl.tile.tpush_to_aiv(qa_p1, split=0)
# steady: produce(i), produce(i+1); consume(i-2), consume(i-1)
for i in pl.range(2, 8, 2):
    qa_p2: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(q, [i * 16, 0], [16, 64])
    pl.tile.tpush_to_aiv(qa_p2, split=0)
    qa_p3: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(q, [(i + 1) * 16, 0], [16, 64])
    pl.tile.tpush_to_aiv(qa_p3, split=0)
    e_c0: pl.Tile[[16, 64], pl.FP32] = pl.tile.tpop_from_aiv(split=0)
    pl.tile.store(e_c0, [(i - 2) * 16, 0], out)
    e_c1: pl.Tile[[16, 64], pl.FP32] = pl.tile.tpop_from_aiv(split=0)
    pl.tile.store(e_c1, [(i - 1) * 16, 0], out)
# epilogue: consume(6), consume(7)
e_c2: pl.Tile[[16, 64], pl.FP32] = pl.tile.tpop_from_aiv(split=0)
pl.tile.store(e_c2, [96, 0], out)
e_c3: pl.Tile[[16, 64], pl.FP32] = pl.tile.tpop_from_aiv(split=0)
pl.tile.store(e_c3, [112, 0], out)
"""
