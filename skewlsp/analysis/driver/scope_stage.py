"""The memory passes over the InCore scopes that hold no pipeline loop.

pypto outlines every InCore scope to a function of its own and runs 31 InitMemRef, 33
MemoryReuse and 34 AllocateMemoryAddr over each, so a scope whose tiles overflow a
space stops the compile whether or not it holds a ``pl.pipeline`` loop. The units'
walks reach only the pipeline loops; this stage reads the module's top-level kernels
(``@pl.jit``, ``@pl.jit.incore``) that open an InCore scope holding none, beside a
loop's scope in the same function or not (the scope holding the loop is the loop's): each
scope at the function's top level (a ``with pl.at(level=CORE_GROUP)``, a ``pl.spmd``
scope), or the function itself when it is an InCore one. Their Vec tiles are
ConvertTensorToTileOps' (``passes.op_conversion``, folded with the module's constants
and the function's top-level locals), laid out, packed and placed by the memory passes
(``memory.function_passes.scope_alone``), and a scope they do not fit gets a report of
its own (``report.scope_memory``). A scope whose tiles are not all known, nested in a
branch or loop, or in an inline helper (spliced into its callers), says nothing.

What it costs: a text search of each top-level function (of a function holding a
loop, one search per statement at its top level, cut off the text); a parse (the tree
made from the file's stdlib tree, shared with the unit stage's) and one walk of the
statements of the few that open such a scope, and of a function holding a loop, a search
of each scope's own text, so that only the scopes holding none are laid out; the
packing only where the scope's tiles, each in a buffer of its own, would not fit.
"""

from __future__ import annotations

import libcst as cst

from skewlsp.analysis.driver.loop_decision import LoopModel
from skewlsp.analysis.frontend import dsl
from skewlsp.analysis.frontend.constants import Folded, Folder, ModuleConstants
from skewlsp.analysis.frontend.jit_params import specialized_params
from skewlsp.analysis.frontend.names import block_defs, body_statements
from skewlsp.analysis.frontend.scope import (
    FunctionScope,
    function_params,
    is_incore_function,
    tile_like_names,
    update_locals,
)
from skewlsp.analysis.frontend.source_index import ModuleIndex
from skewlsp.analysis.frontend.state import AnalysisState
from skewlsp.analysis.frontend.text_search import mentions_pipeline_loop
from skewlsp.analysis.memory.core_function import ScopeAlone
from skewlsp.analysis.memory.function_passes import scope_alone
from skewlsp.analysis.passes.convert_tensor_to_tile_ops import scope_surroundings
from skewlsp.analysis.passes.op_conversion import scope_tiles_at
from skewlsp.analysis.report.scope_memory import scope_report
from skewlsp.analysis.source.guard import check_parseable
from skewlsp.analysis.source.positions import LoopPositions
from skewlsp.analysis.source.tree_text import MadeTrees
from skewlsp.contract import Span

# What the text of a function opening an InCore scope holds (``pl.at``, ``pl.spmd``, an
# InCore function's decorator): a function without any is not parsed.
SCOPE_WORDS = (".at(", "spmd(", "InCore", "incore")
# The pl.jit decorators of functions that are not compiled as written.
_NOT_KERNELS = ("jit.inline", "jit.host", "jit.extern")
_DEFS = ("def ", "async def ")
# What no statement starts with: a line opening so continues the statement before.
_NO_START = (")", "]", "}", "#")


def loopless_scopes(
    index: ModuleIndex,
    path: str | None,
    constants: ModuleConstants,
    state: AnalysisState,
) -> list[LoopModel]:
    """A model for each InCore scope without a pipeline loop that the memory passes
    cannot place, at the top level of the module's functions (:func:`read_functions`)."""
    if state.planner != "pypto":
        return []  # (ptoas places the buffers: MemoryReuse and AllocateMemoryAddr do not run)
    units = {unit.qualname for unit in index.units}
    found: list[LoopModel] = []
    for name, offset, text in read_functions(index):
        bare = index.pipeline_names
        beside = bare if name in units or mentions_pipeline_loop(text, bare) else None
        found += _function_scopes(text, offset, name, path, constants, state, beside)
    return found


def read_functions(index: ModuleIndex) -> tuple[tuple[str, int, str], ...]:
    """The top-level functions the stage reads (name, offset, text): the kernels whose text
    opens an InCore scope and that hold no pipeline loop, and those that hold one and
    have a statement at their top level that opens a scope and mentions none (the scope
    beside a loop's). What decides the stage's result, so what its result is kept with
    across edits (``edited_module.CachedUnits.scopes``); a function holding loops in
    all of its scopes, nearly every unit, is not read, and its edits keep the result."""
    units = {unit.qualname for unit in index.units}
    bare = index.pipeline_names
    read = []
    for name, offset in index.function_offsets.items():
        text = index.function_sources[name]
        if not _may_be_kernel(text) or not any(word in text for word in SCOPE_WORDS):
            continue
        if (name in units or mentions_pipeline_loop(text, bare)) and not scope_beside(
            text, bare
        ):
            continue
        read.append((name, offset, text))
    return tuple(read)


def scope_beside(text: str, bare: frozenset[str]) -> bool:
    """Whether a statement at the function's top level may open a scope holding no
    pipeline loop, read off the text: each cut from a line at the body's indentation to
    the next (a line opening with a closing bracket, or a comment, stays with the one
    before). A cut where no statement starts (a string's line, a header's parameter)
    only makes one more statement to look at on the tree; a statement always starts a
    cut, so a scope with no loop is never missed."""
    lines = text.splitlines()
    at = next((i for i, line in enumerate(lines) if line.lstrip().startswith(_DEFS)), None)
    if at is None:
        return False
    outer = _indent(lines[at])
    inner = [_indent(line) for line in lines[at + 1 :] if line.strip()]
    body = min((n for n in inner if n > outer), default=None)
    starts = [
        i
        for i in range(at + 1, len(lines))
        if _indent(lines[i]) == body and not lines[i].lstrip().startswith(_NO_START)
    ]
    for first, end in zip(starts, [*starts[1:], len(lines)], strict=True):
        statement = "\n".join(lines[first:end])
        if any(word in statement for word in SCOPE_WORDS) and not mentions_pipeline_loop(
            statement, bare
        ):
            return True
    return False


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t")) if line.strip() else -1


def _function_scopes(
    text: str,
    offset: int,
    name: str,
    path: str | None,
    constants: ModuleConstants,
    state: AnalysisState,
    beside: frozenset[str] | None,
) -> list[LoopModel]:
    """The reports of the function's top-level scopes. ``beside``: the function holds a
    pipeline loop (the names ``pipeline`` is imported as), and a scope whose text mentions
    one is the loop's business, not laid out here."""
    models = []
    for header, memory in scope_memories(text, offset, constants, state, beside, kernel=True):
        report = scope_report(path, name, header, memory)
        if report is not None:
            models.append(LoopModel(report))
    return models


def scope_memories(
    text: str,
    offset: int,
    constants: ModuleConstants,
    state: AnalysisState,
    beside: frozenset[str] | None,
    *,
    kernel: bool,
) -> list[tuple[Span, ScopeAlone]]:
    """What the memory passes make of each InCore scope at the top level of the function
    ``text`` (at ``offset`` in its file, folded with ``constants``): its header and
    memory, where every Vec tile is known. ``kernel``: only a kernel the compiler compiles
    as written is read (an inline helper's scopes are its callers', read with theirs:
    :mod:`.helper_scopes`)."""
    if not text.endswith("\n"):
        text += "\n"
    tree = check_parseable(text, state.parses, offset)
    if tree is None:
        return []  # (the file's syntax error is reported on its own)
    module = state.analysis_module(text, lambda: tree)
    if module is None or len(module.body) != 1 or not isinstance(module.body[0], cst.FunctionDef):
        return []
    fn = module.body[0]
    if not (_kernel(fn) if kernel else dsl.jit_decorated(fn, "inline")):
        return []
    made = state.made
    positions = LoopPositions(module, tree.tree, text, offset, tree.shift, made=made.holds(module))
    scopes = [
        around
        for around in scope_surroundings(fn, is_incore_function(fn, made), made)
        if beside is None or _holds_no_loop(around.opened_by, positions, beside)
    ]
    if not scopes:
        return []
    folds = _top_level_folds(fn, constants, made, {id(s.opened_by) for s in scopes})
    found = []
    for around in scopes:
        opened = around.opened_by
        fold = folds.get(id(opened))
        if fold is None or not isinstance(opened, (cst.With, cst.FunctionDef)):
            continue  # (a scope in a branch or loop, a pl.spmd loop: not read)
        tiles = scope_tiles_at(opened, around.tensors, fold.fold, _no_loop_span)
        memory = scope_alone(tiles, state.planner)
        header = positions.header_span(opened) if memory is not None else None
        if memory is not None and header is not None:
            found.append((header, memory))
    return found


def _holds_no_loop(
    opened: cst.CSTNode | None, positions: LoopPositions, bare: frozenset[str]
) -> bool:
    """Whether a scope's statement mentions no pipeline loop, read off its text (not
    folded: the scopes holding loops are most of a unit's)."""
    found = positions.statement_text(opened) if opened is not None else None
    return found is not None and not mentions_pipeline_loop(found, bare)


def _may_be_kernel(text: str) -> bool:
    """Whether the decorators in front of the ``def`` may make a kernel :func:`_kernel`
    accepts (read off the text: most functions of a kernel file are helpers, host code and
    configuration, and a parse is most of what this stage costs)."""
    head = text[: text.find("def ")]
    return "jit" in head and not any(kind in head for kind in _NOT_KERNELS)


def _kernel(fn: cst.FunctionDef) -> bool:
    """``@pl.jit`` or ``@pl.jit.incore``: a kernel the compiler compiles as written (an
    inline helper is spliced into its callers; host and extern functions are not)."""
    return dsl.jit_decorated(fn, None) or dsl.jit_decorated(fn, "incore")


def _top_level_folds(
    fn: cst.FunctionDef, constants: ModuleConstants, made: MadeTrees, wanted: set[int]
) -> dict[int, Folder]:
    """How the function's own body (its id) and each statement at its top level fold
    names: the module's constants, pl.jit's literals and the locals bound before it, as
    the unit walk folds a function's statements; up to the last statement ``wanted`` (by
    id: the locals bound after it are not folded)."""
    params = frozenset(n for n, _ in function_params(fn))
    statements = body_statements(fn.body)
    dsl_names = frozenset(block_defs(statements)) | params
    base = FunctionScope(constants, params, dsl_names, tile_like_names(fn))
    base.specialized = specialized_params(fn, constants, made)
    env: dict[str, Folded] = dict(base.specialized)
    folds = {id(fn): Folder(base.at(env, frozenset()).bound_lookup([]), made)}
    left = wanted - folds.keys()
    for stmt in statements:
        if not left:
            break
        folds[id(stmt)] = Folder(base.at(env, frozenset()).bound_lookup([]), made)
        left.discard(id(stmt))
        update_locals(stmt, env, constants)
    return folds


def _no_loop_span(loop: cst.For) -> Span:
    """A sequential loop's place: never read of a scope without a pipeline loop (only a
    pipeline loop's report is matched by it)."""
    return Span(0, 0, 0, 0)
