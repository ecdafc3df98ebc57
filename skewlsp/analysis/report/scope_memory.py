"""What the memory passes say of an InCore scope that holds no pipeline loop.

The compiler outlines every InCore scope to a function and lays out, packs and places
its tiles (31 InitMemRef, 33 MemoryReuse, 34 AllocateMemoryAddr) whether or not it holds
a ``pl.pipeline`` loop; when they overflow a space the compile stops. Such a scope (in a
function of its own, or beside a loop's scope in the same function) has no loop to
report at, so its report is of the scope (``LoopReport.scope_only``), at its
header (the ``with pl.at(...)``, or the InCore function's ``def``): SKW081 with the
compiler's numbers, and MemoryReuse's legacy-packing warning beside it (SKW082), in the
words the loop-level findings use (:mod:`.memory`). Only where every Vec tile of the
scope is known (``memory.function_passes.scope_alone``); otherwise nothing is said.
"""

from __future__ import annotations

from skewlsp.analysis.memory.core_function import ScopeAlone
from skewlsp.analysis.report.legacy_packing import legacy_words, taking
from skewlsp.contract import (
    LEGACY_FALLBACK,
    MEMORY_OVERFLOW,
    Finding,
    LoopReport,
    SpaceBuffers,
    Span,
)


def scope_report(
    path: str | None, function: str, header: Span, memory: ScopeAlone, place: str = ""
) -> LoopReport | None:
    """The scope's report at ``header`` when AllocateMemoryAddr stops the compile on its
    tiles (None: they are placed). ``place``: what the message starts with when the
    report is not at the scope itself (an inline helper's scope, at the kernel's call
    that splices it in: ``driver.helper_scopes``)."""
    overflow = next(iter(memory.allocation.overflows), None)
    if overflow is None:
        return None
    space = overflow.space
    record = SpaceBuffers(space, 0, 0, None, "overflow", True)
    named = taking(memory.layout, memory.reuse, space)
    message = place + (
        f"the scope's {space} tiles overflow {space}: {named} are live at once and need "
        f"{overflow.used} B of its {overflow.limit} B; AllocateMemoryAddr stops the compile "
        f'("{overflow.message}")'
    )
    fallback = next((f for f in memory.reuse.fallbacks if f.space == space), None)
    hints: tuple[Finding, ...] = ()
    if fallback is not None and fallback.warned:
        basis = f"the scope's {space} tiles packed together"
        legacy = SpaceBuffers(space, 0, 0, None, "legacy", True)
        words = legacy_words(fallback, basis, "")
        hints = (Finding(LEGACY_FALLBACK, words, header, buffers=legacy),)
    return LoopReport(
        path,
        header,
        header,
        "error",
        MEMORY_OVERFLOW,
        message,
        function=function,
        memory=(record,),
        hints=hints,
        scope_only=True,
    )
