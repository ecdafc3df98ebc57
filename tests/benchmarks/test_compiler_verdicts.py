"""How the compiler check reads the compiler's IR and skewlint's JSON, and compares them.

The IR dumps below are written by hand in the form ``benchmarks/compiler_probe.py``
prints (one record per ``ForStmt``, after each pass the check reads), shaped like the
rewrites ``docs/en/dev/passes/26-28`` of pypto describe; the skewlint records are
excerpts of ``skewlint --select ALL --output-format json``. No pypto is needed.
"""

from __future__ import annotations

from pathlib import Path

from benchmarks.compiler_verdicts import (
    Claim,
    EntryResult,
    IrLoop,
    compare,
    compare_loop,
    lowering_claim,
    observations,
    skew_claim,
    skewlint_claims,
    summarise_diagnostics,
)

KERNEL = "/repo/kernels/attn.py"
FOR_LINES = {KERNEL: {22, 29, 40}}  # the kernel's `for ... in pl.pipeline(...)` lines


def loop(kind: str, start, stop, step, stages=None, function="qk_pv_aic", type_="AIC", line=22):
    return {
        "function": function,
        "function_type": type_,
        "file": KERNEL,
        "line": line,
        "kind": kind,
        "stages": stages,
        "start": start,
        "stop": stop,
        "step": step,
        "nesting": 0,
    }


def entry(snapshots: dict, error=None, failed_in=None, diagnostics=()) -> EntryResult:
    return EntryResult.from_json(
        {
            "entry": "decode_attention",
            "entry_kind": "jit",
            "snapshots": snapshots,
            "error": error,
            "failed_in": failed_in,
            "diagnostics": list(diagnostics),
        }
    )


# -- SkewCrossCorePipeline: the loop at the `for` line after the pass ---------------------


def test_a_sequential_loop_stepping_two_from_the_third_iteration_is_a_depth_2_skew():
    before = IrLoop.from_json(loop("Pipeline", 0, 8, 1, stages=2))
    after = IrLoop.from_json(loop("Sequential", 2, 8, 2))
    assert skew_claim(before, after) == Claim("skewed depth 2")


def test_the_odd_trip_fallback_keeps_the_step_and_starts_one_later_depth_1():
    before = IrLoop.from_json(loop("Pipeline", 0, 3, 1, stages=2))
    after = IrLoop.from_json(loop("Sequential", 1, 3, 1))
    assert skew_claim(before, after) == Claim("skewed depth 1")


def test_a_sequential_loop_with_the_original_bounds_is_a_demotion():
    before = IrLoop.from_json(loop("Pipeline", 0, 4, 1, stages=2))
    after = IrLoop.from_json(loop("Sequential", 0, 4, 1))
    assert skew_claim(before, after) == Claim("demoted")


def test_a_loop_still_marked_pipeline_was_left_for_the_lowering_passes():
    before = IrLoop.from_json(loop("Pipeline", 0, 4, 1, stages=2))
    assert skew_claim(before, IrLoop.from_json(loop("Pipeline", 0, 4, 1, stages=2))) is None


def test_a_rewrite_the_passes_do_not_describe_is_shown_not_guessed():
    before = IrLoop.from_json(loop("Pipeline", 0, 8, 1, stages=2))
    claim = skew_claim(before, IrLoop.from_json(loop("Sequential", 3, 8, 2)))
    assert claim == Claim("unrecognised", "Sequential 3..8 step 2")


# -- LowerPipelineLoops: the main loop (stage=1 marker, stride stage x step) ----------------


def lowered(before: dict, after: list[dict]) -> Claim:
    return lowering_claim(IrLoop.from_json(before), [IrLoop.from_json(a) for a in after])


def test_a_trip_the_stage_divides_leaves_a_main_loop_and_no_remainder():
    claim = lowered(loop("Pipeline", 0, 16, 1, 2), [loop("Pipeline", 0, 16, 2, 1)])
    assert claim == Claim("replicated", "main 8")


def test_the_remainder_is_the_trip_the_main_loop_does_not_cover():
    claim = lowered(loop("Pipeline", 0, 10, 1, 4), [loop("Pipeline", 0, 8, 4, 1)])
    assert claim == Claim("replicated+tail", "main 2, tail 2")


def test_a_main_loop_ending_at_a_run_time_value_has_its_remainder_chosen_at_run_time():
    claim = lowered(loop("Pipeline", 0, None, 1, 4), [loop("Pipeline", 0, None, 4, 1)])
    assert claim == Claim("replicated at run time")


def test_a_trip_below_the_stage_gives_copies_and_no_main_loop():
    assert lowered(loop("Pipeline", 0, 3, 1, 4), []) == Claim("copies only", "3 copies")


def test_a_loop_that_never_runs_is_emptied():
    claim = lowered(loop("Pipeline", 4, 4, 1, 2), [loop("Sequential", 4, 4, 1)])
    assert claim == Claim("empty")


def test_stage_1_is_left_untouched():
    claim = lowered(loop("Pipeline", 0, 8, 1, 1), [loop("Pipeline", 0, 8, 1, 1)])
    assert claim == Claim("untouched")


# -- one entry: every loop the skew pass saw, by core ---------------------------------------


def test_a_mixed_loop_gets_one_observation_per_core_function():
    pre = [
        loop("Pipeline", 0, 2, 1, 2, "qk_pv_aic", "AIC", 29),
        loop("Pipeline", 0, 2, 1, 2, "qk_pv_aiv", "AIV", 29),
    ]
    skewed = [
        loop("Sequential", 1, 2, 1, None, "qk_pv_aic", "AIC", 29),
        loop("Sequential", 0, 2, 1, None, "qk_pv_aiv", "AIV", 29),
    ]
    found = observations(entry({"NormalizeReturnOrder": pre, "SkewCrossCorePipeline": skewed}))
    assert [(o.core, o.claim, o.where) for o in found] == [
        ("aic", Claim("skewed depth 1"), "decode_attention/qk_pv_aic"),
        ("aiv", Claim("demoted"), "decode_attention/qk_pv_aiv"),
    ]


def test_under_ptoas_a_loop_made_sequential_with_its_bounds_by_the_slot_pass_is_rotated():
    pre = [loop("Pipeline", 0, 64, 1, 2, "blocks", "AIV", 40)]
    found = observations(
        entry(
            {
                "NormalizeReturnOrder": pre,
                "SkewCrossCorePipeline": pre,
                "LowerPipelineToSlots": [loop("Sequential", 0, 64, 1, None, "blocks", "AIV", 40)],
                "LowerPipelineLoops": [loop("Sequential", 0, 64, 1, None, "blocks", "AIV", 40)],
            }
        )
    )
    assert [o.claim for o in found] == [Claim("rotated")]


def test_a_pipeline_stopped_by_lowerpipelineloops_makes_its_left_loops_errors():
    pre = [loop("Pipeline", 0, 8, 0, 2, "zero", "AIV", 12)]
    found = observations(
        entry(
            {
                "NormalizeReturnOrder": pre,
                "SkewCrossCorePipeline": pre,
                "LowerPipelineToSlots": pre,
            },
            error="ValueError: step cannot be zero",
            failed_in="LowerPipelineLoops",
        )
    )
    assert [o.claim.shape for o in found] == ["error: LowerPipelineLoops"]


# -- skewlint's JSON as claims ----------------------------------------------------------


MIXED = {
    "kind": "loop",
    "filename": "kernels/attn.py",
    "line": 29,
    "code": "SKW002",
    "verdict": "skewed",
    "depth": 1,
    "cores": [
        {"core": "aic", "verdict": "skewed", "code": "SKW002", "depth": 1, "lowering": None},
        {"core": "aiv", "verdict": "demoted", "code": "SKW020", "depth": None, "lowering": None},
    ],
    "lowering": None,
    "copies": [],
}


def left(code: str, main_trip, tail=0, branches=0) -> dict:
    lowering = {
        "verdict": "replicated",
        "code": code,
        "main_trip": main_trip,
        "tail": tail,
        "branches": branches,
    }
    core = {"core": "aiv", "verdict": "left", "code": "SKW010", "depth": None, "lowering": lowering}
    return {
        "kind": "loop",
        "filename": "kernels/attn.py",
        "line": 40,
        "code": code,
        "verdict": "left",
        "depth": None,
        "cores": [core],
        "lowering": lowering,
        "copies": [],
    }


def test_a_mixed_record_claims_one_verdict_per_core():
    assert skewlint_claims(MIXED) == {
        "aic": [Claim("skewed depth 1")],
        "aiv": [Claim("demoted")],
    }


def test_a_left_loop_claims_the_lowering_with_its_numbers():
    assert skewlint_claims(left("SKW012", 2, tail=1)) == {
        "aiv": [Claim("replicated+tail", "main 2, tail 1")]
    }


def test_each_further_copy_adds_its_verdict_to_the_headline_core():
    record = dict(left("SKW013", None, branches=1))
    record["copies"] = [
        {"code": "SKW013", "verdict": "left", "depth": None},
        {"code": "SKW012", "verdict": "left", "depth": None},
    ]
    assert skewlint_claims(record) == {
        "aiv": [Claim("replicated at run time", copies=None), Claim("replicated+tail", copies=None)]
    }


def test_a_bound_computed_when_the_module_loads_matches_any_replication():
    # main_trip None without a remainder chain: a constant to the compiler that skewlint
    # cannot see (a value read from argv), not a bound known only at run time.
    [claim] = skewlint_claims(left("SKW010", None))["aiv"]
    assert claim.matches(Claim("replicated", "main 2"))
    assert not claim.matches(Claim("rotated"))


def test_a_decline_without_its_numbers_matches_any_replication_but_not_a_rotation():
    declined = skewlint_claims({**left("SKW016", None), "cores": [], "lowering": None})[""][0]
    assert declined.matches(Claim("replicated", "main 4"))
    assert declined.matches(Claim("copies only", "3 copies"))
    assert not declined.matches(Claim("rotated"))


def open_under_ptoas() -> dict:
    """pypto-lib qwen3_14b decode_fwd's residual loop under memory-planner=ptoas: whether
    LowerPipelineToSlots takes it depends on a dtype skewlint cannot see (a bare
    ``pl.Tensor`` parameter), so its lowering is replicated with no ``declined``, in the
    record and in its other copy."""
    record = left("SKW011", 2)
    record["lowering"] = {**record["lowering"], "declined": None, "slots": []}
    record["cores"] = [{**record["cores"][0], "lowering": record["lowering"]}]
    record["copies"] = [
        {"code": "SKW011", "verdict": "left", "depth": None, "lowering": record["lowering"]},
        {"code": "SKW011", "verdict": "left", "depth": None, "lowering": record["lowering"]},
    ]
    return record


def test_a_loop_skewlint_leaves_open_under_ptoas_matches_a_rotation_or_its_replication():
    claims = skewlint_claims(open_under_ptoas(), planner="ptoas")["aiv"]
    assert claims[0].matches(Claim("rotated"))
    assert claims[0].matches(Claim("replicated", "main 2"))
    assert not claims[0].matches(Claim("replicated", "main 3"))
    assert not claims[0].matches(Claim("demoted"))
    assert all(claim.matches(Claim("rotated")) for claim in claims[1:]) and len(claims) == 2


def test_a_replicated_loop_under_the_default_planner_is_no_open_question():
    # LowerPipelineToSlots runs only under ptoas: no ``declined`` means nothing there.
    claims = skewlint_claims(open_under_ptoas())["aiv"]
    assert not claims[0].matches(Claim("rotated"))
    assert [str(claim) for claim in claims] == ["replicated (main 2)", "replicated"]


# -- the comparison -----------------------------------------------------------------------


def mixed_entry(aic_after: dict) -> dict[str, list[EntryResult]]:
    pre = [
        loop("Pipeline", 0, 2, 1, 2, "qk_pv_aic", "AIC", 29),
        loop("Pipeline", 0, 2, 1, 2, "qk_pv_aiv", "AIV", 29),
    ]
    skewed = [aic_after, loop("Sequential", 0, 2, 1, None, "qk_pv_aiv", "AIV", 29)]
    return {KERNEL: [entry({"NormalizeReturnOrder": pre, "SkewCrossCorePipeline": skewed})]}


def test_the_same_verdict_on_both_cores_agrees():
    compiled = mixed_entry(loop("Sequential", 1, 2, 1, None, "qk_pv_aic", "AIC", 29))
    [result] = compare([MIXED], compiled, Path("/repo"), FOR_LINES)
    assert (result.file, result.line, result.status) == ("kernels/attn.py", 29, "agree")


def test_another_depth_on_one_core_disagrees_and_says_what_each_side_said():
    compiled = mixed_entry(loop("Sequential", 0, 2, 1, None, "qk_pv_aic", "AIC", 29))
    [result] = compare([MIXED], compiled, Path("/repo"), FOR_LINES)
    assert result.status == "disagree"
    assert result.text == (
        "aic: skewlint skewed depth 1; compiler demoted [decode_attention/qk_pv_aic]"
    )


def test_a_file_whose_entries_did_not_reach_the_skew_pass_is_unknown():
    failed = {KERNEL: [entry({}, error="ParserError: x", failed_in="frontend")]}
    [result] = compare([MIXED], failed, Path("/repo"), FOR_LINES)
    assert result.status == "unknown"
    assert result.text.endswith("an entry of its file did not reach SkewCrossCorePipeline")


def test_a_loop_only_the_compiler_saw_is_a_disagreement():
    compiled = mixed_entry(loop("Sequential", 1, 2, 1, None, "qk_pv_aic", "AIC", 29))
    results = compare([], compiled, Path("/repo"), FOR_LINES)
    assert [(r.line, r.status) for r in results] == [(29, "disagree")]
    assert results[0].text.startswith("skewlint reports no loop here")


def test_a_pipeline_loop_the_compiler_made_at_a_line_with_no_for_is_set_apart():
    # AutoTileMatmulL0 tiles a matmul's K into a stage=2 loop at the matmul's line (31).
    made = loop("Pipeline", 0, 128, 64, 2, "qk_pv_aic", "AIC", 31)
    lowered = loop("Pipeline", 0, 128, 128, 1, "qk_pv_aic", "AIC", 31)
    compiled = {
        KERNEL: [
            entry(
                {
                    "NormalizeReturnOrder": [made],
                    "SkewCrossCorePipeline": [made],
                    "LowerPipelineToSlots": [made],
                    "LowerPipelineLoops": [lowered],
                }
            )
        ]
    }
    [result] = compare([], compiled, Path("/repo"), FOR_LINES)
    assert (result.file, result.line, result.status) == ("kernels/attn.py", 31, "made")


def test_a_loop_skewlint_calls_not_compiled_agrees_when_the_compiler_never_sees_it():
    record = {**MIXED, "cores": [], "code": "SKW070", "verdict": "not_compiled", "depth": None}
    [result] = compare(
        [record], {KERNEL: [entry({"NormalizeReturnOrder": []})]}, Path("/repo"), FOR_LINES
    )
    assert result.status == "agree"


def test_an_inner_loop_copied_by_the_outer_loops_skew_is_decided_once_per_source_copy():
    # The inner loop (line 65, skewed at depth 1) sits in the producer half of the outer
    # loop, which the pass then skews at depth 2: the prologue and the steady loop hold
    # four copies of the inner steady loop.
    inner = loop("Pipeline", 0, 3, 1, 2, "blocks", "AIV", 65)
    steady = loop("Sequential", 1, 3, 1, None, "blocks", "AIV", 65)
    found = observations(
        entry({"NormalizeReturnOrder": [inner], "SkewCrossCorePipeline": [steady] * 4})
    )
    assert [(o.claim, o.claim.copies) for o in found] == [(Claim("skewed depth 1"), 1)]


def test_an_inner_loop_the_outer_skew_clones_is_rotated_when_the_slot_pass_rotates_a_clone():
    # skewed_outer.py's WideValues under PTOAS, as pypto e2d0f78ae printed it: the V loop
    # (trip 4, stage 2) is written 4 times by the outer skew at depth 2; LowerPipelineToSlots
    # rotates the first two clones (sequential, bounds kept, 2 slots each) and declines the
    # other two, which LowerPipelineLoops replicates (a main loop of 2 iterations).
    inner = loop("Pipeline", 0, 4, 1, 2, "qk_pv", "AIC", 147)
    rotated = loop("Sequential", 0, 4, 1, None, "qk_pv", "AIC", 147)
    main = loop("Pipeline", 0, 4, 2, 1, "qk_pv", "AIC", 147)
    found = observations(
        entry(
            {
                "NormalizeReturnOrder": [inner],
                "SkewCrossCorePipeline": [inner] * 4,
                "LowerPipelineToSlots": [rotated, rotated, inner, inner],
                "LowerPipelineLoops": [rotated, rotated, main, main],
            }
        )
    )
    assert [o.claim for o in found] == [Claim("rotated")]


def test_an_inner_loop_the_outer_skew_clones_is_replicated_when_no_clone_is_rotated():
    inner = loop("Pipeline", 0, 4, 1, 2, "qk_pv", "AIC", 147)
    main = loop("Pipeline", 0, 4, 2, 1, "qk_pv", "AIC", 147)
    found = observations(
        entry(
            {
                "NormalizeReturnOrder": [inner],
                "SkewCrossCorePipeline": [inner] * 4,
                "LowerPipelineToSlots": [inner] * 4,
                "LowerPipelineLoops": [main] * 4,
            }
        )
    )
    assert [o.claim for o in found] == [Claim("replicated", "main 2")]


def test_each_copy_of_a_helper_spliced_twice_into_one_function_is_decided_on_its_own():
    # attend_rows(..., 8) then attend_rows(..., 2): trips 8 and 2, one source line.
    pre = [loop("Pipeline", 0, 8, 1, 2), loop("Pipeline", 0, 2, 1, 2)]
    skewed = [loop("Sequential", 2, 8, 2), loop("Sequential", 1, 2, 1)]
    found = observations(entry({"NormalizeReturnOrder": pre, "SkewCrossCorePipeline": skewed}))
    assert sorted(str(o.claim) for o in found) == ["skewed depth 1", "skewed depth 2"]


def test_the_dual_aiv_copies_are_counted_and_compared_with_the_cores_copies():
    pre = [loop("Pipeline", 0, 8, 1, 2, "k_aiv", "AIV", 40)] * 2
    left = observations(
        entry(
            {
                "NormalizeReturnOrder": pre,
                "SkewCrossCorePipeline": pre,
                "LowerPipelineToSlots": [
                    loop("Sequential", 0, 8, 1, None, "k_aiv", "AIV", 40),
                    loop("Pipeline", 0, 8, 1, 2, "k_aiv", "AIV", 40),
                ],
                "LowerPipelineLoops": [
                    loop("Sequential", 0, 8, 1, None, "k_aiv", "AIV", 40),
                    loop("Pipeline", 0, 8, 2, 1, "k_aiv", "AIV", 40),
                ],
            }
        )
    )
    # The second lane of a dual AIV dispatch (no loads left in its body) is not rotated.
    assert [str(o.claim) for o in left] == ["rotated", "replicated (main 4)"]
    rotated_twice = {"aiv": [Claim("rotated", copies=2)]}
    result = compare_loop_with(rotated_twice, left)
    assert result.status == "disagree"
    assert result.text == (
        "aiv: skewlint rotated x2; compiler rotated [decode_attention/k_aiv], "
        "replicated (main 4) [decode_attention/k_aiv]"
    )
    # skewlint's record of those lanes: the first rotated, the second (``second_lane``)
    # declined by LowerPipelineToSlots and replicated, one copy each.
    record = left_rotated_on_two_lanes(second_lane_trip=4)
    claims = skewlint_claims(record, planner="ptoas")
    assert claims == {"aiv": [Claim("rotated"), Claim("replicated", "main 4")]}
    assert compare_loop_with(claims, left).status == "agree"
    other = skewlint_claims(left_rotated_on_two_lanes(second_lane_trip=2), planner="ptoas")
    assert compare_loop_with(other, left).status == "disagree"


def left_rotated_on_two_lanes(second_lane_trip: int) -> dict:
    """A vector loop under ptoas, dispatched on both AIV lanes without a split, as
    skewlint's JSON gives it: the first lane's loads rotate; ``second_lane``, SKW016."""
    second = {
        "verdict": "replicated", "code": "SKW016", "main_trip": second_lane_trip, "tail": 0,
        "branches": 0, "declined": "the second vector lane's copy has no loads",
    }  # fmt: skip
    lowering = {"verdict": "rotated", "code": "SKW015", "second_lane": second}
    record = left("SKW015", None)
    record["lowering"] = lowering
    record["cores"] = [{**record["cores"][0], "copies": 2, "lowering": lowering}]
    return record


def test_a_loop_under_pl_unroll_is_compared_without_counting_its_copies():
    # skewed_calls.py's halves_of_rows as pypto e2d0f78ae compiled it: UnrollLoops writes
    # the row loop once per `half`, so the AIV function `rows` holds it twice (both
    # replicated, main 2). skewlint reports the first copy; its cores' copies count the
    # dual AIV lanes only, not the unrolled copies.
    pre = [loop("Pipeline", 0, 4, 1, 2, "rows", "AIV", 40)] * 2
    main = [loop("Pipeline", 0, 4, 2, 1, "rows", "AIV", 40)] * 2
    compiled = {
        "/repo/kernels/attn.py": [
            entry(
                {
                    "NormalizeReturnOrder": pre,
                    "SkewCrossCorePipeline": pre,
                    "LowerPipelineToSlots": pre,
                    "LowerPipelineLoops": main,
                }
            )
        ]
    }
    record = left("SKW011", 2)
    lines = {KERNEL: {40}}
    [once] = compare([record], compiled, Path("/repo"), lines)
    [unrolled] = compare([record], compiled, Path("/repo"), lines, unrolled=lines)
    assert once.status == "disagree"
    assert (unrolled.status, unrolled.text) == ("agree", "aiv: replicated (main 2)")


def compare_loop_with(claims, seen):
    return compare_loop("kernels/attn.py", 40, claims, seen, incomplete=None)


def test_the_memory_passes_hints_are_folded_per_place_and_counted():
    hint = (
        "2026-12-06 02:33:25.828 I | [perf_hint PH-MR-001] MemoryReuse: software pipelining "
        "requested depth 2 for pipeline group {g} in Right, but only 1 of 2 buffers fit "
        "(32768 B per stage, 65536 B free) — stages 1 apart share storage and serialize. "
        "at /repo/kernels/attn.py:130:5"
    )
    warning = (
        "2026-12-06 02:10:34.736 W | [warning] [MemoryReuse] (MemoryReuse) capacity-gated "
        "reuse could not fit memory space Vec at any double-buffering depth; fell back to "
        "the legacy packing. at /repo/kernels/attn.py:7:5"
    )
    lines = [hint.format(g=0), hint.format(g=1), warning, "an unrelated log line"]
    assert summarise_diagnostics(lines, Path("/repo")) == [
        "PH-MR-001 x2 at kernels/attn.py:130: MemoryReuse: software pipelining requested "
        "depth 2 for pipeline group N in Right, but only 1 of 2 buffers fit "
        "(32768 B per stage, 65536 B free)",
        "warning at kernels/attn.py:7: [MemoryReuse] (MemoryReuse) capacity-gated reuse could "
        "not fit memory space Vec at any double-buffering depth; fell back to the legacy "
        "packing.",
    ]


def test_the_same_outcome_on_another_number_of_copies_disagrees():
    # AutoTileMatmulL0 (PTOAS, L0C double-buffered) splits an accumulator's N and writes
    # the enclosing pipeline loop once per N tile: two copies, both rotated.
    pre = [loop("Pipeline", 0, 8, 1, 2, "qproj", "AIC", 40)] * 2
    rotated = [loop("Sequential", 0, 8, 1, None, "qproj", "AIC", 40)] * 2
    seen = observations(
        entry(
            {
                "NormalizeReturnOrder": pre,
                "SkewCrossCorePipeline": pre,
                "LowerPipelineToSlots": rotated,
                "LowerPipelineLoops": rotated,
            }
        )
    )
    result = compare_loop_with({"aic": [Claim("rotated")]}, seen)
    assert (result.status, result.text) == (
        "disagree",
        "aic: skewlint rotated; compiler rotated x2 [decode_attention/qproj]",
    )


def helper_copies(*callers: tuple[str, str | None]) -> dict:
    """A loop of an inline helper that skewlint reports once per caller (``copies``)."""
    record = dict(left("SKW012", 13, tail=1))
    record["copies"] = [
        {
            "code": "SKW012",
            "verdict": "left",
            "depth": None,
            "instance": {"bindings": {}, "caller": caller, "call": None, "call_path": path},
        }
        for caller, path in callers
    ]
    return record


def test_a_helper_whose_callers_are_all_in_its_file_is_not_said_to_be_built_more_than_once():
    # lm_head.py:211 in pypto-lib: called from lm_head_test and lm_head_with_sampling, both
    # compiled with the file; the compiler holds no loop there.
    compiled = {KERNEL: [entry({"NormalizeReturnOrder": []})]}
    record = helper_copies(("lm_head_test", None), ("lm_head_with_sampling", None))
    [result] = compare([record], compiled, Path("/repo"), FOR_LINES)
    assert result.status == "unknown"
    assert result.text.endswith("compiler: no compiled loop here")


def test_a_helper_with_a_caller_in_another_file_may_have_copies_not_compiled():
    compiled = {KERNEL: [entry({"NormalizeReturnOrder": []})]}
    record = helper_copies(("lm_head_test", None), ("decode_fwd", "/repo/kernels/decode.py"))
    [result] = compare([record], compiled, Path("/repo"), FOR_LINES)
    assert "Python builds it more than once" in result.text


def test_copies_without_a_caller_are_programs_built_per_value():
    compiled = {KERNEL: [entry({"NormalizeReturnOrder": []})]}
    record = helper_copies((None, None), (None, None))
    [result] = compare([record], compiled, Path("/repo"), FOR_LINES)
    assert "Python builds it more than once" in result.text


def test_the_report_of_a_scope_without_a_loop_is_no_loop_to_compare():
    # (a scope's SKW081 record: kind "loop", its header's line, no loop)
    compiled = mixed_entry(loop("Sequential", 1, 2, 1, None, "qk_pv_aic", "AIC", 29))
    scope = {**MIXED, "line": 12, "code": "SKW081", "verdict": "error", "loop": None}
    [result] = compare([MIXED, scope], compiled, Path("/repo"), FOR_LINES)
    assert (result.line, result.status) == (29, "agree")


def test_a_helper_s_copies_called_from_another_file_are_compared_once_that_file_is_compiled():
    # A helper in helpers.py spliced at two calls in attn.py: both copies replicated
    # (main 2). Without attn.py's compile the loop is unknown; with it, compared.
    helper = str(Path("/repo/kernels/helpers.py"))
    caller = str(Path("/repo/kernels/attn.py"))
    record = {
        **left("SKW011", 2),
        "filename": "kernels/helpers.py",
        "copies": [
            {"code": "SKW011", "verdict": "left", "depth": None,
             "instance": {"caller": "attn", "call_path": "kernels/attn.py"}},
            {"code": "SKW011", "verdict": "left", "depth": None,
             "instance": {"caller": "attn2", "call_path": "kernels/attn.py"}},
        ],
    }  # fmt: skip
    # (the compiler's spans name the helper's file, where the loop is written)
    spliced = {**loop("Pipeline", 0, 4, 2, 1, "attn_aiv", "AIV", 40), "file": helper}
    pre = {**loop("Pipeline", 0, 4, 1, 2, "attn_aiv", "AIV", 40), "file": helper}
    called = entry(
        {"NormalizeReturnOrder": [pre] * 2, "SkewCrossCorePipeline": [pre] * 2,
         "LowerPipelineToSlots": [pre] * 2, "LowerPipelineLoops": [spliced] * 2}
    )  # fmt: skip
    own = entry({"NormalizeReturnOrder": [], "SkewCrossCorePipeline": []})
    root = Path("/repo")
    alone = compare([record], {helper: [own]}, root, {helper: {40}})
    assert [(r.status, r.text) for r in alone] == [
        ("unknown", "skewlint: aiv: replicated (main 2), replicated; compiler: Python builds "
                    "it more than once; the check compiles what the module keeps")
    ]  # fmt: skip
    both = compare([record], {helper: [own], caller: [called]}, root, {helper: {40}})
    assert [r.status for r in both] == ["agree"]


def test_an_imported_helper_s_copy_at_its_call_is_compared_with_that_file_s_compile_of_the_loop(
    tmp_path: Path,
):
    # prefill.py calls scale.py's helper (its loop at line 15): the compiler holds the loop
    # in prefill.py's entry at scale.py:15, replicated with a main loop of 2 iterations in
    # that entry and left untouched in scale.py's own (another copy, other sizes).
    (tmp_path / "scale.py").write_text("# the helper\n")
    (tmp_path / "prefill.py").write_text("# the caller\n")
    helper, caller = str(tmp_path / "scale.py"), str(tmp_path / "prefill.py")

    def compiled_at(stop: int, stage: int, main: dict) -> EntryResult:
        pre = {**loop("Pipeline", 0, stop, 1, stage, "k", "AIV", 15), "file": helper}
        after = {**main, "file": helper}
        return entry(
            {
                "NormalizeReturnOrder": [pre],
                "SkewCrossCorePipeline": [pre],
                "LowerPipelineToSlots": [pre],
                "LowerPipelineLoops": [after],
            }
        )

    replicated = loop("Pipeline", 0, 4, 2, 1, "k", "AIV", 15)
    untouched = loop("Pipeline", 0, 4, 1, 1, "k", "AIV", 15)
    compiled = {caller: [compiled_at(4, 2, replicated)], helper: [compiled_at(4, 1, untouched)]}
    at_call = {
        **left("SKW011", 2),
        "filename": "prefill.py",
        "line": 19,
        "instance": {
            "caller": "prefill_scaled",
            "helper_loop": {"name": "scale_rows", "module": "scale", "line": 15},
        },
    }
    results = compare([at_call], compiled, tmp_path, {helper: {15}})
    (result,) = [r for r in results if r.file == "prefill.py"]
    assert (result.line, result.status) == (19, "agree")
    # (the helper's loop is its own record's: absent here, the check says so at the loop)
    assert [(r.file, r.line, r.status) for r in results if r is not result] == [
        ("scale.py", 15, "disagree")
    ]
    # the same claim against the helper's own compile (stage 1, untouched) disagrees
    at_loop = {**at_call, "filename": "scale.py", "line": 15, "instance": None}
    [mismatch] = compare([at_loop], {helper: compiled[helper]}, tmp_path, {helper: {15}})
    assert mismatch.status == "disagree"
