"""A producer loop whose trip (3) is odd: depth 2 is infeasible, the pass falls back to 1.

Expected: skewed below the requested depth (SKW002): depth 1, requested 2.
"""

import pypto.language as pl


@pl.program
class OddTrip:
    @pl.function
    def main(self, q: pl.Tensor[[48, 64], pl.FP32], out: pl.Tensor[[48, 64], pl.FP32]):
        for i in pl.pipeline(0, 3, 1, stage=2):
            qa: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(q, [i * 16, 0], [16, 64])
            rs: pl.Tile[[16, 64], pl.FP32] = pl.tile.add(qa, qa)
            pl.tile.tpush_to_aiv(rs, split=0)
            e: pl.Tile[[16, 64], pl.FP32] = pl.tile.tpop_from_aiv(split=0)
            oi: pl.Tile[[16, 64], pl.FP32] = pl.tile.add(e, e)
            pl.tile.store(oi, [i * 16, 0], out)
