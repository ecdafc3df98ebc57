"""The function-level stage: each core function once all its loops are lowered.

The per-loop pass list (:mod:`.loop_decision`, :mod:`.core_passes`) and the lowering
passes (:mod:`.lowered`) leave each loop decided and lowered. pypto then runs passes
over whole functions (InitMemRef 31, MemoryReuse 33, AllocateMemoryAddr 34 in
``pass_manager.py``'s order): this is where their models run. :func:`function_stage`
builds one :class:`~skewlsp.analysis.memory.core_function.CoreFunction` per
function copy and core from the module's lowered loops, runs :data:`FUNCTION_PASSES` over
each in order, and hands every loop the records of its function (one per core it is
on): the loops of one function share them.

It runs once per analysis of a module (``driver._analysed``), on the units served from
a language server's cache as on those analysed now, so a record always holds every
loop of its function; a language server keeps what it gave a module's loops and runs
it again only when one of them changed (``driver._across_loops``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial

from skewlsp.analysis.driver.loop_decision import LoopModel
from skewlsp.analysis.lower_pipeline.lowering import Lowered, copy_lowerings
from skewlsp.analysis.memory.core_function import CoreFunction, FunctionLoop
from skewlsp.analysis.memory.function_passes import (
    Packings,
    allocate_memory,
    init_memref,
    reuse_memory,
)
from skewlsp.contract import Core, Instance, LoopReport, Lowering, Verdict, is_loop

FunctionPass = Callable[[CoreFunction], CoreFunction]


def function_passes(packings: Packings | None = None) -> tuple[FunctionPass, ...]:
    """The function-level passes, in pass_manager.py's order; each takes a core function
    and returns it with what it adds: 31 InitMemRef, 33 MemoryReuse, 34
    AllocateMemoryAddr. ``packings``: where the analysis keeps MemoryReuse's packings
    (:func:`~skewlsp.analysis.memory.function_passes.reuse_memory`)."""
    reuse = reuse_memory if packings is None else partial(reuse_memory, packings=packings)
    return (init_memref, reuse, allocate_memory)


FUNCTION_PASSES: tuple[FunctionPass, ...] = function_passes()

_Key = tuple[str | None, str, Instance | None, Core | None]


def function_stage(
    models: Sequence[LoopModel],
    passes: Sequence[FunctionPass] | None = None,
    planner: str = "pypto",
    packings: Packings | None = None,
) -> list[LoopModel]:
    """``models`` (a module's, lowered under ``planner``), each handed the records of its
    function per core, after ``passes`` ran over every record in order (by default
    :func:`function_passes`, MemoryReuse's packings kept by ``packings``)."""
    functions = core_functions(models, planner)
    for run in passes if passes is not None else function_passes(packings):
        functions = {key: run(function) for key, function in functions.items()}
    return [
        replace(model, functions=tuple(functions[key] for key in _keys(model)))
        if _keys(model)
        else model
        for model in models
    ]


def core_functions(models: Sequence[LoopModel], planner: str = "pypto") -> dict[_Key, CoreFunction]:
    """One record per function copy and core, its loops in source order, each with what
    the lowering passes decided of it (their record, ``LoopModel.lowered``: the report
    is put together with it after this stage)."""
    loops: dict[_Key, list[FunctionLoop]] = {}
    for model in sorted(models, key=lambda m: (m.report.span.line, m.report.span.column)):
        report, lowered = model.report, model.lowered
        if not is_loop(report):
            continue
        for core, verdict, code, lowering, copies, depth in _copies(report, lowered):
            key = (report.path, report.function, _spliced(report.instance), core)
            loop = FunctionLoop(
                report.span, verdict, code, lowering, model.facts, copies, depth, report.helper_line
            )
            loops.setdefault(key, []).append(loop)
    return {
        key: CoreFunction(key[0], key[1], key[2], key[3], tuple(found), planner)
        for key, found in loops.items()
    }


def _copies(
    report: LoopReport, lowered: Lowered | None
) -> list[tuple[Core | None, Verdict, str, Lowering | None, int, int]]:
    """Each core copy of the loop (the loop itself when it is not split): its core,
    verdict, code, lowering once lowered (``lowered``: the lowering passes' record), how
    many times its body runs there (2: dual AIV dispatch) and its skew depth (0: none)."""
    lowerings = copy_lowerings(report, lowered)
    if report.cores:
        return [
            (c.core, c.verdict, c.code, lowering, c.copies, c.depth or 0)
            for c, lowering in zip(report.cores, lowerings, strict=True)
        ]
    if lowered is None:
        return [(report.core, report.verdict, report.code, None, 1, report.depth or 0)]
    verdict, code = lowered.verdict_of(report.verdict), lowered.code_of(report.code)
    return [(report.core, verdict, code, lowerings[0], 1, 0)]


def _keys(model: LoopModel) -> list[_Key]:
    """The records ``model``'s loop is in: one per core copy of it."""
    report = model.report
    if not is_loop(report):
        return []
    cores: list[Core | None] = [c.core for c in report.cores] or [report.core]
    instance = _spliced(report.instance)
    return [(report.path, report.function, instance, core) for core in cores]


def _spliced(instance: Instance | None) -> Instance | None:
    """The copy of a function ``instance`` is in: an imported helper's loops reported at
    one call are one copy of the helper, spliced there (InlineFunctions), whose outlined
    scopes hold all of them, each told apart by its line in the helper's module."""
    if instance is None or instance.helper_loop is None:
        return instance
    return replace(instance, helper_loop=replace(instance.helper_loop, line=0))
