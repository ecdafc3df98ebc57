"""Following ``from module import NAME`` to the constants a kernel reads from other files.

Every module is read through the caller's resolver (the analysis never touches the
file system), so what a verdict depends on is exactly what the resolver was asked.
"""

from __future__ import annotations

from collections.abc import Callable

from .constants import ModuleConstants
from .report import Resolver
from .source_index import ModuleIndex, imported_module_index
from .values import Folded, Opaque

MAX_IMPORT_DEPTH = 8  # modules followed from a kernel through `from m import NAME` chains


def imported_lookup(
    index: ModuleIndex, path: str | None, resolver: Resolver | None, depth: int = 0
) -> Callable[[str], Folded | None]:
    """Names imported from sibling modules, read through the caller's resolver."""
    cache: dict[str, ModuleConstants | None] = {}

    def module_of(module: str, level: int) -> ModuleConstants | None:
        key = f"{level}:{module}"
        if key not in cache:
            cache[key] = None
            try:
                text = resolver(module, level, path) if resolver else None
            except Exception:
                text = None
            if text is not None and depth < MAX_IMPORT_DEPTH:
                other = imported_module_index(text)
                nested = imported_lookup(other, path, resolver, depth + 1)
                cache[key] = ModuleConstants(
                    other.constant_sources,
                    nested,
                    classes=other.class_sources,
                    functions=other.function_sources,
                )
        return cache[key]

    def lookup(name: str) -> Folded | None:
        imported = index.imported.get(name)
        if imported is None:
            return None
        if resolver is None:
            return Opaque(name, f"`{name}` is imported from `{imported.module}`")
        constants = module_of(imported.module, imported.level)
        if constants is None:
            return Opaque(
                name, f"`{name}` is imported from `{imported.module}`, which was not found"
            )
        found = constants(imported.name)
        if found is None:
            return Opaque(name, f"`{name}` is not a constant of `{imported.module}`")
        return found

    return lookup
