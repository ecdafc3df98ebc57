"""The L0 operands of a pipeline loop's matmuls: what InferTileMemorySpace moves into
Left and Right, and the most AutoTileMatmulL0 leaves of each there."""

from __future__ import annotations

from pathlib import Path

import libcst as cst

from skewlsp.analysis.driver import analyze_models
from skewlsp.analysis.lower_pipeline.loop_facts import SlotLoad
from skewlsp.analysis.memory.l0_operands import L0Operand, l0_operands
from skewlsp.common.resolver import RecordingResolver

MEM_LLM = Path(__file__).resolve().parents[2] / "fixtures" / "memory" / "models" / "mem_llm"

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


def test_the_int8_weight_slab_is_at_most_the_64_kb_the_compiler_gives_each_stage_in_l0b():
    # The compiler (pypto e2d0f78ae): AutoTileMatmulL0 keeps this INT8 matmul whole (its
    # chooser pins the [256, 256] weights in all of L0B, B-stationary), and MemoryReuse
    # hints "requested depth 2 for pipeline group 0 in Right, but only 1 of 2 buffers fit
    # (65536 B per stage, 65536 B free) ... This operand alone needs 131072 B"; each
    # stage's activations are a 32768 B tile in Left.
    path = MEM_LLM / "int8.py"
    models = analyze_models(path.read_text(), str(path), resolver=RecordingResolver((MEM_LLM,)))
    (model,) = [m for m in models if m.report.function == "int8_weights_filling_l0b"]
    assert model.node is not None and model.facts.slot_loads is not None
    assert l0_operands(model.node, model.facts.slot_loads) == (
        L0Operand("a", "Left", 32768),
        L0Operand("w", "Right", 65536),
    )
