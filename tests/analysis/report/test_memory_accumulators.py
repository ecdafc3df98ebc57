"""tests/fixtures/memory/models/mem_llm/accumulators.py, each kernel decided by the
compiler first (pypto e2d0f78ae, default planner, Ascend910B, read with
``benchmarks/compiler_check.py``), and what skewlint says at each loop through the CLI's
JSON: accumulators larger than Acc allows at the stages asked, the copies after a main
loop (a stage group of their own), a widened copy larger than Vec, and scores the vector
reads from the cube above the cross-core ring. Each case was first found by
``benchmarks/random_kernels.py``.
"""

from __future__ import annotations

from tests.analysis.report.test_memory_fixtures import at, buffers, lint
from tests.cli.conftest import Run, run, user_cache

__all__ = ["run", "user_cache"]  # the CLI, run in-process (fixtures)


def test_k_loop_accumulators_larger_than_a_third_of_acc_keep_two_of_three_stages(run: Run) -> None:
    # accumulators.py:26. AutoTileMatmulL0 splits K = 256 into a K loop, whose [64, 256]
    # FP32 accumulator (64 KB) each clone of the user loop makes afresh. The compiler:
    # PH-MR-001 "requested depth 3 ... in Acc, but only 2 of 3 buffers fit (65536 B per
    # stage, 131072 B free)", slot-bound; and 1 of 3 in Right, as before.
    loop, hints = at(lint(run, "accumulators.py"), 26)
    memory = loop["cores"][0]["memory"]
    assert [m for m in memory if m["space"] == "Acc"] == [buffers("Acc", 65536, 3, 2, "slot-bound")]
    (acc,) = [h for h in hints if "in Acc" in h["message"]]
    assert (acc["code"], acc["compiler_id"]) == ("SKW080", "PH-MR-001")
    assert "at most 2 of the 3 stages' buffers apart in Acc on the AIC core" in acc["message"]
    assert "3 x 65536 B of the loop's accumulators is more than its 131072 B" in acc["message"]


def test_accumulators_that_fit_or_a_matmul_left_whole_claim_nothing_in_acc(run: Run) -> None:
    # accumulators.py:40: four 8 KB accumulators fit (the compiler: Acc 4 of 4, no hint).
    # accumulators.py:54: K = 128, no K loop: the compiler puts the 64 KB result of each
    # stage in no stage group of Acc (no record, no hint), whatever stage= asks.
    items = lint(run, "accumulators.py")
    for line in (40, 54):
        loop, hints = at(items, line)
        assert {m["space"] for m in loop["cores"][0]["memory"]} == {"Mat", "Left", "Right"}
        assert [h for h in hints if "Acc" in h["message"]] == []


def test_a_widened_copy_larger_than_vec_stops_the_compile_with_no_fallback_warning(
    run: Run,
) -> None:
    # accumulators.py:66. Each 96 KB FP16 load is widened to a 192 KB FP32 copy, larger
    # than Vec alone. The compiler falls back to the legacy packing without a warning (a
    # buffer larger than the space is not a depth lost) and stops in AllocateMemoryAddr
    # with "Vec buffer usage (393216 bytes) exceeds platform limit (188416 bytes)".
    loop, found = at(lint(run, "accumulators.py"), 66)
    (error,) = found
    assert (error["code"], error["compiler_id"]) == ("SKW081", "AllocateMemoryAddr")
    assert "`cast` 196608 B) need 393216 B of its 188416 B" in error["message"]
    assert error["message"].endswith(
        '("Vec buffer usage (393216 bytes) exceeds platform limit (188416 bytes)")'
    )
    reason = "the function's tiles, packed the legacy way, overflow"
    assert loop["cores"][0]["memory"] == [buffers("Vec", 196608, 2, None, "overflow", reason)]


def test_scores_the_vector_reads_from_the_cube_overflow_vec_above_the_ring(run: Run) -> None:
    # accumulators.py:79. The vector core loads nothing itself: it reads each stage's
    # [64, 256] FP32 scores (64 KB) from the cube -> vector ring, which reserves 2 slots of
    # them (131072 B) at the bottom of Vec, and writes their exp. The compiler falls back
    # to the legacy packing (warning) and stops: "Vec buffer usage (196608 bytes) exceeds
    # platform limit (188416 bytes). The first 131072 bytes of that space are reserved by
    # system.reserve_buffer ...".
    loop, found = at(lint(run, "accumulators.py"), 79)
    by_code = {item["code"]: item for item in found}
    error, warning = by_code["SKW081"], by_code["SKW082"]
    assert (
        "above the 131072 B the cube -> vector ring reserves, needs 196608 B" in (error["message"])
    )
    assert error["message"].endswith(
        '("Vec buffer usage (196608 bytes) exceeds platform limit (188416 bytes)")'
    )
    assert warning["compiler_id"] == "MemoryReuse"
    (aiv,) = [core for core in loop["cores"] if core["core"] == "aiv"]
    reason = "the function's tiles, packed the legacy way, overflow"
    assert aiv["memory"] == [buffers("Vec", 65536, 2, None, "overflow", reason)]


def test_the_copies_after_the_main_loop_get_their_own_record_where_fewer_are_kept(
    run: Run,
) -> None:
    # accumulators.py:96: eight blocks at stage=3, two rounds of three then two copies
    # after them, a stage group of their own. The compiler: Acc "requested depth 3 ...
    # only 1 of 3" and "requested depth 2 ... only 1 of 2" (131072 B per stage), both
    # slot-bound; the two copies' Right tiles 1 of 2 too (space-pressure).
    # accumulators.py:110: Vec "requested depth 3 ... only 1 of 3" and "requested depth
    # 2 ... only 1 of 2" (49152 B per stage), space-pressure.
    items = lint(run, "accumulators.py")
    loop, hints = at(items, 96)
    remainders = [m for m in loop["cores"][0]["memory"] if m.get("remainder")]
    assert remainders == [
        {**buffers("Right", 32768, 2, 1, "space-pressure"), "remainder": True},
        {**buffers("Acc", 131072, 2, 1, "slot-bound"), "remainder": True},
    ]
    assert (
        len([h for h in hints if "of the 2 remainder copies' buffers" in h["message"]])
        == 2
    )
    rows, row_hints = at(items, 110)
    (aiv,) = [core for core in rows["cores"] if core["core"] == "aiv"]
    assert [m for m in aiv["memory"] if m.get("remainder")] == [
        {**buffers("Vec", 49152, 2, 1, "space-pressure"), "remainder": True}
    ]
    (tail,) = [h for h in row_hints if "remainder copies" in h["message"]]
    assert (
        "keeps only 1 of the 2 remainder copies' buffers apart in Vec"
        in (tail["message"])
    )


def test_two_weights_a_stage_at_four_stages_overflow_l1_and_stop_the_compile(run: Run) -> None:
    # accumulators.py:127: a [16, 128] activation and, per stage, two [128, 256] FP16
    # weights (64 KB each), all loaded ahead of the clones' matmuls: 9 tiles live at once.
    # The compiler: "capacity-gated reuse could not fit memory space Mat at any
    # double-buffering depth; fell back to the legacy packing (which also overflows", then
    # "Mat buffer usage (528384 bytes) exceeds platform limit (524288 bytes)".
    loop, found = at(lint(run, "accumulators.py"), 127)
    by_code = {item["code"]: item for item in found if "Mat" in item["message"]}
    error, warning = by_code["SKW081"], by_code["SKW082"]
    assert "overflow Mat on the AIC core: its 9 buffers" in error["message"]
    assert error["message"].endswith(
        '("Mat buffer usage (528384 bytes) exceeds platform limit (524288 bytes)")'
    )
    assert "(which also overflows" in warning["message"]
    reason = "the function's tiles, packed the legacy way, overflow"
    mat = [m for m in loop["cores"][0]["memory"] if m["space"] == "Mat"]
    assert mat == [buffers("Mat", 65536, 4, None, "overflow", reason)]
