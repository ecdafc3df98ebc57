"""Cube side of a flash-attention head loop: QK -> push scores, pop probabilities -> PV.

Expected: skewed at depth 2 (SKW001) — trip 8, stage 2.
"""

import pypto.language as pl

HEADS = 8
TILE = 16


@pl.program
class FlashAttentionCube:
    @pl.function
    def qk_pv(
        self,
        q: pl.Tensor[[128, 64], pl.FP16],
        k: pl.Tensor[[64, 128], pl.FP16],  # K stored transposed: QK needs [16, 64] x [64, 16]
        v: pl.Tensor[[128, 64], pl.FP16],
        out: pl.Tensor[[128, 64], pl.FP32],
    ):
        for h in pl.pipeline(0, HEADS, 1, stage=2):
            row: pl.Scalar[pl.INDEX] = h * TILE
            qa: pl.Tile[[16, 64], pl.FP16] = pl.tile.load(q, [row, 0], [16, 64])
            ka: pl.Tile[[64, 16], pl.FP16] = pl.tile.load(k, [0, row], [64, 16])
            scores: pl.Tile[[16, 16], pl.FP32] = pl.tile.matmul(qa, ka)
            pl.tile.tpush_to_aiv(scores, split=0)
            probs: pl.Tile[[16, 16], pl.FP16] = pl.tile.tpop_from_aiv(split=0)
            va: pl.Tile[[16, 64], pl.FP16] = pl.tile.load(v, [row, 0], [16, 64])
            o: pl.Tile[[16, 64], pl.FP32] = pl.tile.matmul(probs, va)
            pl.tile.store(o, [row, 0], out)
