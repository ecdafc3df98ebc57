"""What MemoryReuse and AllocateMemoryAddr give each replicated loop's loads, on its report
(issue #41), against what pypto e2d0f78ae did to tests/fixtures/memory/models/mem_llm
(default planner, Ascend910B): SKW080 and SKW081 only where the loads alone decide it."""

from __future__ import annotations

from pathlib import Path

from skewlsp.analysis.driver import analyze_models
from skewlsp.analysis.driver.loop_decision import LoopModel
from skewlsp.common.resolver import RecordingResolver
from skewlsp.contract import LoopReport, SpaceBuffers

MEM_LLM = Path(__file__).resolve().parents[2] / "fixtures" / "memory" / "models" / "mem_llm"
LOWER_LLM = Path(__file__).resolve().parents[2] / "fixtures" / "lowering" / "models" / "lower_llm"


def models_of(file: str, planner: str = "pypto") -> list[LoopModel]:
    path = MEM_LLM / file
    return analyze_models(
        path.read_text(), str(path), resolver=RecordingResolver((MEM_LLM,)), planner=planner
    )


def report_of(file: str, function: str, planner: str = "pypto") -> LoopReport:
    (model,) = [m for m in models_of(file, planner) if m.report.function == function]
    return model.report


def test_three_copies_of_a_64_kb_load_get_two_buffers_slot_bound_as_the_compiler_hints():
    # The compiler: "PH-MR-001 ... requested depth 3 for pipeline group 0 in Vec, but only
    # 2 of 3 buffers fit (65536 B per stage, 188416 B free) ... This operand alone needs".
    report = report_of("short.py", "short_context_rows")
    (core,) = report.cores
    assert core.memory == (SpaceBuffers("Vec", 65536, 3, 2, "slot-bound", True),)
    (hint,) = [h for h in report.hints if h.code == "SKW080"]
    assert hint.message.startswith(
        "PH-MR-001: MemoryReuse keeps at most 2 of the 3 stages' buffers apart in Vec on "
        "the AIV core: 3 x 65536 B per stage is more than its 188416 B"
    )
    assert hint.span == report.stage_span


def test_the_slot_bound_advice_is_what_packing_the_changed_loop_again_fits():
    # stage=2: a main loop of two 64 KB clones (128 KB) and one copy after it; loads of
    # 188416 // 3 B, rounded down to 32, keep all three.
    (hint,) = [h for h in report_of("short.py", "short_context_rows").hints if h.code == "SKW080"]
    assert hint.message.endswith("; stage=2 fits, or loads of at most 62784 B in Vec keep all 3")


def test_two_64_kb_loads_per_stage_overflow_vec_and_stop_the_compile_as_in_the_compiler():
    # The compiler: the legacy-packing warning, then AllocateMemoryAddr's "Vec buffer usage
    # (262144 bytes) exceeds platform limit (188416 bytes)".
    report = report_of("short.py", "query_and_key_rows")
    (core,) = report.cores
    assert core.memory == (SpaceBuffers("Vec", 65536, 2, None, "overflow", True),)
    (error,) = [h for h in report.hints if h.code == "SKW081"]
    assert "the 4 loads of its 2 stages are live at once and need 262144 B of its 188416 B" in (
        error.message
    )
    assert error.message.endswith(
        '("Vec buffer usage (262144 bytes) exceeds platform limit (188416 bytes)")'
    )


def test_four_wide_stages_overflow_as_the_compiler_said():
    # The compiler: MemoryReuse's legacy-packing warning ("... which also overflows"),
    # then AllocateMemoryAddr's error.
    report = report_of("vector.py", "four_stages_of_wide_rows")
    assert [h.code for h in report.hints] == ["SKW082", "SKW081"]
    assert report.cores[0].memory[0].cause == "overflow"


def test_a_function_whose_known_tiles_overflow_packed_the_legacy_way_stops_the_compile():
    # The compiler on gathered.py: rotated_rows' five 32 KB stages beside the 32 KB
    # gathered tile fit at no depth: MemoryReuse's warning ("... which also overflows"),
    # then "Vec buffer usage (196608 bytes) exceeds platform limit (188416 bytes)".
    report = report_of("gathered.py", "rotated_rows")
    (core,) = report.cores
    overflow = "the function's tiles, packed the legacy way, overflow"
    assert core.memory == (SpaceBuffers("Vec", 32768, 5, None, "overflow", True, overflow),)
    assert [h.code for h in report.hints] == ["SKW082", "SKW081"]
    error = report.hints[1]
    assert error.message.startswith(
        "the function's tiles, packed the legacy way, overflow Vec on the AIV core: its 6 "
        "buffers (each named by its largest tile: rows (load) 32768 B, lanes (load) 32768 B, "
        "scratch (create_tile) 32768 B, rotated (gather) 32768 B and 2 more) need 196608 B "
        "of its 188416 B"
    )
    masked = report_of("gathered.py", "masked_pairs").hints[1]
    assert masked.code == "SKW081" and "need 229376 B of its 188416 B" in masked.message


def test_a_vector_copy_that_pops_what_it_reads_is_packed_once_per_lane():
    # The compiler on popped.py: the AIV function holds the body once per lane (no split
    # mode), and MemoryReuse keeps 1 of 4 stages apart in the first lane's loop ("only 1
    # of 4 buffers fit (32768 B per stage, 122880 B free after 65536 B reserved)"), 2 of 4
    # in the second's. The cube's slice of q is Mat's, not the vector copy's.
    report = report_of("popped.py", "scores_then_softmax")
    aic, aiv = report.cores
    assert aiv.copies == 2
    assert aiv.memory == (
        SpaceBuffers("Vec", 32768, 4, 1, "slot-bound", True),
        SpaceBuffers("Vec", 32768, 4, 2, "slot-bound", True, lane=2),
    )
    vec_hints = [h.message for h in report.hints if "in Vec" in h.message]
    assert [m.split(":")[1] for m in vec_hints] == [
        " MemoryReuse keeps at most 1 of the 4 stages' buffers apart in Vec on the AIV core",
        " MemoryReuse keeps at most 2 of the 4 stages' buffers apart in Vec on the AIV core's "
        "second lane",
    ]
    assert [m.space for m in aic.memory] == ["Mat", "Left", "Right"]
    fits = report_of("popped.py", "scores_two_stages").cores[1]
    assert fits.memory == (
        SpaceBuffers("Vec", 32768, 2, 2, None, True),
        SpaceBuffers("Vec", 32768, 2, 2, None, True, lane=2),
    )


def test_each_core_copy_of_a_mixed_loop_counts_only_the_loads_landing_on_it():
    # fused_scores.py: the cube loads k into Mat, the vector copy the scale into Vec
    # (ExpandMixedKernel); neither copy's record lists the other core's space.
    report = report_of("fused_scores.py", "fused_page_scores")
    aic, aiv = report.cores
    assert "Vec" not in [m.space for m in aic.memory]
    assert [m.space for m in aiv.memory] == ["Vec", "Vec"]  # (once per lane: no split)


SPLIT_ROWS = """
import pypto.language as pl


@pl.jit
def split_rows(
    q: pl.Tensor[[512, 128], pl.BF16],
    kv: pl.Tensor[[512, 128], pl.BF16],
    mask: pl.Tensor[[512, 512], pl.FP32],
    out: pl.Out[pl.Tensor[[512, 512], pl.FP32]],
):
    with pl.spmd(1, name_hint="halved", optimizations=[pl.split(pl.SplitMode.UP_DOWN)]):
        kv_tile = kv[:, :]
        for hb in pl.pipeline(16, stage=4):
            qt = q[hb * 32 : hb * 32 + 32, :]
            mt = mask[hb * 32 : hb * 32 + 32, :]
            s = pl.matmul(qt, kv_tile, b_trans=True, out_dtype=pl.FP32)
            out[hb * 32 : hb * 32 + 32, :] = pl.add(s, mt)
    return out
"""


def test_a_vector_copy_whose_tiles_a_split_mode_halves_states_no_bytes_of_its_own():
    # The compiler on this text: each lane's stage is 32768 B, half the [32, 512] FP32
    # load written (SplitVectorKernel, UP_DOWN), and the function stops in
    # AllocateMemoryAddr above the 128 KB cross-core ring. skewlint neither halves the
    # tiles nor reserves that ring there: the vector copy's buffers are not known, and
    # no finding is drawn from the unhalved loads (they said an overflow for a wrong
    # reason: four 64 KB loads).
    (model,) = analyze_models(SPLIT_ROWS, "k.py")
    aic, aiv = model.report.cores
    why = "not known: a split mode halves the vector tiles (not modelled)"
    assert aiv.memory == (SpaceBuffers("Vec", 0, 4, reason=why),)
    assert [h.code for h in model.report.hints if "AIV" in h.message] == []


def test_a_function_whose_vec_tiles_are_all_known_gets_its_whole_depth_there():
    # The compiler: no hint; the loads and their sums of two_stages_fit take 65536 B.
    report = report_of("vector.py", "two_stages_fit")
    assert report.cores[0].memory == (SpaceBuffers("Vec", 32768, 2, 2, None, True),)
    assert [h.code for h in report.hints if h.code.startswith("SKW08")] == []


def test_loads_that_fit_alone_beside_a_loop_of_run_time_trip_say_what_is_not_known():
    path = LOWER_LLM / "pipelines.py"
    models = analyze_models(path.read_text(), str(path), resolver=RecordingResolver((LOWER_LLM,)))
    (report,) = [m.report for m in models if m.report.function == "dynamic_stop"]
    (space,) = report.cores[0].memory
    assert (space.achieved, space.cause, space.known) == (None, None, False)
    assert space.reason == (
        "fits alone; the function's other Vec tiles are not known: a pipeline loop of the "
        "function whose trip is known only at run time"
    )
    assert [h.code for h in report.hints if h.code.startswith("SKW08")] == []


def test_a_replicated_vector_loop_whose_buffers_are_not_known_says_why_not_nothing():
    # masked.py: the body, under `if dd < live`, loads nothing at its top level, and a
    # matmul of a slice leaves the function's Vec tiles unknown: the record says both
    report = report_of("masked.py", "masked_steps")
    (vector,) = [core for core in report.cores if core.core == "aiv"]
    assert vector.memory == (
        SpaceBuffers(
            "Vec",
            0,
            3,
            reason="not known: no load of its body is known; the function's other Vec "
            "tiles are not known: a matmul of operands or a dtype not known",
        ),
    )


def test_rsqrt_is_one_tile_and_two_stages_of_the_norm_keep_their_buffers():
    # The compiler: no hint for rms_norm_rsqrt.
    for model in models_of("norm.py"):
        if model.report.function == "rms_norm_rsqrt":
            assert model.report.cores[0].memory == (SpaceBuffers("Vec", 32768, 2, 2, None, True),)


def test_a_stage_widened_past_what_vec_holds_four_times_is_slot_bound_from_the_whole_function():
    # The compiler: "only 1 of 4 buffers fit (49152 B per stage, 188416 B free) ... This
    # operand alone needs 196608 B": the widened rows, a tile the body computes.
    report = report_of("vector.py", "four_widened_stages")
    assert report.cores[0].memory == (SpaceBuffers("Vec", 49152, 4, 1, "slot-bound", True),)
    (hint,) = [h for h in report.hints if h.code == "SKW080"]
    assert "4 x 49152 B per stage is more than its 188416 B" in hint.message


def test_a_stage_beside_a_tile_read_across_the_loop_loses_depth_as_the_compiler_hints():
    # The compiler, at helpers.py:18 (the inline helper's loop): 2 of 4, space-pressure.
    report = report_of("vector.py", "beside_a_resident_row")
    assert report.cores[0].memory == (SpaceBuffers("Vec", 32768, 4, 2, "space-pressure", True),)
    (hint,) = [h for h in report.hints if h.code == "SKW080"]
    assert "co-resident: " in hint.message and "c (load) 32768 B" in hint.message


def test_the_tiles_each_stage_computes_take_vec_from_the_stages_as_the_compiler_hints():
    # The compiler (and on the same code in pypto-lib qwen3_32b/decode.py's rmsnorm):
    # "requested depth 4 for pipeline group 0 in Vec, but only 1 of 4 buffers fit (32768 B
    # per stage, 188416 B free) ... co-resident buffers / other pipeline groups
    # over-subscribe the space", and 3 of 4 for group 1.
    first, second = (
        m.report for m in models_of("norm.py") if m.report.function == "rms_norm"
    )
    assert first.cores[0].memory == (SpaceBuffers("Vec", 32768, 4, 1, "space-pressure", True),)
    assert second.cores[0].memory == (SpaceBuffers("Vec", 32768, 4, 3, "space-pressure", True),)
    (hint,) = [h for h in first.hints if h.code == "SKW080"]
    assert hint.message.startswith(
        "PH-MR-001: MemoryReuse keeps only 1 of the 4 stages' buffers apart in Vec on the "
        "AIV core: the function's Vec tiles packed together fit no greater depth in its "
        "188416 B (32768 B per stage); co-resident: chunk (cast) 32768 B, "
    )
    assert hint.span == first.stage_span
    assert "; stages 1 apart share storage and serialize" in hint.message


def test_the_space_pressure_advice_is_the_stage_packing_the_whole_function_again_fits():
    # The compiler's words for the second loop: "reduce the pipeline depth to 3"; with
    # stage=3 its 8 iterations are a main loop of 3 clones and 2 copies after it.
    _, second = (m.report for m in models_of("norm.py") if m.report.function == "rms_norm")
    (hint,) = [h for h in second.hints if h.code == "SKW080"]
    assert hint.message.endswith("; stages 3 apart share storage and serialize; stage=3 keeps all 3")


def test_two_stages_of_the_same_norm_keep_their_buffers():
    for model in models_of("norm.py"):
        if model.report.function == "rms_norm_two_stages":
            assert model.report.cores[0].memory == (SpaceBuffers("Vec", 32768, 2, 2, None, True),)


def test_under_ptoas_the_memory_passes_leave_the_loop_alone():
    report = report_of("short.py", "short_context_rows", planner="ptoas")
    assert report.cores[0].memory == ()
    assert [h.code for h in report.hints if h.code.startswith("SKW08")] == []


HELPER_AT_TWO_WIDTHS = '''
import pypto.language as pl

ROWS = 16


@pl.jit.inline
def widened(a: pl.Tensor[[64, 2048], pl.BF16], out: pl.Out[pl.Tensor[[64, 2048], pl.FP32]], width: pl.Scalar[pl.INDEX]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="widened"):
        for i in pl.pipeline(4, stage=4):
            t = a[i * ROWS : i * ROWS + ROWS, 0:width]
            wide = pl.cast(t, target_type=pl.FP32)
            out[i * ROWS : i * ROWS + ROWS, 0:width] = pl.exp(wide)
    return out


@pl.jit
def narrow(a: pl.Tensor[[64, 2048], pl.BF16], out: pl.Out[pl.Tensor[[64, 2048], pl.FP32]]):
    out = widened(a, out, 256)
    return out


@pl.jit
def wide(a: pl.Tensor[[64, 2048], pl.BF16], out: pl.Out[pl.Tensor[[64, 2048], pl.FP32]]):
    out = widened(a, out, 1024)
    return out
'''


def test_each_copy_of_a_helper_packs_the_tiles_its_own_call_makes():
    # 4 stages of a [16, 256] BF16 load widened to 32 KB fit; of a [16, 1024] one widened
    # to 64 KB, no depth does: the wide copy's tiles are its own, not the narrow one's. The
    # compiler (this text compiled): `wide` gets MemoryReuse's warning ("... which also
    # overflows") and stops in AllocateMemoryAddr at 196608 bytes; `narrow` keeps 4 of 4.
    narrow_copy, wide_copy = (
        m.report.cores[0].memory for m in analyze_models(HELPER_AT_TWO_WIDTHS, "k.py")
    )
    assert narrow_copy == (SpaceBuffers("Vec", 16384, 4, 4, None, True),)
    overflow = "the function's tiles, packed the legacy way, overflow"
    # (each stage's slot is its group's largest tile, the widened copy, as for `narrow`)
    assert wide_copy == (SpaceBuffers("Vec", 65536, 4, None, "overflow", True, overflow),)
    _, wide_report = (m.report for m in analyze_models(HELPER_AT_TWO_WIDTHS, "k.py"))
    (warning,) = [h for h in wide_report.hints if h.code == "SKW082"]
    assert "(the function's Vec tiles packed together overflow it at every depth" in (
        warning.message
    )
    assert "fell back to the legacy packing (which also overflows" in warning.message
