"""The depth MemoryReuse keeps in Left and Right for a loop whose matmuls
AutoTileMatmulL0 splits into K loops of their own, on its report, against what pypto
e2d0f78ae did to tests/fixtures/memory/models/mem_llm/projection.py (default planner,
Ascend910B)."""

from __future__ import annotations

from skewlsp.contract import KLoopBuffers, SpaceBuffers
from tests.analysis.report.test_memory import models_of, report_of


def test_k_loops_and_the_stages_around_them_share_l0b_and_all_three_fall_to_one_buffer():
    # The compiler, function k_split: groups 0 and 1 (the K loops of the two matmuls)
    # and group 2 (the loop's stages) each "requested 2 achieved 1 ... 32768 B per
    # stage, 65536 B free, space-pressure" in Right; Left keeps 2 of 2 (2048 B slices).
    # After MemoryReuse each K loop's two slices are in two buffers (2 stages apart).
    report = report_of("projection.py", "k_split_projection")
    memory = report.memory or next(core.memory for core in report.cores)
    k_loops = (k_loop("matmul(a, b)", 1, 2), k_loop("matmul_acc(a, b)", 1, 2))
    assert SpaceBuffers("Right", 32768, 2, 1, "space-pressure", True, k_loops=k_loops) in memory
    assert SpaceBuffers("Left", 2048, 2, 2, None, True) in memory
    (hint,) = [h for h in report.hints if h.code == "SKW080"]
    assert hint.message.startswith(
        "PH-MR-001: MemoryReuse keeps only 1 of the 2 stages' buffers apart in Right"
    )
    assert "the K loop AutoTileMatmulL0 makes for `matmul(a, b)` (32768 B per stage, 1 of 2" in (
        hint.message
    )
    assert "`matmul_acc(a, b)`" in hint.message


def test_a_matmul_before_the_loop_takes_l0b_too_and_the_finding_names_its_k_loop():
    # The compiler, function first_block: group 0 (the K loop of the matmul before the
    # loop), group 1 (the loop's K loop) and group 2 (its stages) each "requested 2
    # achieved 1 ... space-pressure" in Right. After MemoryReuse both K loops' two
    # slices are in two buffers each (2 stages apart).
    report = report_of("projection.py", "projection_after_a_first_block")
    memory = report.memory or next(core.memory for core in report.cores)
    k_loops = (k_loop("matmul_acc(a, b)", 1, 2),)
    assert SpaceBuffers("Right", 32768, 2, 1, "space-pressure", True, k_loops=k_loops) in memory
    (hint,) = [h for h in report.hints if h.code == "SKW080"]
    assert (
        "the K loop AutoTileMatmulL0 makes for `matmul(x[...], w[...])` outside the pipeline "
        "loops (32768 B per stage, 1 of 2 stages kept apart; yet its packing still gives each stage's copy of the 32768 B tiles a buffer of its own, 2 stages apart (the IR's depth; the guard's is 1)"
    ) in hint.message


def test_two_first_blocks_of_one_name_in_one_scope_are_each_their_own_matmul_s_operands():
    # The compiler, function gate_up: groups 0 and 4 (the K loops of the two first
    # blocks, both reading a tile named `a0`), 1 and 5 (the loops' K loops), 2 and 6 (the
    # loops' stages) each "requested 2 achieved 1 ... 32768 B per stage, 65536 B free,
    # space-pressure" in Right; Left keeps 2 of 2 everywhere (2048 B slices). After
    # MemoryReuse each K loop's two slices are in two buffers (2 stages apart).
    models = [m for m in models_of("projection.py") if m.report.function == "gate_and_up_bands"]
    assert [m.report.span.line for m in models] == [72, 83]
    for model, operand in zip(models, ("g", "u"), strict=True):
        memory = model.report.memory or next(core.memory for core in model.report.cores)
        k_loops = (k_loop(f"matmul_acc(a, {operand})", 1, 2),)
        assert SpaceBuffers("Right", 32768, 2, 1, "space-pressure", True, k_loops=k_loops) in memory
        assert SpaceBuffers("Left", 2048, 2, 2, None, True) in memory
        (hint,) = [h for h in model.report.hints if h.code == "SKW080"]
        assert "`matmul(a0, g0)` outside the pipeline loops" in hint.message
        assert "`matmul(a0, u0)` outside the pipeline loops" in hint.message


def test_a_remainder_known_at_run_time_is_one_copy_after_the_loop_at_stage_2():
    # The compiler, function run_time_depth: LowerPipelineLoops' `if unroll_rem == 1`
    # holds one copy (group 3, beside the main loop's group 2); groups 0, 1 and 2 each
    # "requested 2 achieved 1 ... 32768 B per stage, 65536 B free, space-pressure" in Right.
    # After MemoryReuse the loop's K loop (group 1) keeps its two slices in two buffers.
    report = report_of("projection.py", "projection_of_run_time_depth")
    memory = report.memory or next(core.memory for core in report.cores)
    k_loops = (k_loop("matmul_acc(a, b)", 1, 2),)
    assert SpaceBuffers("Right", 32768, 2, 1, "space-pressure", True, k_loops=k_loops) in memory
    assert SpaceBuffers("Left", 2048, 2, 2, None, True) in memory


def test_a_weight_slab_filling_l0b_is_slot_bound_whatever_the_helper_before_the_loop_holds():
    # The compiler, function int8_slab: "requested depth 2 for pipeline group 0 in Right,
    # but only 1 of 2 buffers fit (65536 B per stage, 65536 B free) ... This operand alone
    # needs 131072 B" (slot-bound). The helper's matmul before the loop is not seen, but
    # one 64 KB slot fills Right: no packing keeps two stages apart.
    report = report_of("int8.py", "int8_weights_filling_l0b")
    memory = report.memory or next(core.memory for core in report.cores)
    assert SpaceBuffers("Right", 65536, 2, 1, "slot-bound", True) in memory
    (left,) = [m for m in memory if m.space == "Left"]
    assert left.achieved is None and "first_int8_block" in (left.reason or "")
    (hint,) = [h for h in report.hints if h.code == "SKW080"]
    assert hint.message.startswith(
        "PH-MR-001: MemoryReuse keeps only 1 of the 2 stages' buffers apart in Right"
    )
    assert "2 x 65536 B is more than its 65536 B, whatever else the function holds" in (
        hint.message
    )


def test_three_narrow_stages_beside_a_first_block_s_k_loop_keep_two_and_stage_2_keeps_all():
    # The compiler, function narrow_heads: group 1 (the loop's three stages of 16 KB right
    # operands) "requested 3 achieved 2 ... 16384 B per stage, 65536 B free,
    # space-pressure" in Right, group 0 (the first block's K loop, two 32 KB slices at
    # once) 1 of 2; Left keeps 3 of 3. With stage=2 it gave no PH-MR-001 in the function:
    # every group kept all its stages. After MemoryReuse the K loop's two slices are in
    # two buffers (2 stages apart).
    report = report_of("projection.py", "narrow_heads_after_a_first_block")
    memory = report.memory or next(core.memory for core in report.cores)
    assert SpaceBuffers("Right", 16384, 3, 2, "space-pressure", True) in memory
    assert SpaceBuffers("Left", 4096, 3, 3, None, True) in memory
    (hint,) = [h for h in report.hints if h.code == "SKW080"]
    assert "outside the pipeline loops (32768 B per stage, 1 of 2 stages kept apart; yet its packing still gives each stage's copy of the 32768 B tiles a buffer of its own, 2 stages apart (the IR's depth; the guard's is 1)" in (
        hint.message
    )
    assert hint.message.endswith("; stage=2 keeps all 2")


def test_no_stage_is_offered_where_none_keeps_two_stages_apart():
    # k_split: the loop's stages, 1 of 2 in Right, have no smaller stage= to offer.
    (hint,) = [h for h in report_of("projection.py", "k_split_projection").hints if h.code == "SKW080"]
    assert "keeps all" not in hint.message


def test_operands_each_branch_loads_are_that_branch_s_matmul_s():
    # The compiler, function branch_loads: groups 0 and 1 (the K loops of the matmuls of
    # the `if` and the `else`, each reading the `a` and `b` its branch loads) and group 2
    # (the loop's stages) each "requested 2 achieved 1 ... 32768 B per stage, 65536 B
    # free, space-pressure" in Right; Left keeps 2 of 2 (2048 B slices). After
    # MemoryReuse each K loop's two slices are in two buffers (2 stages apart).
    report = report_of("projection.py", "projection_loading_in_branches")
    memory = report.memory or next(core.memory for core in report.cores)
    k_loops = (k_loop("matmul(a, b)", 1, 2), k_loop("matmul_acc(a, b)", 1, 2))
    assert SpaceBuffers("Right", 32768, 2, 1, "space-pressure", True, k_loops=k_loops) in memory
    assert SpaceBuffers("Left", 2048, 2, 2, None, True) in memory


def test_slices_of_a_tensor_an_inline_helper_returns_are_loads_of_its_declared_type():
    # returned.py: `act, doubled = narrowed_rows(...)` binds `act` as the helper's `->`
    # says ([16, 1024] BF16), so `pl.slice(act, [16, 128], ...)` is a [16, 128] BF16 load.
    # The compiler, function returned_rows: group 2 (the loop's stages, line 45)
    # "requested 2 achieved 1 ... 32768 B per stage, 65536 B free, space-pressure" in
    # Right, as groups 0 and 1 (the K loops); Left keeps 2 of 2 (2048 B slices). After
    # MemoryReuse the loop's K loop (group 1) keeps its two slices in two buffers.
    report = report_of("returned.py", "projection_of_returned_rows")
    memory = report.memory or next(core.memory for core in report.cores)
    k_loops = (k_loop("matmul_acc(a, b)", 1, 2),)
    assert SpaceBuffers("Right", 32768, 2, 1, "space-pressure", True, k_loops=k_loops) in memory
    assert SpaceBuffers("Left", 2048, 2, 2, None, True) in memory
    (hint,) = [h for h in report.hints if h.code == "SKW080"]
    assert "`matmul(first, w[...])` outside the pipeline loops" in hint.message


def test_operands_made_before_the_loop_or_by_the_vector_in_a_branch_are_the_tiles_read():
    # masked.py:28: the matmuls sit in an `if`, so the loop is replicated at stage=3; their
    # right operands are slices taken before it ([128, 128] BF16 in Mat: `k_tile`,
    # `v_tile`), `weights` the vector's [16, 128] BF16. The compiler, function
    # masked_aic: group 0 (the main loop's 3 clones) "requested depth 3 ... in Right, but
    # only 2 of 3 buffers fit (32768 B per stage, 65536 B free)", slot-bound; Left keeps 3
    # of 3 (4096 B per stage); group 1 (the 2 copies after it) keeps 2 of 2 in both.
    report = report_of("masked.py", "masked_steps")
    aic = next(core for core in report.cores if core.core == "aic")
    assert aic.memory == (
        SpaceBuffers("Left", 4096, 3, 3, None, True),
        SpaceBuffers("Right", 32768, 3, 2, "slot-bound", True),
    )
    (hint,) = [h for h in report.hints if h.code == "SKW080"]
    assert "3 x 32768 B is more than its 65536 B, whatever else the function holds" in (
        hint.message
    )


def test_bare_tensors_typed_down_from_the_host_entry_make_the_loop_s_l0_tiles_known():
    # hosted.py:23, in the inline helper `projected` the jit entry `project` calls with its
    # own bare tensors, which the host `project_host` calls with annotated ones. The
    # compiler: entry `project` alone stops ("a bare 'pl.Tensor' annotation with no
    # shape"); entry project_host, function hosted: group 2 (the loop's stages) "requested
    # 2 achieved 1 ... 32768 B per stage, 65536 B free, space-pressure" in Right, as
    # groups 0 and 1 (the K loops); Left keeps 2 of 2 (2048 B slices). After MemoryReuse
    # the loop's K loop (group 1) keeps its two slices in two buffers.
    report = report_of("hosted.py", "projected")
    memory = report.memory or next(core.memory for core in report.cores)
    k_loops = (k_loop("matmul_acc(x[...], w[...])", 1, 2),)
    assert SpaceBuffers("Right", 32768, 2, 1, "space-pressure", True, k_loops=k_loops) in memory
    assert SpaceBuffers("Left", 2048, 2, 2, None, True) in memory
    (hint,) = [h for h in report.hints if h.code == "SKW080"]
    assert "`matmul(x[...], w[...])` outside the pipeline loops" in hint.message


def test_slices_of_what_an_extern_kernel_call_returns_are_loads_of_its_first_out_tensor():
    # attended.py:42: `attended = fused_attention(query, ..., attn_tnd, ...)` calls the
    # extern stub of the sibling fused_attention.py, whose first `pl.Out` parameter is
    # `out` (`query`, an FP32 [16, 4, 256] `pl.InOut`, comes first): pl.jit types the call
    # by it, so `attn` is [16, 512] BF16 and `attn[:, k0 : k0 + 128]` a [16, 128] BF16
    # load. The compiler, function out_proj: its Mat tiles a0 and a_k are [16, 128] BF16;
    # groups 0, 1 (the K loops) and 2 (the loop's stages, line 42) "requested 2 achieved
    # 1 ... 32768 B per stage, 65536 B free, space-pressure" in Right; Left keeps 2 of 2
    # (2048 B slices). After MemoryReuse the loop's K loop (group 1) keeps its two slices
    # in two buffers.
    report = report_of("attended.py", "attend_and_project")
    memory = report.memory or next(core.memory for core in report.cores)
    k_loops = (k_loop("matmul_acc(a_k, w_k)", 1, 2),)
    assert SpaceBuffers("Right", 32768, 2, 1, "space-pressure", True, k_loops=k_loops) in memory
    assert SpaceBuffers("Left", 2048, 2, 2, None, True) in memory
    (hint,) = [h for h in report.hints if h.code == "SKW080"]
    assert "`matmul(a0, wo[...])` outside the pipeline loops" in hint.message


def k_loop(matmul: str, achieved: int, ir_depth: int, remainder: bool = False) -> KLoopBuffers:
    """A K loop of the loop whose 32 KB Right slices the IR keeps further apart than its
    PH-MR-001 hint's depth (2 requested; both depths the compiler's)."""
    hinted = SpaceBuffers("Right", 32768, 2, achieved, "space-pressure", True, ir_depth=ir_depth)
    return KLoopBuffers(matmul, remainder, hinted)


def test_a_k_loop_the_guard_sheds_to_one_stage_is_said_at_both_depths_where_the_ir_keeps_two():
    # cube.py full (line 32) and wide (line 45). The compiler: PH-MR-001 "requested depth 2
    # for pipeline group 0 in Right, but only 1 of 2 buffers fit (32768 B per stage, 65536 B
    # free)" and the same for group 1; group 0 is AutoTileMatmulL0's K loop (the two K
    # halves of the [128, 256] right operand), group 1 the loop's stages. After
    # MemoryReuse the K loop's halves stay in two buffers in both of the loop's stages
    # (t__tile_l0_b: mem_right_9, mem_right_11, mem_right_9, mem_right_11): the K loop 2
    # stages apart in the IR, the loop's stages 1 (they share both).
    for function in ("right_operand_filling_l0b", "wide_right_operand"):
        report = report_of("cube.py", function)
        (core,) = report.cores
        (right,) = [m for m in core.memory if m.space == "Right"]
        assert right == SpaceBuffers(
            "Right", 32768, 2, 1, "space-pressure", True,
            k_loops=(k_loop("matmul(x[...], wj)", 1, 2),),
        )
        (hint,) = [h for h in report.hints if h.code == "SKW080"]
        assert (
            "also hold the K loop AutoTileMatmulL0 makes for `matmul(x[...], wj)` (32768 B per "
            "stage, 1 of 2 stages kept apart; yet its packing still gives each stage's copy of "
            "the 32768 B tiles a buffer of its own, 2 stages apart (the IR's depth; the guard's "
            "is 1): their lifetimes and the first fit keep them apart, so no stage's copy of "
            "them waits for another's) (AutoTileMatmulL0's L0 tiles"
        ) in hint.message


def test_one_move_of_an_activation_two_matmuls_read_lives_across_the_matmul_between():
    # The compiler, moved.py's three_heads: one `x_tile_Left` per clone, read by the
    # first and third matmuls, live across `y_tile_Left` (32768 B each): "requested depth
    # 2 for pipeline group 0 in Left, but only 1 of 2 buffers fit (32768 B per stage,
    # 65536 B free) ... co-resident buffers"; the Right tiles keep 2 of 2.
    report = report_of("moved.py", "three_heads_one_activation")
    memory = report.memory or next(core.memory for core in report.cores)
    assert SpaceBuffers("Left", 32768, 2, 1, "space-pressure", True) in memory
    assert SpaceBuffers("Right", 32768, 2, 2, None, True) in memory
    (hint,) = [h for h in report.hints if h.code == "SKW080"]
    assert hint.message.startswith(
        "PH-MR-001: MemoryReuse keeps only 1 of the 2 stages' buffers apart in Left"
    )


def test_each_branch_moves_the_activation_its_two_matmuls_read_again():
    # The compiler, moved.py's first_apart: an `x_tile_Left` per branch (32768 B), the
    # two of a clone in one buffer, no hint: Left and Right keep 2 of 2.
    report = report_of("moved.py", "first_step_apart")
    memory = report.memory or next(core.memory for core in report.cores)
    assert SpaceBuffers("Left", 32768, 2, 2, None, True) in memory
    assert SpaceBuffers("Right", 32768, 2, 2, None, True) in memory
    assert [h for h in report.hints if h.code == "SKW080"] == []
