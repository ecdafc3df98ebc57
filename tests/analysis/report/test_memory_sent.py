"""tests/fixtures/memory/models/mem_llm/sent_operands.py, each kernel decided by the
compiler first (pypto e2d0f78ae, default planner, Ascend910B, read with
``benchmarks/compiler_check.py``), and what skewlint says at each loop through the CLI's
JSON: the vector computes the cube's left operand and sends it; the cube pops it into the
vector -> cube ring's buffer, which it reserves at the bottom of Mat, two slots of the
largest tile crossing, and places its own Mat tiles above it. First found by
``benchmarks/random_kernels.py --family pushed``.
"""

from __future__ import annotations

from typing import Any

from tests.analysis.report.test_memory_fixtures import at, buffers, kept, lint
from tests.cli.conftest import Run, run, user_cache

__all__ = ["run", "user_cache"]  # the CLI, run in-process (fixtures)


def core(loop: dict[str, Any], name: str) -> dict[str, Any]:
    (found,) = [c for c in loop["cores"] if c["core"] == name]
    return found


def test_weights_above_the_vector_to_cube_ring_overflow_mat_and_stop_the_compile(
    run: Run,
) -> None:
    # sent_operands.py:21. Each clone loads a [512, 256] BF16 weight (256 KB) into Mat,
    # above the 131072 B the ring of two 64 KB slots reserves. The compiler: the legacy-
    # packing warning in Mat, then "Mat buffer usage (655360 bytes) exceeds platform
    # limit (524288 bytes). The first 131072 bytes of that space are reserved by
    # system.reserve_buffer ...".
    loop, found = at(lint(run, "sent_operands.py"), 21)
    by_code = {item["code"]: item for item in found if item["record"]["space"] == "Mat"}
    assert sorted(by_code) == ["SKW081", "SKW082"]
    error = by_code["SKW081"]
    assert (
        "above the 131072 B the vector -> cube ring reserves, need 655360 B" in (error["message"])
    )
    assert error["message"].endswith(
        '("Mat buffer usage (655360 bytes) exceeds platform limit (524288 bytes)")'
    )
    assert error["record"]["space"] == "Mat" and error["record"]["cause"] == "overflow"
    reason = "the function's tiles, packed the legacy way, overflow"
    mat = [m for m in core(loop, "aic")["memory"] if m["space"] == "Mat"]
    assert mat == [buffers("Mat", 262144, 2, None, "overflow", reason)]


def test_weights_that_fit_above_the_ring_keep_every_stage(run: Run) -> None:
    # sent_operands.py:35: two 128 KB weights above the 128 KB ring fit; the compiler
    # places them (Mat: 2 stages, 2 buffers) with no warning.
    loop, found = at(lint(run, "sent_operands.py"), 35)
    assert [item for item in found if item["record"]["space"] == "Mat"] == []
    mat = [m for m in core(loop, "aic")["memory"] if m["space"] == "Mat"]
    assert mat == [kept("Mat", 131072, 2)]
