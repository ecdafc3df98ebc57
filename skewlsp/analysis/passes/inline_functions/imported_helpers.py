"""Calls of ``@pl.jit.inline`` helpers imported from sibling modules.

InlineFunctions splices an imported helper's body into the caller exactly as
it does a helper of the same module, so the loops of that body are compiled
as part of the caller's kernel, decided with the caller's arguments. A
per-file analysis cannot see who imports a helper, but it can see what its own
functions call: each such call gets a report of its own, located at the call
(the loop itself lives in the other file), with the copy's verdict.

Only the helper's own loops are followed: a loop of a helper that the
imported helper calls in turn is not (the analysis of that module reports it).

Models: ``src/ir/transforms/inline_functions_pass.cpp`` (helpers of other modules).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from skewlsp.analysis.frontend.imports import Origin, origin_of
from skewlsp.analysis.frontend.source_index import (
    ModuleIndex,
    Unit,
    imported_module_index,
    is_inline_helper_unit,
)
from skewlsp.analysis.frontend.text_search import called_names
from skewlsp.contract import Resolver


@dataclass(frozen=True)
class ImportedHelper:
    """An inline helper with pipeline loops, found in the module a name is imported from."""

    name: str  # as the caller spells it
    module: str  # as the import names it (for messages)
    origin: Origin  # how this module reached it (its own relative imports climb from there)
    unit: Unit  # the helper, in its own file's coordinates, with this file's callers
    index: ModuleIndex  # its module's index (constants, aliases)
    text: str  # its module's text


def imported_helpers(
    index: ModuleIndex,
    path: str | None,
    resolver: Resolver | None,
    only: Collection[str] | None = None,
) -> list[ImportedHelper]:
    """The imported inline helpers this module's top-level functions call, with those calls
    (``only``: just the helpers of these names, as their module defines them)."""
    if resolver is None or not index.imported:
        return []
    helpers = _helpers_by_name(index, path, resolver, only)
    if not helpers:
        return []
    # Only the names that are inline helpers are searched for: an imported constant
    # (``M``, ``D``) occurs all over a kernel's text, and searching every function for
    # it was a sixth of a language server's work at an edit.
    calls: dict[str, list[str]] = {}  # imported name -> calling functions
    for function, text in index.function_sources.items():
        for name in called_names(tuple(helpers), text):
            calls.setdefault(name, []).append(function)
    found: list[ImportedHelper] = []
    for name, (helper, other, origin, text) in helpers.items():
        callers = calls.get(name)
        if not callers:
            continue
        units = tuple(
            Unit(_ended(index.function_sources[c]), index.function_offsets[c], c)
            for c in sorted(callers)
            if c in index.function_offsets
        )
        found.append(
            ImportedHelper(
                name,
                index.imported[name].module,
                origin,
                Unit(helper.text, helper.line_offset, helper.qualname, units),
                other,
                text,
            )
        )
    return found


_Found = tuple[Unit, ModuleIndex, Origin, str]  # the helper, its module's index, origin, text


def _helpers_by_name(
    index: ModuleIndex,
    path: str | None,
    resolver: Resolver,
    only: Collection[str] | None,
) -> dict[str, _Found]:
    """The imported names that are inline helpers with loops in their module (in import
    order), each module read once."""
    modules: dict[tuple[str, int], tuple[ModuleIndex | None, Origin, str]] = {}
    found: dict[str, _Found] = {}
    for name, imported in index.imported.items():
        if only is not None and imported.name not in only:
            continue
        key = (imported.module, imported.level)
        if key not in modules:
            modules[key] = _read(resolver, imported.module, imported.level, path)
        other, origin, text = modules[key]
        if other is None:
            continue
        helper = next(
            (u for u in other.units if u.qualname == imported.name and is_inline_helper_unit(u)),
            None,
        )
        if helper is not None:
            found[name] = (helper, other, origin, text)
    return found


def _read(
    resolver: Resolver, module: str, level: int, path: str | None
) -> tuple[ModuleIndex | None, Origin, str]:
    """The index of the module a helper is imported from (None: absent, no inline
    helper there, or a syntax error), how this file reached it, and its text."""
    try:
        text = resolver(module, level, path)
    except Exception:
        return None, (module, level, False), ""
    if text is None or "jit.inline" not in text:
        return None, (module, level, False), ""
    other = imported_module_index(text)
    if other.syntax_problem is not None:
        return None, (module, level, False), text
    return other, origin_of((module, level), text, other, resolver, path), text


def _ended(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"
