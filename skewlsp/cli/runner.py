"""Linting one file end to end, and many files in a process pool.

Per file: read bytes, skip files that never mention ``pipeline`` (cheap text
pre-filter), decode, look up the cache or run the analysis, flatten reports to
diagnostics, apply suppressions and selection. Everything a worker needs travels
in a picklable :class:`Job`, and everything it returns is plain data.
"""

from __future__ import annotations

import dataclasses
import gc
import io
import os
import sys
import tokenize
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from skewlsp.api import source_lines, worth_reading
from skewlsp.cli.cache import Cache, DependencyDigests, PlainFiles, cache_key, directory_for
from skewlsp.cli.own_code import code_digest
from skewlsp.common.config import Settings
from skewlsp.common.diagnostic import Diagnostic, FileResult, Import
from skewlsp.common.importers import ProjectImporters
from skewlsp.common.pipeline import flatten, select_and_suppress
from skewlsp.common.resolver import Dependency, RecordingResolver
from skewlsp.common.select import SUMMARISED_BY_DEFAULT, Selection
from skewlsp.contract import UNREADABLE_FILE, Instance, LoopReport, Span

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

    from skewlsp.api import SharedModules

PARALLEL_THRESHOLD = 8  # below this many files a pool costs more than it saves
TASKS_PER_WORKER = 32  # at most this many pool tasks per worker (fewer messages)
LARGEST_TASK_SHARE = 2  # no task holds more than 1/(2 * workers) of the run's bytes
MAX_SNIPPET_LINES = 200

# A loop Python builds several times has a preview per copy: keyed by span and copy.
PreviewKey = tuple[Span, Instance | None]


@dataclass(frozen=True)
class Options:
    use_cache: bool = True
    preview: bool = False
    snippets: bool = True  # only the full format shows the loop's lines
    # The code that analyses (skewlsp's sources, libcst's release): part of every cache
    # key, worked out once per run where the options are made, and sent to the workers.
    code: str = dataclasses.field(default_factory=code_digest)


@dataclass(frozen=True)
class Job:
    filename: str  # as shown to the user
    path: str | None  # absolute path given to the analysis (None: anonymous stdin)
    settings: Settings
    # (made when a job is: a default instance made here would digest the code at import)
    options: Options = dataclasses.field(default_factory=Options)
    data: bytes | None = None  # stdin contents; None means read ``path``


def decode_source(data: bytes) -> str:
    """Decode like Python does (PEP 263 cookie or UTF-8 with BOM); raises ValueError."""
    if b"\0" in data:
        raise ValueError("binary file (contains NUL bytes)")
    first_two_lines = data.split(b"\n", 2)[:2]
    if not any(b"coding" in line for line in first_two_lines):
        try:  # no cookie possible: UTF-8, what tokenize.detect_encoding would say
            return data.decode("utf-8").removeprefix("\ufeff")
        except UnicodeDecodeError:
            pass  # the slow path below words the error like Python does
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding).removeprefix("\ufeff")
    except SyntaxError as error:  # bad bytes in the first two lines, or a bad cookie
        raise ValueError(f"not valid UTF-8 text ({error.msg})") from None
    except LookupError as error:
        raise ValueError(f"unknown encoding: {error}") from None
    except UnicodeDecodeError as error:
        raise ValueError(
            f"not valid {error.encoding.upper().replace('UTF-8-SIG', 'UTF-8')} text "
            f"(byte {error.start}: {error.reason})"
        ) from None


def _cache_for(settings: Settings) -> Cache:
    """The cache of a settings root (a Cache holds nothing but its directory)."""
    return Cache(directory_for(settings.root, settings.config_path is not None))


class CacheMiss(Exception):
    """Raised instead of analysing when the caller asked for cached results only."""


def analyze_cached(
    source: str,
    data: bytes,
    job: Job,
    *,
    analyse: bool = True,
    digests: DependencyDigests | None = None,
    shared_modules: SharedModules | None = None,
    project: ProjectImporters | None = None,
) -> tuple[list[LoopReport], list[Import]]:
    """Analysis results, from the cache when the file and its imported constants are
    unchanged; with the imports the analysis resolved. ``shared_modules``:
    the constants of imported modules the batch's analyses share; ``project``: the run's
    files, where an inline helper's callers in other modules are looked for."""
    project = project or ProjectImporters(())

    src_roots = job.settings.src
    cache = _cache_for(job.settings) if job.options.use_cache and job.path else None
    planner, assumptions = job.settings.memory_planner, job.settings.assumptions
    key = (
        cache_key(data, job.path or "", src_roots, planner, job.options.code, assumptions.key)
        if cache
        else ""
    )
    path = job.path
    if cache is not None and path is not None:
        cached = cache.get(key, path, src_roots, digests, lambda: project.digest(path))
        if cached is not None:
            return cached
    if not analyse:
        raise CacheMiss(job.filename)
    from skewlsp.api import analyse as run_analysis  # only on a miss: libcst costs more

    resolver = RecordingResolver(src_roots)
    importers = _AskedImporters(project) if b"jit.inline" in data else None
    reports = list(
        run_analysis(
            source,
            job.path,
            resolver=resolver,
            importers=importers,
            shared_modules=shared_modules,
            planner=planner,
            assumptions=assumptions,
        )
    )
    dependencies = resolver.dependencies(job.path)
    if cache is not None:
        # Callers in other modules are a dependency only of a module whose helpers asked.
        callers = project.digest(path) if importers is not None and importers.asked else None
        cache.put(key, reports, dependencies, callers)
    return reports, imports_of(dependencies)


def imports_of(dependencies: Sequence[Dependency]) -> list[Import]:
    """(module, level, importing path or None) of each module read: what a replay watches."""
    return [(module, level, importing) for module, level, _, importing in dependencies]


class _AskedImporters:
    """The run's files as importers, remembering whether the analysis asked for them."""

    def __init__(self, project: ProjectImporters) -> None:
        self.project = project
        self.asked = False

    def __call__(self, path: str | None) -> list[tuple[str, str]]:
        self.asked = True
        return self.project(path)


def _analyse_with_previews(
    source: str,
    job: Job,
    previews: dict[PreviewKey, str],
    refusals: dict[PreviewKey, str],
    shared_modules: SharedModules | None = None,
    project: ProjectImporters | None = None,
) -> tuple[list[LoopReport], list[Import]]:
    """Reports and previews from one analysis (same resolver, same constants as the lint)."""
    from skewlsp import api  # only when previews are asked for: libcst costs more than a warm run
    from skewlsp.cli.preview_text import with_header

    reports: list[LoopReport] = []
    resolver = RecordingResolver(job.settings.src)
    importers = project if project is not None and "jit.inline" in source else None
    found = api.previews(
        source,
        job.path,
        resolver=resolver,
        importers=importers,
        shared_modules=shared_modules,
        planner=job.settings.memory_planner,
        assumptions=job.settings.assumptions,
    )
    for report, preview in found:
        reports.append(report)
        if isinstance(preview, api.LoopPreview):
            previews[(report.span, report.instance)] = with_header(report, preview.rewritten)
        else:
            refusals[(report.span, report.instance)] = str(preview) or "no preview for this loop"
    return reports, imports_of(resolver.dependencies(job.path))


def _with_preview(
    diagnostic: Diagnostic, previews: dict[PreviewKey, str], refusals: dict[PreviewKey, str]
) -> Diagnostic:
    if diagnostic.report is None:
        return diagnostic
    key = (diagnostic.report.span, diagnostic.report.instance)  # one loop, several copies
    if key in previews:
        return dataclasses.replace(diagnostic, preview=previews[key])
    return dataclasses.replace(diagnostic, preview_error=refusals.get(key))


def _snippet(lines: list[str], span: Span) -> tuple[tuple[int, str], ...]:
    last = min(span.end_line, span.line + MAX_SNIPPET_LINES - 1, len(lines))
    return tuple((n, lines[n - 1]) for n in range(span.line, last + 1))


def diagnostics_for(
    filename: str,
    reports: Sequence[LoopReport],
    source: str,
    selection: Selection,
    *,
    snippets: bool = True,
) -> list[Diagnostic]:
    """Flatten reports (each at its loop's header), each with the loop's source lines if asked."""
    if not snippets:
        return flatten(filename, reports, selection)
    lines = source_lines(source)
    return flatten(
        filename,
        reports,
        selection,
        snippet_of=lambda report: _snippet(lines, report.span),
    )


def _file_problem(job: Job, selection: Selection, message: str) -> FileResult:
    diagnostics: tuple[Diagnostic, ...] = ()
    if selection.is_enabled(UNREADABLE_FILE):
        diagnostics = (
            Diagnostic(
                job.filename,
                "file",
                UNREADABLE_FILE,
                f"cannot read file: {message}",
                Span(1, 1, 1, 1),
                selection.severity(UNREADABLE_FILE),
            ),
        )
    return FileResult(job.filename, diagnostics, job.settings.fail_on)


def lint_job(
    job: Job,
    *,
    analyse: bool = True,
    digests: DependencyDigests | None = None,
    plain: PlainFiles | None = None,
    shared_modules: SharedModules | None = None,
    project: ProjectImporters | None = None,
) -> FileResult | None:
    """Lint one file; never raises (an analysis crash becomes ``internal_error``).

    With ``analyse=False`` only what needs no analysis is done (files without
    ``pipeline``, cache hits) and ``None`` means "needs the analysis". With
    ``plain``, files it knows to lack ``pipeline`` are not even read. With
    ``shared_modules``, the analysis shares the constants of the modules it imports
    with the other files of the batch. ``project``: the run's files, where an inline
    helper's callers in other modules are looked for (none when not given).
    """
    selection = Selection.from_settings(job.settings, summarise=SUMMARISED_BY_DEFAULT)
    data = job.data
    status: os.stat_result | None = None
    if data is None:
        name = job.path or job.filename
        try:
            if plain is not None:
                status = os.stat(name)
                if plain.known(name, status):
                    return FileResult(job.filename, (), job.settings.fail_on)
            with open(name, "rb") as stream:
                data = stream.read()
        except OSError as error:
            return _file_problem(job, selection, error.strerror or str(error))
    if not worth_reading(data) and b"\0" not in data:  # binary files are reported (SKW902)
        if plain is not None and status is not None:
            plain.add(job.path or job.filename, status)
        return FileResult(job.filename, (), job.settings.fail_on)
    try:
        source = decode_source(data)
    except ValueError as error:
        return _file_problem(job, selection, str(error))
    previews: dict[PreviewKey, str] = {}
    refusals: dict[PreviewKey, str] = {}
    try:
        if job.options.preview:
            if not analyse:
                raise CacheMiss(job.filename)
            reports, imports = _analyse_with_previews(
                source, job, previews, refusals, shared_modules, project
            )
        else:
            reports, imports = analyze_cached(
                source,
                data,
                job,
                analyse=analyse,
                digests=digests,
                shared_modules=shared_modules,
                project=project,
            )
    except CacheMiss:
        return None
    except Exception as error:  # noqa: BLE001 - the analysis must not take the run down
        return FileResult(
            job.filename,
            (),
            job.settings.fail_on,
            internal_error=f"{type(error).__name__}: {error}",
        )
    diagnostics = select_and_suppress(
        diagnostics_for(job.filename, reports, source, selection, snippets=job.options.snippets),
        source,
        job.filename,
        selection,
    )
    # One count per loop the compiler sees: each copy of a loop (an inline helper's loop at
    # each call, a program per iteration) is a loop of its own; remarks are not loops.
    summarised = tuple(
        d.code for d in diagnostics if d.code in selection.summarised and d.kind == "loop"
    )
    if any(d.code in selection.summarised for d in diagnostics):
        diagnostics = [d for d in diagnostics if selection.is_listed(d.code)]
    if job.options.preview:
        diagnostics = [_with_preview(d, previews, refusals) for d in diagnostics]
    diagnostics.sort(key=lambda d: d.sort_key)
    return FileResult(
        job.filename,
        tuple(diagnostics),
        job.settings.fail_on,
        summarised=summarised,
        imports=tuple(dict.fromkeys(imports)),
    )


def run_jobs(jobs: Sequence[Job], workers: int | None = None) -> list[FileResult]:
    """Lint every job, in parallel when there are enough files to pay for a pool.

    Files without loops and cache hits are answered here first; only the files
    that need an analysis go to the pool, so a warm run starts no workers. The
    pool starts as soon as enough files need one, and its workers import the
    analysis engine while this pass goes on reading the rest.
    """
    workers = workers or os.cpu_count() or 1
    project = ProjectImporters(
        [job.path for job in jobs if job.path is not None and job.data is None]
    )
    digests = DependencyDigests()
    plains: dict[Path, PlainFiles] = {}
    results: list[FileResult | None] = []
    pending: list[int] = []
    pool: _Pool | None = None
    try:
        for index, job in enumerate(jobs):
            plain = None
            if job.options.use_cache and job.path is not None and job.data is None:
                plain = plains.get(job.settings.root)
                if plain is None:
                    plain = plains[job.settings.root] = PlainFiles(
                        _cache_for(job.settings), job.options.code
                    )
            result = lint_job(
                job, analyse=False, digests=digests, plain=plain, project=project
            )
            results.append(result)
            if result is None:
                pending.append(index)
                if pool is None and workers > 1 and len(pending) > PARALLEL_THRESHOLD:
                    pool = _Pool.start(workers)
        todo = [jobs[i] for i in pending]
        done = pool.run(todo, project.paths) if pool is not None else None
    finally:
        if pool is not None:
            pool.close()
        for plain in plains.values():
            plain.save()
    if done is None:
        done = _lint_many(todo, project=project)
    for index, result in zip(pending, done, strict=True):
        results[index] = result
    return [result for result in results if result is not None]


def _lint_many(jobs: list[Job], project: ProjectImporters) -> list[FileResult | None]:
    """Files linted in order (a pool task: a folder's files), sharing what they import.

    A kernel package's files import the same config modules: their constants are
    folded once for all of them (one ``SharedModules`` handed to each analysis; the
    engine is imported here only when some file needs an analysis). ``project`` is the
    run's files, where an inline helper's callers in other modules are looked for.
    """
    if not jobs:
        return []
    from skewlsp import api

    shared = api.SharedModules()
    return [lint_job(job, shared_modules=shared, project=project) for job in jobs]


def _warm_worker() -> None:
    """Import the analysis engine (libcst included) before the first job arrives.

    A forked worker has the engine already (the parent imported it before forking).
    """
    from skewlsp.api import load_engine

    load_engine()

    gc.freeze()  # what the worker has imported is never garbage: keep it out of collections


def _start_method() -> str | None:
    """``fork`` on Linux (what CPython 3.11 uses there by default, but 3.14 no longer does):
    workers then inherit the engine the parent imported once, instead of importing it
    each. Elsewhere the platform's default (fork is unsafe on macOS)."""
    return "fork" if sys.platform == "linux" else None


def _job_size(job: Job) -> int:
    if job.data is not None:
        return len(job.data)
    try:
        return os.stat(job.path or job.filename).st_size
    except OSError:
        return 0


def pool_tasks(places: Sequence[tuple[str, int]], workers: int) -> list[list[int]]:
    """The pool's tasks: indices of ``places`` (each file's folder and size, in the run's
    order), the largest tasks first.

    A task is a folder's files: a kernel package's files import the same config
    module and inline helpers, which a worker reads, folds and makes trees of once
    for all of them (a task per run of similar sizes spread each package over every
    worker: 5% more CPU on pypto-lib's kernels, for the same wall time). A folder
    holding more than 1/(LARGEST_TASK_SHARE * workers) of the run's bytes is cut into
    parts of about that size, so that no worker is left with a long task at the end
    while the others idle; folders under 1/(TASKS_PER_WORKER * workers) are packed
    together, since a task per file cost a tenth of a cold run over a thousand small
    kernels in pickling and messages.
    """
    total = sum(size for _, size in places) or 1
    largest = total / (workers * LARGEST_TASK_SHARE)
    smallest = total / (workers * TASKS_PER_WORKER)
    folders: dict[str, list[int]] = {}
    for index, (folder, _) in enumerate(places):
        folders.setdefault(folder, []).append(index)
    parts: list[tuple[int, list[int]]] = []
    for members in folders.values():
        part: list[int] = []
        size = 0
        for index in members:
            part.append(index)
            size += places[index][1]
            if size >= largest:
                parts.append((size, part))
                part, size = [], 0
        if part:
            parts.append((size, part))
    parts.sort(key=lambda found: -found[0])
    tasks: list[list[int]] = []
    packed: list[int] = []
    packed_size = 0
    for size, part in parts:
        if size >= smallest:
            tasks.append(part)
            continue
        packed += part
        packed_size += size
        if packed_size >= smallest:
            tasks.append(packed)
            packed, packed_size = [], 0
    if packed:
        tasks.append(packed)
    return tasks


class _Pool:
    """Worker processes for the analysis; any failure to use them means "run serially"."""

    def __init__(self, executor: ProcessPoolExecutor, workers: int) -> None:
        self._executor = executor
        self._workers = workers

    @classmethod
    def start(cls, workers: int) -> _Pool | None:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor  # only when a pool runs: ~10 ms

        method = _start_method()
        if method == "fork":
            # Imported once here and inherited, rather than once per worker; frozen so that
            # the workers' collections do not touch (and so copy) the inherited pages.
            from skewlsp.api import load_engine

            load_engine()

            gc.freeze()
        try:
            executor = ProcessPoolExecutor(
                max_workers=workers,
                mp_context=multiprocessing.get_context(method),
                initializer=_warm_worker,
            )
            executor.submit(int)  # workers are created (and warm up) now, not at the first job
        except (OSError, PermissionError, RuntimeError):
            return None  # e.g. no /dev/shm in a sandbox
        finally:
            if method == "fork":
                gc.unfreeze()  # the parent may be a host process (a test): leave it as it was
        return cls(executor, workers)

    def run(self, todo: list[Job], project: Sequence[str]) -> list[FileResult | None] | None:
        """Results in ``todo``'s order, or None if the pool broke (the caller runs serially).

        The files travel in tasks of a folder each (see :func:`pool_tasks`), each with the
        run's files (``project``) for a fresh :class:`ProjectImporters`: a task reads
        the texts of those files only if one of its helpers asks for callers.
        """
        from concurrent.futures.process import BrokenProcessPool

        places = [(os.path.dirname(job.path or job.filename), _job_size(job)) for job in todo]
        chunks = pool_tasks(places, self._workers)
        results: list[FileResult | None] = [None] * len(todo)
        try:
            futures = [
                (
                    chunk,
                    self._executor.submit(
                        _lint_many, [todo[i] for i in chunk], ProjectImporters(project)
                    ),
                )
                for chunk in chunks
            ]
            for chunk, future in futures:
                for i, result in zip(chunk, future.result(), strict=True):
                    results[i] = result
        except (BrokenProcessPool, OSError, PermissionError):
            return None
        return results

    def close(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)
