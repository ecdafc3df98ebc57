"""A cube function's Mat (L1) tiles and what they decide of a loop's depth there, against
what pypto e2d0f78ae did to tests/fixtures/memory/models/mem_llm (default planner,
Ascend910B: 512 KB of L1): every Mat stage group there keeps its every stage, with no
PH-MR-001 hint."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import libcst as cst

from skewlsp.analysis.driver import analyze_models
from skewlsp.analysis.frontend.constants import Const
from skewlsp.analysis.lower_pipeline.loop_facts import MatLoad, ScopeMat
from skewlsp.analysis.memory.allocate_memory_addr import footprint
from skewlsp.analysis.memory.mat_tiles import (
    MatMemory,
    cube_ring,
    mat_memory,
    mat_packing,
    scope_mat,
)
from skewlsp.analysis.passes.convert_tensor_to_tile_ops import Tensor
from skewlsp.analysis.passes.scope_tile_ops import ScopeTiles
from skewlsp.common.resolver import RecordingResolver
from skewlsp.contract import LoopReport, Lowering, SpaceBuffers, Span

MEM_LLM = Path(__file__).resolve().parents[2] / "fixtures" / "memory" / "models" / "mem_llm"
LOOP = Span(10, 8, 10, 40)
OTHER = Span(20, 8, 20, 40)
TWO_CLONES = Lowering("replicated", "SKW011", "", stage=2, main_trip=4, copies=2)
THREE_COPIES = Lowering("replicated", "SKW011", "", stage=2, main_trip=3, tail=1, copies=3)


def report_of(file: str, line: int) -> LoopReport:
    path = MEM_LLM / file
    models = analyze_models(
        path.read_text(), str(path), resolver=RecordingResolver((MEM_LLM,)), planner="pypto"
    )
    (model,) = [m for m in models if m.report.span.line == line]
    return model.report


def decided(scope: ScopeMat, lowerings: dict[Span, Lowering | None]) -> MatMemory:
    return mat_memory(scope, mat_packing(scope, lowerings), LOOP)


def mat_of(report: LoopReport) -> SpaceBuffers:
    (core,) = [c for c in report.cores if c.core == "aic"]
    (mat,) = [m for m in core.memory if m.space == "Mat"]
    return mat


def test_a_loop_whose_function_s_mat_tiles_all_fit_keeps_every_stage_as_the_compiler_does():
    # cube.py:19: the compiler's Mat group of the loop: 2 stages, 32768 B per stage, no hint
    # (a [128, 128] BF16 right operand per stage; the [16, 128] left one loaded in each too)
    assert mat_of(report_of("cube.py", 19)) == SpaceBuffers(
        "Mat", 32768, 2, 2, None, True
    )


def test_a_three_stage_loop_after_a_first_block_keeps_its_three_stages_in_mat():
    # projection.py:129: the compiler's Mat group: 3 stages, 16384 B per stage, no hint
    report = report_of("projection.py", 129)
    assert mat_of(report) == SpaceBuffers("Mat", 16384, 3, 3, None, True)


def test_two_bands_too_large_to_hold_apart_fit_once_packed_with_their_lifetimes():
    # projection.py:72: per band, the first block's 4096 B + 65536 B and three copies of
    # the loop's (two clones and one remainder copy): 2 x 4 x 69632 = 557056 B, more than
    # the 524288 B of L1 if no tile shared a buffer. The compiler packs the function's Mat
    # tiles in 139264 B and keeps both stages of each band's loop (65536 B per stage)
    path = MEM_LLM / "projection.py"
    models = analyze_models(
        path.read_text(), str(path), resolver=RecordingResolver((MEM_LLM,)), planner="pypto"
    )
    (model,) = [m for m in models if m.report.span.line == 72]
    assert mat_of(model.report) == SpaceBuffers("Mat", 65536, 2, 2, None, True)
    (function,) = [f for f in model.functions if f.core == "aic"]
    scope = model.facts.scope_mat
    assert scope is not None
    packing = mat_packing(scope, {loop.span: loop.lowering for loop in function.loops})
    assert packing.total == 557056
    assert packing.reuse is not None and packing.layout is not None
    tiles = packing.layout.tiles
    slots = [max(tiles[i].bytes for i in members) for members in packing.reuse.buffers["Mat"]]
    assert footprint(slots) == 139264


def test_a_function_calling_a_helper_whose_ops_are_not_seen_is_not_known_in_mat():
    # int8.py:20: `acc = first_int8_block(act, weight)` before the loop (an inline helper)
    mat = mat_of(report_of("int8.py", 20))
    assert mat.reason == (
        "fits alone; the function's Mat tiles are not known: the call "
        "`first_int8_block(...)`, whose ops are not seen"
    )


def test_every_tile_in_a_buffer_of_its_own_within_l1_keeps_every_stage():
    scope = ScopeMat(
        (MatLoad("x", 4096), MatLoad("w", 65536, 0), MatLoad("v", 32768, 1)),
        (LOOP, OTHER),
        (-1, -1),
    )
    # 4096 + 2 x 65536 + 3 x 32768 = 233472 B of 524288
    assert decided(scope, {LOOP: TWO_CLONES, OTHER: THREE_COPIES}) == MatMemory(233472, 65536, True)


def test_tiles_past_l1_if_none_shared_a_buffer_leave_the_depth_to_the_packing():
    scope = ScopeMat((MatLoad("w", 131072, 0), MatLoad("v", 131072, 1)), (LOOP, OTHER), (-1, -1))
    # 2 x 131072 + 3 x 131072 = 655360 B, more than 524288
    found = decided(scope, {LOOP: TWO_CLONES, OTHER: THREE_COPIES})
    assert (found.total, found.fits) == (655360, False)


def test_a_tile_loaded_before_the_loop_and_read_transposed_in_it_is_one_of_its_stage_s():
    # pypto-lib decode_indexer's score loop: `matmul(kv_i8_mat, qr_full, b_trans=True)`, with
    # qr_full ([64, 128] INT8, 8192 B) loaded before the loop: the compiler's group slot is
    # 8192 B, not the 4096 B of the loop's own load
    scope = ScopeMat(
        (MatLoad("qr_full", 8192), MatLoad("kv_i8_mat", 4096, 0)), (LOOP,), (-1,), ((0, "qr_full"),)
    )
    assert decided(scope, {LOOP: TWO_CLONES}).slot == 8192


def test_a_loop_whose_copies_on_the_core_are_not_known_leaves_the_function_unknown():
    scope = ScopeMat((MatLoad("w", 4096, 0), MatLoad("v", 4096, 1)), (LOOP, OTHER), (-1, -1))
    found = decided(scope, {LOOP: TWO_CLONES, OTHER: None})
    assert found.why == "the copies of the loop at line 20 are not known"


# The walk of a scope's statements (the tensors of cube.py's right_operand_per_stage).
TENSORS = {
    "x": Tensor(cst.parse_expression("[16, 128]"), "BF16"),
    "w": Tensor(cst.parse_expression("[512, 128]"), "BF16"),
    "out": Tensor(cst.parse_expression("[16, 512]"), "FP32"),
}


def fold(node: cst.BaseExpression) -> Const | None:
    """Integers only: a name is not known."""
    return Const(int(node.value)) if isinstance(node, cst.Integer) else None


def walked(body: str) -> ScopeMat:
    source = 'with pl.at(level=pl.Level.CORE_GROUP, name_hint="proj"):\n' + body
    (scope,) = cst.parse_module(source).body
    lines = iter(range(2, 100))
    return scope_mat(scope, TENSORS, fold, lambda loop: Span(next(lines), 1, 1, 1))


def test_the_loads_a_matmul_reads_are_the_scope_s_mat_tiles_each_in_its_pipeline_loop():
    # InitMemRef (cube.py:19, the same statements): x [16, 128] BF16 4096 B before the
    # loop, wj [128, 128] BF16 32768 B in each clone
    scope = walked(
        "    xt = x[0:16, 0:128]\n"
        "    for j in pl.pipeline(4, stage=2):\n"
        "        wj = w[0:128, 0:128]\n"
        "        out[0:16, 0:128] = pl.matmul(xt, wj, out_dtype=pl.FP32)\n"
    )
    assert scope.unknown is None
    assert scope.loads == (MatLoad("xt", 4096, -1), MatLoad("wj", 32768, 0))
    # in program order: xt's load, the loop's load and the matmul reading both
    ops = scope.ordered.ops
    assert [(op.out, op.reads, op.load, op.loop) for op in ops] == [
        ("xt", (), True, -1),
        ("wj", (), True, 0),
        (None, ("xt", "wj"), False, 0),
    ]


def test_each_op_is_told_by_the_top_level_statement_of_its_loop_it_comes_from():
    # (which half of a skewed copy holds it: SkewCrossCorePipeline splits a loop's body
    # by its top-level statements); an `if`'s branch is in the `if`'s statement
    scope = walked(
        "    for j in pl.pipeline(4, stage=2):\n"
        "        wj = w[0:128, 0:128]\n"
        "        if j > 0:\n"
        "            xt = x[0:16, 0:128]\n"
        "            out[0:16, 0:128] = pl.matmul(xt, wj, out_dtype=pl.FP32)\n"
    )
    assert scope.unknown is None
    ops = scope.ordered.ops
    assert [(op.out, op.statement) for op in ops] == [("wj", 0), ("xt", 1), (None, 1)]


def test_a_split_aiv_region_is_the_vector_s_alone_and_holds_no_mat_tile():
    # LowerAutoVectorSplit's lane regions run on the vector; the cube's function holds
    # the loop's loads alone (tests/fixtures/mixed/models/mixed_llm/regions.py:24,
    # compiled: both stages kept in Mat)
    scope = walked(
        "    for j in pl.pipeline(4, stage=2):\n"
        "        wj = w[0:128, 0:128]\n"
        "        out[0:16, 0:128] = pl.matmul(x[0:16, 0:128], wj, out_dtype=pl.FP32)\n"
        "    for lane in pl.split_aiv(2, mode=pl.SplitMode.NONE):\n"
        "        out[0:16, 0:128] = pl.exp(out[0:16, 0:128])\n"
    )
    assert scope.unknown is None
    assert [load.name for load in scope.loads] == ["wj", "x[...]"]
    with_matmul = walked(
        "    for lane in pl.split_aiv(2, mode=pl.SplitMode.NONE):\n"
        "        out[0:16, 0:128] = pl.matmul(x[0:16, 0:128], w[0:128, 0:128])\n"
    )
    assert with_matmul.unknown == "a matmul in a `pl.split_aiv` region"


def test_an_accumulator_the_vector_makes_is_pushed_to_the_cube_and_is_not_modelled():
    scope = walked(
        "    acc = pl.full([16, 128], dtype=pl.FP32, value=0.0)\n"
        "    for j in pl.pipeline(4, stage=2):\n"
        "        wj = w[0:128, 0:128]\n"
        "        acc = pl.matmul_acc(acc, x[0:16, 0:128], wj)\n"
    )
    assert scope.unknown == "the operand `acc` of `matmul_acc` is not made on the cube"


def test_a_tile_popped_from_the_vector_is_not_modelled():
    scope = walked(
        "    for j in pl.pipeline(4, stage=2):\n"
        "        p = pl.tpop_from_aiv()\n"
        "        out[0:16, 0:128] = pl.matmul(p, w[0:128, 0:128], out_dtype=pl.FP32)\n"
    )
    assert scope.unknown == "the op `tpop_from_aiv`, whose Mat tiles are not modelled"


def test_a_mat_tile_of_one_branch_read_after_the_if_is_not_laid_out():
    scope = walked(
        "    for j in pl.pipeline(4, stage=2):\n"
        "        if j == 0:\n"
        "            wj = w[0:128, 0:128]\n"
        "            out[0:16, 0:128] = pl.matmul(x[0:16, 0:128], wj, out_dtype=pl.FP32)\n"
        "        else:\n"
        "            wj = w[128:256, 0:128]\n"
        "            out[0:16, 0:128] = pl.matmul(x[0:16, 0:128], wj, out_dtype=pl.FP32)\n"
        "        out[0:16, 128:256] = pl.matmul(x[0:16, 0:128], wj, out_dtype=pl.FP32)\n"
    )
    # its tiles are known (one wj per branch, an x per matmul), their lifetimes are not:
    # after the `if`, `wj` is either branch's tile
    assert scope.unknown is None
    assert sorted(load.bytes for load in scope.loads) == [4096, 4096, 4096, 32768, 32768]
    assert scope.ordered.unknown == "a Mat tile bound in a branch of an `if` is read after it"


def test_a_load_of_a_branch_a_matmul_after_the_if_reads_is_not_told_to_be_in_mat():
    # (statement_loads judges a load's memory by the reads of its own block)
    scope = walked(
        "    for j in pl.pipeline(4, stage=2):\n"
        "        if j == 0:\n"
        "            wj = w[0:128, 0:128]\n"
        "        else:\n"
        "            wj = w[128:256, 0:128]\n"
        "        out[0:16, 0:128] = pl.matmul(x[0:16, 0:128], wj, out_dtype=pl.FP32)\n"
    )
    # (a tile the scope binds, not loaded into Mat by one statement: popped from the
    # vector where the vector pushes it, else not known)
    assert scope.unknown is None and scope.popped == ("wj",)
    assert cube_ring(scope, None) == "the matmul operand `wj` is not a load into Mat"


def test_a_tile_the_vector_pushes_is_popped_into_the_ring_s_buffer_at_the_bottom_of_mat():
    # random_kernels.py --family pushed, seed 3, k8: the vector sends [128, 512] BF16 rows
    # (128 KB) to the cube's matmul; pypto e2d0f78ae: "Mat buffer usage (655360 bytes)
    # exceeds platform limit (524288 bytes). The first 262144 bytes of that space are
    # reserved by system.reserve_buffer"
    scope = walked(
        "    for j in pl.pipeline(4, stage=3):\n"
        "        a = pl.cast(x[0:128, 0:512], target_type=pl.BF16)\n"
        "        out[0:128, 0:128] = pl.matmul(a, w[0:512, 0:128], out_dtype=pl.FP32)\n"
    )
    assert scope.popped == ("a",)
    vector = ScopeTiles(pushed=(131072,), sent=("a",), slot_num=None)
    assert cube_ring(scope, vector) == {"Mat": 262144}  # (2 slots unless the scope says)
    assert cube_ring(scope, replace(vector, slot_num=1)) == {"Mat": 131072}
    assert cube_ring(scope, ScopeTiles(pushed=(131072,), sent=("b",))) == (
        "the matmul operand `a` is not a load into Mat"
    )


def test_another_name_for_a_mat_tile_is_its_buffer_and_its_reads_keep_the_tile_alive():
    scope = walked(
        "    for j in pl.pipeline(4, stage=2):\n"
        "        wj = w[0:128, 0:128]\n"
        "        wk = wj\n"
        "        out[0:16, 0:128] = pl.matmul(x[0:16, 0:128], wj, out_dtype=pl.FP32)\n"
        "        out[0:16, 128:256] = wk\n"
    )
    assert scope.unknown is None
    ops = scope.ordered.ops
    assert [(op.out, op.reads, op.view_of) for op in ops] == [
        ("wj", (), None),
        ("wk", ("wj",), "wj"),  # (the layout gives `wk` the buffer of `wj`)
        (ops[2].out, (), None),  # x's slice, loaded for the matmul
        (None, (ops[2].out, "wj"), None),
        (None, ("wk",), None),  # the last read of wj's buffer
    ]
