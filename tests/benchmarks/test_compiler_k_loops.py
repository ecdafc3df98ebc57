"""The depths of AutoTileMatmulL0's K loops skewlint states, against the compiler's stage
groups of the K loops (issue #41: the hint's depth and the IR's, both where they differ).

Records are written by hand in the shapes the two sides print (see
test_compiler_depths.py); the numbers are cube.py's (tests/fixtures/memory): PH-MR-001
"1 of 2 buffers fit (32768 B per stage)" in Right for the K loop (group 0) and the loop's
stages (group 1), and the IR's K halves in two buffers (2 stages apart).
"""

from __future__ import annotations

from benchmarks.compiler_k_loops import StatedKLoop, compare_k_loops, stated_k_loops
from tests.benchmarks.test_compiler_depths import LOOP, finding, group, space


def right(*k_loops: tuple[int, int]) -> dict:
    """The loop's Right record with its K loops (achieved, ir_depth), 1 of 2 each."""
    record = space("Right", 2, 1, 32768)
    record["k_loops"] = [
        {
            "matmul": "matmul(x[...], wj)",
            "remainder": False,
            "buffers": dict(space("Right", 2, achieved, 32768), ir_depth=ir),
        }
        for achieved, ir in k_loops
    ]
    return record


def cube_groups(seen: int = 2) -> list[dict]:
    """The K loop (made), the loop's stages, and a K loop before the loop (no user loop)."""
    return [
        group("Right", 2, 32768, hint=(2, 1), seen=seen, core="aic", number=0, made=True),
        group("Right", 2, 32768, hint=(2, 1), seen=1, core="aic", number=1),
        group("Right", 2, 32768, hint=(2, 1), seen=2, core="aic", number=2, made=True, loop=None),
    ]


def test_a_k_loop_stated_at_the_irs_depth_beside_its_hints_agrees():
    found = compare_k_loops([finding(("aic", [right((1, 2))]))], cube_groups())
    assert found.line() == (
        "K loops: 1 hinted groups in user loops (1 more outside the pipeline loops: named in "
        "messages only, not compared), the IR deeper in 1; skewlint states the IR's depth "
        "in 1, wrongly in 0, not at all in 0"
    )
    assert found.listed() == []


def test_the_statements_are_read_off_each_cores_records():
    assert stated_k_loops([finding(("aic", [right((1, 2))]))]) == [
        StatedKLoop(LOOP, "aic", "Right", "matmul(x[...], wj)", 2, 1, 32768, 2)
    ]


def test_an_irs_depth_the_ir_does_not_show_is_wrong_and_listed():
    found = compare_k_loops([finding(("aic", [right((1, 3))]))], cube_groups())
    assert found.line().endswith("skewlint states the IR's depth in 0, wrongly in 1, not at all in 1")
    assert found.listed() == [
        "wrong: /k/attn.py:20 aic Right `matmul(x[...], wj)`: skewlint 1 of 2, the IR's 3; "
        "compiler 1 of 2, the IR's 2 [attn/kernel_aiv group 0]",
        "not stated: /k/attn.py:20 aic Right: compiler 1 of 2, the IR's 2 [attn/kernel_aiv group 0]",
    ]


def test_a_deeper_k_loop_skewlint_says_nothing_of_is_not_stated_at_all():
    found = compare_k_loops([finding(("aic", [space("Right", 2, 1, 32768)]))], cube_groups())
    assert found.line().endswith("skewlint states the IR's depth in 0, wrongly in 0, not at all in 1")
    assert found.listed() == [
        "not stated: /k/attn.py:20 aic Right: compiler 1 of 2, the IR's 2 [attn/kernel_aiv group 0]"
    ]


def test_a_k_loop_the_ir_keeps_at_its_hints_depth_needs_no_second_depth():
    found = compare_k_loops([finding(("aic", [space("Right", 2, 1, 32768)]))], cube_groups(seen=1))
    assert found.line().startswith("K loops: 1 hinted groups in user loops")
    assert "the IR deeper in 0; skewlint states the IR's depth in 0, wrongly in 0, not at all in 0" in (
        found.line()
    )
