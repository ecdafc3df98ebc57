"""InitMemRef's sizes: every expected byte count is what pypto e2d0f78ae gave the tile
of that shape, type and space (its MemRef after InitMemRef, recorded by
benchmarks/compiler_probe.py on tests/fixtures/memory/models/mem_llm)."""

from __future__ import annotations

import pytest

from skewlsp.analysis.lower_pipeline.chip import ASCEND_910B, ASCEND_950
from skewlsp.analysis.memory.init_memref import (
    MemRef,
    TileShape,
    allocation_bytes,
    init_memrefs,
)


@pytest.mark.parametrize(
    ("extents", "dtype", "space", "compiler"),
    [
        ((16, 512), "FP32", "Vec", 32768),  # vector.py two_stages_fit's load
        ((16, 512), "BF16", "Vec", 16384),  # helpers.py scaled_rows' load
        ((16, 768), "FP32", "Vec", 49152),  # vector.py four_widened_stages' cast
        ((128, 128), "INT8", "Mat", 16384),  # cube.py int8_projection's weight
        ((64, 256), "BF16", "Right", 32768),  # AutoTileMatmulL0's half of a K of 128
        ((16, 256), "FP32", "Acc", 16384),  # 16 rows: a whole row group
        ((16, 128), "INT32", "Acc", 16384),  # INT32 rows rounded up to 32 on the 910B
    ],
)
def test_a_tile_takes_its_elements_times_their_size(extents, dtype, space, compiler):
    assert allocation_bytes(extents, dtype, space, ASCEND_910B) == compiler


def test_an_int32_accumulator_keeps_its_16_rows_on_the_950():
    # GetL0cMAlignment: only the 910B's handler asks 32 rows of an INT32 accumulator.
    assert allocation_bytes((16, 128), "INT32", "Acc", ASCEND_950) == 8192


def test_4_bit_elements_are_packed():
    assert allocation_bytes((16, 63), "INT4", "Vec") == 504


def test_a_shape_or_type_the_compiler_cannot_size_has_no_size():
    assert allocation_bytes((16, 0), "FP32", "Vec") is None
    assert allocation_bytes((16,), "FP32", "Acc") is None
    assert allocation_bytes((16, 16), "COMPLEX", "Vec") is None


def test_each_tile_gets_a_buffer_and_a_view_its_sources():
    tiles = [
        TileShape((16, 512), "FP32", "Vec"),
        TileShape((16, 256), "FP32", "Vec", view_of=0),  # a slice: the same buffer
        TileShape((16, 512), "BF16", "Vec"),
        TileShape(None, "FP32", "Vec"),  # an extent known at run time: no size
        TileShape((16, 16), "FP32", "Vec", view_of=3),
    ]
    assert init_memrefs(tiles) == [
        MemRef(0, "Vec", 32768),
        MemRef(0, "Vec", 32768),
        MemRef(1, "Vec", 16384),
        None,
        None,
    ]
