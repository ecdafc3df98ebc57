"""Analysis results per document version: debounced, off the event loop, never stale.

pygls runs every handler on one asyncio loop, so a slow analysis there would
freeze hovers and completions for every open file. Here analysis runs in a
worker thread, keyed by (document version, invalidation epoch): a newer edit
cancels the pending run (its debounce sleep, or the await of a thread that is
already computing — whose result is then dropped), and only a result whose key
is still current is stored and handed to ``on_ready``. Requests share the
in-flight run for the current version instead of starting another.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from pathlib import Path

from skewlsp import api
from skewlsp.common.importers import ProjectImporters, read_project_file, sibling_modules
from skewlsp.common.resolver import candidates, read_module
from skewlsp.common.suppressions import SUPPRESSION_MARK
from skewlsp.contract import SYNTAX_ERROR, LoopReport
from skewlsp.server.positions import split_lines

log = logging.getLogger(__name__)



@dataclass(frozen=True)
class Snapshot:
    """The text of one open document at one version (what a run analyses).

    ``lines``: its LSP lines when the server keeps them through the document's edits
    (:mod:`.line_table`; splitting a 100 kB text again costs 0.19 ms).
    """

    uri: str
    version: int | None
    text: str
    path: str | None
    lines: Sequence[str] | None = field(default=None, compare=False, repr=False)

    @functools.cached_property
    def may_suppress(self) -> bool:
        """False when the text holds no suppression comment (no scan for one is needed).

        Read when the version is analysed, not when the snapshot is made: the server makes
        one three times per edit (to schedule, start and keep a run), and each scan of a
        100 kB kernel for the mark costs 60 us."""
        return SUPPRESSION_MARK in self.text


@dataclass(frozen=True)
class Analysis:
    """One document version's loops.

    While the text does not parse, ``syntax_error`` is set and ``reports`` are
    the last version that parsed (``stale`` is then true): features keep showing
    them as they were rather than flashing everything away on each keystroke.
    """

    uri: str
    version: int | None
    key: tuple[object, ...]
    source: str
    reports: tuple[LoopReport, ...]
    syntax_error: LoopReport | None = None
    stale: bool = False
    deps: frozenset[str] = frozenset()
    internal_error: str | None = None
    may_suppress: bool = True
    known_lines: Sequence[str] | None = field(default=None, compare=False, repr=False)

    @functools.cached_property
    def lines(self) -> Sequence[str]:
        """``source``'s LSP lines (no terminators), as positions and actions index them."""
        return self.known_lines if self.known_lines is not None else split_lines(self.source)


class WorkspaceResolver:
    """Supplies imported modules' text: open documents first (unsaved edits count), then disk.

    Records every path it considered, found or not, so creating a missing
    constants module also re-analyses the files that import it. Open documents are
    keyed by resolved path; a candidate that goes through a symlink (a linked package
    or module file) is looked up, and recorded, by its resolved path too.
    """

    def __init__(
        self,
        open_texts: dict[str, str],
        src_roots: Iterable[Path],
        planner: str = "pypto",
        assumptions: api.Assumptions | None = None,
    ) -> None:
        self.open_texts = open_texts
        self.src_roots = tuple(src_roots)
        self.planner = planner  # the project's memory planner, for the lowering passes
        # The build the kernels are assumed imported under (never the server's environment).
        self.assumptions = assumptions or api.Assumptions()
        self.looked_at: set[str] = set()

    def __call__(self, module: str, level: int, importing_path: str | None) -> str | None:
        for candidate in candidates(module, level, importing_path, self.src_roots):
            key = str(candidate)
            real = os.path.realpath(key)
            self.looked_at.add(key)
            self.looked_at.add(real)
            if key in self.open_texts:
                return self.open_texts[key]
            if real in self.open_texts:
                return self.open_texts[real]
            text = read_module(candidate)
            if text is not None:
                return text
        return None


class SiblingImporters:
    """The modules next to a document, where its inline helpers' callers are looked for.

    Listed only when the analysis asks (for a helper whose verdict waits for its caller):
    a workspace-wide search on every keystroke would cost more than the analysis itself.
    An open module's unsaved text counts, as it does for imports; and the folder looked
    in is recorded (``looked_in``, as :func:`folder_dependency` names it), so that an edit
    of any module there, or a new one, decides the helper's copies again.
    """

    def __init__(self, path: str, open_texts: Mapping[str, str]) -> None:
        self.path = path
        self.open_texts = open_texts
        self.looked_in: set[str] = set()

    def __call__(self, asked: str | None) -> list[tuple[str, str]]:
        folder = os.path.dirname(self.path)  # as the editor names it: callers are shown so
        real = os.path.realpath(folder)  # the editor's texts are keyed by resolved path
        self.looked_in.add(folder_dependency(real))
        names = {os.path.basename(p) for p in sibling_modules(self.path)}
        names |= {os.path.basename(p) for p in self.open_texts if os.path.dirname(p) == real}
        names.discard(os.path.basename(self.path))
        siblings = sorted(os.path.join(folder, name) for name in names)
        return ProjectImporters(siblings, read=self._read)(asked)

    def _read(self, path: str) -> str | None:
        text = self.open_texts.get(os.path.realpath(path))
        return text if text is not None else read_project_file(path)


def folder_dependency(folder: str) -> str:
    """How an analysis that read every module of ``folder`` names it among its dependencies
    (with a trailing separator, so that no file's path is ever equal to it)."""
    return os.path.join(folder, "")


def compute(
    snapshot: Snapshot,
    key: tuple[object, ...],
    resolver: WorkspaceResolver,
    last_good: Analysis | None,
    cache: api.UnitCache | None = None,
) -> Analysis:
    """Analyse one snapshot (runs in a worker thread; pure apart from reading imports)."""
    started = time.perf_counter()
    importers = (
        SiblingImporters(snapshot.path, resolver.open_texts) if snapshot.path else None
    )
    try:
        reports = api.analyse(
            snapshot.text,
            snapshot.path,
            resolver=resolver,
            cache=cache,
            importers=importers,
            planner=resolver.planner,
            assumptions=resolver.assumptions,
        )
        log.debug(
            "analysed %s v%s in %.1f ms (function cache so far: hits %s, misses %s)",
            snapshot.uri,
            snapshot.version,
            (time.perf_counter() - started) * 1000,
            cache.hits if cache else "-",
            cache.misses if cache else "-",
        )
    except Exception as error:  # the analysis must never take the server down
        log.exception("analysis failed for %s", snapshot.uri)
        return Analysis(
            snapshot.uri,
            snapshot.version,
            key,
            snapshot.text,
            (),
            internal_error=f"{type(error).__name__}: {error}",
            may_suppress=snapshot.may_suppress,
            known_lines=snapshot.lines,
        )
    deps = frozenset(resolver.looked_at) | (importers.looked_in if importers else frozenset())
    errors = [r for r in reports if r.code == SYNTAX_ERROR and r.verdict == "error"]
    if errors:
        kept = last_good.reports if last_good is not None else ()
        return Analysis(
            snapshot.uri,
            snapshot.version,
            key,
            snapshot.text,
            kept,
            syntax_error=errors[0],
            stale=True,
            deps=deps | (last_good.deps if last_good else frozenset()),
            may_suppress=snapshot.may_suppress,
            known_lines=snapshot.lines,
        )
    return Analysis(
        snapshot.uri,
        snapshot.version,
        key,
        snapshot.text,
        tuple(reports),
        deps=deps,
        may_suppress=snapshot.may_suppress,
        known_lines=snapshot.lines,
    )


@dataclass
class _Entry:
    epoch: int = 0
    result: Analysis | None = None
    last_good: Analysis | None = None
    task: asyncio.Task[Analysis | None] | None = None
    task_key: tuple[object, ...] | None = None
    deps: frozenset[str] = field(default_factory=frozenset)


class DocumentStore:
    """The versioned analysis cache of the open documents.

    ``snapshot_of(uri)`` reads the workspace (``None`` for a document never
    opened); ``resolver_for(snapshot)`` builds the import resolver with the
    current settings; ``on_ready(analysis)`` is called on the event loop with
    each fresh, current result (the server publishes diagnostics from it).
    """

    def __init__(
        self,
        executor: Executor,
        snapshot_of: Callable[[str], Snapshot | None],
        resolver_for: Callable[[Snapshot], WorkspaceResolver],
        on_ready: Callable[[Analysis], None],
    ) -> None:
        self.executor = executor
        self.snapshot_of = snapshot_of
        self.resolver_for = resolver_for
        self.on_ready = on_ready
        self.generation = 0  # bumped when settings change: every cached result is stale
        # Per-function results shared by all documents: an edit re-analyses one function.
        self.unit_cache = api.UnitCache()
        self._entries: dict[str, _Entry] = {}

    # -- keys and invalidation ---------------------------------------------------------

    def _key(self, uri: str, snapshot: Snapshot) -> tuple[object, ...]:
        entry = self._entries.setdefault(uri, _Entry())
        return (snapshot.version, len(snapshot.text), entry.epoch, self.generation)

    def invalidate_all(self) -> None:
        """Settings changed: every document must be analysed again."""
        self.generation += 1

    def invalidate(self, uri: str) -> None:
        """Something this document imports changed."""
        self._entries.setdefault(uri, _Entry()).epoch += 1

    def dependents(self, path: str) -> list[str]:
        """Open documents whose analysis read (or looked for) ``path`` (or the file it
        names through symlinks: imports are looked up in resolved directories), or every
        module of its folder (an inline helper's callers)."""
        names = {path, os.path.realpath(path)}
        names |= {folder_dependency(os.path.dirname(name)) for name in set(names)}
        return [uri for uri, entry in self._entries.items() if not names.isdisjoint(entry.deps)]

    def close(self, uri: str) -> None:
        entry = self._entries.pop(uri, None)
        if entry is not None and entry.task is not None:
            entry.task.cancel()

    def cached(self, uri: str) -> Analysis | None:
        """The newest stored result, whatever its version (for cheap, tolerant features)."""
        entry = self._entries.get(uri)
        return entry.result if entry else None

    # -- running -----------------------------------------------------------------------

    def schedule(self, uri: str, delay: float) -> None:
        """Analyse the current version after ``delay`` seconds unless a newer edit comes first."""
        snapshot = self.snapshot_of(uri)
        if snapshot is None:
            return
        key = self._key(uri, snapshot)
        entry = self._entries[uri]
        if entry.result is not None and entry.result.key == key:
            self.on_ready(entry.result)
            return
        if entry.task is not None and entry.task_key == key and not entry.task.done():
            return
        self._start(uri, key, delay)

    def _start(
        self, uri: str, key: tuple[object, ...], delay: float
    ) -> asyncio.Task[Analysis | None]:
        entry = self._entries[uri]
        if entry.task is not None and not entry.task.done():
            entry.task.cancel()  # superseded: a newer version or epoch
        entry.task = asyncio.ensure_future(self._run(uri, key, delay))
        entry.task_key = key
        return entry.task

    async def _run(self, uri: str, key: tuple[object, ...], delay: float) -> Analysis | None:
        if delay > 0:
            await asyncio.sleep(delay)
        snapshot = self.snapshot_of(uri)
        if snapshot is None or self._key(uri, snapshot) != key:
            return None
        entry = self._entries[uri]
        resolver = self.resolver_for(snapshot)
        loop = asyncio.get_running_loop()
        result = await loop.run_in_executor(
            self.executor, compute, snapshot, key, resolver, entry.last_good, self.unit_cache
        )
        current = self.snapshot_of(uri)
        if current is None or uri not in self._entries or self._key(uri, current) != key:
            return None  # a newer edit arrived while the thread ran: drop this result
        entry = self._entries[uri]
        entry.result = result
        entry.deps = result.deps
        if result.syntax_error is None and result.internal_error is None:
            entry.last_good = result
        try:
            self.on_ready(result)
        except Exception:
            log.exception("publishing results for %s failed", uri)
        return result

    async def get(self, uri: str) -> Analysis | None:
        """The analysis of the current version (``None`` for a document never opened)."""
        for _ in range(8):
            snapshot = self.snapshot_of(uri)
            if snapshot is None:
                return None
            key = self._key(uri, snapshot)
            entry = self._entries[uri]
            if entry.result is not None and entry.result.key == key:
                return entry.result
            task = entry.task
            if task is None or entry.task_key != key or task.done():
                task = self._start(uri, key, 0)
            try:
                result = await asyncio.shield(task)
            except asyncio.CancelledError:
                if task.cancelled():
                    continue  # superseded by a newer edit: analyse that one
                raise
            if result is not None:
                return result
        return self.cached(uri)
