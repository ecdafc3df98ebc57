"""One module's analysis as a language server runs it on every edit: the same stages as
:mod:`.module_run`, with a :class:`~skewlsp.analysis.reuse.unit_cache.UnitCache` in
front of each unit.

What changes from a batch run is only reuse: the module index is patched after a small
edit (``reuse.incremental``, behind ``UnitCache.index``), a unit whose text (up to
comments) and surroundings did not change is answered from the cache
(:class:`CachedUnits`), and so is each copy of an inline helper whose call did not
change (:class:`.site_memo.SiteMemo`). What is analysed now is kept with every module
the analysis read, so a hit is always what a fresh analysis would say.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from skewlsp.analysis.driver.helper_scopes import calling_kernels, helper_scopes
from skewlsp.analysis.driver.loop_decision import LoopModel
from skewlsp.analysis.driver.module_run import (
    analyse_units,
    syntax_report,
    with_syntax_verdict,
    without_units,
)
from skewlsp.analysis.driver.scope_stage import loopless_scopes, read_functions
from skewlsp.analysis.driver.site_memo import SiteMemo
from skewlsp.analysis.driver.unit_run import analyse_unit, module_context
from skewlsp.analysis.frontend import dsl
from skewlsp.analysis.frontend.assumed import AssumedRead
from skewlsp.analysis.frontend.constants import ModuleConstants
from skewlsp.analysis.frontend.reads import ModuleRead, ReadLog
from skewlsp.analysis.frontend.source_index import ModuleIndex, Unit, syntax_problem
from skewlsp.analysis.frontend.state import AnalysisState
from skewlsp.analysis.passes.inline_functions.imported_helpers import ImportedHelper
from skewlsp.analysis.reuse.unit_cache import Loop, UnitCache, UnitKey
from skewlsp.contract import Importers, Resolver


def analyse_edited_module(
    source: str,
    path: str | None,
    resolver: Resolver | None,
    cache: UnitCache,
    importers: Importers | None,
    state: AnalysisState,
) -> list[LoopModel]:
    """Every loop's model: the reports of unchanged units from ``cache``, the other units
    analysed now (and kept in ``cache``); ``state``: this analysis's."""
    index, fingerprint = cache.index_and_context(path, source)
    if index.syntax_problem is not None:
        return [LoopModel(syntax_report(index.syntax_problem, path))]
    # Every read of this run is recorded: the module context is shared (and memoised)
    # across units, so a unit may depend on a module an earlier unit made us read.
    log = ReadLog(resolver) if resolver is not None else None
    reader = log or resolver
    if not index.units:
        helpers = CachedUnits(cache, path, reader, fingerprint, None, None, state)
        models = without_units(source, path, index, reader, state, helpers.imported)
        helpers.store(log.record() if log is not None else frozenset())
        return models
    constants, aliases = module_context(index, path, reader, state, text=source)
    units = CachedUnits(cache, path, reader, fingerprint, aliases, constants, state)
    # Python refuses the whole file for a syntax error anywhere (and so does the compiler
    # that imports it). Only the top-level blocks an edit touched are checked, before the
    # units: the function edited is usually one of them, and its stdlib tree serves that
    # unit too.
    checked = not index.known_to_parse
    share = state.parses.share_parsed_text
    early = syntax_problem(source, cache.parsed_blocks, share) if checked else None
    models, broken = analyse_units(
        source, path, index, reader, importers, constants, state, units.analyse, units.imported
    )
    models.extend(units.scopes(index, source))
    units.store(log.record() if log is not None else frozenset())
    return with_syntax_verdict(
        source,
        path,
        resolver,
        index,
        models,
        broken,
        lambda: early if checked else syntax_problem(source, cache.parsed_blocks),
        state,
    )


@dataclass
class CachedUnits:
    """The cache in front of the unit stage, for one analysis of a module.

    A unit is looked up by its text up to comments (an edit that only types a comment
    is answered here), its place, the module context (``fingerprint``), its callers'
    texts, the memory planner its loops are lowered under and the assumed build (what
    each read of the build is kept with it); so are the copies of an
    imported inline helper at the calls here (:meth:`imported`). What is analysed now is
    kept once the analysis knows every module it read (:meth:`store`).
    """

    cache: UnitCache
    path: str | None
    resolver: Resolver | None
    fingerprint: str
    aliases: dsl.Aliases | None  # (None: a module with no units of its own)
    constants: ModuleConstants | None
    state: AnalysisState
    fresh: list[tuple[UnitKey, list[LoopModel], frozenset[AssumedRead]]] = field(
        default_factory=list
    )
    sites: SiteMemo = field(init=False)
    # The loop-less scopes worked out now (:meth:`scopes`), kept by :meth:`store`.
    scopes_found: tuple[UnitKey, list[LoopModel], frozenset[AssumedRead]] | None = None

    def __post_init__(self) -> None:
        state = self.state
        self.sites = SiteMemo(
            self.cache, self.resolver, self.fingerprint, state.planner, state.build
        )

    def analyse(self, unit: Unit) -> list[LoopModel] | None:
        """The unit's models, from the cache or analysed now; None when libcst cannot
        parse it."""
        build = self.state.build
        key = (
            self.path,
            *unit.cache_key,
            self.fingerprint,
            _callers_key(unit),
            self.state.planner,
            build.assumptions,
        )
        cached = self.cache.get(key, self.resolver, build)
        if cached is not None:
            return [_model(loop) for loop in cached]
        assert self.aliases is not None and self.constants is not None
        depth = build.open()
        try:
            found = analyse_unit(
                unit, self.path, self.aliases, self.constants, self.state, self.sites
            )
        finally:
            assumed = build.close(depth)
        if found is not None:
            self.fresh.append((key, found, assumed))
        return found

    def imported(
        self, helper: ImportedHelper, decide: Callable[[], list[LoopModel]]
    ) -> list[LoopModel]:
        """The copies of an imported helper at the calls here, from the cache or decided
        now: they change with the helper (its text, place and module, whose read is
        recorded), the callers here and this module's context, not with an edit
        elsewhere (deciding them again was most of an edit's cost)."""
        helper_unit, build = helper.unit, self.state.build
        key = (
            self.path,
            *helper_unit.cache_key,
            self.fingerprint,
            _callers_key(helper_unit),
            self.state.planner,
            build.assumptions,
            helper.origin,
            helper.name,
        )
        cached = self.cache.get(key, self.resolver, build)
        if cached is not None:
            return [_model(loop) for loop in cached]
        depth = build.open()
        try:
            found = decide()
        finally:
            assumed = build.close(depth)
        self.fresh.append((key, found, assumed))
        return found

    def scopes(self, index: ModuleIndex, source: str) -> list[LoopModel]:
        """The reports of the module's InCore scopes that hold no pipeline loop
        (:mod:`.scope_stage`) and of the inline helpers' scopes its kernels splice in
        (:mod:`.helper_scopes`), from the cache or worked out now: they change with the
        functions the stages read (``scope_stage.read_functions``, the kernels that call
        a helper: their texts and places), the modules read on the way and the module's
        context, not with an edit of a unit holding loops in all of its scopes (working
        them out again was two thirds of such an edit)."""
        constants = self.constants
        assert constants is not None
        build = self.state.build
        read = (read_functions(index), calling_kernels(index))
        key = ("scopes", self.path, read, self.fingerprint, self.state.planner, build.assumptions)
        cached = self.cache.scopes.get(key, self.resolver, build)
        if cached is not None:
            return [_model(loop) for loop in cached]
        depth = build.open()
        try:
            found = loopless_scopes(index, self.path, constants, self.state)
            found += helper_scopes(
                index, source, self.path, self.resolver, self.state, lambda: constants
            )
        finally:
            assumed = build.close(depth)
        self.scopes_found = (key, found, assumed)
        return found

    def store(self, reads: frozenset[ModuleRead]) -> None:
        """Keep what was analysed now, with every module this analysis read and what each
        read of the assumed build."""
        for key, unit_models, assumed in self.fresh:
            loops = tuple((model.report, model.facts, model.lowered) for model in unit_models)
            self.cache.put(key, loops, reads, assumed)
        self.sites.store(reads)
        if self.scopes_found is not None:
            key, scope_models, assumed = self.scopes_found
            loops = tuple((model.report, model.facts, model.lowered) for model in scope_models)
            self.cache.scopes.put(key, loops, reads, assumed)


def _model(loop: Loop) -> LoopModel:
    """A loop served from the cache: its report, facts and the lowering's record of it."""
    report, facts, lowered = loop
    return LoopModel(report, facts=facts, lowered=lowered)


def _callers_key(unit: Unit) -> tuple[object, ...]:
    """The texts and places of the unit's callers, and of theirs (a helper's callers)."""
    return tuple((*caller.cache_key, _callers_key(caller)) for caller in unit.callers)
