"""The modules of one kernel's program as its imports see them, writes and all.

:mod:`.import_order` finds which module attribute writes (``config.MOE_TOKENS =
config.PREFILL_TOKENS``) each import statement of a program runs after; this module
gives their values to the imports that read them (:func:`.imports.imported_lookup`):

- ``from config import MOE_TOKENS`` binds the last value written before the statement
  runs, else config's own;
- ``config`` itself (``import config``) is a module object whose attributes are read
  (``config.PREFILL_TOKENS``) as they stand when the reading module's top level ends, or,
  in a write's value, when the write runs;
- a write's value is folded in the module that wrote it, with that module's constants.

One is made per analysis and build of a kernel whose program writes a module attribute
(:func:`skewlsp.analysis.driver.unit_run.module_context`); each module of the program
is then folded once for it, not shared with a batch's other kernels (whose programs may
write otherwise). A program that writes nothing has none: its imports read each
module's own values, as before.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from skewlsp.analysis.frontend import imports
from skewlsp.analysis.frontend.assumed import Build
from skewlsp.analysis.frontend.constants import Assigned, Folder, ModuleConstants
from skewlsp.analysis.frontend.import_order import (
    ImportOrder,
    Request,
    Write,
    as_seen_from_the_kernel,
)
from skewlsp.analysis.frontend.source_index import ModuleIndex, imported_module_index
from skewlsp.analysis.frontend.top_level import ImportedModule, ImportedName
from skewlsp.analysis.frontend.values import Dynamic, Folded, Opaque, Record
from skewlsp.analysis.source import parsing
from skewlsp.contract import Resolver


class ProgramModules:
    """The program of the kernel ``index`` describes (at ``path``), under ``build``: its
    modules' constants and the values its writes give (see the module's doc)."""

    def __init__(
        self,
        order: ImportOrder,
        index: ModuleIndex,
        path: str | None,
        resolver: Resolver | None,
        build: Build,
    ) -> None:
        self.order = order
        self.kernel: ModuleConstants | None = None  # (set by its maker, once made)
        self._index = index
        self._path = path
        self._resolver = resolver
        self._build = build
        self._modules: dict[Request, tuple[ModuleConstants, ModuleIndex] | None] = {}
        self._values: dict[Write, Folded] = {}
        self._busy: set[Write] = set()

    def constants(self, module: Request) -> ModuleConstants | None:
        """The constants of ``module`` as the program loads it (None: not reached)."""
        found = self._module(module)
        return found[0] if found is not None else None

    def _module(self, module: Request) -> tuple[ModuleConstants, ModuleIndex] | None:
        if module in self._modules:
            return self._modules[module]
        self._modules[module] = None
        reached = self.order.reached.get(module)
        try:
            text = self._resolver(*module, self._path) if self._resolver and reached else None
        except Exception:
            text = None
        if text is None or reached is None:
            return None
        origin, depth = reached
        index = imported_module_index(text)
        nested = imports.imported_lookup(
            index, self._path, self._resolver, depth, origin, None, self._build, self
        )
        found = (imports.module_constants(index, nested, self._build, text), index)
        self._modules[module] = found
        return found

    def written(self, target: Request, attr: str, before: int) -> Folded | None:
        """What the last of the first ``before`` writes of ``target.attr`` gave it (None:
        none of them writes it)."""
        write = self.order.written(target, attr, before)
        if write is None:
            return None
        if write in self._values:
            return self._values[write]
        if write in self._busy:
            return Dynamic(attr, f"`{attr}` is written in terms of itself")
        self._busy.add(write)
        try:
            value = self._fold(write)
        finally:
            self._busy.discard(write)
        self._values[write] = value
        return value

    def bound(self, reader: Request | None, imported: ImportedName) -> Folded | None:
        """What ``from m import NAME`` in ``reader`` (None: the kernel) binds, when the
        program wrote ``m.NAME`` before the statement runs (None: it did not)."""
        target = self._target(reader, imported)
        if target is None:
            return None
        return self.written(target, imported.name, self.order.at_import(reader, imported.line))

    def assignment(self, reader: Request | None, imported: ImportedName) -> Assigned | None:
        """Where the value ``from m import NAME`` in ``reader`` binds was written, when the
        program wrote ``m.NAME`` before the statement runs (for a fix line to name it:
        the writing module as the kernel imports it, None for the kernel itself)."""
        target = self._target(reader, imported)
        seen = self.order.at_import(reader, imported.line)
        write = self.order.written(target, imported.name, seen) if target else None
        if write is None:
            return None
        module = "." * write.writer[1] + write.writer[0] if write.writer else None
        return Assigned(write.value, write.line, module)

    def module_object(self, reader: Request | None, module: ImportedModule | None) -> Folded | None:
        """The module ``import <module>`` binds in ``reader`` (None: the kernel), its
        attributes as they stand when ``reader``'s top level ends; None: no such import."""
        target = self._target(reader, module) if module is not None else None
        if target is None:
            return None
        return self._object(target, self.order.at_end(reader))

    def _target(
        self, reader: Request | None, imported: ImportedName | ImportedModule
    ) -> Request | None:
        """The module an import in ``reader`` names, as the kernel would import it."""
        reached = self.order.reached.get(reader) if reader is not None else None
        if reader is not None and reached is None:
            return None  # (a module the program's order did not reach)
        origin = reached[0] if reached is not None else None
        return as_seen_from_the_kernel(origin, imported.module, imported.level)

    def _object(self, target: Request, before: int) -> Record:
        attributes = ModuleAttributes(self, target, before)
        return Record(f"module {target[0]}", attributes, attributes)

    def _fold(self, write: Write) -> Folded:
        if write.writer is None:
            writer, index = self.kernel, self._index
        else:
            found = self._module(write.writer)
            writer, index = found if found is not None else (None, self._index)
        if writer is None:
            return Opaque(write.attr, f"`{write.attr}` is written where skewlsp cannot read")
        try:
            expression = parsing.expression(write.value)
        except Exception:
            return Dynamic(write.attr, f"`{write.value.strip()[:40]}` is not an expression")
        own = writer

        def lookup(name: str) -> Folded | None:
            module = index.modules.get(name)
            target = self._target(write.writer, module) if module is not None else None
            if target is not None:
                return self._object(target, write.made)  # (as the module stands then)
            return own(name)

        return Folder(lookup, None, owner=writer).fold(expression)


class ModuleAttributes(Mapping[str, str]):
    """A module object's attributes as they stand after the program's first ``before``
    writes: the fields of the :class:`~.values.Record` that stands for the module (each
    attribute's text is its own name) and the folder of their values (its owner)."""

    def __init__(self, program: ProgramModules, module: Request, before: int) -> None:
        self._program = program
        self._module = module
        self._before = before

    def _names(self) -> list[str]:
        found = self._program.constants(self._module)
        own = list(found.sources) if found is not None else []
        return own + [
            write.attr
            for write in self._program.order.writes[: self._before]
            if write.target == self._module and write.attr not in own
        ]

    def __getitem__(self, attr: str) -> str:
        found = self._program.constants(self._module)
        if (found is not None and attr in found.sources) or self._program.order.written(
            self._module, attr, self._before
        ):
            return attr
        raise KeyError(attr)

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __len__(self) -> int:
        return len(self._names())

    def fold_text(self, text: str, this: Record | None = None) -> Folded:
        """The value of the attribute ``text``."""
        written = self._program.written(self._module, text, self._before)
        if written is not None:
            return written
        found = self._program.constants(self._module)
        value = found(text) if found is not None else None
        if value is None:
            return Opaque(text, f"`{text}` is not a constant of `{self._module[0]}`")
        return value
