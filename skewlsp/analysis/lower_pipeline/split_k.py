"""How many times the function holds a loop in AutoTileMatmulL0's canonical split-K form
(:mod:`skewlsp.analysis.passes.split_k_grid`), and the loads of each copy.

``TryFoldCanonicalSplitKAcc`` (``auto_tile_matmul_l0_pass.cpp``) asks ``ChooseL0Tile``
for the loop's plain matmul with the output-stationary regime only (the source loop
already holds the accumulator across its K blocks), the operands' Mat boxing as the
output's M and N granularity, and L0C double-buffering allowed under any planner but
PyPTO's (``allow_double_buffer_c``: the PTOAS planner keeps the two accumulators apart
itself). When the tile it returns is narrower than the output, the pass writes the whole
loop once per ``[m, n]`` tile, N tiles outer, each with its left load narrowed to
``[m, K]`` and its right to ``[K, n]`` (physical extents boxed), before
SkewCrossCorePipeline: LowerPipelineToSlots then meets every copy on its own, and its
capacity gate charges each copy's slots.

The chooser's inputs are the backend's (:mod:`.chip`): the 910B's L0 capacities and
row groups. The Mat box of an operand loaded as written (row-major fractals of 512
bytes): 16 rows, and as many columns as 32 bytes hold.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from skewlsp.analysis.lower_pipeline.chip import DEFAULT_CHIP, DTYPE_BYTES, L0_FRACTAL, Chip
from skewlsp.analysis.lower_pipeline.loop_facts import SlotLoad
from skewlsp.analysis.lower_pipeline.slot_capacity import slot_bytes
from skewlsp.analysis.passes.l0_tile_chooser import choose_l0_tile
from skewlsp.analysis.passes.split_k_grid import SplitKLoop

_BOX_ROWS, _BOX_BYTES = 16, 32  # a row-major 512-byte fractal: 16 rows of 32 bytes


@dataclass(frozen=True)
class OutputTiles:
    """The loop's output tiles (``count`` copies of the loop, of ``[m, n]`` each) and the
    body's loads as each copy has them (one per output tile, in program order)."""

    count: int
    m: int
    n: int
    loads: tuple[tuple[SlotLoad, ...], ...]


def output_tiles(
    split: SplitKLoop, loads: Sequence[SlotLoad], planner: str, chip: Chip = DEFAULT_CHIP
) -> OutputTiles | None:
    """The copies AutoTileMatmulL0 writes of the loop under ``planner``; None when it
    writes it once (the tile is the whole output, or the pass leaves the matmul)."""
    named = {load.name: load for load in loads}
    lhs, rhs = named.get(split.lhs), named.get(split.rhs)
    if lhs is None or rhs is None or not _plain(lhs) or not _plain(rhs):
        return None
    assert lhs.extents is not None and rhs.extents is not None
    assert lhs.dtype is not None and rhs.dtype is not None
    (big_m, big_k), (k_right, big_n) = lhs.extents, rhs.extents
    acc = split.out_dtype or ("INT32" if DTYPE_BYTES[lhs.dtype] == 1 else "FP32")
    if big_k != k_right or big_k % L0_FRACTAL or acc not in ("INT32", "FP32"):
        return None  # (an ill-typed matmul, PH-AT-007, another accumulator)
    config = chip.l0_tile_config(
        (big_m, big_n, big_k), (lhs.dtype, rhs.dtype), acc,
        box_align_m=_BOX_ROWS, box_align_n=_BOX_BYTES // DTYPE_BYTES[rhs.dtype],
        allow_double_buffer_c=planner != "pypto",
    )  # fmt: skip
    try:
        chosen = choose_l0_tile(config)
    except ValueError:
        return None  # PH-AT-005: left untouched
    m, n = chosen.m, chosen.n
    if (m, n) == (big_m, big_n):
        return None
    copies = []
    for ni in range(0, big_n, n):
        for mi in range(0, big_m, m):
            rows = _boxed(min(m, big_m - mi), _BOX_ROWS)
            cols = _boxed(min(n, big_n - ni), config.box_align_n)
            narrowed = {split.lhs: _narrowed(lhs, (rows, big_k))}
            narrowed[split.rhs] = _narrowed(rhs, (big_k, cols))
            copies.append(tuple(narrowed.get(load.name, load) for load in loads))
    return OutputTiles(len(copies), m, n, tuple(copies))


def _plain(load: SlotLoad) -> bool:
    """A static, full rectangular 2D load into Mat of a known type, as the pass matches
    an operand (a padded or dynamic ``valid_shape`` stays on its deferred path)."""
    return (
        not load.partial
        and load.space == "Mat"
        and load.extents is not None
        and len(load.extents) == 2
        and load.dtype in DTYPE_BYTES
        and load.blocker is None
        and load.unknown is None
    )


def _boxed(extent: int, box: int) -> int:
    return -(-extent // box) * box


def _narrowed(load: SlotLoad, extents: tuple[int, int]) -> SlotLoad:
    assert load.dtype is not None
    return replace(load, extents=extents, size=slot_bytes(extents, load.dtype, load.space))
