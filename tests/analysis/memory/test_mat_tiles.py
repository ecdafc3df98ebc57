"""A cube function's Mat (L1) tiles and what they decide of a loop's depth there, against
what pypto e2d0f78ae did to tests/fixtures/memory/models/mem_llm (default planner,
Ascend910B: 512 KB of L1): every Mat stage group there keeps its every stage, with no
PH-MR-001 hint."""

from __future__ import annotations

from pathlib import Path

from skewlsp.analysis.driver import analyze_models
from skewlsp.analysis.lower_pipeline.loop_facts import MatLoad, ScopeMat
from skewlsp.analysis.memory.allocate_memory_addr import footprint
from skewlsp.analysis.memory.mat_tiles import MatMemory, mat_memory, mat_packing
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
