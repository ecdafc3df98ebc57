"""AutoTileMatmulL0's L0 tile chooser, ``ChooseL0Tile`` (pypto
``src/ir/transforms/utils/l0_tile_chooser.cpp`` and
``include/pypto/ir/transforms/utils/l0_tile_chooser.h``; pass doc 15, "Cost model &
design space").

Why a port: how large a matmul's Left (L0A) and Right (L0B) tiles are decides how much
of those 64 KB spaces a pipeline's stages need, and so whether MemoryReuse keeps the
stages apart (PH-MR-001). AutoTileMatmulL0 asks this function for ``(m, n, k)``; the
whole matmul ``(M, N, K)`` means "leave it whole", anything else is a rewrite into L0
tiles of that shape. The choice is an exhaustive minimum of a roofline cost model, not
a closed form, so nothing short of the model itself predicts it.

The search, as upstream: for each allowed (stationarity, L0C double buffer) regime, the
operand budgets (an operand that streams gets half its L0 space), every aligned ``(m, n)``
whose physical accumulator fits L0C, every legal ``k`` (a divisor of K, or any aligned
``k`` when the pass allows a peeled last K block), each scored by wall cycles
(``max(load, MAD) + drain``, or the drain overlapped when L0C is double-buffered), ties
broken by padded volume, K blocks, load cycles, area, ``k``. The baseline regime
(output-stationary, one accumulator) is scored first; the others only when the baseline
tiles the output, and are adopted only on a strictly lower wall. Same candidates,
same order, same answer; only cheaper: what depends on ``(m, n)`` or on ``k`` alone
is worked out once, and a candidate is kept only when its key beats the best so far
(``_best``; ``tests/analysis/passes/test_l0_tile_chooser.py`` checks it against a search that
scores every candidate in full).

Arithmetic is the C++'s: integers where it uses integers (all positive here, so floor
division is its truncation), IEEE doubles in the same order of operations where it uses
doubles, and the final wall rounded half away from zero (``std::llround``). Checked
against pypto's own binding (``pypto.pypto_core.passes.l0_tile_chooser.choose_l0_tile``)
by ``benchmarks/l0_tile_chooser_check.py``.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum
from typing import NamedTuple


class Stationarity(Enum):
    """Which operand the chosen loop order holds in L0 across the tiles (the held one
    single-buffered, in all of its space; a moving one double-buffered)."""

    OUTPUT = "output"
    A = "A"
    B = "B"


@dataclass(frozen=True)
class L0TileConfig:
    """The chooser's inputs, with the upstream defaults (a BF16 x BF16 -> FP32 matmul
    on the 910B's cost model; the L0 capacities have no default upstream: 0)."""

    M: int
    N: int
    K: int
    l0a_bytes: int = 0
    l0b_bytes: int = 0
    l0c_bytes: int = 0
    bytes_a: int = 2
    bytes_b: int = 2
    bytes_c: int = 4
    min_m: int = 16
    min_n: int = 16
    min_k: int = 16
    align_m: int = 16
    align_n: int = 16
    align_k: int = 16
    l0c_align_m: int = 16
    box_align_m: int = 1
    box_align_n: int = 1
    max_n: int = 0
    max_n_pipelined: int = 0
    max_n_nested_pipelined: int = 0
    allow_a_stationary: bool = False
    allow_b_stationary: bool = False
    allow_double_buffer_c: bool = False
    c_read: bool = False
    bw_a: float = 129.7
    bw_b: float = 85.4
    bw_drain: float = 118.0
    drain_fixed_cycles: float = 164.0
    drain_row_cycles: float = 4.45
    drain_penalty_cycles: float = 2.6
    drain_c0_bytes: int = 32
    mad_head: int = 21
    mad_k_fractal_bytes: int = 32
    mad_fp32_passes: int = 2
    allow_padding: bool = False
    allow_k_boundary: bool = False


@dataclass(frozen=True)
class L0TileResult:
    """The chosen design point: the L0 tile ``(m, n, k)``, its stationarity, whether L0C
    is double-buffered, which operand an output-stationary full-K grid holds, and the
    model's figures for it."""

    m: int
    n: int
    k: int
    stationarity: Stationarity
    double_buffer_c: bool
    os_holds_a: bool
    estimated_cost_cycles: int
    estimated_traffic_bytes: int
    padded_compute_volume: int


@dataclass(frozen=True)
class _Regime:
    stat: Stationarity = Stationarity.OUTPUT
    dbc: bool = False


@dataclass(frozen=True)
class _Candidate:
    m: int
    n: int
    k: int
    cost: int
    padded: int
    load: float
    regime: _Regime


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _align_up(x: int, a: int) -> int:
    return _ceil_div(x, a) * a


def _llround(x: float) -> int:
    """``std::llround`` of a non-negative double: halves away from zero."""
    whole = math.floor(x)
    return whole + 1 if x - whole >= 0.5 else whole


def _physical(m: int, n: int, cfg: L0TileConfig) -> int:
    """The accumulator elements an ``[m, n]`` tile occupies: boxed, rows aligned."""
    return _align_up(_align_up(m, cfg.box_align_m), cfg.l0c_align_m) * _align_up(
        n, cfg.box_align_n
    )


def _os_holds_a(m: int, n: int, cfg: L0TileConfig) -> bool:
    held_a, held_b = _held(m, n, cfg)
    return held_a <= held_b


def _held(m: int, n: int, cfg: L0TileConfig) -> tuple[float, float]:
    """Load cycles holding A (streaming B), and holding B (streaming A)."""
    big_m, big_n, big_k = float(cfg.M), float(cfg.N), float(cfg.K)
    ceil_n, ceil_m = float(_ceil_div(cfg.N, n)), float(_ceil_div(cfg.M, m))
    ba, bb = float(cfg.bytes_a), float(cfg.bytes_b)
    held_a = (ba * big_m * big_k) / cfg.bw_a + (bb * big_k * big_n * ceil_m) / cfg.bw_b
    held_b = (ba * big_m * big_k * ceil_n) / cfg.bw_a + (bb * big_k * big_n) / cfg.bw_b
    return held_a, held_b


def _traffic(m: int, n: int, k: int, cfg: L0TileConfig, regime: _Regime) -> int:
    ceil_n, ceil_m = _ceil_div(cfg.N, n), _ceil_div(cfg.M, m)
    whole_a = cfg.bytes_a * cfg.M * cfg.K
    whole_b = cfg.bytes_b * cfg.K * cfg.N
    holds_a = regime.stat is Stationarity.A or (
        regime.stat is Stationarity.OUTPUT and k >= cfg.K and _os_holds_a(m, n, cfg)
    )
    holds_b = regime.stat is Stationarity.B or (
        regime.stat is Stationarity.OUTPUT and k >= cfg.K and not _os_holds_a(m, n, cfg)
    )
    a = whole_a if holds_a else whole_a * ceil_n
    b = whole_b if holds_b else whole_b * ceil_m
    return a + b + (2 if cfg.c_read else 1) * cfg.bytes_c * cfg.M * cfg.N


class _Tile(NamedTuple):
    """What a candidate's cost needs of its ``(m, n)`` alone under one regime, worked out
    once for all its ``k`` (upstream's expressions, so the same integers and doubles):
    the padded output, the MAD cycles as ``head * blocks + per_fractal * fractals`` of
    the ``k`` axis, the load with ``k >= K`` and with a split K, and the drain."""

    padded: int  # ceil(M/m)*m * ceil(N/n)*n
    mad_head: int
    mad_per_fractal: int
    load_whole: float
    load_split: float  # split-K: both operands streamed
    drain: float
    tiles: int
    whole_k_barred: bool  # k == K is a full-K output grid over a max_n_* bound


class _KStep(NamedTuple):
    """What a candidate's cost needs of its ``k`` alone: the K blocks (``ceil(K/k)``,
    full blocks plus the peeled tail), the K fractals MAD pays over them, and the
    padded reduction ``ceil(K/k)*k``."""

    k: int
    blocks: int
    fractals: int
    padded: int


def _k_axis(cfg: L0TileConfig, full_k: bool) -> list[_KStep]:
    """Every ``k`` some ``(m, n)`` may use, ascending: aligned, from ``min_k`` to the
    problem's K (aligned up under padding), divisors of K unless the pass pads or
    peels; only K itself when the regime needs the full reduction. Each ``(m, n)``
    takes the prefix its L0A/L0B capacity allows (upstream's ``EnumerateLegalKs``)."""
    k_problem = max(_align_up(cfg.K, cfg.align_k), cfg.min_k) if cfg.allow_padding else cfg.K
    peel_ok = cfg.allow_k_boundary and cfg.K % cfg.align_k == 0
    kt = max(1, cfg.mad_k_fractal_bytes // cfg.bytes_a)
    steps = []
    for k in range(cfg.min_k, k_problem // cfg.align_k * cfg.align_k + 1, cfg.align_k):
        if not (cfg.allow_padding or peel_ok or cfg.K % k == 0) or (full_k and k != cfg.K):
            continue
        full = cfg.K // k
        tail = cfg.K - full * k
        fractals = full * _ceil_div(k, kt) + (_ceil_div(tail, kt) if tail > 0 else 0)
        blocks = _ceil_div(cfg.K, k)
        steps.append(_KStep(k, blocks, fractals, blocks * k))
    return steps


def _tile(m: int, n: int, cfg: L0TileConfig, c0: int, regime: _Regime) -> _Tile | None:
    """The ``(m, n)`` terms, or None where no ``k`` makes the tile legal (upstream's
    ``MakeCandidate`` gates that do not depend on ``k``)."""
    if m < cfg.min_m or n < cfg.min_n or 0 < cfg.max_n < n:
        return None
    if not cfg.allow_padding and (m > cfg.M or n > cfg.N):
        return None
    if _physical(m, n, cfg) > c0:
        return None
    held_a, held_b = _held(m, n, cfg)
    big_m, big_n, big_k = float(cfg.M), float(cfg.N), float(cfg.K)
    tiles_m, tiles_n = _ceil_div(cfg.M, m), _ceil_div(cfg.N, n)
    ba, bb = float(cfg.bytes_a), float(cfg.bytes_b)
    split = (ba * big_m * big_k * float(tiles_n)) / cfg.bw_a + (
        bb * big_k * big_n * float(tiles_m)
    ) / cfg.bw_b
    holds_a = held_a <= held_b
    if regime.stat is Stationarity.OUTPUT:
        whole = held_a if holds_a else held_b
    else:  # an operand held across K (upstream scores such a regime at k == K only)
        whole = split = held_a if regime.stat is Stationarity.A else held_b
    output = regime.stat is Stationarity.OUTPUT
    pipelined = 0 < cfg.max_n_pipelined < n and (regime.stat is Stationarity.A or output)
    nested = 0 < cfg.max_n_nested_pipelined < n and output and holds_a
    tiles = tiles_m * tiles_n
    cpr = max(1, cfg.mad_fp32_passes) if cfg.bytes_a == 4 else max(1, cfg.bytes_a // 2)
    return _Tile(
        padded=tiles_m * m * tiles_n * n,
        mad_head=tiles * cfg.mad_head,
        mad_per_fractal=tiles * cpr * _ceil_div(m, cfg.align_m) * _ceil_div(n, cfg.align_n),
        load_whole=whole,
        load_split=split,
        drain=_drain(m, n, cfg),
        tiles=tiles,
        whole_k_barred=(m != cfg.M or n != cfg.N) and (pipelined or nested),
    )


def _odd_part(x: int) -> int:
    while x & 1 == 0:
        x >>= 1
    return x


def _drain(m: int, n: int, cfg: L0TileConfig) -> float:
    drains = float(_ceil_div(cfg.M, m) * _ceil_div(cfg.N, n))
    n0 = max(1, cfg.drain_c0_bytes // cfg.bytes_c)
    n1 = _ceil_div(n, n0)
    throughput = float(cfg.bytes_c) * n / cfg.bw_drain
    per_row = max(cfg.drain_row_cycles, throughput) + cfg.drain_penalty_cycles * float(
        _odd_part(n1) - 1
    )
    return drains * (cfg.drain_fixed_cycles + float(m) * per_row)


def _wall(load: float, mad: int, tile: _Tile, dbc: bool) -> int:
    compute = max(load, float(mad))
    drain = tile.drain
    if not dbc:
        return _llround(compute + drain)
    return _llround(max(compute, drain) + min(compute, drain) / float(tile.tiles))


def _floor(tile: _Tile, axis_floor: tuple[int, int], dbc: bool) -> int:
    """A wall no ``k`` of ``tile`` goes below: the wall of the least load and the least
    MAD its ``k`` axis may give (``axis_floor``: the fewest K blocks and K fractals of any
    ``k``). The wall only grows with the compute (``max(load, MAD)``): ``compute + drain``
    does, and so does ``max(c, d) + min(c, d) / T`` (``d + c / T`` below the drain,
    ``c + d / T`` above, equal where they meet, ``T >= 1``); IEEE rounding and
    ``llround`` keep that order. So a tile whose floor is above the best wall so far
    has no candidate that can win, and upstream's answer is the same without it."""
    blocks, fractals = axis_floor
    mad = tile.mad_head * blocks + tile.mad_per_fractal * fractals
    return _wall(min(tile.load_whole, tile.load_split), mad, tile, dbc)


def _inner_full_tiles(m: int, n: int, cfg: L0TileConfig, stat: Stationarity) -> int:
    rows_outer = stat is Stationarity.A or (
        stat is Stationarity.OUTPUT and _os_holds_a(m, n, cfg)
    )
    return cfg.N // n if rows_outer else cfg.M // m


def _best(
    cfg: L0TileConfig,
    regime: _Regime,
    budgets: tuple[int, int, int],
    inner_pair: bool,
    full_k: bool,
) -> _Candidate | None:
    """Upstream's ``EnumerateBest``: the minimum under ``Better`` of every legal
    ``(m, n, k)``, scanned in its order (m, then n, then k ascending; an equal key
    keeps the earlier). Two things differ, neither in the answer: what depends on
    ``(m, n)`` or on ``k`` alone is worked out once (``_tile``, ``_k_axis``) rather
    than per candidate, and a candidate is built only when its key beats the best so
    far (a wall above the best's cannot win, whatever its other keys)."""
    a0, b0, c0 = budgets
    m_hi = _align_up(cfg.M, cfg.align_m) if cfg.allow_padding else cfg.M
    n_hi = _align_up(cfg.N, cfg.align_n) if cfg.allow_padding else cfg.N
    if cfg.max_n > 0:
        n_hi = min(n_hi, cfg.max_n)
    min_n_boxed = _align_up(cfg.min_n, cfg.box_align_n)
    k_axis = _k_axis(cfg, full_k)
    k_problem = max(_align_up(cfg.K, cfg.align_k), cfg.min_k) if cfg.allow_padding else cfg.K
    floor = (min(s.blocks for s in k_axis), min(s.fractals for s in k_axis)) if k_axis else (0, 0)
    best: _Candidate | None = None
    best_key: tuple[int, int, int, float, int, int] | None = None
    for m in range(cfg.min_m, m_hi + 1, cfg.align_m):
        physical_m = _align_up(_align_up(m, cfg.box_align_m), cfg.l0c_align_m)
        if physical_m > c0 // min_n_boxed:
            break
        cap_a = a0 // _align_up(m, cfg.box_align_m)
        for n in range(cfg.min_n, min(n_hi, c0 // physical_m) + 1, cfg.align_n):
            if inner_pair and _inner_full_tiles(m, n, cfg, regime.stat) < 2:
                continue
            cap = min(cap_a, b0 // _align_up(n, cfg.box_align_n))
            k_hi = min(cap, k_problem) // cfg.align_k * cfg.align_k
            if not k_axis or k_axis[0].k > k_hi:
                continue  # no legal k: upstream scores nothing here either
            tile = _tile(m, n, cfg, c0, regime)
            if tile is None or (best_key and _floor(tile, floor, regime.dbc) > best_key[0]):
                continue
            for step in k_axis:
                k = step.k
                if k > k_hi:
                    break
                if k == cfg.K and tile.whole_k_barred:
                    continue
                load = tile.load_whole if k >= cfg.K else tile.load_split
                mad = tile.mad_head * step.blocks + tile.mad_per_fractal * step.fractals
                cost = _wall(load, mad, tile, regime.dbc)
                if best_key is not None and cost > best_key[0]:
                    continue  # the wall is the first key: no other key can save it
                key = (cost, tile.padded * step.padded, step.blocks, load, -m * n, -k)
                if best_key is None or key < best_key:
                    best_key = key
                    best = _Candidate(m, n, k, cost, key[1], load, regime)
    return best


def _budgets(cfg: L0TileConfig, regime: _Regime) -> tuple[int, int, int]:
    """Elements of A, B and C one buffer may hold: a moving operand (and a
    double-buffered accumulator) gets half its space."""
    moving_a = regime.stat is not Stationarity.A
    moving_b = regime.stat is not Stationarity.B
    return (
        cfg.l0a_bytes // (cfg.bytes_a * (2 if moving_a else 1)),
        cfg.l0b_bytes // (cfg.bytes_b * (2 if moving_b else 1)),
        cfg.l0c_bytes // (cfg.bytes_c * (2 if regime.dbc else 1)),
    )


def _check(cfg: L0TileConfig) -> None:
    """Upstream's input checks (a ``ValueError``, as the binding raises)."""
    checks = [
        (cfg.M > 0 and cfg.N > 0 and cfg.K > 0, "M, N, K must all be positive"),
        (cfg.l0a_bytes > 0 and cfg.l0b_bytes > 0 and cfg.l0c_bytes > 0, "L0 capacities"),
        (cfg.bytes_a > 0 and cfg.bytes_b > 0 and cfg.bytes_c > 0, "element byte sizes"),
        (cfg.min_m > 0 and cfg.min_n > 0 and cfg.min_k > 0, "minimum tile dimensions"),
        (cfg.max_n == 0 or cfg.max_n >= cfg.min_n, "max_n"),
        (
            cfg.max_n_pipelined >= 0
            and (cfg.max_n == 0 or cfg.max_n_pipelined == 0 or cfg.max_n_pipelined <= cfg.max_n),
            "max_n_pipelined",
        ),
        (
            cfg.max_n_nested_pipelined >= 0
            and (
                cfg.max_n_pipelined == 0
                or cfg.max_n_nested_pipelined == 0
                or cfg.max_n_nested_pipelined <= cfg.max_n_pipelined
            ),
            "max_n_nested_pipelined",
        ),
        (
            min(cfg.align_m, cfg.align_n, cfg.align_k, cfg.l0c_align_m) > 0
            and min(cfg.box_align_m, cfg.box_align_n) > 0,
            "alignments",
        ),
        (cfg.bw_a > 0 and cfg.bw_b > 0 and cfg.bw_drain > 0, "bandwidths"),
        (
            cfg.drain_c0_bytes > 0
            and min(cfg.drain_row_cycles, cfg.drain_penalty_cycles, cfg.drain_fixed_cycles) >= 0,
            "drain parameters",
        ),
        (
            cfg.allow_padding or (cfg.min_m <= cfg.M and cfg.min_n <= cfg.N and cfg.min_k <= cfg.K),
            "a dimension is below the cube minimum",
        ),
    ]
    for ok, what in checks:
        if not ok:
            raise ValueError(f"ChooseL0Tile: {what}")
    a0, b0, c0 = _budgets(cfg, _Regime())
    if _align_up(cfg.min_m, cfg.box_align_m) > a0 // cfg.min_k:
        raise ValueError("ChooseL0Tile: L0a capacity too small for the minimum tile")
    if _align_up(cfg.min_n, cfg.box_align_n) > b0 // cfg.min_k:
        raise ValueError("ChooseL0Tile: L0b capacity too small for the minimum tile")
    if c0 < _physical(cfg.min_m, cfg.min_n, cfg):
        raise ValueError("ChooseL0Tile: L0c capacity too small for the minimum tile")


def _regimes(cfg: L0TileConfig) -> Iterator[_Regime]:
    """The regimes scored after the baseline, in upstream's order."""
    stats = [Stationarity.OUTPUT]
    if cfg.allow_a_stationary:
        stats.append(Stationarity.A)
    if cfg.allow_b_stationary:
        stats.append(Stationarity.B)
    for stat in stats:
        for dbc in (False, True) if cfg.allow_double_buffer_c else (False,):
            if stat is Stationarity.OUTPUT and not dbc:
                continue
            yield _Regime(stat, dbc)


@functools.lru_cache(maxsize=512)
def choose_l0_tile(cfg: L0TileConfig) -> L0TileResult:
    """The design point ``ChooseL0Tile`` returns for ``cfg``; ``ValueError`` where it
    throws (invalid inputs, no legal tile).

    Kept per config (``lru_cache``): the search scores every legal tile (tens of
    thousands of candidates for a large matmul), kernels repeat a few shapes, and the
    answer is a frozen record that depends on the config alone."""
    _check(cfg)
    base = _Regime()
    best = _best(cfg, base, _budgets(cfg, base), inner_pair=False, full_k=False)
    if best is None:
        raise ValueError(f"ChooseL0Tile: no legal (m, n, k) tile for {cfg.M}, {cfg.N}, {cfg.K}")
    if (best.m, best.n, best.k) != (cfg.M, cfg.N, cfg.K):
        minimum = _physical(cfg.min_m, cfg.min_n, cfg)
        for regime in _regimes(cfg):
            budgets = _budgets(cfg, regime)
            if budgets[2] < minimum:
                continue
            full_k = regime.stat is not Stationarity.OUTPUT or regime.dbc
            found = _best(cfg, regime, budgets, inner_pair=regime.dbc, full_k=full_k)
            if found is not None and found.cost < best.cost:
                best = found
    return L0TileResult(
        m=best.m,
        n=best.n,
        k=best.k,
        stationarity=best.regime.stat,
        double_buffer_c=best.regime.dbc,
        os_holds_a=_os_holds_a(best.m, best.n, cfg),
        estimated_cost_cycles=best.cost,
        estimated_traffic_bytes=_traffic(best.m, best.n, best.k, cfg, best.regime),
        padded_compute_volume=best.padded,
    )
