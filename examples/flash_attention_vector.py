"""Vector side of the same loop: pop the scores first, softmax, push the probabilities.

Expected: demoted, consumer role (SKW020) — the popped tile feeds the body.
"""

import pypto.language as pl

HEADS = 8


@pl.program
class FlashAttentionVector:
    @pl.function
    def softmax(self, scale: pl.Tensor[[16, 16], pl.FP32]):
        for h in pl.pipeline(0, HEADS, 1, stage=2):
            scores: pl.Tile[[16, 16], pl.FP32] = pl.tile.tpop_from_aic(split=0)
            scaled: pl.Tile[[16, 16], pl.FP32] = pl.tile.mul(scores, scores)
            probs: pl.Tile[[16, 16], pl.FP16] = pl.tile.cast(pl.tile.exp(scaled), pl.FP16)
            pl.tile.tpush_to_aic(probs, split=0)
            pl.system.tfree_to_aic(scores, split=0)
