"""The memory passes as the function stage runs them, over each core function's loops."""

from __future__ import annotations

from skewlsp.analysis.driver import analyze_models
from skewlsp.analysis.driver.function_stage import FUNCTION_PASSES
from skewlsp.analysis.memory.function_passes import allocate_memory, init_memref, reuse_memory
from tests.kernels import LOCAL, LOCAL_PIPELINE, PRODUCER, loop, module


def test_the_function_stage_runs_31_33_34_in_pass_manager_order():
    assert (init_memref, reuse_memory, allocate_memory) == FUNCTION_PASSES


def test_each_loop_of_a_function_gets_its_memory_record_and_a_skewed_one_says_why_not():
    skewed, left = analyze_models(module(loop(PRODUCER) + loop(LOCAL, LOCAL_PIPELINE, "k")))
    [record] = left.functions
    [(found, memory)] = [
        (f, m) for f, m in zip(record.loops, record.memory, strict=True) if f.span == left.report.span
    ]
    assert memory.why is None
    assert memory.tiles is not None and memory.reuse is not None
    assert memory.allocation is not None and memory.allocation.overflows == ()
    [(_, other)] = [
        (f, m)
        for f, m in zip(skewed.functions[0].loops, skewed.functions[0].memory, strict=True)
        if f.span == skewed.report.span
    ]
    assert other.why == "not replicated by LowerPipelineLoops" and other.tiles is None


def test_under_ptoas_no_memory_record_is_made():
    _, left = analyze_models(
        module(loop(PRODUCER) + loop(LOCAL, LOCAL_PIPELINE, "k")), planner="ptoas"
    )
    assert left.functions[0].memory == ()
