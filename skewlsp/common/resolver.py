"""Reading the sibling modules that kernels import constants from (``from consts import N``).

The analysis never touches the file system; it asks this resolver for the text of
a module. We search the importing file's directory, then the configured ``src``
roots, read as UTF-8 with replacement, and never import or execute anything.
Every answer is recorded so the cache can tell when an imported module changed.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from skewlsp.api import ReadLog

MAX_MODULE_BYTES = 2_000_000  # a constants module larger than this is not worth folding
# (module, level, digest or "-" when not found, importing path): one module an analysis
# read. The importing path is None when the file analysed asked; the reads made for a
# module that calls one of its inline helpers name that module's file, which their
# imports (relative or next to it) are resolved from.
Dependency = tuple[str, int, str, "str | None"]


class RecordingResolver(ReadLog):
    """``resolver(module, level, importing_path) -> text | None`` over the file system that
    remembers what it read: the analysis's own record of reads (:class:`ReadLog`), so a
    cache entry depends on exactly what the verdicts did."""

    def __init__(self, src_roots: Sequence[Path]) -> None:
        self.src_roots = roots = tuple(src_roots)

        # (a function of the roots, not a bound method: the log holding its own method
        # would be a reference cycle, left for the garbage collector to find)
        def read(module: str, level: int, importing_path: str | None) -> str | None:
            return resolve_module(module, level, importing_path, roots)

        super().__init__(read)

    @property
    def fingerprint(self) -> list[tuple[str, int, str]]:
        """(module, level, digest) of every module asked for ("-": not found), in order."""
        return sorted((r.module, r.level, r.digest or "-") for r in self.record())

    def dependencies(self, path: str | None) -> list[Dependency]:
        """Every module asked for by the analysis of the file at ``path``, each with the
        file it was asked from when that is another one (see :data:`Dependency`)."""
        found: set[Dependency] = set()
        for read in self.record():
            asked = None if read.importing_path == path else read.importing_path
            found.add((read.module, read.level, read.digest or "-", asked))
        return sorted(found, key=lambda d: (d[0], d[1], d[3] or "", d[2]))


def candidates(
    module: str, level: int, importing_path: str | None, src_roots: Sequence[Path]
) -> list[Path]:
    """The files that could hold ``module``, most specific first."""
    parts = [p for p in module.split(".") if p]
    bases: list[Path] = []
    here = Path(importing_path).resolve().parent if importing_path else None
    if level > 0:
        if here is None:
            return []
        base = here
        for _ in range(level - 1):
            base = base.parent
        bases.append(base)
    else:
        if here is not None:
            bases.append(here)
        bases.extend(src_roots)
    found: list[Path] = []
    for base in bases:
        target = base.joinpath(*parts)
        if parts:
            found.append(target.with_name(target.name + ".py"))
        found.append(target / "__init__.py")
    return found


def read_module(candidate: Path) -> str | None:
    """A candidate module's text, as data: None when absent, unreadable or too large."""
    try:
        if candidate.is_file() and candidate.stat().st_size <= MAX_MODULE_BYTES:
            return candidate.read_text(encoding="utf-8", errors="replace")
    except OSError:
        pass
    return None


def resolve_module(
    module: str, level: int, importing_path: str | None, src_roots: Sequence[Path]
) -> str | None:
    for candidate in candidates(module, level, importing_path, src_roots):
        text = read_module(candidate)
        if text is not None:
            return text
    return None
