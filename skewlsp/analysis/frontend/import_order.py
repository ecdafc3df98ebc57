"""Python's import of a kernel's program, in order: the module attributes each import sees.

A module may set an attribute of a module it imported before it imports others
(``import config``, ``config.MOE_TOKENS = config.PREFILL_TOKENS``, then ``from moe import
...``): a module whose top level runs after that reads the new value with ``from config
import MOE_TOKENS``; one that ran before read the old. Python runs a module's top level
once, at its first import, so the value a ``from m import NAME`` binds is decided by
where that statement falls in the order Python runs the program's top levels: the
kernel's, and within it each module's at its first import, depth first.

:func:`import_order` follows that order through the kernel's imports (read through the
resolver, as every import is: :mod:`.imports`) and records each write
(:class:`Write`) and, for each import statement, how many writes Python had made when
it bound its names (:class:`ImportOrder`). The values are folded where they are used
(:class:`.program_modules.ProgramModules`): a write's value in the module that wrote it, as
that module stands when it writes.

What is not followed: an import inside a function or a branch (only top-level
statements run in order here), ``from pkg import submodule``, a write through another
alias than the module's own (``cfg = config; cfg.X = 1``), and the writes of a module
only imported whole (``import setup_env``) and never written to: only the modules names
are imported from, and those written to, are read.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from skewlsp.analysis.frontend.constants import Assigned, ModuleConstants
from skewlsp.analysis.frontend.source_index import ModuleIndex, imported_module_index
from skewlsp.analysis.frontend.top_level import AttributeWrite, ImportedModule, ImportedName
from skewlsp.analysis.frontend.values import Folded
from skewlsp.contract import Resolver

MAX_IMPORT_DEPTH = 8  # modules followed from a kernel through `from m import NAME` chains
# An import as the kernel's file would ask for it: (module, level) relative to the kernel.
Request = tuple[str, int]
# How the kernel reached a module: its request, and whether it is a package (its
# ``__init__.py``) rather than a plain module file.
Origin = tuple[str, int, bool]


def as_seen_from_the_kernel(origin: Origin | None, module: str, level: int) -> Request | None:
    """``from <level dots><module> import ...`` written in the module the kernel reached as
    ``origin``, as a request relative to the kernel's own file; None if Python refuses it.

    Every resolver call names the kernel's path (so a record of reads means the same
    thing wherever it was made): an absolute import is the same request from anywhere
    (the kernel's directory comes first on the path of a script), and a relative one
    climbs from the package of ``origin`` instead of from the kernel's directory: the
    module ``a.b`` itself if it is a package, else ``a``.
    """
    if origin is None or level == 0:
        return module, level
    outer, outer_level, is_package = origin
    package = [part for part in outer.split(".") if part]
    if not is_package:
        package = package[:-1]
    if outer_level == 0 and not package:
        return None  # a top-level module has no package: "no known parent package"
    parts = [part for part in module.split(".") if part]
    up = level - 1
    if up <= len(package):
        return ".".join([*package[: len(package) - up], *parts]), outer_level
    if outer_level == 0:
        return None  # beyond the top-level package: "attempted relative import"
    return ".".join(parts), outer_level + up - len(package)


def origin_of(
    request: Request, text: str, index: ModuleIndex, resolver: Resolver | None, path: str | None
) -> Origin:
    """``request`` (which resolved to ``text``) with whether it is a package: asked of the
    resolver (its ``__init__`` has the same text) only when the module has relative
    imports of its own, the one thing it changes."""
    module, level = request
    if resolver is None or not any(name.level for name in index.imported.values()):
        return module, level, False
    try:
        init = resolver(f"{module}.__init__" if module else "__init__", level, path)
    except Exception:
        init = None
    return module, level, init == text


@dataclass(frozen=True)
class Write:
    """``<module>.<attr> = <value>`` run while the program loads: the module set
    (``target``, as the kernel would import it), where it is written (``writer``: that
    module's request, None for the kernel; ``line``, 1-based), the value's text, and
    ``made``: how many writes the program had made before it."""

    target: Request
    attr: str
    writer: Request | None
    line: int
    value: str
    made: int


@dataclass(frozen=True)
class ImportOrder:
    """The module attribute writes of a kernel's program, in the order Python makes them.

    ``bound``: for each import statement (its module, None for the kernel, and line), how
    many writes had been made when it bound its names; ``ended``: the same when each
    module's top level had run; ``reached``: how the kernel reached each module (its
    origin) and how many imports deep.
    """

    writes: tuple[Write, ...] = ()
    bound: Mapping[tuple[Request | None, int], int] = field(default_factory=dict)
    ended: Mapping[Request | None, int] = field(default_factory=dict)
    reached: Mapping[Request, tuple[Origin, int]] = field(default_factory=dict)

    def written(self, target: Request, attr: str, before: int) -> Write | None:
        """The last write of ``target.attr`` among the first ``before`` writes (None: the
        module's own value stands)."""
        for write in reversed(self.writes[:before]):
            if write.attr == attr and write.target == target:
                return write
        return None

    def at_import(self, module: Request | None, line: int) -> int:
        """How many writes the import statement at ``line`` of ``module`` sees."""
        return self.bound.get((module, line), len(self.writes))

    def at_end(self, module: Request | None) -> int:
        """How many writes ``module``'s own top level sees last (every write, for a module
        whose top level was not followed)."""
        return self.ended.get(module, len(self.writes))


NOTHING_WRITTEN = ImportOrder()


class Program(Protocol):
    """What an import of a program that writes module attributes asks of the program
    (:class:`.program_modules.ProgramModules`; named here so that :mod:`.imports`, which
    makes that program's modules, need not import it back)."""

    @property
    def order(self) -> ImportOrder: ...

    def constants(self, module: Request) -> ModuleConstants | None: ...

    def bound(self, reader: Request | None, imported: ImportedName) -> Folded | None: ...

    def assignment(self, reader: Request | None, imported: ImportedName) -> Assigned | None: ...

    def module_object(
        self, reader: Request | None, module: ImportedModule | None
    ) -> Folded | None: ...


def import_order(index: ModuleIndex, path: str | None, resolver: Resolver | None) -> ImportOrder:
    """The order of the program whose kernel (at ``path``) ``index`` describes; modules
    are read through ``resolver`` (a module it cannot find is not followed)."""
    if resolver is None:
        return NOTHING_WRITTEN
    loader = _Loader(path, resolver)
    loader.run(None, None, index, 0)
    if not loader.writes:
        return NOTHING_WRITTEN
    return ImportOrder(tuple(loader.writes), loader.bound, loader.ended, loader.reached)


class _Loader:
    """Runs the program's top levels in Python's order, recording what they write."""

    def __init__(self, path: str | None, resolver: Resolver) -> None:
        self._path = path
        self._resolver = resolver
        self.writes: list[Write] = []
        self.bound: dict[tuple[Request | None, int], int] = {}
        self.ended: dict[Request | None, int] = {}
        self.reached: dict[Request, tuple[Origin, int]] = {}
        self._started: set[Request] = set()

    def run(
        self, me: Request | None, origin: Origin | None, index: ModuleIndex, depth: int
    ) -> None:
        """Run ``index``'s module (``me``, reached as ``origin``) at ``depth`` imports deep."""
        for event in load_events(index):
            if isinstance(event, AttributeWrite):
                target = write_target(index, event, origin)
                if target is not None:
                    made = len(self.writes)
                    self.writes.append(
                        Write(target, event.attr, me, event.line, event.value, made)
                    )
                continue
            request = as_seen_from_the_kernel(origin, event.module, event.level)
            if request is not None and _followed(event, index):
                self._load(request, depth + 1)
            self.bound[(me, event.line)] = len(self.writes)
        self.ended[me] = len(self.writes)

    def _load(self, request: Request, depth: int) -> None:
        if request in self._started or depth > MAX_IMPORT_DEPTH:
            return
        self._started.add(request)
        try:
            text = self._resolver(*request, self._path)
        except Exception:
            text = None
        if text is None:
            return
        index = imported_module_index(text)
        if index.syntax_problem is not None:
            return
        origin = origin_of(request, text, index, self._resolver, self._path)
        self.reached[request] = (origin, depth)
        self.run(request, origin, index, depth)


def _followed(imported: ImportedName | ImportedModule, index: ModuleIndex) -> bool:
    """Whether the import's module is read: one names are imported from, or one the
    importing module sets an attribute of (``import os`` alone is not: it binds no value
    the analysis folds, and a module imported that way is not read for its writes); never
    the standard library's (``from dataclasses import replace``), which sets no kernel's
    sizes (asking for it cost each language-server edit a fruitless search)."""
    if imported.level == 0 and imported.module.split(".")[0] in sys.stdlib_module_names:
        return False
    if isinstance(imported, ImportedName):
        return True
    return any(
        index.modules.get(write.alias) is imported for write in index.attribute_writes
    )


def write_target(
    index: ModuleIndex, write: AttributeWrite, origin: Origin | None
) -> Request | None:
    """The module ``write`` (``config.X = ...``, in the module ``index`` reached as
    ``origin``; None: the kernel's) sets, as the kernel would import it (None: its alias
    names no module the module imports)."""
    module = index.modules.get(write.alias)
    if module is None:
        return None
    return as_seen_from_the_kernel(origin, module.module, module.level)


# An attribute a module's text may read: a name, or a name and one attribute of it
# (``config.TOKENS``).
_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?")
# (module, attribute) pairs a file sets while it loads, the module as the kernel imports it.
AttributesSet = frozenset[tuple[Request, str]]


def attributes_set(index: ModuleIndex) -> AttributesSet:
    """The module attributes the kernel's own file sets while it loads (the module as the
    kernel imports it, the attribute), as :func:`import_order` reads them."""
    found = set()
    for write in index.attribute_writes:
        target = write_target(index, write, None)
        if target is not None:
            found.add((target, write.attr))
    return frozenset(found)


def reads_what_is_set(
    index: ModuleIndex, origin: Origin | None, text: str, set_here: AttributesSet
) -> bool:
    """Whether ``text`` (a function of the module ``index``, reached as ``origin``) names,
    itself or through its module's constants, an attribute in ``set_here``: imported by
    name (``from config import TOKENS``) or read off the module (``config.TOKENS``). Read
    off the texts: where the kernel's program may give the function other sizes than
    its module's own."""
    names = set()
    for local, imported in index.imported.items():
        request = as_seen_from_the_kernel(origin, imported.module, imported.level)
        if (request, imported.name) in set_here:
            names.add(local)
    for alias, module in index.modules.items():
        request = as_seen_from_the_kernel(origin, module.module, module.level)
        names.update(f"{alias}.{attr}" for target, attr in set_here if target == request)
    if not names:
        return False
    seen: set[str] = set()
    texts = [text]
    while texts:
        for word in _NAME.findall(texts.pop()):
            first = word.split(".")[0]
            if word in names or first in names:
                return True
            if first not in seen and first in index.constant_sources:
                seen.add(first)
                texts.append(index.constant_sources[first])
    return False


def load_events(index: ModuleIndex) -> list[ImportedName | ImportedModule | AttributeWrite]:
    """The module's top-level imports (one per statement) and attribute writes, in the
    order Python runs them (what a module's program order is read from; the unit cache
    digests it too)."""
    found: dict[tuple[int, str, int], ImportedName | ImportedModule | AttributeWrite] = {}
    imports: list[ImportedName | ImportedModule] = [
        *index.imported.values(),
        *index.modules.values(),
    ]
    for imported in imports:
        found.setdefault((imported.line, imported.module, imported.level), imported)
    events = [*found.values(), *index.attribute_writes]
    return sorted(events, key=lambda event: event.line)
