"""The L0 operands of a pipeline loop's matmuls: what InferTileMemorySpace moves into
Left and Right, and the most AutoTileMatmulL0 leaves of each there."""

from __future__ import annotations

import libcst as cst

from skewlsp.analysis.lower_pipeline.loop_facts import SlotLoad
from skewlsp.analysis.memory.infer_tile_memory_space import L0Operand, l0_operands

MAT_64K = SlotLoad("w", "Mat", 65536)
MAT_32K = SlotLoad("x", "Mat", 32768)


def _loop(body: str) -> cst.For:
    text = "for k in pl.pipeline(0, 512, 256, stage=2):\n" + "".join(
        f"    {line}\n" for line in body.strip().splitlines()
    )
    node = cst.parse_module(text).body[0]
    assert isinstance(node, cst.For)
    return node


def test_a_matmuls_operands_go_left_and_right_at_most_their_whole_load():
    loop = _loop("x = a[0:128, k:k + 256]\nw = b[k:k + 256, 0:256]\nc = pl.matmul(x, w)")
    assert l0_operands(loop, (MAT_32K, MAT_64K)) == (
        L0Operand("x", "Left", 32768),
        L0Operand("w", "Right", 65536),
    )


def test_an_accumulating_matmuls_accumulator_is_no_l0_operand():
    loop = _loop("acc = pl.matmul_acc(acc, x, w, b_trans=True)")
    assert l0_operands(loop, (MAT_32K, MAT_64K)) == (
        L0Operand("x", "Left", 32768),
        L0Operand("w", "Right", 65536),
    )


def test_a_transposed_operand_is_moved_too_through_its_view_of_the_same_bytes():
    loop = _loop("c = pl.matmul(x, w, b_trans=True)")
    assert L0Operand("w", "Right", 65536) in l0_operands(loop, (MAT_32K, MAT_64K))


def test_an_operand_that_is_no_sized_load_of_the_body_has_no_bound():
    loop = _loop("c = pl.matmul(q, w)")
    assert l0_operands(loop, (MAT_64K, SlotLoad("q", "Mat", None))) == (
        L0Operand("q", "Left", None),
        L0Operand("w", "Right", 65536),
    )


def test_a_vector_loop_has_no_l0_operand():
    loop = _loop("y = pl.add(x, x)")
    assert l0_operands(loop, (SlotLoad("x", "Vec", 1024),)) == ()

