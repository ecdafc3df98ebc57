"""A decode-attention head loop written with high-level ops, as in pypto-lib.

Nobody writes tpush/tpop here: ExpandMixedKernel splits the loop into a cube
copy (QK matmul -> push scores, pop probabilities -> PV matmul) and a vector
copy (pop scores -> softmax -> push probabilities).

Expected: cube skewed at depth 1 (trip 2 < 4: SKW002), vector demoted (SKW020).
"""

import pypto.language as pl

HEADS = 64
QK_M_TILE = 32
HEAD_DIM = 64
SOFTMAX_SCALE = 0.125


@pl.jit
def decode_attention(
    q_flat: pl.Tensor[[64, 64], pl.BF16],
    kv: pl.Tensor[[64, 64], pl.BF16],
    out_mi: pl.Tensor[[64, 1], pl.FP32],
    out_li: pl.Tensor[[64, 1], pl.FP32],
    out_oi: pl.Tensor[[64, 64], pl.FP32],
):
    with pl.spmd(1, name_hint="qk_pv"):
        block = pl.tile.get_block_idx()
        kv_tile = kv[0:64, 0:HEAD_DIM]
        for hb in pl.pipeline(HEADS // QK_M_TILE, stage=2):
            h0 = block * HEADS + hb * QK_M_TILE
            q_tile = q_flat[h0 : h0 + QK_M_TILE, 0:HEAD_DIM]
            scores = pl.matmul(q_tile, kv_tile, b_trans=True, out_dtype=pl.FP32)
            scaled = pl.mul(scores, SOFTMAX_SCALE)
            mi = pl.row_max(scaled)
            probs = pl.exp(pl.row_expand_sub(scaled, mi))
            li = pl.row_sum(probs)
            probs_bf16 = pl.cast(probs, target_type=pl.BF16, mode="rint")
            oi = pl.matmul(probs_bf16, kv_tile, out_dtype=pl.FP32)
            out_mi[h0 : h0 + QK_M_TILE, 0:1] = mi
            out_li[h0 : h0 + QK_M_TILE, 0:1] = li
            out_oi[h0 : h0 + QK_M_TILE, 0:HEAD_DIM] = oi
