"""The memory passes over the InCore scopes without a pipeline loop in the inline helpers
a kernel calls, where the kernel's file sets their sizes.

InlineFunctions splices a helper into each call, its ``with pl.at(...)`` scopes too, and
the compiler outlines and places each copy's tiles (31 InitMemRef, 33 MemoryReuse, 34
AllocateMemoryAddr) with the values the kernel's program gives the helper's module: a
driver that sets ``config.MOE_TOKENS`` before it imports the MoE layer makes the gate
helper's scope larger than the gate's own test kernel does, and the compile of that
driver alone stops (pypto-lib's deepseek_v4_pro prefill drivers). So in a module that
sets a module attribute at its top level, each ``@pl.jit`` kernel's calls are followed
through every helper they splice in (``passes.inline_functions.reached_helpers``), and
a helper whose text names, itself or through its module's constants, an attribute the
kernel's file sets has its scopes laid out with its module's constants as the kernel's
program sees them (``unit_run.module_context``); a scope whose Vec tiles do not fit gets
a report at the kernel's call that splices it in, in the kernel's file: that compile is
the one that stops. A scope whose tiles depend on the helper's parameters is not known
(its parameters are not folded), and says nothing.

A helper no write of the kernel's file reaches is not read: its scopes are sized as in
any other program that imports its module (reading every helper in every kernel's
program nearly doubled a cold lint of pypto-lib; docs/how-it-decides.md names the gap).

What it costs, in a module that sets an attribute: a text search of each kernel for the
names of inline helpers (its module's and those it imports), a read of the modules the
helpers live in (each indexed once, by its text), the scope stage's work
(:func:`.scope_stage.scope_memories`) on the helpers the screen keeps, once per module,
and a parse of a kernel only where a scope it splices in overflows (where the calls are).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from skewlsp.analysis.driver.loop_decision import LoopModel
from skewlsp.analysis.driver.scope_stage import SCOPE_WORDS, scope_beside, scope_memories
from skewlsp.analysis.driver.unit_run import module_context
from skewlsp.analysis.frontend.constants import ModuleConstants
from skewlsp.analysis.frontend.import_order import (
    AttributesSet,
    Origin,
    attributes_set,
    reads_what_is_set,
)
from skewlsp.analysis.frontend.source_index import ModuleIndex
from skewlsp.analysis.frontend.state import AnalysisState
from skewlsp.analysis.frontend.text_search import called_names, mentions_pipeline_loop
from skewlsp.analysis.memory.core_function import ScopeAlone
from skewlsp.analysis.passes.inline_functions.reached_helpers import (
    HelperModule,
    ReachedHelper,
    callable_names,
    calls_outside_scopes,
    kernel_callees,
)
from skewlsp.analysis.report.scope_memory import scope_report
from skewlsp.contract import Resolver, Span

# ``@pl.jit`` or ``@pl.jit(...)`` alone: a kernel compiled as written, none of its kinds
# (an inline helper is spliced into its callers, an InCore function's scopes would nest,
# host and extern functions open none).
_PLAIN_KERNEL = re.compile(r"^[ \t]*@[ \t]*[\w.]*\bjit[ \t]*(\(|$|#)", re.MULTILINE)

Scopes = list[tuple[Span, ScopeAlone]]


def calling_kernels(index: ModuleIndex) -> tuple[tuple[str, str], ...]:
    """The ``@pl.jit`` kernels (name, text) of a module that sets a module attribute while
    it loads whose text calls an inline helper of the module or a name it imports: what
    decides :func:`helper_scopes` here, read off the text (the helpers' modules are read
    through the resolver, and so recorded)."""
    if not index.attribute_writes:
        return ()
    names = callable_names(index)
    found = []
    for name, text in index.function_sources.items():
        head = text[: text.find("def ")]
        if _PLAIN_KERNEL.search(head) is not None and called_names(names, text):
            found.append((name, text))
    return tuple(found)


def helper_scopes(
    index: ModuleIndex,
    source: str,
    path: str | None,
    resolver: Resolver | None,
    state: AnalysisState,
    constants: Callable[[], ModuleConstants],
) -> list[LoopModel]:
    """A report at each call in a kernel of the module that splices in an inline helper
    with an InCore scope whose tiles overflow a space, where the module sets a module
    attribute the helper reads (``import_order.reads_what_is_set``; ``constants``: the module's,
    made when first needed: they make the program the helpers' modules are folded in)."""
    if state.planner != "pypto":
        return []  # (ptoas places the buffers: MemoryReuse and AllocateMemoryAddr do not run)
    kernels = calling_kernels(index)
    set_here = attributes_set(index)
    if not kernels or not set_here:
        return []
    own = HelperModule(index, source, None, "")
    read: dict[tuple[Origin | None, str], Scopes] = {}
    models: list[LoopModel] = []
    for kernel, text in kernels:
        found: dict[str, list[tuple[ReachedHelper, Span, ScopeAlone]]] = {}
        for name, reached in kernel_callees(own, kernel, path, resolver).items():
            for helper in reached:
                key = (helper.module.origin, helper.name)
                if key not in read:
                    read[key] = _overflowing(helper, set_here, path, resolver, state, constants)
                found.setdefault(name, []).extend((helper, *one) for one in read[key])
        overflowing = frozenset(name for name, scopes in found.items() if scopes)
        if not overflowing:
            continue  # (where the calls are is read only for a report: a parse of the kernel)
        offset = index.function_offsets[kernel]
        for name, span in calls_outside_scopes(text, offset, overflowing):
            models += [_at_the_call(path, kernel, span, *one) for one in found[name]]
    return models


def _overflowing(
    helper: ReachedHelper,
    set_here: AttributesSet,
    path: str | None,
    resolver: Resolver | None,
    state: AnalysisState,
    constants: Callable[[], ModuleConstants],
) -> Scopes:
    """The helper's top-level scopes (beside no pipeline loop) whose tiles overflow a
    space, folded with its module's constants in the kernel's program; none read where
    it reads nothing the kernel's file sets (``import_order.reads_what_is_set``)."""
    module = helper.module
    text = module.index.function_sources[helper.name]
    if not any(word in text for word in SCOPE_WORDS):
        return []
    if module.origin is None or not reads_what_is_set(
        module.index, module.origin, text, set_here
    ):
        return []  # (the kernel's own module's helpers see the values they see everywhere)
    bare = module.index.pipeline_names
    beside = bare if mentions_pipeline_loop(text, bare) else None
    if beside is not None and not scope_beside(text, bare):
        return []
    constants()  # (the kernel's context first: it makes the program its modules see)
    own, _ = module_context(module.index, path, resolver, state, module.origin, module.text)
    offset = module.index.function_offsets[helper.name]
    found = scope_memories(text, offset, own, state, beside, kernel=False)
    return [(header, memory) for header, memory in found if memory.allocation.overflows]


def _at_the_call(
    path: str | None,
    kernel: str,
    call: Span,
    helper: ReachedHelper,
    header: Span,
    memory: ScopeAlone,
) -> LoopModel:
    """The helper's scope, as the kernel's call splices it in, reported at the call."""
    module = helper.module
    where = f"`{helper.name}`" + (f" from `{module.name}`" if module.name else "")
    through = " through " + ", ".join(f"`{name}`" for name in helper.through)
    place = (
        f"the InCore scope of {where} (its line {header.line}) inlined here"
        f"{through if helper.through else ''}: "
    )
    report = scope_report(path, kernel, call, memory, place)
    assert report is not None  # (only overflowing scopes are reported)
    return LoopModel(report)
