"""Reports of units already analysed, so an edit costs the function it touched.

A unit's reports depend on its own text, its position in the file, what it
can see from the rest of the module (constants, config classes, imports: the
key holds those) and the imported modules it read, at any depth (recorded with
the entry and checked on every hit). So a hit is always exactly what a fresh
analysis would say. An entry also keeps what the analysis read of the assumed build
(its environment and arguments, :mod:`~skewlsp.analysis.frontend.assumed`): a hit
charges the analysis with those reads, as a fresh analysis would have made them, so
its verdicts are decided again under the other declared values (the build itself is
in the key). Pure: an in-memory map owned by the caller (the language server keeps
one); nothing is read or written here.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass

from skewlsp.analysis.frontend.assumed import AssumedRead, Build
from skewlsp.analysis.frontend.import_order import load_events
from skewlsp.analysis.frontend.reads import ModuleRead, still_current
from skewlsp.analysis.frontend.source_index import ModuleIndex
from skewlsp.analysis.frontend.top_level import AttributeWrite, ImportedModule, ImportedName
from skewlsp.analysis.lower_pipeline.loop_facts import LoopFacts
from skewlsp.analysis.lower_pipeline.lowering import Lowered
from skewlsp.analysis.memory.core_function import CoreFunction
from skewlsp.analysis.report.finish import Said
from skewlsp.analysis.reuse.incremental import IndexedText
from skewlsp.analysis.source.kept import Kept, Keyed
from skewlsp.contract import LoopReport, Resolver

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
MAX_TEXTS = 64  # documents whose last text and index are kept for incremental re-indexing
# (path, unit text, line offset, module context, callers' texts and offsets, memory planner,
# assumed build, and for an imported helper's copies at the calls here, how it was imported)
UnitKey = tuple[object, ...]
# Each loop's report as its walk left it, what only the lowering reads of it and what the
# lowering decided of it, its record (a cached helper copy's lowered loops charge the slot
# budget of the loops lowered after them).
Loop = tuple[LoopReport, LoopFacts, Lowered | None]
# The loops of a unit (or of a helper's copy), the modules its analysis read, and what
# it read of the assumed build.
_Entry = tuple[tuple[Loop, ...], frozenset[ModuleRead], frozenset[AssumedRead]]
# An inline helper's copy at one call: what it is decided with (see driver.site_memo).
SiteKey = tuple[object, ...]
MAX_SITES = 512
MAX_FINISHED = 256  # modules' loops kept through the stages across loops (per build)



class Shelf:
    """Entries of one kind (the units', a helper's copies at their calls, a module's
    loop-less scopes): a bounded LRU map, and how many asks it answered and missed. It
    shares its cache's lock (a server analyses documents in worker threads)."""

    def __init__(self, limit: int, lock: threading.Lock) -> None:
        self.entries: OrderedDict[UnitKey, _Entry] = OrderedDict()
        self.hits = 0
        self.misses = 0
        self._limit = limit
        self._lock = lock

    def get(
        self, key: UnitKey, resolver: Resolver | None, build: Build | None = None
    ) -> tuple[Loop, ...] | None:
        """The entry's loops, if every module its analysis read is unchanged (``build``,
        the analysis's, is charged with what it read of the assumed build)."""
        with self._lock:
            found = self.entries.get(key)
        if found is not None and not still_current(found[1], resolver):
            found = None
        with self._lock:
            if found is None:
                self.misses += 1
                return None
            self.entries.move_to_end(key)
            self.hits += 1
        if build is not None:
            build.note(found[2])
        return found[0]

    def put(
        self,
        key: UnitKey,
        loops: tuple[Loop, ...],
        reads: frozenset[ModuleRead],
        assumed: frozenset[AssumedRead] = frozenset(),
    ) -> None:
        with self._lock:
            self.entries[key] = (loops, reads, assumed)
            self.entries.move_to_end(key)
            while len(self.entries) > self._limit:
                self.entries.popitem(last=False)


class UnitCache:
    """A bounded LRU map from unit keys to the reports of that unit's loops."""

    def __init__(self, max_units: int = 2048) -> None:
        self._lock = threading.Lock()  # a server analyses documents in worker threads
        self.units = Shelf(max_units, self._lock)
        self._texts: OrderedDict[str | None, _Text] = OrderedDict()
        # Copies of inline helpers at their calls: an edit in a caller changes the helper's
        # unit key, but rarely what one call passes it (then its copy is not decided again).
        self.sites = Shelf(MAX_SITES, self._lock)
        # Per module, the reports of its InCore scopes that hold no pipeline loop
        # (driver.scope_stage): the same after an edit of any function holding a loop.
        self.scopes = Shelf(MAX_TEXTS, self._lock)
        self.parsed_blocks: set[str] = set()  # top-level blocks known to parse
        # What the stages across loops find of a module's loops (driver._across_loops:
        # overlaps, the function stage, the memory passes) and the reports put together
        # from it, by the loops' reports, facts and lowerings as the units' walks leave them: the
        # same after most edits.
        self.finished: Kept[
            Keyed, tuple[tuple[Said, tuple[CoreFunction, ...], LoopReport], ...]
        ] = Kept(MAX_FINISHED)

    def get(
        self, key: UnitKey, resolver: Resolver | None, build: Build | None = None
    ) -> tuple[Loop, ...] | None:
        """The unit's reports, if cached and every module its analysis read is unchanged
        (``build``, the analysis's, is charged with what it read of the assumed build)."""
        return self.units.get(key, resolver, build)

    def put(
        self,
        key: UnitKey,
        reports: tuple[Loop, ...],
        reads: frozenset[ModuleRead],
        assumed: frozenset[AssumedRead] = frozenset(),
    ) -> None:
        self.units.put(key, reports, reads, assumed)

    @property
    def hits(self) -> int:
        """Units reused."""
        return self.units.hits

    @property
    def misses(self) -> int:
        """Units analysed again."""
        return self.units.misses

    @property
    def site_hits(self) -> int:
        """Copies of helpers at their calls reused."""
        return self.sites.hits

    @property
    def scope_hits(self) -> int:
        """Modules' loop-less scopes reused."""
        return self.scopes.hits

    def clear(self) -> None:
        with self._lock:
            self.sites.entries.clear()
            self.scopes.entries.clear()
            self.units.entries.clear()
            self._texts.clear()
            self.parsed_blocks.clear()

    def index(self, path: str | None, source: str) -> ModuleIndex:
        """The module index of ``source``, patched from this path's previous text if possible."""
        return self.index_and_context(path, source)[0]

    def index_and_context(self, path: str | None, source: str) -> tuple[ModuleIndex, str]:
        """:meth:`index`, and its :func:`context_fingerprint`.

        An index patched after an edit inside a function (``reuse.incremental``) keeps
        the previous index's context, the very objects the digest is made of (an index
        is never changed once built): the previous digest is kept with it rather than
        made again (0.2 ms of each typing edit of pypto-lib's largest kernel).
        """
        from skewlsp.analysis.reuse.incremental import update_index

        with self._lock:
            previous = self._texts.get(path)
        indexed = update_index(previous.indexed if previous else None, source)
        if previous is not None and _same_context(previous.indexed.index, indexed.index):
            fingerprint = previous.fingerprint
        else:
            fingerprint = context_fingerprint(indexed.index)
        with self._lock:
            self._texts[path] = _Text(indexed, fingerprint)
            self._texts.move_to_end(path)
            while len(self._texts) > MAX_TEXTS:
                self._texts.popitem(last=False)
        return indexed.index, fingerprint

    def __len__(self) -> int:
        return len(self.units.entries)


@dataclass(frozen=True)
class _Text:
    """A document's last text and index, and the digest of the index's module context."""

    indexed: IndexedText
    fingerprint: str


def _context(index: ModuleIndex) -> tuple[object, ...]:
    """What :func:`context_fingerprint` reads of ``index``."""
    return (
        index.constant_sources,
        index.class_sources,
        index.function_sources,
        index.pl_aliases,
        index.pipeline_names,
        index.imported,
        index.modules,
        index.attribute_writes,
    )


def _same_context(old: ModuleIndex, new: ModuleIndex) -> bool:
    """Whether ``new`` holds ``old``'s very context (an index patched from it in place)."""
    return all(a is b for a, b in zip(_context(old), _context(new), strict=True))


def context_fingerprint(index: ModuleIndex) -> str:
    """A digest of everything in the module outside a unit that its analysis can read.

    Imported modules are not here: what the analysis read of them is recorded by
    :class:`~skewlsp.analysis.frontend.reads.ReadLog` and checked on every hit.
    """
    digest = hashlib.sha256()
    constants = index.constant_sources
    for name in sorted(constants):
        digest.update(f"{name}\0{constants[name]}\0".encode("utf-8", "surrogatepass"))
    # Only classes and functions a constant reaches (a config object, a function that
    # calls another) can change a unit's result; the kernel classes that hold the units
    # themselves change with every edit.
    for name, text in _reached(constants.values(), index):
        digest.update(f"{name}\0{text}\0".encode("utf-8", "surrogatepass"))
    # An inline helper's body is spliced at its calls: a loop that calls one sees its ops
    # (and its `->` types the names its call binds); a host function's call of a jit entry
    # types that entry's bare tensors (and its helpers').
    functions = index.function_sources
    for name in sorted(functions):
        text = functions[name]
        if "jit.inline" in text or "jit.host" in text:
            digest.update(f"inline\0{name}\0{text}\0".encode("utf-8", "surrogatepass"))
    digest.update(repr(sorted(index.pl_aliases)).encode())
    digest.update(repr(sorted(index.pipeline_names)).encode())
    for name in sorted(index.imported):
        imported = index.imported[name]
        digest.update(f"{name}\0{imported.module}\0{imported.name}\0{imported.level}\0".encode())
    # The module attributes it sets while it loads, and where each import falls among
    # them: what a name imported after a write binds (frontend.import_order).
    for event in _load_order(index):
        digest.update(f"{event}\0".encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def _load_order(index: ModuleIndex) -> list[str]:
    """The module's top-level imports and attribute writes in the order Python runs them
    (``import_order.load_events``), each import with the names it binds, without their
    lines (a line added above them moves every one): a module it imports may write what
    an import after it binds, so the order counts even where this module writes nothing."""
    found = []
    for event in load_events(index):
        if isinstance(event, AttributeWrite):
            found.append(f"write {event.alias}.{event.attr} = {event.value}")
            continue
        where = (event.line, event.module, event.level)
        imports: list[tuple[str, ImportedName | ImportedModule]] = [
            *index.imported.items(),
            *index.modules.items(),
        ]
        bound = " ".join(sorted(n for n, i in imports if (i.line, i.module, i.level) == where))
        kind = "from" if isinstance(event, ImportedName) else "import"
        found.append(f"{kind} {'.' * event.level}{event.module}: {bound}")
    return found


def _reached(texts: Iterable[str], index: ModuleIndex) -> list[tuple[str, str]]:
    """The module's classes and functions that ``texts`` name, and those they name in turn."""
    sources = {**index.class_sources, **index.function_sources}
    pending = set().union(*(_names_in(text) for text in texts))
    found: dict[str, str] = {}
    while pending:
        name = pending.pop()
        if name in found or name not in sources:
            continue
        found[name] = sources[name]
        pending.update(_names_in(found[name]))
    return sorted(found.items())


def _names_in(text: str) -> frozenset[str]:
    """The identifiers in a text."""
    return frozenset(_IDENTIFIER.findall(text))
