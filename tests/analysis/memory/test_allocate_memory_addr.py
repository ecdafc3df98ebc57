"""AllocateMemoryAddr's placement and capacity check. The addresses and messages are
pypto e2d0f78ae's for the kernels of tests/fixtures/memory/models/mem_llm (their MemRefs
after AllocateMemoryAddr, recorded by benchmarks/compiler_probe.py, or the error that
stopped the compile)."""

from __future__ import annotations

from skewlsp.analysis.lower_pipeline.chip import ASCEND_910B
from skewlsp.analysis.memory.allocate_memory_addr import (
    SpaceOverflow,
    allocate_memory_addr,
    footprint,
)


def test_buffers_are_laid_one_after_the_other_in_the_order_given():
    # cube.py right_operand_per_stage, its buffers in the compiler's order (by name):
    # Mat mem_mat_3 (32 KB) at 0, mem_mat_4 (4 KB) at 32768, mem_mat_5 at 36864,
    # mem_mat_6 at 69632; Left mem_left_10 at 0, mem_left_7 at 4096.
    placed = allocate_memory_addr({"Mat": [32768, 4096, 32768, 4096], "Left": [4096, 4096]})
    assert placed.addresses == {"Left": (0, 4096), "Mat": (0, 32768, 36864, 69632)}
    assert placed.used == {"Left": 8192, "Mat": 73728}
    assert placed.overflows == ()


def test_a_space_past_its_capacity_stops_the_compile_with_the_compilers_words():
    # vector.py three_wide_rows_at_once: "Vec buffer usage (196608 bytes) exceeds
    # platform limit (188416 bytes)".
    placed = allocate_memory_addr({"Vec": [65536, 65536, 65536]})
    assert placed.overflows == (SpaceOverflow("Vec", 196608, 188416),)
    assert placed.overflows[0].message == (
        "Vec buffer usage (196608 bytes) exceeds platform limit (188416 bytes)"
    )


def test_a_buffer_that_is_not_a_multiple_of_32_bytes_pushes_the_next_to_one():
    assert footprint([100, 100], ASCEND_910B) == 256
    assert allocate_memory_addr({"Vec": [100, 100]}).addresses == {"Vec": (0, 128)}


def test_buffers_start_after_the_reserved_region():
    placed = allocate_memory_addr({"Vec": [65536, 65536]}, reserved={"Vec": 65536})
    assert placed.addresses == {"Vec": (65536, 131072)}
    assert placed.used == {"Vec": 196608}
    assert [o.space for o in placed.overflows] == ["Vec"]


def test_ddr_is_not_placed_and_a_space_the_chip_lacks_is_not_checked():
    placed = allocate_memory_addr({"DDR": [1 << 30], "LeftScale": [1 << 20]})
    assert "DDR" not in placed.used
    assert placed.used == {"LeftScale": 1 << 20}
    assert placed.overflows == ()
