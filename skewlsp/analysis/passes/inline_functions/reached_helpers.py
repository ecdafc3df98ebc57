"""Every inline helper a kernel's call splices in, through the helpers it calls in turn.

InlineFunctions splices a ``@pl.jit.inline`` helper's body into its caller, and the
helpers that body calls into it too, whichever module each lives in: a kernel compiles
them all, each with the values its own program gives their modules. The loops of the
helpers a kernel calls directly are followed by :mod:`.imported_helpers`; what the
memory passes make of a helper's InCore scope without a pipeline loop depends on no
call's arguments the analysis can fold, only on its module's values as the kernel's
program sets them, so those scopes are read through any number of helpers
(``driver.helper_scopes``).

A kernel's call inside an InCore scope of its own (a ``with pl.at(...)``, a ``pl.spmd``
loop) is not followed: a scope the helper opens there would be nested in the kernel's,
which skewlsp does not model (it says nothing of it).

Models: ``src/ir/transforms/inline_functions_pass.cpp``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from skewlsp.analysis.frontend.import_order import (
    Origin,
    as_seen_from_the_kernel,
    origin_of,
)
from skewlsp.analysis.frontend.source_index import (
    INLINE_DECORATOR,
    ModuleIndex,
    imported_module_index,
)
from skewlsp.analysis.frontend.text_search import called_names
from skewlsp.contract import Resolver, Span

# How many helpers deep a kernel's call is followed (pypto-lib's prefill drivers reach the
# gate's scope through one: the MoE layer's helper).
MAX_HELPER_DEPTH = 6
# What the header of a statement opening an InCore scope holds: ``pl.at(...)``, a
# ``pl.spmd`` loop.
_SCOPE_OPENERS = (".at(", "spmd(")


@dataclass(frozen=True)
class HelperModule:
    """A module an inline helper lives in: its index and text, how the kernel reached it
    (``origin``; None: the kernel's own module), and its name as imported ("" for the
    kernel's own), for messages."""

    index: ModuleIndex
    text: str
    origin: Origin | None
    name: str



@dataclass(frozen=True)
class ReachedHelper:
    """An inline helper a call splices in: its name in its module, the module, and the
    helpers between the kernel's call and it (``through``; the kernel's callee first)."""

    name: str
    module: HelperModule
    through: tuple[str, ...]


def kernel_callees(
    own: HelperModule, kernel: str, path: str | None, resolver: Resolver | None
) -> dict[str, tuple[ReachedHelper, ...]]:
    """The inline helpers the top-level function ``kernel`` of ``own`` (the module at
    ``path``) calls, by the name it calls each by, with every helper each splices in (the
    callee first); read off the texts (where the calls are: :func:`calls_outside_scopes`)."""
    text = own.index.function_sources[kernel]
    return {
        name: tuple(_reached(helper, module, path, resolver))
        for name, (helper, module) in _helpers_called(own, text, path, resolver).items()
    }


def _reached(
    name: str, module: HelperModule, path: str | None, resolver: Resolver | None
) -> Iterator[ReachedHelper]:
    """The helper and the helpers it splices in, depth first, each once."""
    seen: set[tuple[Origin | None, str]] = set()
    stack: list[tuple[str, HelperModule, tuple[str, ...]]] = [(name, module, ())]
    while stack:
        helper, where, through = stack.pop()
        if (where.origin, helper) in seen or len(through) >= MAX_HELPER_DEPTH:
            continue
        seen.add((where.origin, helper))
        yield ReachedHelper(helper, where, through)
        text = where.index.function_sources[helper]
        called = _helpers_called(where, text, path, resolver)
        for _, (other, home) in sorted(called.items(), reverse=True):
            stack.append((other, home, (*through, helper)))


def _helpers_called(
    module: HelperModule, text: str, path: str | None, resolver: Resolver | None
) -> dict[str, tuple[str, HelperModule]]:
    """The names ``text`` (a function of ``module``) calls that are inline helpers: of the
    same module, or imported (read through ``resolver``), each with its name in its own
    module and that module."""
    index = module.index
    found: dict[str, tuple[str, HelperModule]] = {}
    for name in called_names(callable_names(index), text):
        imported = index.imported.get(name)
        if imported is None:  # (one of the module's own helpers)
            found[name] = (name, module)
            continue
        home = _read(module, imported.module, imported.level, path, resolver)
        source = home.index.function_sources.get(imported.name) if home else None
        if home is not None and source is not None and inline_function(source):
            found[name] = (imported.name, home)
    return found


def _read(
    module: HelperModule, name: str, level: int, path: str | None, resolver: Resolver | None
) -> HelperModule | None:
    """The module ``from <level dots><name> import`` written in ``module`` reaches (None:
    not found, no inline helper in it, or a syntax error)."""
    request = as_seen_from_the_kernel(module.origin, name, level)
    if request is None or resolver is None:
        return None
    try:
        text = resolver(request[0], request[1], path)
    except Exception:
        return None
    if text is None or "jit.inline" not in text:
        return None
    index = imported_module_index(text)
    if index.syntax_problem is not None:
        return None
    return HelperModule(index, text, origin_of(request, text, index, resolver, path), name)


def callable_names(index: ModuleIndex) -> tuple[str, ...]:
    """The names a function of the module ``index`` may call an inline helper by: its own
    inline helpers and the names it imports."""
    local = {n for n, t in index.function_sources.items() if inline_function(t)}
    return tuple(sorted(local | set(index.imported)))


def inline_function(text: str) -> bool:
    """A function's text decorated ``@pl.jit.inline`` (read off the decorators)."""
    return INLINE_DECORATOR.search(text[: text.find("def ")]) is not None


def calls_outside_scopes(text: str, offset: int, names: frozenset[str]) -> list[tuple[str, Span]]:
    """Each call of one of ``names`` in the function ``text`` (the file's lines from
    ``offset + 1``), where it is in the file, that no InCore scope of the function holds."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return []  # (the file's syntax error is reported on its own)
    lines = text.splitlines()
    found: list[tuple[str, Span]] = []
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if _opens_scope(node, lines):
            continue
        called = node.func if isinstance(node, ast.Call) else None
        if isinstance(called, ast.Name) and called.id in names:
            found.append((called.id, _name_span(called, lines, offset)))
        stack.extend(ast.iter_child_nodes(node))
    return sorted(found, key=lambda call: (call[1].line, call[1].column))


def _opens_scope(node: ast.AST, lines: list[str]) -> bool:
    """A ``with`` or ``for`` statement whose header line opens an InCore scope."""
    if not isinstance(node, (ast.With, ast.For)):
        return False
    header = lines[node.lineno - 1] if node.lineno <= len(lines) else ""
    return any(opener in header for opener in _SCOPE_OPENERS)


def _name_span(name: ast.Name, lines: list[str], offset: int) -> Span:
    """The called name's place in the file: ast's columns are UTF-8 bytes, a Span's code
    points."""
    line = lines[name.lineno - 1].encode()
    start = len(line[: name.col_offset].decode(errors="replace"))
    return Span(offset + name.lineno, start + 1, offset + name.lineno, start + 1 + len(name.id))
