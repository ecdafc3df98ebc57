"""Following ``from module import NAME`` to the constants a kernel reads from other files.

Every module is read through the caller's resolver (the analysis never touches the
file system), so what a verdict depends on is exactly what the resolver was asked.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, replace
from typing import TypeVar, cast

from skewlsp.analysis.frontend.assumed import Build
from skewlsp.analysis.frontend.constants import Assigned, ModuleConstants
from skewlsp.analysis.frontend.declared_choices import ScannedTexts
from skewlsp.analysis.frontend.import_order import (
    MAX_IMPORT_DEPTH,
    Origin,
    Program,
    Request,
    as_seen_from_the_kernel,
    origin_of,
)
from skewlsp.analysis.frontend.source_index import ModuleIndex, imported_module_index
from skewlsp.analysis.frontend.values import Folded, Opaque
from skewlsp.contract import Assumptions, Resolver

_T = TypeVar("_T")


class _Relay:
    """The resolver of a shared module's own imports: it asks the resolver of the analysis
    running now (with that analysis's kernel path), and remembers each answer so that
    the next analysis can check it gets the same."""

    def __init__(self, shared: SharedModules) -> None:
        self._shared = shared
        self.answers: dict[tuple[str, int], object] = {}  # a text, None, or _FAILED
        self.below: list[_Relay] = []  # the relays of the modules this one imports

    def __call__(self, module: str, level: int, importing_path: str | None) -> str | None:
        resolver, path = self._shared.current
        try:
            text = resolver(module, level, path)
        except Exception:
            self.answers.setdefault((module, level), _FAILED)
            raise
        self.answers.setdefault((module, level), text)
        return text

    def holds_for(self, resolver: Resolver, path: str | None) -> bool:
        """Whether every module read through here (and below) reads the same for this
        kernel; asked through ``resolver``, so that its record of reads holds them all."""
        for (module, level), answer in self.answers.items():
            try:
                now: object = resolver(module, level, path)
            except Exception:
                now = _FAILED
            if now != answer:
                return False
        return all(relay.holds_for(resolver, path) for relay in self.below)


_FAILED = object()  # a resolver that raised (read as "not found")


class SharedModules:
    """The constants of imported modules, shared by the analyses of a batch run.

    A kernel package's files import the same config modules, whose records and derived
    values were folded again for each file: 2.4% of a cold serial run over pypto-lib's
    kernels. A shared module asks the resolver of whichever analysis runs now (see
    :class:`_Relay`), and serves the next analysis only if every module it has read
    resolves to the same text for that kernel. Those reads are asked again for it,
    so its record of reads (a cache entry's dependencies) holds at least what it
    would have read alone. Not thread-safe: a batch's analyses run one at a time (a
    language server, which analyses in threads, does not share).

    The batch creates one (the linter's runner, per pool task) and hands it to each
    analysis, whose state refers to it (``state.AnalysisState.shared_modules``).

    A module is folded once per assumed build (its environment and arguments), and the
    reads of a build are recorded by one :class:`~.assumed.Build` for the whole
    batch (:meth:`build`): a shared value charges the analysis that reads it next with
    the reads it came from.
    """

    MAX_MODULES = 256
    MAX_PURE = 1024

    def __init__(self) -> None:
        self._entries: dict[tuple[object, ...], tuple[ModuleConstants, _Relay]] = {}
        self.current: tuple[Resolver, str | None] = (_no_resolver, None)
        self._builds: dict[Assumptions, Build] = {}
        self._scanned = ScannedTexts()  # (the module texts every build reads alike)
        self._pure: dict[Hashable, object] = {}

    def pure(self, key: Hashable, make: Callable[[], _T]) -> _T:
        """What ``make()`` gives for ``key``, which holds everything it reads (no tree, no
        build: a pure function of the key), made once for the batch: a later pass's
        answer for inputs another file of the batch gave it too (MemoryReuse's packing
        of equal tiles: pypto-lib's model directories hold copies of one kernel; what it
        saves: benchmarks/README.md, "Cache layers"). At most :attr:`MAX_PURE` kept."""
        if key in self._pure:
            return cast(_T, self._pure[key])
        value = make()
        if len(self._pure) >= self.MAX_PURE:
            self._pure.clear()
        self._pure[key] = value
        return value

    def build(self, assumptions: Assumptions) -> Build:
        """The record of reads of every analysis of this batch under ``assumptions``."""
        found = self._builds.get(assumptions)
        if found is None:
            found = self._builds[assumptions] = Build(assumptions, self._scanned)
        return found

    def constants(
        self,
        text: str,
        index: ModuleIndex,
        where: Origin,
        depth: int,
        resolver: Resolver,
        path: str | None,
        build: Build,
    ) -> ModuleConstants:
        """The constants of the module ``text``, reached as ``where`` by the analysis
        whose ``resolver`` (or a shared module's relay) asked for it, under the build of
        ``build`` (this batch's, :meth:`build`)."""
        asked_by = resolver if isinstance(resolver, _Relay) else None
        if asked_by is None:  # a kernel's own import: its analysis is the one running
            self.current = (resolver, path)
        key = (text, where, depth, build.assumptions)
        found = self._entries.get(key)
        if found is not None and found[1].holds_for(resolver, path):
            constants, relay = found
        else:
            relay = _Relay(self)
            nested = imported_lookup(index, path, relay, depth, where, self, build)
            constants = module_constants(index, nested, build, text)
            if len(self._entries) >= self.MAX_MODULES:
                self._entries.clear()
            self._entries[key] = (constants, relay)
        if asked_by is not None:
            asked_by.below.append(relay)
        return constants


def _no_resolver(module: str, level: int, importing_path: str | None) -> str | None:
    return None


def module_constants(
    index: ModuleIndex, imported: Callable[[str], Folded | None], build: Build, text: str
) -> ModuleConstants:
    """The constants of an imported module (``index``, its ``text``), its imports read
    through ``imported``."""
    return ModuleConstants(
        index.constant_sources,
        imported,
        classes=index.class_sources,
        functions=index.function_sources,
        build=build,
        text=text,
    )


def imported_lookup(
    index: ModuleIndex,
    path: str | None,
    resolver: Resolver | None,
    depth: int = 0,
    origin: Origin | None = None,
    shared: SharedModules | None = None,
    build: Build | None = None,
    program: Program | None = None,
) -> ImportedNames:
    """Names imported from sibling modules, read through the caller's resolver.

    ``origin`` is how the kernel reached the module ``index`` describes (None: the
    kernel itself), so that the module's relative imports climb from where it lives.
    ``shared``: the constants of imported modules a batch shares (None: each module is
    folded for this analysis alone). ``build``: the build the modules are imported under
    (None: the default one, an empty environment and no arguments). ``program``: the
    kernel's program when it writes module attributes while it loads (then each module
    is folded once for it, and an import binds what was written before it runs).
    """
    build = build if build is not None else Build()
    cache: dict[str, ModuleConstants | None] = {}
    me = origin[:2] if origin is not None else None

    def module_of(module: str, level: int) -> ModuleConstants | None:
        key = f"{level}:{module}"
        if key not in cache:
            cache[key] = None
            request = as_seen_from_the_kernel(origin, module, level)
            if request is not None and depth < MAX_IMPORT_DEPTH:
                cache[key] = _load(request, path, resolver, depth + 1, shared, build, program)
        return cache[key]

    def lookup(name: str) -> Folded | None:
        imported = index.imported.get(name)
        if imported is None:
            return program.module_object(me, index.modules.get(name)) if program else None
        if resolver is None:
            return Opaque(name, f"`{name}` is imported from `{imported.module}`")
        written = program.bound(me, imported) if program is not None else None
        if written is not None:
            return written
        constants = module_of(imported.module, imported.level)
        if constants is None:
            return Opaque(
                name, f"`{name}` is imported from `{imported.module}`, which was not found"
            )
        found = constants(imported.name)
        if found is None:
            return Opaque(name, f"`{name}` is not a constant of `{imported.module}`")
        return found

    def assigned(name: str) -> Assigned | None:
        imported = index.imported.get(name)
        written = program.assignment(me, imported) if program and imported else None
        if written is not None:
            return written
        constants = module_of(imported.module, imported.level) if imported else None
        found = constants.assigned(imported.name) if constants and imported else None
        if found is None or found.module is not None or imported is None:
            return found
        return replace(found, module="." * imported.level + imported.module)

    def function(name: str) -> str | None:
        imported = index.imported.get(name)
        constants = module_of(imported.module, imported.level) if imported else None
        if constants is None or imported is None:
            return None
        return constants.function_sources.get(imported.name)

    return ImportedNames(lookup, assigned, function)


def _load(
    request: Request,
    path: str | None,
    resolver: Resolver | None,
    depth: int,
    shared: SharedModules | None,
    build: Build,
    program: Program | None,
) -> ModuleConstants | None:
    """The constants of the module ``request`` names (None: not found), reached at
    ``depth``: the program's, the batch's shared ones, or this analysis's own."""
    if program is not None and request in program.order.reached:
        return program.constants(request)
    try:
        text = resolver(*request, path) if resolver else None
    except Exception:
        text = None
    if text is None:
        return None
    other = imported_module_index(text)
    where = origin_of(request, text, other, resolver, path)
    if shared is not None and resolver is not None and program is None:
        return shared.constants(text, other, where, depth, resolver, path, build)
    nested = imported_lookup(other, path, resolver, depth, where, None, build, program)
    return module_constants(other, nested, build, text)


@dataclass(frozen=True)
class ImportedNames:
    """Names imported from sibling modules: their folded values (call it), where each is
    assigned in the module it comes from (``assigned``, for a fix line to name it), and
    the text of a function it is there (``function``: an extern kernel's stub types the
    calls of it)."""

    lookup: Callable[[str], Folded | None]
    assigned: Callable[[str], Assigned | None]
    function: Callable[[str], str | None]

    def __call__(self, name: str) -> Folded | None:
        return self.lookup(name)
