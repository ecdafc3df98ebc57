"""tests/fixtures/memory/models/mem_llm/skewed_scores.py, each kernel decided by the
compiler first (pypto e2d0f78ae, default planner, Ascend910B, read with
``benchmarks/compiler_check.py``), and what skewlint says at each loop through the CLI's
JSON: SkewCrossCorePipeline runs the cube half ahead and demotes the vector half to a
sequential loop, which keeps no stage buffers but runs in a function whose Vec tiles sit
above the cube -> vector ring. The case was first found by
``benchmarks/random_kernels.py --family skewed``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.analysis.report.test_memory_fixtures import MEM_LLM, at, buffers, lint
from tests.cli.conftest import Run, run, user_cache

__all__ = ["run", "user_cache"]  # the CLI, run in-process (fixtures)

OVERFLOW = "the function's tiles, packed the legacy way, overflow"
STOP = '("Vec buffer usage (196608 bytes) exceeds platform limit (188416 bytes)")'


def vector_copy(loop: dict[str, Any]) -> dict[str, Any]:
    (aiv,) = [core for core in loop["cores"] if core["core"] == "aiv"]
    return aiv


def test_the_demoted_vector_copy_of_wide_scores_overflows_vec_above_the_ring(run: Run) -> None:
    # skewed_scores.py:26. The vector pops [64, 256] FP32 scores (64 KB) and sends their
    # BF16 exp back: a ring of 2 x 64 KB, then the exp and its cast in one 64 KB buffer.
    # The compiler: the legacy-packing warning, then "Vec buffer usage (196608 bytes)
    # exceeds platform limit (188416 bytes). The first 131072 bytes of that space are
    # reserved by system.reserve_buffer ...".
    loop, found = at(lint(run, "skewed_scores.py"), 26)
    assert [c["verdict"] for c in loop["cores"]] == ["skewed", "demoted"]
    by_code = {item["code"]: item for item in found if "Vec" in item["message"]}
    assert sorted(by_code) == ["SKW081", "SKW082"]
    error, warning = by_code["SKW081"], by_code["SKW082"]
    assert error["compiler_id"] == "AllocateMemoryAddr" and error["severity"] == "error"
    assert error["message"].startswith(f"{OVERFLOW} Vec on the AIV core: its buffer")
    assert (
        "above the 131072 B the cube -> vector ring reserves, needs 196608 B" in (error["message"])
    )
    assert error["message"].endswith(STOP)
    assert warning["compiler_id"] == "MemoryReuse"
    assert "could not fit memory space Vec at any double-buffering depth" in warning["message"]
    assert vector_copy(loop)["memory"] == [buffers("Vec", 0, 0, None, "overflow", OVERFLOW)]


def test_a_tile_the_vector_sends_the_cube_sizes_the_ring_s_slots(run: Run) -> None:
    # skewed_scores.py:114. The vector pops 8 KB of scores but pushes [128, 256] BF16
    # rows (64 KB) to the cube's matmul: both directions share one slot size, the largest
    # (the compiler: slot_size=65536, a 131072 B ring, and the same stop at 196608 B).
    loop, found = at(lint(run, "skewed_scores.py"), 114)
    (error,) = [item for item in found if item["code"] == "SKW081"]
    assert (
        "above the 131072 B the cube -> vector ring reserves, needs 196608 B" in (error["message"])
    )
    assert error["message"].endswith(STOP)
    assert sorted(item["code"] for item in found if "Vec" in item["message"]) == [
        "SKW081",
        "SKW082",
    ]


def test_vector_copies_whose_function_fits_claim_nothing(run: Run) -> None:
    # skewed_scores.py:45 (one 64 KB slot: 131072 B in all), :60 (32 KB scores), :75 (a
    # softmax's reductions), :95 (a bias read before the loop): the compiler places them
    # all, with no warning in Vec (PH-MR-001 in Right on the cube only).
    items = lint(run, "skewed_scores.py")
    for line in (45, 60, 75, 95):
        loop, found = at(items, line)
        assert [item["code"] for item in found] == ["SKW080"], line
        assert "in Right on the AIC core" in found[0]["message"]
        assert vector_copy(loop)["memory"] == [], line


def test_the_full_format_says_the_vector_copy_keeps_no_stage_buffers(run: Run) -> None:
    result = run("--output-format", "full", "--exit-zero", "--no-cache", "--select", "ALL",
                 str(MEM_LLM / "skewed_scores.py"))  # fmt: skip
    assert (
        "memory (aiv): Vec: no stage buffers of its own; the function's tiles, packed the "
        "legacy way, overflow it: the compile stops"
    ) in result.out


def test_a_skewed_clone_s_matmul_result_larger_than_half_of_acc_keeps_one_of_two(
    run: Run,
) -> None:
    # skewed_scores.py:133. The skew's clones put each matmul's result in their stage
    # group, a K loop or not: the [128, 256] FP32 result of `matmul(p, v)` is 128 KB, all
    # of Acc. The compiler: PH-MR-001 "requested depth 2 ... in Acc, but only 1 of 2
    # buffers fit (131072 B per stage, 131072 B free)".
    loop, found = at(lint(run, "skewed_scores.py"), 133)
    (aic,) = [core for core in loop["cores"] if core["core"] == "aic"]
    assert [m for m in aic["memory"] if m["space"] == "Acc"] == [
        buffers("Acc", 131072, 2, 1, "slot-bound")
    ]
    (acc,) = [item for item in found if "in Acc" in item["message"]]
    assert (acc["code"], acc["compiler_id"]) == ("SKW080", "PH-MR-001")
    assert "at most 1 of the 2 stages' buffers apart in Acc on the AIC core" in acc["message"]


def test_the_cube_copy_keeps_its_mat_stages_apart_where_its_clones_fit(run: Run) -> None:
    # skewed_scores.py:26: the skew's clones' loads fit in Mat apart above the 2 x 64 KB
    # buffer the vector -> cube ring reserves there (the compiler: no PH-MR-001 in Mat);
    # the group's slot is its largest load, the [256, 128] BF16 key/value block.
    loop, _ = at(lint(run, "skewed_scores.py"), 26)
    (aic,) = [core for core in loop["cores"] if core["core"] == "aic"]
    assert aic["memory"][0] == {**buffers("Mat", 65536, 2, 2), "known": True}


def test_a_vector_copy_the_skew_runs_ahead_keeps_its_clones_stages_in_vec(run: Run) -> None:
    # vector_ahead.py:28, built twice (compiled first): the vector normalises 16 KB of
    # rows a stage and sends them to the cube, which the skew demotes; its clones are the
    # skew's group on each lane (1048576 and 1048577), every stage kept apart.
    loop, _ = at(lint(run, "vector_ahead.py"), 28)
    narrow, _ = loop["copies"]
    assert narrow["instance"]["bindings"] == {"hidden": "256"}
    assert [(c["core"], c["verdict"]) for c in narrow["cores"]] == [
        ("aic", "demoted"),
        ("aiv", "skewed"),
    ]
    kept = {**buffers("Vec", 16384, 2, 2), "known": True}
    assert vector_copy(narrow)["memory"] == [kept, {**kept, "lane": 2}]


def test_wider_rows_crowd_vec_above_the_ring_and_each_lane_keeps_one_stage(run: Run) -> None:
    # vector_ahead.py:28 for 384 columns: the compiler, for each lane's group, "only 1 of
    # 2 buffers fit (24576 B per stage, 139264 B free after 49152 B reserved)".
    loop, found = at(lint(run, "vector_ahead.py"), 28)
    _, wide = loop["copies"]
    pressed = buffers("Vec", 24576, 2, 1, "space-pressure")
    assert vector_copy(wide)["memory"] == [pressed, {**pressed, "lane": 2}]
    hints = [i for i in found if i["code"] == "SKW080"]
    assert [h["compiler_id"] for h in hints] == ["PH-MR-001"] * 2
    first, second = (h["message"] for h in hints)
    assert first.startswith(
        "PH-MR-001: MemoryReuse keeps only 1 of the 2 stages' buffers apart in Vec on the "
        "AIV core: the function's Vec tiles packed together fit no greater depth in its "
        "139264 B (above the 49152 B the cube -> vector ring reserves) (24576 B per stage)"
    )
    assert second.startswith(
        "PH-MR-001: MemoryReuse keeps only 1 of the 2 stages' buffers apart in Vec on the "
        "AIV core's second lane"
    )


def test_the_cube_copy_the_skew_demotes_overflows_l1_with_a_whole_weight(run: Run) -> None:
    # vector_ahead.py:55, 512 columns: the cube's demoted copy loads the [512, 512] BF16
    # weight (512 KB) above the 2 x 32 KB vector -> cube ring. The compiler: the
    # legacy-packing warning for Mat, then "Mat buffer usage (589824 bytes) exceeds
    # platform limit (524288 bytes)".
    loop, found = at(lint(run, "vector_ahead.py"), 55)
    (aic,) = [core for core in loop["cores"] if core["core"] == "aic"]
    assert aic["verdict"] == "demoted"
    assert aic["memory"] == [buffers("Mat", 0, 0, None, "overflow", OVERFLOW)]
    (error,) = [i for i in found if i["code"] == "SKW081"]
    assert error["message"].startswith(f"{OVERFLOW} Mat on the AIC core: its buffer")
    assert "above the 65536 B the vector -> cube ring reserves, needs 589824 B" in (
        error["message"]
    )
    (warning,) = [i for i in found if i["code"] == "SKW082"]
    assert "could not fit memory space Mat at any double-buffering depth" in warning["message"]


def test_a_vector_copy_the_skew_runs_ahead_with_an_inner_skew_says_it_is_not_known(
    run: Run, tmp_path: Path
) -> None:
    # tests/fixtures/mixed/models/mixed_llm/nested_both_ways.py:20: the vector leads the
    # outer loop, the cube an inner one; the vector's clones of a loop holding another
    # are not laid out, so its record says so rather than nothing.
    path = MEM_LLM.parents[2] / "mixed" / "models" / "mixed_llm" / "nested_both_ways.py"
    result = run("--output-format", "json", "--exit-zero", "--no-cache", "--select", "ALL",
                 str(path))  # fmt: skip
    loop, _ = at(json.loads(result.out), 20)
    assert [(c["core"], c["verdict"]) for c in loop["cores"]] == [
        ("aic", "demoted"),
        ("aiv", "skewed"),
    ]
    reason = "not known: the skewed vector copy's clones are not laid out in Vec"
    assert vector_copy(loop)["memory"] == [buffers("Vec", 0, 2, reason=reason)]
    # (under the ptoas planner MemoryReuse and AllocateMemoryAddr leave it to ptoas)
    config = tmp_path / "ptoas.toml"
    config.write_text('memory-planner = "ptoas"\n')
    result = run("--output-format", "json", "--exit-zero", "--no-cache", "--select", "ALL",
                 "--config", str(config), str(path))  # fmt: skip
    loop, _ = at(json.loads(result.out), 20)
    assert vector_copy(loop)["memory"] == []
