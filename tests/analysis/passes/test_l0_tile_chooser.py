"""ChooseL0Tile's design point, as pypto's binding gives it.

Every expected value below was printed by pypto e2d0f78ae's own binding
(``pypto.pypto_core.passes.l0_tile_chooser.choose_l0_tile``) for the same config: the
910B's L0 sizes, the gates AutoTileMatmulL0 sets (A/B-stationary, K boundary; L0C
double buffering only under PTOAS).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


# --- The search against a literal transcription of upstream, over drawn configs -------
#
# The port works out what depends on (m, n) or on k alone once, and skips a candidate
# whose wall already loses; `_Upstream` below does neither: it scores every
# legal (m, n, k) of every regime with upstream's expressions, in upstream's order,
# and keeps the first minimum of upstream's key. It was checked against the binding's
# design points above (test_the_transcription_gives_the_bindings_design_points).


def _ceil(a: int, b: int) -> int:
    return -(-a // b)


def _round_half_up(x: float) -> int:
    whole = math.floor(x)
    return whole + 1 if x - whole >= 0.5 else whole


Key = tuple[int, int, int, float, int, int]


@dataclass(frozen=True)
class _Upstream:
    """Upstream's ChooseL0Tile for one config, scoring every candidate in full: each
    method is the C++ function of the same role (LoadCycles, MadCycles, ...)."""

    c: L0TileConfig

    def held(self, m: int, n: int) -> tuple[float, float]:
        c = self.c
        big_m, big_n, big_k, ba, bb = float(c.M), float(c.N), float(c.K), c.bytes_a, c.bytes_b
        tm, tn = float(_ceil(c.M, m)), float(_ceil(c.N, n))
        return (ba * big_m * big_k) / c.bw_a + (bb * big_k * big_n * tm) / c.bw_b, (
            ba * big_m * big_k * tn
        ) / c.bw_a + (bb * big_k * big_n) / c.bw_b

    def load(self, m: int, n: int, k: int, stat: Stationarity) -> float:
        c = self.c
        a, b = self.held(m, n)
        if stat is not Stationarity.OUTPUT:
            return a if stat is Stationarity.A else b
        if k >= c.K:
            return a if a <= b else b
        big_m, big_n, big_k, ba, bb = float(c.M), float(c.N), float(c.K), c.bytes_a, c.bytes_b
        tm, tn = float(_ceil(c.M, m)), float(_ceil(c.N, n))
        return (ba * big_m * big_k * tn) / c.bw_a + (bb * big_k * big_n * tm) / c.bw_b

    def mad(self, m: int, n: int, k: int) -> int:
        c = self.c
        kt = max(1, c.mad_k_fractal_bytes // c.bytes_a)
        cpr = max(1, c.mad_fp32_passes) if c.bytes_a == 4 else max(1, c.bytes_a // 2)
        full, tail = c.K // k, c.K - (c.K // k) * k
        fractals = full * _ceil(k, kt) + (_ceil(tail, kt) if tail else 0)
        per_tile = (full + (1 if tail else 0)) * c.mad_head + cpr * _ceil(
            m, c.align_m
        ) * fractals * _ceil(n, c.align_n)
        return _ceil(c.M, m) * _ceil(c.N, n) * per_tile

    def drain(self, m: int, n: int) -> float:
        c = self.c
        n1 = _ceil(n, max(1, c.drain_c0_bytes // c.bytes_c))
        odd = n1 // (n1 & -n1)
        per_row = max(c.drain_row_cycles, float(c.bytes_c) * n / c.bw_drain) + (
            c.drain_penalty_cycles * float(odd - 1)
        )
        return float(_ceil(c.M, m) * _ceil(c.N, n)) * (c.drain_fixed_cycles + float(m) * per_row)

    def wall(self, m: int, n: int, k: int, stat: Stationarity, dbc: bool) -> int:
        compute = max(self.load(m, n, k, stat), float(self.mad(m, n, k)))
        drain, tiles = self.drain(m, n), float(_ceil(self.c.M, m) * _ceil(self.c.N, n))
        if dbc:
            return _round_half_up(max(compute, drain) + min(compute, drain) / tiles)
        return _round_half_up(compute + drain)

    def rows(self, m: int) -> int:
        c = self.c
        return _ceil(_ceil(m, c.box_align_m) * c.box_align_m, c.l0c_align_m) * c.l0c_align_m

    def physical(self, m: int, n: int) -> int:
        return self.rows(m) * _ceil(n, self.c.box_align_n) * self.c.box_align_n

    def legal(self, m: int, n: int, k: int, stat: Stationarity, c0: int) -> bool:
        """MakeCandidate's gates."""
        c = self.c
        whole_k_grid = k == c.K and (m != c.M or n != c.N)
        output = stat is Stationarity.OUTPUT
        a_holds = self.held(m, n)[0] <= self.held(m, n)[1]
        return not (
            m < c.min_m or n < c.min_n or k < c.min_k or 0 < c.max_n < n
            or (whole_k_grid and 0 < c.max_n_pipelined < n and stat is not Stationarity.B)
            or (whole_k_grid and 0 < c.max_n_nested_pipelined < n and output and a_holds)
            or (not c.allow_padding and (m > c.M or n > c.N))
            or self.physical(m, n) > c0
        )  # fmt: skip

    def ks(self, m: int, n: int, stat: Stationarity, dbc: bool) -> list[int]:
        """EnumerateLegalKs, less what the regime does not score (require_full_k)."""
        c = self.c
        a0 = c.l0a_bytes // (c.bytes_a * (1 if stat is Stationarity.A else 2))
        b0 = c.l0b_bytes // (c.bytes_b * (1 if stat is Stationarity.B else 2))
        cap = min(
            a0 // (_ceil(m, c.box_align_m) * c.box_align_m),
            b0 // (_ceil(n, c.box_align_n) * c.box_align_n),
        )
        k_top = max(_ceil(c.K, c.align_k) * c.align_k, c.min_k) if c.allow_padding else c.K
        peel = c.allow_k_boundary and c.K % c.align_k == 0
        return [
            k
            for k in range(c.min_k, min(cap, k_top) // c.align_k * c.align_k + 1, c.align_k)
            if (c.allow_padding or peel or c.K % k == 0)
            and (k == c.K or (stat is Stationarity.OUTPUT and not dbc))
        ]

    def mns(self, stat: Stationarity, dbc: bool, c0: int) -> Iterator[tuple[int, int]]:
        """EnumerateBest's (m, n) scan, with its early stop and require_inner_pair."""
        c = self.c
        m_hi = _ceil(c.M, c.align_m) * c.align_m if c.allow_padding else c.M
        n_hi = _ceil(c.N, c.align_n) * c.align_n if c.allow_padding else c.N
        n_hi = min(n_hi, c.max_n) if c.max_n else n_hi
        for m in range(c.min_m, m_hi + 1, c.align_m):
            if self.rows(m) > c0 // (_ceil(c.min_n, c.box_align_n) * c.box_align_n):
                return
            for n in range(c.min_n, min(n_hi, c0 // self.rows(m)) + 1, c.align_n):
                a, b = self.held(m, n)
                rows_outer = stat is Stationarity.A or (stat is Stationarity.OUTPUT and a <= b)
                if not dbc or (c.N // n if rows_outer else c.M // m) >= 2:
                    yield m, n

    def best(self, stat: Stationarity, dbc: bool) -> list[tuple[Key, int, int, int]]:
        """The regime's first candidate of least key, as [(key, m, n, k)] ([] if none)."""
        c = self.c
        c0 = c.l0c_bytes // (c.bytes_c * (2 if dbc else 1))
        if c0 < self.physical(c.min_m, c.min_n):
            return []
        scored = []
        for m, n in self.mns(stat, dbc, c0):
            for k in self.ks(m, n, stat, dbc):
                if self.legal(m, n, k, stat, c0):
                    padded = _ceil(c.M, m) * m * _ceil(c.N, n) * n * _ceil(c.K, k) * k
                    key = (self.wall(m, n, k, stat, dbc), padded, _ceil(c.K, k),
                           self.load(m, n, k, stat), -m * n, -k)  # fmt: skip
                    scored.append((key, m, n, k))
        return [min(scored, key=lambda s: s[0])] if scored else []  # min keeps the first

    def choice(self) -> tuple[int, int, int, Stationarity, bool, int, int]:
        """(m, n, k, stationarity, L0C double buffer, wall, padded volume)."""
        c = self.c
        (key, m, n, k), stat, dbc = self.best(Stationarity.OUTPUT, False)[0], Stationarity.OUTPUT, False
        stats = [Stationarity.OUTPUT]
        stats += [Stationarity.A] if c.allow_a_stationary else []
        stats += [Stationarity.B] if c.allow_b_stationary else []
        tiled = (m, n, k) != (c.M, c.N, c.K)
        for regime in itertools.product(stats, (False, True) if c.allow_double_buffer_c else (False,)):
            for found in self.best(*regime) if tiled and regime != (Stationarity.OUTPUT, False) else []:
                if found[0][0] < key[0]:
                    (key, m, n, k), (stat, dbc) = found, regime
        return m, n, k, stat, dbc, key[0], key[1]


def _upstream_choice(cfg: L0TileConfig) -> tuple[int, int, int, Stationarity, bool, int, int]:
    return _Upstream(cfg).choice()


def _port_choice(cfg: L0TileConfig) -> tuple[int, int, int, Stationarity, bool, int, int]:
    r = choose_l0_tile(cfg)
    return (r.m, r.n, r.k, r.stationarity, r.double_buffer_c, r.estimated_cost_cycles,
            r.padded_compute_volume)  # fmt: skip


@pytest.mark.parametrize(
    ("config", "tile", "stationarity", "cost"),
    [
        (_config(128, 256, 256, 1, row_group=32), (128, 256, 256), Stationarity.B, 2320),
        (_config(16, 256, 128, 2), (16, 256, 64), Stationarity.OUTPUT, 1102),
        (_config(16, 5120, 64, 2), (16, 1024, 16), Stationarity.OUTPUT, 11350),
        (_config(256, 256, 256, 4), (128, 256, 32), Stationarity.OUTPUT, 19270),
        (_config(48, 80, 144, 2), (48, 64, 144), Stationarity.OUTPUT, 1132),
        (_config(512, 512, 512, 2, dbc=True), (32, 64, 512), Stationarity.B, 39520),
    ],
)
def test_the_transcription_gives_the_bindings_design_points(
    config: L0TileConfig, tile: tuple[int, int, int], stationarity: Stationarity, cost: int
) -> None:
    m, n, k, stat, _, wall, _ = _upstream_choice(config)
    assert ((m, n, k), stat, wall) == (tile, stationarity, cost)


@st.composite
def _configs(draw: st.DrawFn, largest: int) -> L0TileConfig:
    """Any config the pass could ask for and some it never does: every width, padding or
    not, K peeled or not, each regime allowed or not, n bounds, boxed layouts, both chips'
    L0C, shapes aligned and not (K aligned unless padded, so a tile always exists)."""
    padding = draw(st.booleans())
    aligned = st.integers(1, largest // 16).map(lambda i: 16 * i)
    extent = st.one_of(aligned, st.integers(1 if padding else 16, largest))
    bytes_a, bytes_c, row_group = draw(st.sampled_from([(1, 4, 32), (2, 4, 16), (4, 4, 16)]))
    max_n = draw(st.sampled_from([0, 64, 256]))
    pipelined = draw(st.sampled_from([0, 32, 64, 128]))
    pipelined = min(pipelined, max_n) if max_n else pipelined
    nested = draw(st.sampled_from([0, 16, 32, 64]))
    nested = min(nested, pipelined) if pipelined else nested
    return L0TileConfig(
        M=draw(extent), N=draw(extent), K=draw(extent if padding else aligned),
        l0a_bytes=64 * KB, l0b_bytes=64 * KB, l0c_bytes=draw(st.sampled_from([128, 256])) * KB,
        bytes_a=bytes_a, bytes_b=bytes_a, bytes_c=bytes_c, l0c_align_m=row_group,
        box_align_m=draw(st.sampled_from([1, 16, 32])),
        box_align_n=draw(st.sampled_from([1, 16, 32])),
        max_n=max_n, max_n_pipelined=pipelined, max_n_nested_pipelined=nested,
        allow_a_stationary=draw(st.booleans()), allow_b_stationary=draw(st.booleans()),
        allow_double_buffer_c=draw(st.booleans()), c_read=draw(st.booleans()),
        allow_padding=padding, allow_k_boundary=draw(st.booleans()),
    )  # fmt: skip


@settings(max_examples=120, deadline=None, derandomize=True, database=None)
@given(_configs(largest=400))
def test_the_search_picks_what_scoring_every_candidate_picks(cfg: L0TileConfig) -> None:
    assert _port_choice(cfg) == _upstream_choice(cfg)


@pytest.mark.slow
@settings(max_examples=600, deadline=None, derandomize=True, database=None)
@given(_configs(largest=1100))
def test_the_search_picks_what_scoring_every_candidate_picks_on_large_shapes(
    cfg: L0TileConfig,
) -> None:
    assert _port_choice(cfg) == _upstream_choice(cfg)
