"""The memory passes as the function stage runs them, over each core function's loops."""

from __future__ import annotations

from pathlib import Path

from skewlsp.analysis.driver import analyze_models
from skewlsp.analysis.driver.function_stage import FUNCTION_PASSES, function_stage
from skewlsp.analysis.frontend.imports import SharedModules
from skewlsp.analysis.frontend.state import AnalysisState
from skewlsp.analysis.memory.core_function import LoopMemory
from skewlsp.analysis.memory.function_passes import allocate_memory, init_memref, reuse_memory
from skewlsp.analysis.memory.memory_reuse import LegacyFallback, memory_reuse
from skewlsp.common.resolver import RecordingResolver
from tests.kernels import LOCAL, LOCAL_PIPELINE, PRODUCER, loop, module


def test_the_function_stage_runs_31_33_34_in_pass_manager_order():
    assert (init_memref, reuse_memory, allocate_memory) == FUNCTION_PASSES


def test_each_loop_of_a_function_gets_its_memory_record_and_a_skewed_one_says_why_not():
    skewed, left = analyze_models(module(loop(PRODUCER) + loop(LOCAL, LOCAL_PIPELINE, "k")))
    [record] = left.functions
    [(found, memory)] = [
        (f, m) for f, m in zip(record.loops, record.memory, strict=True) if f.span == left.report.span
    ]
    assert memory.why is None
    assert memory.tiles is not None and memory.reuse is not None
    assert memory.allocation is not None and memory.allocation.overflows == ()
    [(_, other)] = [
        (f, m)
        for f, m in zip(skewed.functions[0].loops, skewed.functions[0].memory, strict=True)
        if f.span == skewed.report.span
    ]
    assert other.why == "not replicated by LowerPipelineLoops" and other.tiles is None


def test_under_ptoas_no_memory_record_is_made():
    _, left = analyze_models(
        module(loop(PRODUCER) + loop(LOCAL, LOCAL_PIPELINE, "k")), planner="ptoas"
    )
    assert left.functions[0].memory == ()


MEM_LLM = Path(__file__).resolve().parents[2] / "fixtures" / "memory" / "models" / "mem_llm"


def memory_at(file: str, line: int) -> list[LoopMemory]:
    """Each core copy's memory record of the loop at ``line`` of a mem_llm fixture."""
    path = MEM_LLM / file
    models = analyze_models(path.read_text(), str(path), resolver=RecordingResolver((MEM_LLM,)))
    (model,) = [m for m in models if m.report.span.line == line]
    return [
        found
        for function in model.functions
        for at, found in zip(function.loops, function.memory, strict=True)
        if at.span == model.report.span
    ]


def test_a_space_no_depth_fits_is_packed_the_legacy_way_with_the_compilers_warning():
    # The compiler on short.py:32 and rotation.py:27: "capacity-gated reuse could not fit
    # memory space Vec at any double-buffering depth; fell back to the legacy packing
    # (which also overflows", then AllocateMemoryAddr stops; no PH-MR-001.
    for file, line in (("short.py", 32), ("rotation.py", 27)):
        (found,) = memory_at(file, line)
        assert found.reuse is not None
        assert found.reuse.fallbacks == (LegacyFallback("Vec", still_overflows=True, warned=True),)
        assert found.reuse.hints == ()


def test_the_loops_whose_groups_are_not_modelled_say_why():
    # The compiler gives attention.py:24's skewed clones PH-MR-001 in Right and keeps
    # blocks.py:27's nested column loop at 2 of 2 beside its shed row loop.
    skewed = memory_at("attention.py", 24)
    assert [m.why for m in skewed] == ["not replicated by LowerPipelineLoops"] * 2
    (nested,) = memory_at("blocks.py", 27)
    assert nested.why == "inside a loop that is replicated or skewed: its groups are not modelled"
    assert nested.tiles is None


def test_memory_reuse_packs_equal_tiles_once_for_the_analysis_and_its_other_builds():
    # The function stage run twice over one module's loops (as for the module decided
    # again under another build): the packing of each list of tiles is kept by the
    # analysis's state, so the second run hands back the very packings of the first.
    models = analyze_models(module(loop(PRODUCER) + loop(LOCAL, LOCAL_PIPELINE, "k")))
    state = AnalysisState()
    first = function_stage(models, packings=state.syntactic_fact)
    second = function_stage(models, packings=state.syntactic_fact)
    [one], [again] = (
        [m.reuse for m in staged[1].functions[0].memory if m.reuse is not None]
        for staged in (first, second)
    )
    assert again is one
    # (kept by the tiles and the reserved region, the packing's whole input)
    [key] = [key for key in state.syntactic if key[0] is memory_reuse]  # type: ignore[index]
    assert state.syntactic[key] is one
    # without a place to keep them, each run packs its own
    [alone] = [m.reuse for m in function_stage(models)[1].functions[0].memory if m.reuse]
    assert alone == one and alone is not one


def test_a_batch_packs_equal_tiles_once_for_all_its_files():
    # two files of a batch holding one kernel (pypto-lib's model directories hold copies
    # of their kernels): the second file's loop gets the first's packing
    text = module(loop(PRODUCER) + loop(LOCAL, LOCAL_PIPELINE, "k"))
    shared = SharedModules()
    packings = [
        [m.reuse for m in models[1].functions[0].memory if m.reuse is not None]
        for models in (
            analyze_models(text, "a/kernel.py", shared_modules=shared),
            analyze_models(text, "b/kernel.py", shared_modules=shared),
        )
    ]
    [[one], [again]] = packings
    assert again is one
    # files analysed alone pack their own
    [[alone]] = [[m.reuse for m in analyze_models(text)[1].functions[0].memory if m.reuse]]
    assert alone == one and alone is not one


def test_a_body_under_an_if_is_packed_with_its_scope_as_the_compiler_packs_it():
    # The compiler (pypto e2d0f78ae) on branched.py: active_rows' loop, whose body runs
    # under `if i < active`, gets PH-MR-001 "only 1 of 2 buffers fit (49152 B per
    # stage, 188416 B free)" in Vec; rescaled_rows' loop, whose `if RESCALE > 0`
    # Simplify folds, keeps all 4 stages apart.
    (active,) = memory_at("branched.py", 24)
    assert active.vec is not None and active.vec.reuse is not None
    hints = [(h.space, h.requested, h.achieved, h.slot, h.cause) for h in active.vec.reuse.hints]
    assert hints == [("Vec", 2, 1, 49152, "space-pressure")]
    (rescaled,) = memory_at("branched.py", 38)
    assert rescaled.vec is not None and rescaled.vec.reuse is not None
    (group,) = rescaled.vec.groups
    assert rescaled.vec.reuse.achieved[("Vec", group)] == 4
    assert rescaled.vec.reuse.hints == ()


def test_a_tile_bound_again_in_a_branch_leaves_the_scope_to_the_loads_alone():
    # rows_chosen_at_run_time: after the `if`, `t` is one value or the other (a phi)
    (chosen,) = memory_at("branched.py", 55)
    assert chosen.vec is not None
    assert chosen.vec.why == (
        "the tile `t` is bound again in a branch of an `if` (after it, one value or the other)"
    )
    assert chosen.reuse is not None and chosen.reuse.hints == ()


def test_branches_laid_out_where_they_stand_get_the_compilers_depths():
    # The compiler on branched.py's other loops, each with an `if` in or beside it:
    # tail_under_if 3 of 4 (49152 B, its stages alone: slot-bound), nested_ifs 1 of 2
    # (49152 B), elif_chain 1 of 4 (32768 B), if_in_range_in_pipeline 2 of 3 (32768 B);
    # branch_beside_loop keeps both stages apart
    expected = {71: (4, 3, 49152), 86: (2, 1, 49152), 122: (4, 1, 32768), 156: (3, 2, 32768)}
    found = {}
    for line in expected:
        (memory,) = memory_at("branched.py", line)
        assert memory.vec is not None and memory.vec.reuse is not None
        (hint,) = memory.vec.reuse.hints
        found[line] = (hint.requested, hint.achieved, hint.slot)
    assert found == expected
    (beside,) = memory_at("branched.py", 108)
    assert beside.vec is not None and beside.vec.reuse is not None
    (group,) = beside.vec.groups
    assert (beside.vec.reuse.achieved[("Vec", group)], beside.vec.reuse.hints) == (2, ())


def test_an_if_simplify_proves_is_folded_before_the_tiles_are_counted():
    # range_folds: `if i < 8` (i is 0..3) is walked in place, `if DEBUG > 0` is dropped
    # with its product: the scope is one loop of a load and a sum, and its four stages'
    # loads overflow Vec (the compiler warns, legacy packing, and stops the compile)
    (memory,) = memory_at("branched.py", 139)
    assert memory.vec is not None and memory.vec.scope is not None
    assert [loop.branch for loop in memory.vec.scope.loops] == [False]
    assert [op.label for op in memory.vec.scope.ops] == ["t (load)", "`add`", "a store"]
    assert memory.allocation is not None
    assert [(o.space, o.used) for o in memory.allocation.overflows] == [("Vec", 196608)]


def test_a_clamp_under_an_if_on_two_float_constants_is_in_the_loop_or_not_as_folded():
    # The compiler (pypto e2d0f78ae) on clamped.py folds `if LIMIT > 0.0` (10.0) and
    # `if -LIMIT < 0.0` to their bodies and `if FLOOR > 0.0` (0.0) away: clamped_gate
    # keeps both stages apart; floored_gate and clamped_wide_gate fit at no depth, fall
    # back to the legacy packing and stop in AllocateMemoryAddr at 196608 B of Vec.
    (clamped,) = memory_at("clamped.py", 36)
    assert clamped.vec is not None and clamped.vec.reuse is not None
    (group,) = clamped.vec.groups
    assert (clamped.vec.reuse.achieved[("Vec", group)], clamped.vec.reuse.hints) == (2, ())
    assert clamped.vec.scope is not None
    clamp = ["t (load)", "g (mul)", "g (minimum)", "`add`", "a store"]
    assert [op.label for op in clamped.vec.scope.ops] == clamp
    (floored,) = memory_at("clamped.py", 51)
    assert floored.vec is not None and floored.vec.scope is not None
    assert [op.label for op in floored.vec.scope.ops] == ["t (load)", "g (mul)", "`add`", "a store"]
    (wide,) = memory_at("clamped.py", 66)
    assert wide.vec is not None and wide.vec.scope is not None
    both = ["t (load)", "g (mul)", "`minimum`", "g (maximum)", "`add`", "a store"]
    assert [op.label for op in wide.vec.scope.ops] == both
    for memory in (floored, wide):
        assert memory.vec is not None and memory.vec.allocation is not None
        assert [(o.space, o.used) for o in memory.vec.allocation.overflows] == [("Vec", 196608)]


def test_gathered_tiles_and_a_tensor_read_whole_are_packed_as_the_compiler_packs_them():
    # The compiler on gathered.py: norm_4d's row sums of 4-D slices keep 1 of 4 stages
    # apart (PH-MR-001, 32768 B per stage, 188416 B free); rotated_rows and
    # scaled_by_tensor fit at no depth and their legacy packing needs 196608 B, the
    # gathered tile or the tensor's entry load live beside the loop's five stages.
    (norm,) = memory_at("gathered.py", 56)
    assert norm.vec is not None and norm.vec.reuse is not None
    hints = [(h.requested, h.achieved, h.slot, h.cause) for h in norm.vec.reuse.hints]
    assert hints == [(4, 1, 32768, "space-pressure")]
    for line, first in ((29, "rows (load)"), (71, "scale (load)")):
        (memory,) = memory_at("gathered.py", line)
        assert memory.vec is not None and memory.vec.scope is not None
        assert memory.vec.scope.ops[0].label == first
        assert memory.vec.allocation is not None
        assert [(o.space, o.used) for o in memory.vec.allocation.overflows] == [("Vec", 196608)]


def test_loops_nested_two_loops_deep_are_packed_as_the_compiler_packs_them():
    # The compiler on deep.py: blocks_three_stages' pipeline, in two sequential loops,
    # keeps 1 of 3 stages apart beside the 32 KB tile made before them (PH-MR-001,
    # 32768 B per stage, 188416 B free); blocks_of_rows' 48 KB stages beside its 48 KB
    # tile fit at no depth and stop in AllocateMemoryAddr at 196608 bytes; the pipeline
    # in a sequential loop in a pipeline keeps both its stages apart.
    (three,) = memory_at("deep.py", 54)
    assert three.vec is not None and three.vec.reuse is not None
    hints = [(h.requested, h.achieved, h.slot, h.cause) for h in three.vec.reuse.hints]
    assert hints == [(3, 1, 32768, "space-pressure")]
    (rows,) = memory_at("deep.py", 22)
    assert rows.vec is not None and rows.vec.allocation is not None
    assert [(o.space, o.used) for o in rows.vec.allocation.overflows] == [("Vec", 196608)]
    (inner,) = memory_at("deep.py", 37)
    assert inner.vec is not None and inner.vec.reuse is not None
    (group,) = inner.vec.groups
    assert (inner.vec.reuse.achieved[("Vec", group)], inner.vec.reuse.hints) == (2, ())
