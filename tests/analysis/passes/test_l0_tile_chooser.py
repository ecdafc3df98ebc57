"""ChooseL0Tile's design point, as pypto's binding gives it.

Every expected value below was printed by pypto e2d0f78ae's own binding
(``pypto.pypto_core.passes.l0_tile_chooser.choose_l0_tile``) for the same config: the
910B's L0 sizes, the gates AutoTileMatmulL0 sets (A/B-stationary, K boundary; L0C
double buffering only under PTOAS).
"""

from __future__ import annotations

import pytest

from skewlsp.analysis.passes.l0_tile_chooser import (
    L0TileConfig,
    Stationarity,
    choose_l0_tile,
)

KB = 1024


def _config(
    m: int, n: int, k: int, width: int, row_group: int = 16, dbc: bool = False, c_read: bool = False
) -> L0TileConfig:
    return L0TileConfig(
        M=m, N=n, K=k, l0a_bytes=64 * KB, l0b_bytes=64 * KB, l0c_bytes=128 * KB,
        bytes_a=width, bytes_b=width, bytes_c=4, l0c_align_m=row_group,
        allow_a_stationary=True, allow_b_stationary=True, allow_k_boundary=True,
        allow_double_buffer_c=dbc, c_read=c_read,
    )


@pytest.mark.parametrize(
    ("config", "tile", "stationarity", "cost", "traffic"),
    [
        # INT8 [128, 256] x [256, 256]: B held whole in all of L0B, so the pass keeps it.
        (_config(128, 256, 256, 1, row_group=32), (128, 256, 256), Stationarity.B, 2320, 229376),
        (_config(16, 256, 128, 2), (16, 256, 64), Stationarity.OUTPUT, 1102, 86016),
        (_config(128, 128, 256, 2), (128, 128, 128), Stationarity.OUTPUT, 2006, 196608),
        (_config(16, 5120, 64, 2), (16, 1024, 16), Stationarity.OUTPUT, 11350, 993280),
        (_config(64, 128, 512, 2, c_read=True), (64, 128, 128), Stationarity.OUTPUT, 2489, 262144),
        (_config(256, 256, 256, 4), (128, 256, 32), Stationarity.OUTPUT, 19270, 1048576),
        (_config(48, 80, 144, 2), (48, 64, 144), Stationarity.OUTPUT, 1132, 52224),
        (_config(16, 16, 16, 2), (16, 16, 16), Stationarity.OUTPUT, 257, 2048),
    ],
)
def test_the_design_point_is_the_bindings(
    config: L0TileConfig, tile: tuple[int, int, int], stationarity: Stationarity, cost: int,
    traffic: int,
) -> None:
    chosen = choose_l0_tile(config)
    assert (chosen.m, chosen.n, chosen.k) == tile
    assert chosen.stationarity is stationarity
    assert chosen.double_buffer_c is False
    assert (chosen.estimated_cost_cycles, chosen.estimated_traffic_bytes) == (cost, traffic)


def test_l0c_double_buffering_is_chosen_only_where_it_is_allowed() -> None:
    chosen = choose_l0_tile(_config(512, 512, 512, 2, dbc=True))
    assert (chosen.m, chosen.n, chosen.k) == (32, 64, 512)
    assert chosen.stationarity is Stationarity.B
    assert chosen.double_buffer_c is True
    assert chosen.estimated_cost_cycles == 39520
    assert choose_l0_tile(_config(512, 512, 512, 2)).double_buffer_c is False


def test_a_k_that_no_aligned_block_tiles_has_no_tile() -> None:
    with pytest.raises(ValueError, match="no legal"):
        choose_l0_tile(_config(16, 16, 24, 2))
