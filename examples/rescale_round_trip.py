"""Two round trips per iteration (scores out, probabilities back, rescale out, result back).

Expected: demoted, multi-round-trip (SKW021): 2 tpush and 2 tpop per iteration.
"""

import pypto.language as pl


@pl.program
class Rescale:
    @pl.function
    def main(self, q: pl.Tensor[[64, 64], pl.FP32], out: pl.Tensor[[64, 64], pl.FP32]):
        for i in pl.pipeline(0, 4, 1, stage=2):
            qa: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(q, [i * 16, 0], [16, 64])
            pl.tile.tpush_to_aiv(qa, split=0)
            p: pl.Tile[[16, 64], pl.FP32] = pl.tile.tpop_from_aiv(split=0)
            r: pl.Tile[[16, 64], pl.FP32] = pl.tile.add(p, qa)
            pl.tile.tpush_to_aiv(r, split=0)
            o: pl.Tile[[16, 64], pl.FP32] = pl.tile.tpop_from_aiv(split=0)
            pl.tile.store(o, [i * 16, 0], out)
