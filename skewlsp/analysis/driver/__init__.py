"""``analyze``: source text in, one ``LoopReport`` per ``pl.pipeline`` loop out.

The driver runs the analysis's stages (``source``, ``frontend``, ``passes``,
``skew_cross_core_pipeline``, ``report``) on one module, in the compiler's order, and
puts the language server's reuse (``reuse``) in front of them when it is given a cache.
Pure: no I/O (imported constants come through a caller-supplied resolver), no LSP or
CLI types. The module is indexed with the stdlib parser and only the units holding
loops are parsed with libcst, so the cost follows the loops.

From the top down:

- :mod:`.module_run`: one module's analysis as a batch run does it, and the stage over
  its units and its syntax verdict that both paths share;
- :mod:`.edited_module`: the same with a :class:`~skewlsp.analysis.reuse.unit_cache.UnitCache`
  in front of each unit (a language server, on every edit);
- :mod:`.helper_calls`: inline helpers whose caller and loop are in different modules;
- :mod:`.unit_run`: running one unit's walk, and the module context every unit sees;
- :mod:`.unit_walk`: the walk over a unit (top-level statements, functions, builder
  functions, inline helpers, nested definitions), and :mod:`.walk_facts`: what every
  walk of a unit's tree reads off it alone, kept for the analysis and its other builds;
- :mod:`.lowered`: the lowering passes over the loops a walk decided, at its end;
- :mod:`.site_memo`: the cache's copies of inline helpers at their calls;
- :mod:`.call_context`: the pipeline loops around a call of an inline helper, read off
  the caller (the helper's copy there is lowered in them);
- :mod:`.function_stage`: the passes over whole core functions, after every loop of
  the module is lowered;
- :mod:`.scope_stage`: the memory passes over the InCore scopes that hold no pipeline
  loop (no unit holds them), each reported where its tiles stop the compile;
- :mod:`.loop_decision`: the passes on one loop, in the compiler's order (its unrolled
  copies too), and :mod:`.core_passes`: those from FlattenCallExpr to the skew pass on
  each core's copy of a loop in an InCore scope;
- :mod:`.variants`: the module decided again under the other values its modules
  declare for what the analysis read of the assumed environment and command line.

Each stage fills in the loop's record (:class:`LoopModel`); its report is put together
from it once, after the stages across loops (``report.finish``), and again only for a
loop another build changes (:func:`analyze_models`' last step).
"""

from __future__ import annotations

from dataclasses import replace

from skewlsp.analysis.driver.edited_module import analyse_edited_module
from skewlsp.analysis.driver.function_stage import function_stage
from skewlsp.analysis.driver.loop_decision import LoopModel
from skewlsp.analysis.driver.module_run import analyse_module
from skewlsp.analysis.driver.variants import AssumedReads, variant_builds
from skewlsp.analysis.frontend.assumed import Build
from skewlsp.analysis.frontend.declared_choices import ScannedTexts
from skewlsp.analysis.frontend.imports import SharedModules
from skewlsp.analysis.frontend.state import AnalysisState
from skewlsp.analysis.lower_pipeline.loop_facts import LoopFacts
from skewlsp.analysis.lower_pipeline.lowering import Lowered
from skewlsp.analysis.memory.core_function import CoreFunction
from skewlsp.analysis.memory.function_passes import Packings
from skewlsp.analysis.report.finish import NOTHING_SAID, Said, finished_report
from skewlsp.analysis.report.memory import MemorySaid, memory_said
from skewlsp.analysis.report.overlap import overlaps
from skewlsp.analysis.report.variants import NOT_ASSUMED, Assumed
from skewlsp.analysis.reuse.unit_cache import UnitCache
from skewlsp.analysis.source.kept import Keyed
from skewlsp.contract import Assumptions, Importers, LoopReport, Resolver

__all__ = ["LoopModel", "SharedModules", "analyze", "analyze_models"]


def analyze(
    source: str,
    path: str | None = None,
    *,
    resolver: Resolver | None = None,
    cache: UnitCache | None = None,
    importers: Importers | None = None,
    shared_modules: SharedModules | None = None,
    planner: str = "pypto",
    assumptions: Assumptions | None = None,
) -> list[LoopReport]:
    """Predict the SkewCrossCorePipeline verdict of every ``pl.pipeline`` loop in ``source``.

    With a ``cache``, functions whose text and surroundings did not change are not
    analysed again (what a language server wants on every keystroke). With
    ``importers``, an inline helper's loop is decided for each caller in the project's
    other modules too. ``planner`` is the compiler's memory planner ("pypto" or "ptoas"):
    under "ptoas", LowerPipelineToSlots may rotate a loop the skew pass left. With
    ``shared_modules``, the constants of the modules it imports
    are shared with the other analyses of a batch (:class:`SharedModules`).
    ``assumptions``: the environment and command line the kernel's modules are assumed
    imported under (None: an empty environment, no arguments); a verdict a value read
    from them decides names it, and carries the loop under the module's other values.
    """
    models = analyze_models(
        source,
        path,
        resolver=resolver,
        cache=cache,
        importers=importers,
        shared_modules=shared_modules,
        planner=planner,
        assumptions=assumptions,
    )
    return [model.report for model in models]


def analyze_models(
    source: str,
    path: str | None = None,
    *,
    resolver: Resolver | None = None,
    cache: UnitCache | None = None,
    importers: Importers | None = None,
    concrete: bool = False,
    shared_modules: SharedModules | None = None,
    planner: str = "pypto",
    assumptions: Assumptions | None = None,
) -> list[LoopModel]:
    """The reports plus, for units analysed now (not served from ``cache``), their models.

    ``concrete``: the models are read off libcst's own trees (a rewrite prints their
    nodes, with the whitespace and comments of the text), not trees made from the
    stdlib's (which a lint reads, several times faster). ``shared_modules``: the
    constants of imported modules, shared with the other analyses of a batch.
    ``assumptions``: as for :func:`analyze`.
    """
    if "pypto" not in source and "pipeline" not in source:  # "pypto" is in the imports: early
        return []
    if source.startswith("\ufeff"):
        source = source[1:]
    assumptions = assumptions or Assumptions()

    scanned = ScannedTexts()  # (without a batch: the texts this analysis's builds read)

    def build(assumed: Assumptions) -> Build:
        # A batch's shared modules are folded once per build, and remember its reads.
        if shared_modules is not None:
            return shared_modules.build(assumed)
        return Build(assumed, scanned)

    # Everything the stages share, for this analysis only (the compiler's PassManager
    # hands its passes the program the same way): each stage is given it.
    state = AnalysisState(
        concrete=concrete,
        shared_modules=shared_modules,
        planner=planner,
        build=build(assumptions),
    )
    models, read = _analysed(source, path, resolver, cache, importers, state)

    def again(other: Assumptions) -> list[LoopReport]:
        # The same module under another build: the trees are the same (and shared, with
        # what is read off them alone: ``state.syntactic``), the facts derived from values
        # are not.
        variant = replace(state, concrete=False, build=build(other), facts={})
        models, _ = _analysed(source, path, resolver, cache, importers, variant)
        return [model.report for model in models]

    # The last step: a loop another build changes has its report put together again from
    # its record, with what the other builds make of it (``report.finish``).
    builds = variant_builds([model.report for model in models], read, assumptions, again, source)
    return [_with_builds(model, assumed) for model, assumed in zip(models, builds, strict=True)]


def _with_builds(model: LoopModel, assumed: Assumed) -> LoopModel:
    """``model``, its report put together again under ``assumed`` builds if another build
    changes it (from the report its walk left, ``walked``)."""
    if assumed is NOT_ASSUMED or model.walked is None:
        return model
    report = finished_report(model.walked, model.said, assumed, lowered=model.lowered)
    return replace(model, report=report)


def _analysed(
    source: str,
    path: str | None,
    resolver: Resolver | None,
    cache: UnitCache | None,
    importers: Importers | None,
    state: AnalysisState,
) -> tuple[list[LoopModel], AssumedReads]:
    """The module's models under ``state``'s build, and what it read of that build."""
    depth = state.build.open()
    try:
        if cache is None:
            models = analyse_module(source, path, resolver, importers, state)
        else:
            models = analyse_edited_module(source, path, resolver, cache, importers, state)
    finally:
        read = state.build.close(depth)
    return _across_loops(models, state, cache), read


# Each loop's report, what the lowering read of it and what it decided of it (its record),
# as the units' walks leave them.
_Walked = tuple[tuple[LoopReport, LoopFacts, Lowered | None], ...]
# Per loop, what the stages across loops found of it, the records of its core functions and
# its report put together from them (``report.finish``).
_Finished = tuple[tuple[Said, tuple[CoreFunction, ...], LoopReport], ...]


def _across_loops(
    models: list[LoopModel], state: AnalysisState, cache: UnitCache | None
) -> list[LoopModel]:
    """``models`` with what the stages over several loops find of them (:func:`_finished`),
    and each report put together from its record (the walk's kept as ``walked``).

    They read only each loop's report, facts and lowering (the lowering passes' record),
    so a language server keeps what they found of the module's loops
    (``cache.finished``): an edit that changed none of them (a comment, the text between
    the loops) costs no pass over whole functions and no memory pass. Deciding them again
    on every edit was about 1 ms of a 3.4 ms edit of pypto-lib's largest kernel
    (benchmarks/README.md, "Cache layers").
    """
    # (a scope without a loop is in no stage across loops: its report is finished, and a
    # report made again on each analysis would miss the server's kept results)
    loops = [model for model in models if not model.report.scope_only]
    # (a batch keeps MemoryReuse's packings for all its files, an analysis alone for its builds)
    shared = state.shared_modules
    planner = state.planner
    packings = shared.pure if shared is not None else state.syntactic_fact
    walked: _Walked = tuple((model.report, model.facts, model.lowered) for model in loops)
    if cache is None:
        finished = _finished(walked, planner, packings)
    else:
        # Hashed by the reports' identities (a unit served from the cache hands back the
        # very reports it kept; the key holds them, so no other object takes their ids),
        # compared by value: an equal module whose reports are other objects is a miss.
        hashed = hash((planner, *(id(report) for report, _, _ in walked)))
        finished = cache.finished.get_or_make(
            Keyed(hashed, (planner, walked)), lambda: _finished(walked, planner, packings)
        )
    found = iter(finished)
    return [
        replace(model, walked=model.report)
        if model.report.scope_only
        else _with_finished(model, *next(found))
        for model in models
    ]


def _with_finished(
    model: LoopModel, said: Said, functions: tuple[CoreFunction, ...], report: LoopReport
) -> LoopModel:
    """``model`` with what the stages across loops found of it and its report put together."""
    return replace(
        model,
        report=report,
        walked=model.report,
        said=said,
        functions=functions,
        copies=_finished_copies(model),
    )


def _finished_copies(model: LoopModel) -> list[tuple[tuple[tuple[str, int], ...], LoopModel]]:
    """A loop's pl.unroll copies, each with its report put together (a preview quotes it)."""
    return [
        (bindings, replace(copy, report=_finished_copy(copy)))
        for bindings, copy in model.copies
    ]


def _finished_copy(copy: LoopModel) -> LoopReport:
    """A pl.unroll copy's report, put together from its record (no stage across loops
    reads a copy: only the lowering passes' record joins it)."""
    return finished_report(copy.report, NOTHING_SAID, lowered=copy.lowered)


def _finished(walked: _Walked, planner: str, packings: Packings) -> _Finished:
    """The stages across loops, in order, over a module's loops as its walks leave them;
    each hands on a record (the reports are put together from them at the end:
    ``report.finish``). ``packings``: where the analysis keeps MemoryReuse's packings, for
    every function and build (each a pure function of its tiles)."""
    # Across loops: a consumer whose peer loop skews (each unit's loops were lowered by
    # its walk: ``.lowered``).
    found = overlaps([report for report, _, _ in walked])
    # The passes over whole core functions, once every loop of each is lowered (each
    # loop's lowering read off the lowering passes' record).
    models = [LoopModel(report, facts=facts, lowered=lowered) for report, facts, lowered in walked]
    models = function_stage(models, planner=planner, packings=packings)
    # What the memory passes give each loop's loads on each core copy.
    said = [Said(overlap, _memory(model)) for overlap, model in zip(found, models, strict=True)]
    # Each report put together once from the loop's records: the walk's, the lowering's,
    # and what the stages across loops found.
    return tuple(
        (one, model.functions, finished_report(model.report, one, lowered=model.lowered))
        for one, model in zip(said, models, strict=True)
    )


def _memory(model: LoopModel) -> MemorySaid | None:
    """What the memory passes give the loop (None: it is in no core function)."""
    if not model.functions:
        return None
    return memory_said(model.report, model.lowered, model.functions)
