"""The seven cases issue #41 asks fixtures for, each decided by the compiler first, and what
skewlint says at each loop, end to end through the CLI's JSON.

Every number below is what pypto e2d0f78ae (default planner unless said, Ascend910B) did
to tests/fixtures/memory/models/mem_llm, read with ``benchmarks/compiler_check.py``
(PH-MR-001 hints, the legacy-packing warning, AllocateMemoryAddr's error, each stage
group's buffers). Where skewlint's model (each loop's loads alone, the whole function's
Vec tiles where every one is known, a cube function's L0 tiles, a skewed loop's clones
there) decides the case, the finding carries the compiler's code, space, depths and
bytes; where it cannot, a comment says what the
compiler does and the test checks that skewlint claims nothing it cannot know.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from skewlsp.analysis import analyze
from skewlsp.common.resolver import RecordingResolver
from tests.cli.conftest import Run, run, user_cache

__all__ = ["run", "user_cache"]  # the CLI, run in-process (fixtures)

MEM_LLM = Path(__file__).resolve().parents[2] / "fixtures" / "memory" / "models" / "mem_llm"


def lint(run: Run, file: str, *options: str) -> list[dict[str, Any]]:
    result = run(
        "--output-format",
        "json",
        "--exit-zero",
        "--no-cache",
        "--select",
        "ALL",
        *options,
        str(MEM_LLM / file),
    )
    return json.loads(result.out)


def at(items: list[dict[str, Any]], line: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The loop record at ``line`` and the buffer findings (SKW08x) at it."""
    (loop,) = [i for i in items if i["kind"] == "loop" and i["line"] == line]
    found = [
        i for i in items if i["kind"] == "hint" and i["line"] == line and i["code"][:5] == "SKW08"
    ]
    return loop, found


def buffers(
    space: str,
    stage_bytes: int,
    requested: int,
    achieved: int | None = None,
    cause: str | None = None,
    reason: str | None = None,
) -> dict[str, Any]:
    """A memory record as the JSON writes it (``known``: a cause was decided)."""
    return {
        "space": space,
        "stage_bytes": stage_bytes,
        "requested": requested,
        "achieved": achieved,
        "cause": cause,
        "known": cause is not None,
        "reason": reason,
    }


def test_slot_bound_three_64_kb_copies_get_two_buffers_at_the_loop(run: Run) -> None:
    # short.py:19. The compiler: PH-MR-001 "requested depth 3 ... in Vec, but only 2 of 3
    # buffers fit (65536 B per stage, 188416 B free)", slot-bound; the IR: 2 buffers.
    loop, (hint,) = at(lint(run, "short.py"), 19)
    assert (hint["code"], hint["compiler_id"]) == ("SKW080", "PH-MR-001")
    assert loop["cores"][0]["memory"] == [buffers("Vec", 65536, 3, 2, "slot-bound")]
    assert "2 of the 3 stages' buffers apart in Vec" in hint["message"]
    assert "3 x 65536 B per stage is more than its 188416 B" in hint["message"]


def test_space_pressure_beside_a_resident_row_is_predicted_at_the_loop(run: Run) -> None:
    # helpers.py:18 (called from vector.py's beside_a_resident_row). The compiler:
    # PH-MR-001 Vec, 2 of 4 (32768 B per stage: the widened tile, 188416 B free),
    # space-pressure; the IR: stages 0 and 2 share a buffer. skewlint packs every Vec tile
    # of the function (the loads, the widened copy, the product, the row read across the
    # loop) and says the same at the loop, naming what shares the space.
    loop, (hint,) = at(lint(run, "helpers.py"), 18)
    assert (hint["code"], hint["compiler_id"]) == ("SKW080", "PH-MR-001")
    assert loop["cores"][0]["memory"] == [buffers("Vec", 32768, 4, 2, "space-pressure")]
    assert "only 2 of the 4 stages' buffers apart in Vec" in hint["message"]
    assert "co-resident: c (load) 32768 B" in hint["message"]


def test_a_shed_between_two_groups_is_predicted_at_the_row_loop_only(run: Run) -> None:
    # blocks.py. The compiler: the column loop's clones (27) live beside the row loop's
    # (24) and both groups overflow Vec at full depth, so MemoryReuse sheds the larger
    # slot: PH-MR-001 Vec 1 of 2 (49152 B per stage, space-pressure) for the row loop
    # only; the column loop keeps 2 buffers (32 KB), its tiles in both groups.
    # skewlint lays out the column loop in each row clone and packs the function's Vec.
    # The IR after MemoryReuse still gives the row loop's 48 KB tiles a buffer per stage
    # (a: mem_vec_3, mem_vec_4; tmp_tile: mem_vec_5, mem_vec_3): 2 stages apart, the
    # hint's 1 notwithstanding: both are said.
    items = lint(run, "blocks.py")
    rows, (hint,) = at(items, 24)
    columns, at_columns = at(items, 27)
    assert (hint["code"], hint["compiler_id"]) == ("SKW080", "PH-MR-001")
    reduced = buffers("Vec", 49152, 2, 1, "space-pressure")
    assert rows["cores"][0]["memory"] == [{**reduced, "ir_depth": 2}]
    assert "only 1 of the 2 stages' buffers apart in Vec" in hint["message"]
    assert hint["message"].endswith(
        "stages 1 apart share storage and serialize; yet its packing still gives each "
        "stage's copy of the 49152 B tiles (a (load), tmp_tile (row_sum)) a buffer of its "
        "own, 2 stages apart (the IR's depth; the guard's is 1): their lifetimes and the "
        "first fit keep them apart, so no stage's copy of them waits for another's"
    )
    assert at_columns == []
    kept = {**buffers("Vec", 32768, 2, 2), "known": True}
    assert columns["cores"][0]["memory"] == [kept]
    assert columns["cores"][0]["lowering"]["nested"] == 2


def test_the_legacy_fallback_that_still_overflows_is_the_overflow_at_the_loop(run: Run) -> None:
    # short.py:32. The compiler: "capacity-gated reuse could not fit memory space Vec at
    # any double-buffering depth; fell back to the legacy packing (which also overflows",
    # then AllocateMemoryAddr: "Vec buffer usage (262144 bytes) exceeds platform limit
    # (188416 bytes)". No PH-MR-001 (a space packed the legacy way gets none).
    loop, found = at(lint(run, "short.py"), 32)
    error, warning = sorted(found, key=lambda item: item["code"])
    assert (error["code"], error["severity"], error["compiler_id"]) == (
        "SKW081",
        "error",
        "AllocateMemoryAddr",
    )
    assert loop["cores"][0]["memory"] == [buffers("Vec", 65536, 2, None, "overflow")]
    assert error["message"].endswith(
        '("Vec buffer usage (262144 bytes) exceeds platform limit (188416 bytes)")'
    )
    # the compiler's warning, at the loop (it puts it on the function, line 31)
    assert (warning["code"], warning["severity"], warning["compiler_id"]) == (
        "SKW082",
        "warning",
        "MemoryReuse",
    )
    assert (
        '"capacity-gated reuse could not fit memory space Vec at any double-buffering '
        'depth; fell back to the legacy packing (which also overflows'
    ) in warning["message"]


def test_an_overflow_that_stops_the_compile_is_an_error_at_the_loop(run: Run) -> None:
    # rotation.py:27 under the default planner. The compiler: the legacy-packing warning
    # and "Vec buffer usage (196608 bytes) exceeds platform limit (188416 bytes)".
    loop, found = at(lint(run, "rotation.py"), 27)
    error, warning = sorted(found, key=lambda item: item["code"])
    assert (error["code"], warning["code"]) == ("SKW081", "SKW082")
    assert "fell back to the legacy packing (which also overflows" in warning["message"]
    assert loop["cores"][0]["memory"] == [buffers("Vec", 65536, 3, None, "overflow")]
    assert (
        "the 3 loads of its 3 stages are live at once and need 196608 B of its 188416 B"
        in (error["message"])
    )


def test_a_skewed_loop_whose_clones_share_l0b_is_predicted_at_the_loop(run: Run) -> None:
    # attention.py:24. The compiler: skewed at depth 2 on the cube (the vector's copy
    # demoted, x2), the clones' group (1 << 20) gets PH-MR-001 Right 1 of 2 (32768 B per
    # stage, 65536 B free, space-pressure), beside 8 more hints on the K loops
    # AutoTileMatmulL0 wrote in each clone. skewlint lays out the skew's clones (prologue,
    # steady body, epilogue) with the K loops in them and says the same at the loop.
    # After MemoryReuse each of those 8 K loops keeps its two slices in two buffers (2
    # stages apart): the two matmuls' K loops are said at both depths.
    loop, found = at(lint(run, "attention.py"), 24)
    assert (loop["code"], loop["depth"], loop["requested_depth"]) == ("SKW001", 2, 2)
    aic, aiv = loop["cores"]
    assert (aic["core"], aic["verdict"], aic["depth"]) == ("aic", "skewed", 2)
    assert (aiv["core"], aiv["verdict"], aiv["copies"]) == ("aiv", "demoted", 2)
    k_loops = [
        {"matmul": matmul, "remainder": False, "buffers": {**reduced, "ir_depth": 2}}
        for matmul in ("matmul(q[...], kv)", "matmul(p, kv)")
        for reduced in [buffers("Right", 32768, 2, 1, "space-pressure")]
    ]
    assert [m for m in aic["memory"] if m["space"] == "Right"] == [
        {**buffers("Right", 32768, 2, 1, "space-pressure"), "k_loops": k_loops}
    ]
    assert aiv["memory"] == []
    (hint,) = found
    assert (hint["code"], hint["compiler_id"]) == ("SKW080", "PH-MR-001")
    assert "only 1 of the 2 stages' buffers apart in Right" in hint["message"]
    assert "32768 B per stage, space-pressure" in hint["message"]


def test_under_ptoas_the_capacity_gate_pins_two_slots_and_declines_three(
    run: Run, tmp_path: Path
) -> None:
    # rotation.py under memory-planner = "ptoas": the compiler rotates the loop at 18
    # (2 x 64 KB slots) and replicates the one at 27 (3 x 64 KB: LowerPipelineToSlots
    # declines it; main loop stepping 3, 2 iterations); MemoryReuse leaves both alone.
    config = tmp_path / "ptoas.toml"
    config.write_text('memory-planner = "ptoas"\n')
    items = lint(run, "rotation.py", "--config", str(config))
    pinned, at_pinned = at(items, 18)
    declined, at_declined = at(items, 27)
    assert at_pinned == at_declined == []
    assert (pinned["code"], pinned["lowering"]["verdict"]) == ("SKW015", "rotated")
    assert (pinned["lowering"]["slots"], pinned["lowering"]["buffers"]) == (["t"], 2)
    assert (declined["code"], declined["lowering"]["verdict"]) == ("SKW016", "replicated")
    assert declined["lowering"]["declined"] == (
        "its 3 slots per load need 192 KB of Vec, more than the 184 KB the chip has"
    )
    assert (declined["lowering"]["stride"], declined["lowering"]["main_trip"]) == (3, 2)
    assert pinned["cores"][0]["memory"] == declined["cores"][0]["memory"] == []


def test_a_shard_sized_by_an_option_read_at_import_is_predicted_under_the_assumed_build(
    run: Run,
) -> None:
    # sharded.py, compiled as the check compiles a file (no arguments: `--tp` falls back to
    # 2). The compiler: PH-MR-001 Right 1 of 2 (32768 B per stage, 65536 B free,
    # space-pressure) for the loop at 52; Left keeps both 4096 B stages; the tail loop at
    # 63 is not in the IR (Simplify folds `if VOCAB_TAIL != 0`: 1280 % 256 is 0). The
    # loop's K loop (group 1) gets Right 1 of 2 too, and keeps its two slices in two
    # buffers after MemoryReuse.
    items = lint(run, "sharded.py")
    loop, (hint,) = at(items, 52)
    tail, at_tail = at(items, 63)
    assert (hint["code"], hint["compiler_id"]) == ("SKW080", "PH-MR-001")
    reduced = buffers("Right", 32768, 2, 1, "space-pressure")
    k_loop = {"matmul": "matmul_acc(h, w)", "remainder": False, "buffers": {**reduced, "ir_depth": 2}}
    assert [m for m in loop["cores"][0]["memory"] if m["space"] != "Mat"] == [
        {**buffers("Left", 4096, 2, 2), "known": True},
        {**reduced, "k_loops": [k_loop]},
    ]
    assert "32768 B per stage, space-pressure" in hint["message"]
    assert (tail["code"], tail["verdict"], at_tail) == ("SKW070", "not_compiled", [])


def test_each_shard_count_the_module_allows_is_a_build_the_loops_it_decides_list(
    run: Run,
) -> None:
    # sharded.py allows `--tp` in (2, 4, 8) (`assert TP_SIZE in _TP_CHOICES`); without
    # arguments (2) the tail loop at 63 is not compiled. The compiler on copies whose
    # default is 4 and 8 (640 and 320 vocabulary rows a rank, which the 256-row tile does
    # not divide): the tail branch stays, both loops agree with skewlint's replicated
    # verdict, and every PH-MR-001 is predicted (at 4: Right 1 of 2 at each loop; at 8:
    # Left and Right 1 of 2 at each, the tail's Left 32768 B, Right 16384 B per stage).
    items = lint(run, "sharded.py")
    loop, _ = at(items, 52)
    tail, _ = at(items, 63)
    assert (tail["code"], tail["assumes"]) == ("SKW070", {"--tp": "2"})
    assert [(v["environment"], v["verdict"], v["code"]) for v in tail["variants"]] == [
        ({"--tp": "4"}, "left", "SKW012"),
        ({"--tp": "8"}, "left", "SKW012"),
    ]
    assert "main loop 1..7 step 2 (3 iterations)" in tail["variants"][1]["message"]
    # The loop at 52 keeps its verdict; its memory findings change (at 8 Left is 1 of 2
    # too; at 4 the tail loop shares Right), so each build is listed.
    assert (loop["code"], loop["assumes"]) == ("SKW012", {"--tp": "2"})
    assert [(v["environment"], v["code"]) for v in loop["variants"]] == [
        ({"--tp": "4"}, "SKW012"),
        ({"--tp": "8"}, "SKW012"),
    ]


def test_another_shard_count_on_the_command_line_is_the_build_the_verdict_names(
    run: Run,
) -> None:
    # --tp 8 on the command line: the tail branch stays; the verdict names the option it
    # assumed, and lists what each other allowed count gives (2: no tail; 4: a tail whose
    # loop gets only Right's finding).
    items = lint(run, "sharded.py", "--argv=--tp 8")
    tail, found = at(items, 63)
    assert (tail["verdict"], tail["assumes"]) == ("left", {"--tp": "8"})
    assert sorted(f["headline"] for f in found) == [
        "PH-MR-001: only 1 of 2 stage buffers fit in Left on the AIC core (space-pressure, "
        "32768 B per stage)",
        "PH-MR-001: only 1 of 2 stage buffers fit in Right on the AIC core (space-pressure, "
        "16384 B per stage)",
    ]
    assert [(v["environment"], v["code"]) for v in tail["variants"]] == [
        ({"--tp": "2"}, "SKW070"),
        ({"--tp": "4"}, "SKW012"),
    ]


def test_a_score_reduction_over_paged_int32_blocks_is_predicted_at_the_loop(run: Run) -> None:
    # scores.py:29. The compiler: PH-MR-001 Vec 1 of 2 (65536 B per stage, 188416 B
    # free), space-pressure; the IR: 1 buffer per tile. Every Vec tile of the scope is
    # known: the page id cast is a scalar, INT32 -> FP32 one cast, the row sum's
    # workspace 128 columns wide (65536 B: the stage's slot), set_validshape a view.
    loop, (hint,) = at(lint(run, "scores.py"), 29)
    assert (hint["code"], hint["compiler_id"]) == ("SKW080", "PH-MR-001")
    assert loop["cores"][0]["memory"] == [buffers("Vec", 65536, 2, 1, "space-pressure")]
    assert "co-resident: tmp_tile (row_sum) 65536 B" in hint["message"]


def test_a_k_loop_the_ir_keeps_deeper_than_its_hint_is_recorded_with_both_depths(run: Run) -> None:
    # cube.py full (line 32): PH-MR-001 "requested depth 2 for pipeline group 0 in Right,
    # but only 1 of 2 buffers fit (32768 B per stage, 65536 B free)" for AutoTileMatmulL0's
    # K loop (group 0) and the same for the loop's stages (group 1); the IR after
    # MemoryReuse keeps the K loop's two halves in mem_right_9 and mem_right_11 in both
    # of the loop's stages: the K loop 2 stages apart, the loop's stages 1.
    items = lint(run, "cube.py")
    full, (hint,) = at(items, 32)
    (right,) = [m for m in full["cores"][0]["memory"] if m["space"] == "Right"]
    k_loop = {
        "matmul": "matmul(x[...], wj)",
        "remainder": False,
        "buffers": {**buffers("Right", 32768, 2, 1, "space-pressure"), "ir_depth": 2},
    }
    assert right == {**buffers("Right", 32768, 2, 1, "space-pressure"), "k_loops": [k_loop]}
    assert hint["cores"][0]["memory"] == full["cores"][0]["memory"]
    assert "(32768 B per stage, 1 of 2 stages kept apart; yet its packing still gives" in (
        hint["message"]
    )
    # int8 (line 58): no K loop, Right kept whole: no key added
    int8, _ = at(items, 58)
    assert "k_loops" not in json.dumps(int8)


def test_a_mixed_loop_under_split_none_is_packed_above_the_cube_to_vector_ring(run: Run) -> None:
    # fused_scores.py:30, under pl.split(pl.SplitMode.NONE, slot_num=2). The compiler:
    # PH-MR-001 "requested depth 2 ... in Vec, but only 1 of 2 buffers fit (65536 B per
    # stage, 122880 B free after 65536 B reserved)" on the vector core (2 slots of the
    # [128, 64] INT32 scores the cube pushes), slot-bound; the IR: 1 buffer per tile.
    # :60, its 8 KB slots under the same split: no hint, both stages kept (2 buffers).
    # :84, no slot_num and no split: the same hint, 65536 B reserved (the default ring).
    # No split mode: the vector function holds the loop once per lane, and the compiler
    # gives each lane's copy the same hint (one record and one SKW080 per lane).
    items = lint(run, "fused_scores.py")
    loop, (hint, second) = at(items, 30)
    (aiv,) = [core for core in loop["cores"] if core["core"] == "aiv"]
    assert [m for m in aiv["memory"] if m["space"] == "Vec"] == [
        buffers("Vec", 65536, 2, 1, "slot-bound"),
        {**buffers("Vec", 65536, 2, 1, "slot-bound"), "lane": 2},
    ]
    assert (hint["code"], hint["compiler_id"]) == ("SKW080", "PH-MR-001")
    assert "is more than its 122880 B (above the 65536 B the cube -> vector ring" in (
        hint["message"]
    )
    assert "in Vec on the AIV core's second lane: 2 x 65536 B" in second["message"]
    small, found = at(items, 60)
    (aiv,) = [core for core in small["cores"] if core["core"] == "aiv"]
    assert [m for m in aiv["memory"] if m["space"] == "Vec"] == [
        {**buffers("Vec", 16384, 2, 2), "known": True},
        {**buffers("Vec", 16384, 2, 2), "known": True, "lane": 2},
    ]
    assert found == []
    _, (default, _) = at(items, 84)
    assert default["message"] == hint["message"]


MEM_MOE = MEM_LLM.parent / "mem_moe"


def lint_package(run: Run, package: Path) -> dict[tuple[str, int, str], dict[str, Any]]:
    """Every item of a lint of the whole ``package`` (each module's importers in the run),
    by (file name, line, kind)."""
    result = run("--output-format", "json", "--exit-zero", "--no-cache", "--select", "ALL", str(package))
    return {(Path(i["filename"]).name, i["line"], i["kind"]): i for i in json.loads(result.out)}


def kept(space: str, stage_bytes: int, depth: int) -> dict[str, Any]:
    """A memory record whose every requested buffer is kept (known, no cause)."""
    return dict(buffers(space, stage_bytes, depth, depth), known=True)


def test_a_loop_sized_by_a_name_the_program_set_before_importing_it_is_predicted(run: Run) -> None:
    # prefill.py sets config.TOKENS = config.PREFILL_TOKENS (48), then imports TOKENS: its
    # loop's three [48, 256] FP32 tiles. The compiler: PH-MR-001 "only 1 of 2 buffers fit
    # (49152 B per stage, 188416 B free)". (Read as config's own 16 rows, all 2 fit.)
    items = lint_package(run, MEM_MOE)
    loop, hint = items["prefill.py", 28, "loop"], items["prefill.py", 28, "hint"]
    assert (hint["code"], hint["compiler_id"]) == ("SKW080", "PH-MR-001")
    assert loop["cores"][0]["memory"] == [buffers("Vec", 49152, 2, 1, "space-pressure")]
    # early.py imports scale.py before its write: its own loop, after, reads 48 rows too.
    assert items["early.py", 30, "loop"]["cores"][0]["memory"] == [
        buffers("Vec", 49152, 2, 1, "space-pressure")
    ]


def test_a_name_a_module_sets_on_config_and_imports_back_is_a_constant(run: Run) -> None:
    # route.py: config.RECV_ROWS = EP * config.TOKENS (2 x 16), then `from config import
    # RECV_ROWS` (config never defines it). The compiler: 2 of 2, [32, 256] FP32 loads.
    loop = lint_package(run, MEM_MOE)["route.py", 20, "loop"]
    assert loop["cores"][0]["memory"] == [kept("Vec", 32768, 2)]


def test_a_helper_s_copy_at_a_call_in_a_program_that_set_its_size_first_reads_that_size() -> (
    None
):
    # scale.py's helper froze TOKENS when Python first imported it: 48 rows in prefill.py's
    # program, which set config.TOKENS before importing it. The compiler: PH-MR-001 1 of 2
    # (49152 B) in `prefill_scaled` (2 of 2, 16384 B, in `scale` and `early_scaled`). The
    # copy is decided at the call in prefill.py (scale.py:15 lists the copies scale.py's
    # own callers make).
    path = MEM_MOE / "prefill.py"
    text = path.read_text(encoding="utf-8")
    reports = analyze(text, str(path), resolver=RecordingResolver([MEM_MOE]))
    (copy,) = [r for r in reports if r.span.line == 19]
    assert (copy.instance.caller if copy.instance else None) == "prefill_scaled"
    (memory,) = copy.cores[0].memory
    assert (memory.space, memory.stage_bytes, memory.requested, memory.achieved) == (
        "Vec",
        49152,
        2,
        1,
    )
    assert [hint.code for hint in copy.hints] == ["SKW080"]


def test_a_helper_s_copy_sized_by_the_file_that_calls_it_is_listed_at_the_call(run: Run) -> None:
    # prefill.py sets config.TOKENS, which scale_rows reads: no analysis of scale.py sees
    # the copy prefill_scaled compiles, so the lint lists it where the compile is, at the
    # call, with the compiler's PH-MR-001 (1 of 2, 49152 B per stage).
    items = lint_package(run, MEM_MOE)
    loop, hint = items["prefill.py", 19, "loop"], items["prefill.py", 19, "hint"]
    assert loop["instance"]["helper_loop"] == {
        "name": "scale_rows",
        "module": "scale",
        "line": 15,
        "sized_by_caller": True,
    }
    assert loop["cores"][0]["memory"] == [buffers("Vec", 49152, 2, 1, "space-pressure")]
    assert (hint["code"], hint["severity"], hint["compiler_id"]) == (
        "SKW080",
        "warning",
        "PH-MR-001",
    )
    assert hint["headline"] == (
        "the loop of `scale_rows` from `scale` (its line 15) inlined here: PH-MR-001: only 1 "
        "of 2 stage buffers fit in Vec on the AIV core (space-pressure, 49152 B per stage)"
    )
    assert (loop["fix_edit"], hint["fix_edit"]) == (None, None)  # (the loop is in scale.py)
    # early.py sets TOKENS too, after importing scale: its copy froze 16 rows (the
    # compiler: 2 of 2, 16384 B), as does the copy scale.py's own kernel makes.
    assert items["early.py", 21, "loop"]["cores"][0]["memory"] == [kept("Vec", 16384, 2)]
    assert items["scale.py", 15, "loop"]["cores"][0]["memory"] == [kept("Vec", 16384, 2)]


def test_a_helper_s_copy_in_a_file_that_sets_nothing_stays_the_helper_module_s_finding(
    run: Run,
) -> None:
    # vector.py calls helpers.py's `scaled_rows` and sets no module attribute: its copy has
    # the sizes helpers.py's loop has anywhere (the compiler: PH-MR-001 Vec 4 -> 2 in
    # `beside_a_resident_row`), the finding helpers.py:18 lists; the call shows no second one.
    items = lint_package(run, MEM_LLM)
    assert ("vector.py", 37, "loop") not in items
    assert ("vector.py", 37, "hint") not in items
    hint = items["helpers.py", 18, "hint"]
    assert (hint["code"], hint["instance"]) == ("SKW080", None)


def test_a_memory_finding_about_a_helper_s_copy_names_its_call_first(run: Run) -> None:
    # hosted.py:23, the helper `projected` spliced into `project` (line 33): PH-MR-001
    # Right 1 of 2 there (compiled; tests/analysis/report/test_l0_memory.py).
    (hint,) = [i for i in lint(run, "hosted.py") if i["kind"] == "hint" and i["line"] == 23]
    assert hint["headline"] == (
        "called from `project` (line 33): PH-MR-001: only 1 of 2 stage buffers fit in Right "
        "on the AIC core (space-pressure, 32768 B per stage)"
    )


MEM_GATE = MEM_LLM.parent / "mem_gate"


def test_a_driver_with_no_loop_that_sizes_a_helper_s_scope_past_vec_is_linted(run: Run) -> None:
    # prefill.py holds no pipeline loop; it sets config.TOKENS = 48 and calls the layer
    # helper, which calls the gate's: the gate's pad scope, [48, 1024] FP32. The compiler
    # stops `prefill_gate` in AllocateMemoryAddr: "Vec buffer usage (196608 bytes) exceeds
    # platform limit (188416 bytes)"; decode.py and gate.py's own kernel compile.
    items = lint_package(run, MEM_GATE)
    scope = items["prefill.py", 22, "scope"]
    assert (scope["code"], scope["compiler_id"], scope["function"]) == (
        "SKW081",
        "AllocateMemoryAddr",
        "prefill_gate",
    )
    assert scope["memory"] == [
        {"space": "Vec", "stage_bytes": 0, "requested": 0, "achieved": None,
         "cause": "overflow", "known": True, "reason": None}
    ]
    assert sorted(key for key in items if key[2] != "loop") == [("prefill.py", 22, "scope")]


def test_a_preview_at_the_call_of_a_copy_the_caller_sizes_says_none_is_made(run: Run) -> None:
    # the loop is written in scale.py, whose preview shows its own module's copies (16
    # rows): sending the user there for this copy (48 rows) would show another one.
    result = run("preview", str(MEM_MOE / "prefill.py") + ":19")
    assert result.exit_code == 2
    assert result.err.strip().endswith(
        "the loop spliced in at this call is written in another module (`scale`, line 15), "
        "with the sizes this file sets: no preview of this copy is made (the preview there "
        "shows its own module's copies)"
    )


def test_an_imported_helper_s_loops_spliced_at_one_call_share_their_scopes_buffers(run: Run):
    # The compiler on layer_driver.py, whose driver sets 32 token rows before importing
    # the parts: its `layer` keeps both stages apart in every group of the parts' loops
    # spliced there (Mat 32768 B, Vec 16384 B per stage, each loop of the vector scope
    # beside the other). Each loop's copy is listed at its call, and its records, laid
    # out with the scope's other loops (the copies spliced at that call), say the same.
    items = lint(run, "layer_driver.py")
    found = {
        (item["instance"]["helper_loop"]["line"], core["core"], memory["space"]): (
            memory["known"],
            memory["achieved"],
            memory["requested"],
            memory["stage_bytes"],
        )
        for item in items
        if item["kind"] == "loop" and (item.get("instance") or {}).get("helper_loop")
        for core in item["cores"]
        for memory in core["memory"]
    }
    assert found == {
        (22, "aic", "Mat"): (True, 2, 2, 32768),
        (22, "aic", "Left"): (True, 2, 2, 8192),
        (22, "aic", "Right"): (True, 2, 2, 32768),
        (34, "aiv", "Vec"): (True, 2, 2, 16384),
        (37, "aiv", "Vec"): (True, 2, 2, 16384),
    }


def test_a_k_loop_nested_two_loops_deep_has_its_mat_stages_laid_out_as_compiled(run: Run):
    # The compiler on vocab_tiles.py, whose K loops sit in two `pl.range` loops of the
    # scope: narrow_vocab and middle_vocab keep both Mat stages apart (their tiles,
    # 557056 B and 819200 B in buffers of their own, share buffers over their
    # lifetimes); wide_vocab's two stages of 256 KB weights overflow L1, it falls back
    # to the legacy packing and stops at 540672 B.
    items = lint(run, "vocab_tiles.py")
    mat = {
        item["line"]: (mem["known"], mem["achieved"], mem["requested"], mem["stage_bytes"])
        for item in items
        if item["kind"] == "loop"
        for core in item["cores"]
        for mem in core["memory"]
        if mem["space"] == "Mat"
    }
    assert mat == {
        34: (True, 2, 2, 131072),
        57: (True, 2, 2, 196608),
        82: (True, None, 2, 262144),
    }
    stops = [
        (f["line"], f["code"], f["compiler_id"]) for f in items if f["code"] in ("SKW081", "SKW082")
    ]
    assert sorted(stops) == [(83, "SKW081", "AllocateMemoryAddr"), (83, "SKW082", "MemoryReuse")]
