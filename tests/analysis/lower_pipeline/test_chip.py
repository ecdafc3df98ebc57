"""The chip table: what the compiler printed about its memories,
and the capacities LowerPipelineToSlots' gate reads off it."""

from __future__ import annotations

from skewlsp.analysis.lower_pipeline.chip import ASCEND_910B, ASCEND_950, CHIPS, DEFAULT_CHIP
from skewlsp.analysis.lower_pipeline.slot_capacity import CAPACITY


def test_the_910b_is_the_chip_compile_targets_by_default():
    assert DEFAULT_CHIP is ASCEND_910B
    assert set(CHIPS) == {"Ascend910B", "Ascend950"}


def test_the_910b_capacities_the_compiler_printed():
    # pypto e2d0f78ae on tests/fixtures/memory: "Vec buffer usage (262144 bytes) exceeds
    # platform limit (188416 bytes)"; PH-MR-001 "32768 B per stage, 65536 B free" in Right.
    assert ASCEND_910B.capacity("Vec") == 188416
    assert ASCEND_910B.capacity("Right") == 65536


def test_a_space_the_chip_does_not_have_has_no_known_capacity():
    assert ASCEND_910B.capacity("DDR") == 0
    assert ASCEND_910B.capacity("LeftScale") == 0
    assert ASCEND_950.capacity("LeftScale") == 4096


def test_buffers_start_on_32_byte_addresses_in_every_space():
    assert [ASCEND_910B.align(a) for a in (0, 1, 32, 33, 49152)] == [0, 32, 32, 64, 49152]


def test_lowerpipelinetoslots_gate_pins_slots_in_vec_mat_and_acc_as_on_the_910b():
    # (the 910B's capacities, pypto's soc.cpp: the gate reads them off this table)
    assert {space: ASCEND_910B.capacity(space) for space in CAPACITY} == dict(CAPACITY)
    assert dict(CAPACITY) == {"Vec": 184 * 1024, "Mat": 512 * 1024, "Acc": 128 * 1024}
