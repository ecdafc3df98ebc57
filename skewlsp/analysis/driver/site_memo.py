"""The language server's memo of inline helpers' copies at their calls (InlineFunctions).

A helper is decided once per call site, and an edit elsewhere in the file changes none
of those copies: the editor path (:mod:`.edited_module`) hands the walk a
:class:`SiteMemo` over its :class:`~skewlsp.analysis.reuse.unit_cache.UnitCache`, and
the walk (:mod:`.unit_walk`) reads a copy from it or remembers the one it decides. A
module of its own because the walk needs it and cannot import the editor path, which
runs the walk.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from skewlsp.analysis.frontend.assumed import AssumedRead, Build
from skewlsp.analysis.frontend.reads import ModuleRead
from skewlsp.analysis.frontend.source_index import Unit
from skewlsp.analysis.lower_pipeline.lowering import Enclosing
from skewlsp.analysis.passes.inline_functions.call_sites import CallSite
from skewlsp.analysis.passes.split_vector_kernel import any_split
from skewlsp.analysis.reuse.unit_cache import Loop, SiteKey, UnitCache
from skewlsp.contract import Resolver


@dataclass
class SiteMemo:
    """The cache's copies of inline helpers at their calls, for one analysis of a module.

    A copy read from it is used as is (and the analysis is charged with what deciding it
    read of the assumed build); a copy decided now is kept, with what it read of the
    build, once the analysis knows every module it read (:meth:`store`).
    """

    cache: UnitCache
    resolver: Resolver | None
    fingerprint: str
    planner: str  # the copies kept are lowered (``.lowered``)
    build: Build  # the analysis's assumed build (part of every key)
    fresh: list[tuple[SiteKey, tuple[Loop, ...], frozenset[AssumedRead]]] = field(
        default_factory=list
    )

    def get(self, key: SiteKey) -> tuple[Loop, ...] | None:
        return self.cache.sites.get(key, self.resolver, self.build)

    def remember(
        self, key: SiteKey, reports: tuple[Loop, ...], assumed: frozenset[AssumedRead]
    ) -> None:
        self.fresh.append((key, reports, assumed))

    def store(self, reads: frozenset[ModuleRead]) -> None:
        for key, reports, assumed in self.fresh:
            self.cache.sites.put(key, reports, reads, assumed)

    def key(
        self,
        path: str | None,
        unit: Unit,
        module_bindings: tuple[tuple[str, str], ...],
        name: str,
        site: CallSite,
        outside: Enclosing,
    ) -> SiteKey | None:
        """Everything one copy of the helper ``name`` is decided with, or None if it
        cannot be a key.

        The helper's own text and place, the module around it (its fingerprint), what
        the call gives it (its values, where it is: the copy's label and remark, whether
        it sits in an InCore scope and whether a header there splits), what the pipeline
        loops around the call do to it (``outside``: an edit of their ``stage=`` changes
        how often its loops are written), the planner its copy is lowered under and the
        build its modules are imported under.
        """
        key = (
            path,
            unit.text,
            unit.line_offset,
            self.fingerprint,
            module_bindings,
            name,
            site.caller,
            site.span,
            tuple(sorted(site.values.items())),
            site.shown,
            site.incore,
            any_split(site.headers),
            tuple(sorted(site.specialized.items())),
            site.nested,
            outside,
            self.planner,
            self.build.assumptions,
        )
        try:
            hash(key)
        except TypeError:  # a value holding a mapping (a config record): decided every time
            return None
        return key
