"""One record of what an analysis read: every imported module, at any depth.

The analysis reaches other modules only through the caller's resolver, so
wrapping it is enough to know exactly what a verdict depends on. A cached
verdict stays valid while every module in its record still resolves to the
same text; the record cannot drift from the analysis because it *is* the
analysis's own reads, not a second walk of the imports.
"""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass

from skewlsp.contract import Resolver


@dataclass(frozen=True)
class ModuleRead:
    """``resolver(module, level, importing_path)`` answered text with this digest (None:
    no such module)."""

    module: str
    level: int
    importing_path: str | None
    digest: str | None


def digest_of(text: str | None) -> str | None:
    if text is None:
        return None
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class ReadLog:
    """A resolver that remembers every answer it gave (thread-safe: servers analyse in threads).

    One analysis asks the same question many times (the module context, each cached
    unit's check that its reads are current, imported helpers); it is answered once,
    so an analysis also sees one consistent text of each module.
    """

    def __init__(self, resolver: Resolver) -> None:
        self._resolver = resolver
        self._reads: dict[tuple[str, int, str | None], ModuleRead] = {}
        self._texts: dict[tuple[str, int, str | None], str | None] = {}
        self._lock = threading.Lock()

    def __call__(self, module: str, level: int, importing_path: str | None) -> str | None:
        key = (module, level, importing_path)
        with self._lock:
            if key in self._texts:
                return self._texts[key]
        text = self._resolver(module, level, importing_path)
        read = ModuleRead(module, level, importing_path, digest_of(text))
        with self._lock:
            self._reads[key] = read
            self._texts[key] = text
        return text

    def record(self) -> frozenset[ModuleRead]:
        with self._lock:
            return frozenset(self._reads.values())


def still_current(reads: frozenset[ModuleRead], resolver: Resolver | None) -> bool:
    """Whether every module in ``reads`` still resolves to the text that was read."""
    for read in reads:
        if resolver is None:
            return False
        try:
            text = resolver(read.module, read.level, read.importing_path)
        except Exception:
            return False
        if digest_of(text) != read.digest:
            return False
    return True
