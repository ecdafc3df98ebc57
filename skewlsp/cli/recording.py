"""Recording what a run read and wrote, so that an identical later run can replay it.

See :mod:`skewlsp.cli.replay` for why and for the check. The flow fills a
:class:`RunRecord` as it goes (the jobs, their results, the directories it
walked, where the output went); :class:`Recording` captures what was written
to stdout and stderr and, once the run succeeded, turns the record into the
list of signatures that :func:`skewlsp.cli.replay.unchanged` checks.
Only plain lint runs are recorded: never one that read stdin, wrote fixes,
ran without the cache, or failed (exit 2).
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TextIO

from skewlsp.cli import replay
from skewlsp.cli.own_code import own_sources
from skewlsp.common.config import CONFIG_FILENAMES
from skewlsp.common.resolver import candidates

if TYPE_CHECKING:
    from skewlsp.cli.runner import Job
    from skewlsp.common.diagnostic import FileResult

MAX_RECORDS = 32  # one record per distinct command line and directory; the oldest go
# Files in a directory that decide settings or which files are linted.
SETTINGS_FILES = (*CONFIG_FILENAMES, ".gitignore")


@dataclass
class RunRecord:
    """What the lint flow tells the recording: set by ``app._check`` as it runs."""

    eligible: bool = False  # a plain lint run (no stdin, fixes or --no-cache)
    config: str | None = None  # --config PATH
    paths: list[str] = field(default_factory=list)  # the command line's paths, as given
    jobs: Sequence[Job] = ()
    results: Sequence[FileResult] = ()
    walked: list[str] = field(default_factory=list)  # directories discovery listed
    output_file: str | None = None  # absolute path of --output-file
    output: str = ""  # what was written there


class _Tee:
    """A text stream that keeps a copy of everything written through it."""

    def __init__(self, inner: TextIO) -> None:
        self._inner = inner
        self.parts: list[str] = []

    def write(self, text: str) -> int:
        self.parts.append(text)
        return self._inner.write(text)

    def writelines(self, lines: Sequence[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> object:  # isatty, fileno, flush, encoding, ...
        return getattr(self._inner, name)


class Recording:
    """Around one run: capture its output, then record it if it may be replayed."""

    def __init__(self, argv: Sequence[str], key: tuple[object, ...] | None = None) -> None:
        self.argv = list(argv)
        self.key = key if key is not None else replay.run_key(self.argv)
        self.started = time.time_ns()
        self.record = RunRecord()

    @contextlib.contextmanager
    def capturing(self) -> Iterator[RunRecord]:
        out, err = _Tee(sys.stdout), _Tee(sys.stderr)
        sys.stdout, sys.stderr = out, err
        try:
            yield self.record
        finally:
            sys.stdout, sys.stderr = out._inner, err._inner
        self.stdout, self.stderr = "".join(out.parts), "".join(err.parts)

    def save(self, code: int) -> None:
        """Write the record if the run may be replayed; never raises."""
        if code not in (0, 1) or not self.record.eligible:
            return
        try:
            observed = observations(self.record)
            if any(_fresh(sig, self.started) for _, sig in observed):
                return  # something changed just before or during the run: not trusted
            header: dict[str, object] = {
                "key": self.key,
                "observed": observed,
                "stderr": self.stderr,
                "output_file": self.record.output_file,
                "output": self.record.output,
                "code": code,
            }
            stream = sys.stdout
            encoding = getattr(stream, "encoding", None) or "utf-8"
            errors = getattr(stream, "errors", None) or "strict"
            data = replay.pack(header, self.stdout.encode(encoding, errors))
            _write(replay.memo_path(self.key), data)
        except Exception:  # noqa: BLE001 - no record only means no replay next time
            return


def _fresh(sig: replay.Signature | None, started: int) -> bool:
    return sig is not None and max(sig[0], sig[1]) >= started - replay.FRESH_NS


def observations(record: RunRecord) -> list[tuple[str, replay.Signature | None]]:
    """The (path, signature) pairs whose being unchanged means the same output."""
    files: set[str] = set(own_sources())
    directories: set[str] = set(record.walked) | set(_dependency_folders())
    directories.add(os.getcwd())
    if record.config is not None:
        files.add(os.path.abspath(record.config))
    for given in record.paths:
        # As written and as resolved: a symlink on the way is followed (its directory
        # changes when it is pointed elsewhere), and an explicit file that became no job
        # (--force-exclude) still has the folder whose config excluded it.
        for absolute in (os.path.abspath(given), os.path.realpath(given)):
            directories.add(absolute if os.path.isdir(absolute) else os.path.dirname(absolute))
    for job, result in zip(record.jobs, record.results, strict=True):
        if job.path is None:
            continue
        files.add(job.path)
        directories.add(os.path.dirname(job.path))
        roots = job.settings.src
        for root in roots:
            directories.add(str(root))
        for module, level, importing in result.imports:
            for candidate in candidates(module, level, importing or job.path, roots):
                text = str(candidate)
                if os.path.isfile(text):
                    files.add(text)
                directories.add(_existing(os.path.dirname(text)))
    for directory in list(directories):
        directories.update(_ancestors(directory))
    for directory in directories:
        files.update(_settings_files(directory))
    return [(path, replay.signature(path)) for path in sorted(directories | files)]


def _ancestors(directory: str) -> Iterator[str]:
    while True:
        parent = os.path.dirname(directory)
        if parent == directory:
            return
        yield parent
        directory = parent


def _existing(directory: str) -> str:
    """``directory`` or its nearest existing ancestor (whose entries would change)."""
    while not os.path.isdir(directory):
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    return directory


def _settings_files(directory: str) -> Iterator[str]:
    for name in SETTINGS_FILES:
        path = os.path.join(directory, name)
        if os.path.isfile(path):
            yield path
    # A repository root's exclude file counts too, recorded even when absent (it may
    # appear where nothing else recorded changes). ``.git`` itself is not recorded: git
    # rewrites entries in it all the time, and a ``.git`` appearing or going changes the
    # mtime of ``directory``, which is.
    if os.path.exists(os.path.join(directory, ".git")):
        yield os.path.join(directory, ".git", "info")
        yield os.path.join(directory, ".git", "info", "exclude")


def _dependency_folders() -> Iterator[str]:
    """Where libcst and pathspec are installed: installing or upgrading any package there
    adds or removes entries, so a run after it is done in full."""
    import importlib.util

    for name in ("libcst", "pathspec"):
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.origin:
            yield os.path.dirname(os.path.dirname(spec.origin))


def _write(target: str, data: bytes) -> None:
    """Atomically (temp file + rename), keeping at most MAX_RECORDS records."""
    import tempfile

    directory = os.path.dirname(target)
    os.makedirs(directory, exist_ok=True)
    handle, temp = tempfile.mkstemp(dir=directory, prefix=".tmp-")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    with contextlib.suppress(OSError):  # the oldest others go; never the one just written
        others = sorted(
            (entry.stat().st_mtime_ns, entry.path)
            for entry in os.scandir(directory)
            if entry.name.endswith(".marshal") and entry.path != target
        )
        for _, path in others[: max(0, len(others) - (MAX_RECORDS - 1))]:
            os.unlink(path)
