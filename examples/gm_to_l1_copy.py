"""A same-core pipeline: load a tile from GM and store it back, no cross-core traffic.

Expected: left for LowerPipelineLoops, which replicates the body 2 times (SKW011).
"""

import pypto.language as pl

ROWS = 256


@pl.program
class Copy:
    @pl.function
    def copy(self, src: pl.Tensor[[256, 64], pl.FP32], dst: pl.Tensor[[256, 64], pl.FP32]):
        for r in pl.pipeline(0, ROWS, 16, stage=2):
            t: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(src, [r, 0], [16, 64])
            pl.tile.store(t, [r, 0], dst)
