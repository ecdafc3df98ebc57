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


def imported_lookup(
    index: ModuleIndex,
    path: str | None,
    resolver: Resolver | None,
    depth: int = 0,
    origin: Origin | None = None,
) -> Callable[[str], Folded | None]:
    """Names imported from sibling modules, read through the caller's resolver.

    ``origin`` is how the kernel reached the module ``index`` describes (None: the
    kernel itself), so that the module's relative imports climb from where it lives.
    """
    cache: dict[str, ModuleConstants | None] = {}

    def module_of(module: str, level: int) -> ModuleConstants | None:
        key = f"{level}:{module}"
        if key not in cache:
            cache[key] = None
            request = as_seen_from_the_kernel(origin, module, level)
            try:
                text = resolver(*request, path) if resolver and request else None
            except Exception:
                text = None
            if text is not None and request is not None and depth < MAX_IMPORT_DEPTH:
                other = imported_module_index(text)
                where = origin_of(request, text, other, resolver, path)
                nested = imported_lookup(other, path, resolver, depth + 1, where)
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
