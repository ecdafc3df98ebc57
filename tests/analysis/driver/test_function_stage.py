"""The function stage: one record per core function, built once every loop of the module
is lowered, shared by the function's loops, and the hook the function-level passes
(InitMemRef, MemoryReuse, AllocateMemoryAddr) run at, in order."""

from __future__ import annotations

from dataclasses import replace

from skewlsp.analysis.driver import analyze_models
from skewlsp.analysis.driver.function_stage import function_stage
from skewlsp.analysis.memory.core_function import CoreFunction
from skewlsp.analysis.reuse.unit_cache import UnitCache
from tests.kernels import (
    ATTENTION,
    ATTENTION_STORES,
    LOCAL,
    LOCAL_PIPELINE,
    PRODUCER,
    loop,
    module,
)

TWO_PRODUCERS = module(loop(PRODUCER) + loop(PRODUCER, target="j"))


def test_the_loops_of_one_core_function_share_its_record() -> None:
    first, second = analyze_models(TWO_PRODUCERS)
    [record] = first.functions
    assert second.functions[0] is record
    assert (record.function, record.core, record.instance) == ("Kernel.main", "aic", None)
    assert [(found.span.line, found.code) for found in record.loops] == [
        (first.report.line, "SKW001"),
        (second.report.line, "SKW001"),
    ]


def test_a_split_loop_is_in_each_core_s_function_with_that_copy_s_verdict() -> None:
    (model,) = analyze_models(ATTENTION.format(heads=64, tail=ATTENTION_STORES))
    assert [function.core for function in model.functions] == ["aic", "aiv"]
    for function, core in zip(model.functions, model.report.cores, strict=True):
        [found] = function.loops
        assert (found.verdict, found.code, found.lowering) == (
            core.verdict,
            core.code,
            core.lowering,
        )


def test_a_left_loop_s_record_holds_what_the_lowering_made_of_it() -> None:
    _, left = analyze_models(module(loop(PRODUCER) + loop(LOCAL, LOCAL_PIPELINE, "k")))
    [record] = left.functions
    [found] = record.loops
    assert found.code == "SKW011"
    assert found.lowering is not None and found.lowering.verdict == "replicated"


def test_a_module_served_from_the_cache_gets_the_same_records() -> None:
    cache = UnitCache()
    fresh = analyze_models(TWO_PRODUCERS, cache=cache)
    served = analyze_models(TWO_PRODUCERS, cache=cache)
    assert [m.functions for m in served] == [m.functions for m in fresh]
    assert served[0].functions[0] is served[1].functions[0]


def test_an_edit_served_from_the_cache_is_handed_the_records_the_passes_made_before() -> None:
    cache = UnitCache()
    source = module(loop(PRODUCER) + loop(LOCAL, LOCAL_PIPELINE, "k"))
    fresh = analyze_models(source, "kernel.py", cache=cache)
    served = analyze_models(
        source.replace("[k * 16, 0], out)", "[k * 16, 0], out)  # typed"), "kernel.py", cache=cache
    )
    assert served[1].report.memory  # the memory passes gave the left loop its buffers
    assert [m.functions for m in served] == [m.functions for m in fresh]
    assert served[1].functions[0] is fresh[1].functions[0]
    assert served[1].said.memory is fresh[1].said.memory
    assert served[1].report is fresh[1].report


def test_the_function_passes_run_in_order_on_each_record_and_its_loops_see_the_result() -> None:
    seen: list[tuple[str, int]] = []

    def keep_first(function: CoreFunction) -> CoreFunction:
        seen.append(("keep_first", len(function.loops)))
        return replace(function, loops=function.loops[:1])

    def count(function: CoreFunction) -> CoreFunction:
        seen.append(("count", len(function.loops)))
        return function

    staged = function_stage(analyze_models(TWO_PRODUCERS), (keep_first, count))
    assert seen == [("keep_first", 2), ("count", 1)]
    assert staged[0].functions[0] is staged[1].functions[0]
    assert len(staged[1].functions[0].loops) == 1


def test_a_loop_s_function_record_takes_its_lowering_from_the_lowering_s_record() -> None:
    """The function stage reads what the lowering passes handed on (``LoopModel.lowered``),
    not a report they lowered: the report is put together after it (``report.finish``)."""
    from skewlsp.analysis.driver.function_stage import core_functions
    from skewlsp.analysis.driver.loop_decision import LoopModel
    from skewlsp.analysis.lower_pipeline.lowering import Lowered
    from skewlsp.contract import LoopReport, Lowering, Span

    left = LoopReport(
        "k.py", Span(3, 5, 4, 20), Span(3, 14, 3, 40), "left", "SKW010", "left", core="aiv"
    )
    rejected = Lowering("error", "SKW016", "rejected: stage 0")
    [record] = core_functions([LoopModel(left, lowered=Lowered(rejected))]).values()
    [found] = record.loops
    assert (found.verdict, found.code, found.lowering) == ("error", "SKW016", rejected)
