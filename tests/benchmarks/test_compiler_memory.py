"""How the compiler check reads what the memory passes did to each pipeline stage group.

``data/memory_probe.json`` is what ``benchmarks/compiler_probe.py`` printed for five
entries of tests/fixtures/memory/models/mem_llm (``cube.py``'s ``wide_right_operand``
and ``int8_projection``, ``vector.py``'s ``beside_a_resident_row``,
``four_widened_stages`` and ``four_stages_of_wide_rows``) compiled by pypto e2d0f78ae
under the default planner: the loop snapshots left out, the log's time stamps cut off,
the fixture's directory written ``@MEM_LLM@`` (put back below, so the check reads the
kernels' own loops). The numbers asserted on it are the compiler's: re-record the dump
when a fixture kernel moves. The last two cases use records written by hand in the
probe's form (a view, a skewed loop's group). No pypto is needed.
"""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.compiler_check import memory_report, memory_summary, source_loops
from benchmarks.compiler_memory import (
    Fallback,
    Hint,
    fallbacks,
    group_records,
    memberships,
    memory_predictions,
    parse_hint,
    skew_taken,
    space_footprints,
)

ROOT = Path(__file__).resolve().parents[2]
MEM_LLM = ROOT / "tests" / "fixtures" / "memory" / "models" / "mem_llm"
DUMP = Path(__file__).parent / "data" / "memory_probe.json"


def probed() -> list[dict]:
    return json.loads(DUMP.read_text().replace("@MEM_LLM@", str(MEM_LLM)))


def entry(name: str) -> dict:
    return next(e for rec in probed() for e in rec["entries"] if e["entry"] == name)


def records(name: str) -> dict[tuple[int, str], object]:
    """The entry's group records by (group, space)."""
    ranges, every = source_loops(sorted(MEM_LLM.glob("*.py")))
    found = entry(name)
    groups = group_records(name, found["memory"], found["diagnostics"], ranges, every)
    return {(g.group, g.space): g for g in groups}


def test_a_tile_of_an_inner_loop_cloned_by_an_outer_one_is_in_both_groups():
    assert memberships("0:1;1:0") == [(0, 1), (1, 0)]
    assert memberships(None) == []


def test_a_hint_whose_stages_alone_overflow_the_space_is_slot_bound():
    line = entry("four_widened_stages")["diagnostics"][0]
    place, group, space, hint = parse_hint(line)
    assert (place[0], place[1], group, space) == (str(MEM_LLM / "vector.py"), 60, 0, "Vec")
    assert hint == Hint(
        requested=4, achieved=1, slot=49152, free=188416, reserved=0, cause="slot-bound"
    )


def test_a_hint_whose_group_would_fit_alone_is_space_pressure():
    (line,) = entry("beside_a_resident_row")["diagnostics"]
    _, _, _, hint = parse_hint(line)
    assert (hint.requested, hint.achieved, hint.slot, hint.cause) == (
        4,
        2,
        32768,
        "space-pressure",
    )


def test_a_group_in_an_inline_helper_belongs_to_the_helpers_loop():
    group = records("beside_a_resident_row")[(0, "Vec")]
    assert group.loop == f"{MEM_LLM / 'helpers.py'}:18"
    assert (group.stages, group.slot, group.buffers) == (4, 32768, 6)
    assert group.hint is not None and group.hint.achieved == 2
    assert group.depth_seen == 2  # stages 0 and 2 share a buffer, 1 and 3 another


def test_the_k_loop_autotilematmull0_made_is_attributed_to_the_user_loop_around_it():
    groups = records("wide_right_operand")
    k_loop, user_loop = groups[(0, "Right")], groups[(1, "Right")]
    assert k_loop.made and not user_loop.made
    assert k_loop.loop == user_loop.loop == f"{MEM_LLM / 'cube.py'}:45"


def test_the_ir_may_keep_stages_apart_that_the_hint_says_share():
    # Both Right groups were shed to depth 1 (the hint), but the K loop's two 32 KB
    # operands are live together in program order, so they keep two buffers; the user
    # loop's two clones do share them.
    groups = records("wide_right_operand")
    k_loop, user_loop = groups[(0, "Right")], groups[(1, "Right")]
    assert (k_loop.hint.achieved, k_loop.depth_seen) == (1, 2)
    assert (user_loop.hint.achieved, user_loop.depth_seen) == (1, 1)


def test_a_group_that_fits_gets_no_hint():
    group = records("wide_right_operand")[(1, "Mat")]
    assert group.hint is None
    assert group.depth_seen == 2


def test_a_space_that_fits_at_no_depth_is_a_legacy_fallback():
    found = entry("four_stages_of_wide_rows")
    assert fallbacks(found["memory"], found["diagnostics"]) == [Fallback("wide", "Vec", True)]


def test_a_footprint_is_the_end_of_the_last_buffer_allocatememoryaddr_placed():
    found = entry("beside_a_resident_row")
    # four 16 KB loads, two 32 KB widened rows (depth 2) and the 32 KB resident row
    assert space_footprints(found["memory"]) == {("scaled", "Vec"): 163840}


def test_the_report_counts_hints_by_whether_the_ir_agrees_and_lists_overflows():
    report = memory_report(probed(), sorted(MEM_LLM.glob("*.py")))
    assert [e["entry"] for e in report["errors"]] == ["four_stages_of_wide_rows"]
    assert "Vec buffer usage (262144 bytes)" in report["errors"][0]["error"]
    line = memory_summary("pypto", report)
    assert "4 with a PH-MR-001 hint: 3 in 3 user loops x entries" in line
    assert "1 in loops the compiler made" in line
    assert "equals the hint's in 3, is deeper in 1, shallower in 0" in line
    assert "1 legacy-packing warnings, 1 entries over capacity in AllocateMemoryAddr" in line


def test_every_buffer_initmemref_sized_is_sized_alike_by_skewlsp():
    report = memory_report(probed(), sorted(MEM_LLM.glob("*.py")))
    assert report["missized"] == []
    # cube.py int8_projection's accumulator: 16 INT32 rows take 32 in L0C on the 910B
    accumulator = {"shape": (16, 128), "dtype": "INT32", "space": "Acc", "bytes": 16384}
    assert any(accumulator.items() <= record.items() for record in report["sized"])


def stamped(name: str, nth: int, base: str, membership: str, size: int = 4096) -> dict:
    """A tile as the probe records it after InitMemRef (hand-written, in its form)."""
    return {
        "function": "k",
        "name": name,
        "nth": nth,
        "space": "Vec",
        "bytes": size,
        "base": base,
        "offset": 0,
        "membership": membership,
        "file": "/repo/k.py",
        "line": 12,
        "loops": [["/repo/k.py", 10]],
    }


def test_an_in_place_result_on_its_sources_buffer_says_nothing_of_depth():
    # stage 1's accumulator is written over stage 0's (InitMemRef gives it that buffer):
    # not a depth MemoryReuse took; the loads' two buffers are the group's depth.
    init = [
        stamped("t", 0, "mem_vec_0", "0:0"),
        stamped("acc", 0, "mem_vec_1", "0:0"),
        stamped("t", 1, "mem_vec_2", "0:1"),
        stamped("acc", 1, "mem_vec_1", "0:1"),
    ]
    memory = {"InitMemRef": {"tiles": init}, "MemoryReuse": {"tiles": init}}
    (group,) = group_records("e", memory, [], {"/repo/k.py": {10: 13}})
    assert (group.buffers, group.depth_seen) == (3, 2)
    assert group.loop == "/repo/k.py:10"


def test_a_skewed_loops_clones_are_numbered_from_two_to_the_twentieth():
    init = [stamped("t", 0, "mem_vec_0", "1048576:0"), stamped("t", 1, "mem_vec_1", "1048576:1")]
    memory = {"InitMemRef": {"tiles": init}, "MemoryReuse": {"tiles": init}}
    (group,) = group_records("e", memory, [], {"/repo/k.py": {10: 13}})
    assert group.skew and group.group == 1 << 20


def test_an_outer_loop_whose_body_is_only_an_inner_one_owns_its_outer_groups():
    # pipelines.py's nested_static as pypto e2d0f78ae stamped it: the inner loop (11)
    # lowered first (its main clones group 0), the outer one (10) then (group 2); every
    # tile sits in the inner loop's lines, the outer's group is still the outer loop's.
    init = [
        stamped("t", 0, "mem_vec_0", "0:0;2:0"),
        stamped("t", 1, "mem_vec_1", "0:1;2:0"),
        stamped("t", 2, "mem_vec_2", "0:0;2:1"),
        stamped("t", 3, "mem_vec_3", "0:1;2:1"),
    ]
    memory = {"InitMemRef": {"tiles": init}, "MemoryReuse": {"tiles": init}}
    found = group_records("e", memory, [], {"/repo/k.py": {10: 14, 11: 13}})
    assert {g.group: g.loop for g in found} == {0: "/repo/k.py:11", 2: "/repo/k.py:10"}


def test_an_inner_loop_the_skew_rewrote_leaves_its_tiles_group_to_the_loop_around_it():
    # mixed_llm/nested.py's vector function as pypto e2d0f78ae stamped it: the inner loop
    # (11) is skewed on the cube and demoted here (a sequential loop after
    # SkewCrossCorePipeline), the outer one (10) replicated: its two clones' tiles, in
    # the inner loop's lines, carry the outer loop's group only.
    init = [stamped("t", 0, "mem_vec_0", "0:0"), stamped("t", 1, "mem_vec_1", "0:1")]
    memory = {"InitMemRef": {"tiles": init}, "MemoryReuse": {"tiles": init}}
    ranges = {"/repo/k.py": {10: 14, 11: 13}}
    loops = [
        {"function": "k", "file": "/repo/k.py", "line": line, "kind": "Pipeline"}
        for line in (10, 11)
    ]
    after = [loops[0], {**loops[1], "kind": "Sequential"}]
    taken = skew_taken({"NormalizeReturnOrder": loops, "SkewCrossCorePipeline": after})
    assert taken == {("k", "/repo/k.py", 11)}
    (group,) = group_records("e", memory, [], ranges, None, taken)
    assert group.loop == "/repo/k.py:10"
    (unseen,) = group_records("e", memory, [], ranges)
    assert unseen.loop == "/repo/k.py:11"  # (what the harness said before it read the skew)


def finding(
    code: str, file: str, line: int, space: str, requested: int, achieved: int | None,
    function: str = "", cause: str | None = None,
) -> dict:
    """A skewlint JSON item of a memory code (hand-written, in its form): a split loop's
    vector copy with the one space the code is about."""
    cause = cause or {"SKW080": "slot-bound", "SKW081": "overflow", "SKW082": "overflow"}[code]
    memory = {"space": space, "stage_bytes": 65536, "requested": requested,
              "achieved": achieved, "cause": cause, "known": True, "reason": None}
    return {"code": code, "filename": str(MEM_LLM / file), "loop": {"line": line},
            "function": function, "instance": None,
            "memory": [], "cores": [{"core": "aiv", "memory": [memory]}]}


def test_an_overflow_at_the_entry_the_compiler_stopped_is_predicted():
    report = memory_report(probed(), sorted(MEM_LLM.glob("*.py")))
    overflow = finding("SKW081", "vector.py", 25, "Vec", 4, None, "four_stages_of_wide_rows")
    found = memory_predictions([overflow], report)
    assert (found.overflows, found.predicted_overflows, found.wrong) == (1, 1, ())
    assert found.line() == (
        "memory: 3 hints, 0 predicted, 0 predicted wrongly; 1 overflows, 1 predicted; "
        "1 fallbacks, 0 predicted"
    )


def test_an_overflow_of_a_builders_copy_is_matched_by_the_entry_compiling_its_loop():
    # a builder's kernel is compiled as the name the module binds it to, which the
    # finding does not name (its function is the builder's inner one): the entries whose
    # groups are at the loop stand for it
    report = memory_report(probed(), sorted(MEM_LLM.glob("*.py")))
    built = finding("SKW081", "vector.py", 25, "Vec", 4, None, "make_rows.kernel")
    found = memory_predictions([built], report)
    assert (found.overflows, found.predicted_overflows, found.wrong) == (1, 1, ())


def test_a_slot_bound_claim_needs_the_compiler_s_hint_at_that_loop_with_the_same_depths():
    report = memory_report(probed(), sorted(MEM_LLM.glob("*.py")))
    # vector.py:61: the compiler hints 1 of 4 in Vec; helpers.py:18: 2 of 4.
    right = finding("SKW080", "vector.py", 61, "Vec", 4, 1)
    wrong_depth = finding("SKW080", "helpers.py", 18, "Vec", 4, 3)
    nowhere = finding("SKW080", "cube.py", 58, "Vec", 2, 1)  # compiled, no Vec hint there
    found = memory_predictions([right, wrong_depth, nowhere], report)
    assert (found.hints, found.predicted) == (3, 1)
    assert [w.rsplit("/", 1)[-1] for w in found.wrong] == [
        "helpers.py:18: SKW080 Vec has no counterpart",
        "cube.py:58: SKW080 Vec has no counterpart",
    ]


def test_every_hint_stop_and_warning_no_finding_predicts_is_named():
    # the kept dump holds 3 hints (vector.py:61 1 of 4 in Vec, slot-bound; helpers.py:18
    # 2 of 4 in Vec and cube.py:45 1 of 2 in Right, both "co-resident buffers ...
    # over-subscribe the space"), one stop and one warning in vector.py's
    # four_stages_of_wide_rows; the one finding predicts vector.py:61 alone.
    report = memory_report(probed(), sorted(MEM_LLM.glob("*.py")))
    found = memory_predictions([finding("SKW080", "vector.py", 61, "Vec", 4, 1)], report)
    names = sorted(line.rsplit("/", 1)[-1] for line in found.missed)
    assert names == [
        "cube.py:45: PH-MR-001 Right 2 -> 1 (space-pressure)",
        "helpers.py:18: PH-MR-001 Vec 4 -> 2 (space-pressure)",
        "vector.py: four_stages_of_wide_rows: ValueError: Vec buffer usage (262144 bytes) "
        "exceeds platform limit (188416 bytes) (over: `wide` 262144 B, tiles at vector.py:26, "
        "vector.py:27)",
        "vector.py: four_stages_of_wide_rows: legacy packing in Vec",
    ]


def test_an_overflow_names_the_function_over_the_limit_and_its_tiles_lines():
    # four_stages_of_wide_rows: MemoryReuse left `wide` four 64 KB Vec buffers (the
    # error's 262144 B); InitMemRef's tiles there come from vector.py 26 and 27
    report = memory_report(probed(), sorted(MEM_LLM.glob("*.py")))
    (error,) = report["errors"]
    assert error["over"] == [
        {"function": "wide", "bytes": 262144, "lines": ["vector.py:26", "vector.py:27"]}
    ]


def test_a_claim_at_a_loop_no_compiled_entry_holds_is_not_compared():
    # (vector.py:16's entry is not in the kept dump: the compiler said nothing of it)
    report = memory_report(probed(), sorted(MEM_LLM.glob("*.py")))
    found = memory_predictions([finding("SKW080", "vector.py", 16, "Vec", 2, 1)], report)
    assert (found.wrong, found.unchecked) == ((), 1)
    assert found.line().endswith("; 1 at loops not compiled")


def test_an_overflow_claimed_in_another_entry_of_the_file_is_wrong():
    report = memory_report(probed(), sorted(MEM_LLM.glob("*.py")))
    elsewhere = finding("SKW081", "vector.py", 16, "Vec", 2, None, "two_stages_fit")
    found = memory_predictions([elsewhere], report)
    assert found.predicted_overflows == 0
    assert [w.rsplit("/", 1)[-1] for w in found.wrong] == ["vector.py:16: SKW081 Vec has no counterpart"]


def test_an_overflow_of_a_space_the_stopped_compile_never_placed_is_not_compared():
    # four_stages_of_wide_rows stopped at Vec's overflow: AllocateMemoryAddr raises at the
    # first space over its limit, so a Mat overflow claimed in that entry is neither
    # confirmed nor refuted; claimed in an entry that compiled, it is wrong.
    report = memory_report(probed(), sorted(MEM_LLM.glob("*.py")))
    behind = finding("SKW081", "vector.py", 25, "Mat", 4, None, "four_stages_of_wide_rows")
    elsewhere = finding("SKW081", "vector.py", 16, "Mat", 2, None, "two_stages_fit")
    found = memory_predictions([behind, elsewhere], report)
    assert (found.masked, found.predicted_overflows) == (1, 0)
    assert [w.rsplit("/", 1)[-1] for w in found.wrong] == ["vector.py:16: SKW081 Mat has no counterpart"]
    assert found.line().endswith("; 1 overflows behind another space's stop")


def test_a_space_pressure_claim_in_right_predicts_the_compilers_hint_there():
    # cube.py:45: the compiler hints 1 of 2 in Right, space-pressure (its K loop's
    # slices and the loop's stages share L0B).
    report = memory_report(probed(), sorted(MEM_LLM.glob("*.py")))
    claim = finding("SKW080", "cube.py", 45, "Right", 2, 1, cause="space-pressure")
    found = memory_predictions([claim], report)
    assert (found.predicted, found.wrong) == (1, ())


def test_a_legacy_fallback_claim_predicts_the_compiler_s_warning_in_that_entry():
    # vector.py's four_stages_of_wide_rows: the compiler warns "capacity-gated reuse could
    # not fit memory space Vec at any double-buffering depth; fell back to the legacy
    # packing (which also overflows ...)" on the function; the claim is at its loop (25).
    report = memory_report(probed(), sorted(MEM_LLM.glob("*.py")))
    right = finding("SKW082", "vector.py", 25, "Vec", 4, None, "four_stages_of_wide_rows")
    elsewhere = finding("SKW082", "vector.py", 16, "Vec", 2, None, "two_stages_fit")
    found = memory_predictions([right, elsewhere], report)
    assert (found.fallbacks, found.predicted_fallbacks) == (1, 1)
    assert [w.rsplit("/", 1)[-1] for w in found.wrong] == ["vector.py:16: SKW082 Vec has no counterpart"]
    assert found.line().endswith("; 1 overflows, 0 predicted; 1 fallbacks, 1 predicted")


def test_a_finding_that_names_its_own_record_is_compared_in_that_space_only():
    # A loop whose Mat overflows (the compiler's warning) and whose Vec loads alone are
    # larger than Vec (no warning: one buffer larger than the space): the SKW082 is the
    # Mat record's, named by its JSON ``record``, not every record of its cause.
    report = memory_report(probed(), sorted(MEM_LLM.glob("*.py")))
    claim = finding("SKW082", "vector.py", 25, "Vec", 4, None, "four_stages_of_wide_rows")
    other = {**claim["cores"][0]["memory"][0], "space": "Mat"}
    claim["cores"][0]["memory"].append(other)
    unnamed = memory_predictions([claim], report)
    assert [w.rsplit("/", 1)[-1] for w in unnamed.wrong] == [
        "vector.py:25: SKW082 Mat has no counterpart"
    ]
    named = memory_predictions([{**claim, "record": claim["cores"][0]["memory"][0]}], report)
    assert (named.predicted_fallbacks, named.wrong) == (1, ())


def test_a_group_names_the_core_its_function_runs_on_as_skewlint_does():
    assert records("wide_right_operand")[(1, "Right")].core == "aic"
    assert records("beside_a_resident_row")[(0, "Vec")].core == "aiv"


def test_a_scope_s_overflow_and_warning_said_at_its_with_are_predicted():
    # vector.py three_wide_rows_at_once, no pipeline loop: pypto e2d0f78ae warns at
    # vector.py:48 ("capacity-gated reuse could not fit memory space Vec at any
    # double-buffering depth; fell back to the legacy packing (which also overflows") and
    # stops in AllocateMemoryAddr. skewlint's items are of the scope: no loop.
    path = str(MEM_LLM / "vector.py")
    report = {
        "groups": [],
        "errors": [
            {
                "file": path,
                "entry": "three_wide_rows_at_once",
                "error": "ValueError: Vec buffer usage (196608 bytes) exceeds platform limit "
                "(188416 bytes)",
            }
        ],
        "fallbacks": [
            {"file": path, "entry": "three_wide_rows_at_once", "function": "three",
             "space": "Vec", "still_overflows": True}
        ],
    }
    record = {"space": "Vec", "stage_bytes": 0, "requested": 0, "achieved": None,
              "cause": "overflow", "known": True, "reason": None}
    items = [
        {"code": code, "filename": path, "line": 48, "loop": None,
         "function": "three_wide_rows_at_once", "instance": None, "memory": [record],
         "cores": []}
        for code in ("SKW081", "SKW082")
    ]
    found = memory_predictions(items, report)
    assert found.line() == (
        "memory: 0 hints, 0 predicted, 0 predicted wrongly; 1 overflows, 1 predicted; "
        "1 fallbacks, 1 predicted"
    )


def test_a_host_entry_stopping_on_the_kernel_it_calls_is_predicted_with_the_kernel():
    # pypto-lib's prefill_fwd.py: `l3_prefill_fwd` (@pl.jit.host) compiles `prefill_fwd`,
    # and both stop on the same outlined function; skewlint names the kernel
    report = memory_report(probed(), sorted(MEM_LLM.glob("*.py")))
    (error,) = report["errors"]
    report["errors"].append(dict(error, entry="l3_four_stages"))
    other = dict(error, entry="elsewhere", over=[{"function": "wide", "bytes": 1, "lines": []}])
    report["errors"].append(other)  # another function over the limit: another stop
    overflow = finding("SKW081", "vector.py", 25, "Vec", 4, None, "four_stages_of_wide_rows")
    found = memory_predictions([overflow], report)
    assert (found.overflows, found.predicted_overflows) == (3, 2)
    assert [m.rsplit("/", 1)[-1].split(":")[1] for m in found.missed if "buffer usage" in m] == [
        " elsewhere"
    ]
