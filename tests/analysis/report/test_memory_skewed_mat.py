"""tests/fixtures/memory/models/mem_llm/skewed_weights.py, each kernel decided by the
compiler first (pypto e2d0f78ae, default planner, Ascend910B, read with
``benchmarks/compiler_check.py``), and what skewlint says of the cube copy SkewCrossCore
Pipeline skews, in Mat: its clones' loads (two producer clones ahead, two of each half in
the steady loop, two consumer clones after it) in the skew's own stage group, above the
buffer the vector -> cube ring reserves. The case was first found by
``benchmarks/random_kernels.py --family attention``.
"""

from __future__ import annotations

import json
from typing import Any

from tests.analysis.report.test_memory_fixtures import MEM_LLM, at, buffers, lint
from tests.cli.conftest import Run, run, user_cache

__all__ = ["run", "user_cache"]  # the CLI, run in-process (fixtures)

FIXTURE = "skewed_weights.py"
OVERFLOW = "the function's tiles, packed the legacy way, overflow"


def cube_mat(loop: dict[str, Any]) -> list[dict[str, Any]]:
    (aic,) = [core for core in loop["cores"] if core["core"] == "aic"]
    assert aic["verdict"] == "skewed"
    return [record for record in aic["memory"] if record["space"] == "Mat"]


def in_mat(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [item for item in found if " Mat " in item["message"]]


def test_two_stages_of_weights_crowd_l1_and_the_skew_keeps_one_apart(run: Run) -> None:
    # skewed_weights.py:29. Each stage loads 24 KB of rows and 192 KB of weights; two
    # stages (432 KB) are more than the 425984 B above the 3 x 32 KB ring. The compiler:
    # "requested depth 2 for pipeline group 1048576 in Mat, but only 1 of 2 buffers fit
    # (196608 B per stage, 425984 B free after 98304 B reserved)", space-pressure.
    loop, found = at(lint(run, FIXTURE), 29)
    assert cube_mat(loop) == [buffers("Mat", 196608, 2, 1, "space-pressure")]
    (hint,) = in_mat(found)
    assert (hint["code"], hint["compiler_id"]) == ("SKW080", "PH-MR-001")
    assert hint["message"].startswith(
        "PH-MR-001: MemoryReuse keeps only 1 of the 2 stages' buffers apart in Mat on the "
        "AIC core: the function's Mat tiles packed together fit no greater depth in its "
        "425984 B (above the 98304 B the vector -> cube ring reserves) (196608 B per stage)"
    )
    assert "co-resident: w (load) 196608 B, v (load) 65536 B, xi (load) 24576 B" in (
        hint["message"]
    )
    assert hint["record"] == cube_mat(loop)[0]


def test_values_larger_than_half_of_l1_keep_one_stage_whatever_else_it_holds(run: Run) -> None:
    # skewed_weights.py:45: [256, 512] BF16 values, 256 KB a stage; 2 x 256 KB is more
    # than the 458752 B above the 2 x 32 KB ring. The compiler: "only 1 of 2 buffers fit
    # (262144 B per stage, 458752 B free after 65536 B reserved) ... This operand alone
    # needs 524288 B for depth 2", slot-bound.
    loop, found = at(lint(run, FIXTURE), 45)
    assert cube_mat(loop) == [buffers("Mat", 262144, 2, 1, "slot-bound")]
    (hint,) = in_mat(found)
    assert hint["message"] == (
        "PH-MR-001: MemoryReuse keeps at most 1 of the 2 stages' buffers apart in Mat on "
        "the AIC core: 2 x 262144 B per stage is more than its 458752 B (above the 65536 B "
        "the vector -> cube ring reserves), whatever else the function holds"
    )


def test_rows_and_weights_live_together_overflow_l1_at_every_depth(run: Run) -> None:
    # skewed_weights.py:65: 48 KB of rows and 384 KB of weights are read by one matmul,
    # more than the 425984 B above the 3 x 32 KB ring even at depth 1. The compiler: the
    # legacy-packing warning for Mat, then "Mat buffer usage (983040 bytes) exceeds
    # platform limit (524288 bytes). The first 98304 bytes of that space are reserved".
    loop, found = at(lint(run, FIXTURE), 65)
    assert cube_mat(loop) == [buffers("Mat", 393216, 2, None, "overflow", OVERFLOW)]
    by_code = {item["code"]: item for item in in_mat(found)}
    assert sorted(by_code) == ["SKW081", "SKW082"]
    error = by_code["SKW081"]
    assert error["severity"] == "error" and error["compiler_id"] == "AllocateMemoryAddr"
    assert "above the 98304 B the vector -> cube ring reserves, need 983040 B of its " in (
        error["message"]
    )
    assert error["message"].endswith(
        '("Mat buffer usage (983040 bytes) exceeds platform limit (524288 bytes)")'
    )
    assert "could not fit memory space Mat at any double-buffering depth" in (
        by_code["SKW082"]["message"]
    )


def test_small_values_keep_every_stage_apart(run: Run) -> None:
    # skewed_weights.py:81: every clone's loads fit in Mat apart (the compiler: no
    # PH-MR-001 in Mat).
    loop, found = at(lint(run, FIXTURE), 81)
    assert cube_mat(loop) == [{**buffers("Mat", 65536, 2, 2), "known": True}]
    assert in_mat(found) == []


def test_a_cube_copy_whose_vector_tiles_are_not_known_says_why(run: Run) -> None:
    # tests/fixtures/mixed/models/mixed_llm/shapes.py:78: the vector computes the cube's
    # operand `p`, but its walk stops at `matmul_acc`: what it pushes, and so the ring's
    # buffer in Mat, is not known.
    path = MEM_LLM.parents[2] / "mixed" / "models" / "mixed_llm" / "shapes.py"
    result = run("--output-format", "json", "--exit-zero", "--no-cache", "--select", "ALL",
                 str(path))  # fmt: skip
    loop, _ = at(json.loads(result.out), 78)
    reason = (
        "not known: the function's Mat tiles are not known: the matmul operand `p` comes "
        "from the vector, whose tiles are not known: the op `matmul_acc`"
    )
    assert cube_mat(loop) == [buffers("Mat", 0, 2, reason=reason)]


def test_each_copy_a_builder_makes_has_its_own_mat_tiles(run: Run) -> None:
    # skewed_weights.py:100, built for 128 and 512 value columns (compiled first): 64 KB
    # of values a stage keep both stages in Mat; 256 KB of values a stage keep one
    # ("only 1 of 2 buffers fit (262144 B per stage, 458752 B free after 65536 B
    # reserved)", slot-bound). Each copy's Mat tiles are its own folding's.
    loop, _ = at(lint(run, FIXTURE), 100)
    narrow, wide = loop["copies"]
    assert narrow["instance"]["bindings"] == {"columns": "128"}
    assert cube_mat(narrow) == [{**buffers("Mat", 65536, 2, 2), "known": True}]
    assert cube_mat(wide) == [buffers("Mat", 262144, 2, 1, "slot-bound")]
