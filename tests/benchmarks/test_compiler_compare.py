"""How the compiler check compares skewlint's claims with the compiler's observations,
loop by loop and core by core, and summarises the compiler's diagnostic lines.

The IR dumps and skewlint records are written by hand as in test_compiler_verdicts.py
(whose builders this file shares); no pypto is needed.
"""

from __future__ import annotations

from pathlib import Path

from benchmarks.compiler_compare import compare, compare_loop, summarise_diagnostics
from benchmarks.compiler_verdicts import Claim, EntryResult, observations, skewlint_claims
from tests.benchmarks.test_compiler_verdicts import FOR_LINES, KERNEL, MIXED, entry, left, loop

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
