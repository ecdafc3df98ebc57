"""How the compiler check reads the compiler's IR and skewlint's JSON into claims (the
comparison: test_compiler_compare.py).

The IR dumps below are written by hand in the form ``benchmarks/compiler_probe.py``
prints (one record per ``ForStmt``, after each pass the check reads), shaped like the
rewrites ``docs/en/dev/passes/26-28`` of pypto describe; the skewlint records are
excerpts of ``skewlint --select ALL --output-format json``. No pypto is needed.
"""

from __future__ import annotations

from benchmarks.compiler_verdicts import (
    Claim,
    EntryResult,
    IrLoop,
    lowering_claim,
    observations,
    skew_claim,
    skewlint_claims,
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
