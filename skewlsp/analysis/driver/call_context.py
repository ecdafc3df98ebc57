"""The pipeline loops around a call of an inline helper, as the helper's copy there sees them.

InlineFunctions is the compiler's first pass: it splices a helper's body at each call,
so the helper's loops sit in the caller's loops around the call before UnrollLoops,
SkewCrossCorePipeline and the two lowering passes run. The skew pass writes a loop
spliced into a loop it skews at depth D in each of the 2·D clones of the half holding
the call, LowerPipelineLoops writes it in every copy of a replicated loop around the
call, and LowerPipelineToSlots gives it no slots inside a loop it declined: the same as
for a loop nested there by hand (``lower_pipeline.lowering.enclosing``, one rule).

A helper's copies are decided by the helper's own walk, so what the caller's loops do is
read off the caller: its loops decided as its own walk decides them, and for a caller
that is an inline helper too, the loops around each of its own calls. Only a call in a
pipeline loop of its caller (or in a helper spliced into one) costs a walk of the caller.
Where a helper calling the helper is spliced into loops that write it differently at
its several calls, the one copy reported for the inner call has no single count: it is
counted as if no loop held it (the same choice ``call_sites`` makes for a constant).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import libcst as cst

from skewlsp.analysis.frontend import dsl
from skewlsp.analysis.frontend.constants import ModuleConstants
from skewlsp.analysis.frontend.source_index import Unit, is_inline_helper_unit
from skewlsp.analysis.frontend.state import AnalysisState
from skewlsp.analysis.lower_pipeline.lowering import (
    NOTHING,
    Enclosing,
    enclosing,
    function_copy,
    within,
)
from skewlsp.analysis.passes.inline_functions.call_sites import sites_of
from skewlsp.contract import LoopReport, Lowering, Span

# One of a caller's loops as its unit's walk leaves it: its report and its own lowering
# (the lowering passes' record of it, which the report is put together with later).
CallerLoop = tuple[LoopReport, Lowering | None]
# A caller's loops, lowered (None if it cannot be walked).
CallerWalk = Callable[[Unit, AnalysisState], Sequence[CallerLoop] | None]


@dataclass(frozen=True)
class CallContexts:
    """The loops around calls in one module (``constants``, ``aliases``: its), for the
    walk of a helper it calls; what is worked out is kept in the analysis's state, so a
    caller is walked once however many helpers it calls."""

    state: AnalysisState
    constants: ModuleConstants
    aliases: dsl.Aliases
    walk: CallerWalk

    def around(self, caller: Unit, call: Span, headers: Sequence[cst.CSTNode]) -> Enclosing:
        """What the pipeline loops around ``call`` in ``caller`` (``headers``: the loop
        and scope headers around it there) do to a loop spliced in by it."""
        memo = self.state.facts
        key = ("around a call", *caller.cache_key, call, id(self.constants), self.state.concrete)
        if key in memo:
            found = memo[key]  # (None while it is worked out: a cycle of helpers)
            return found or NOTHING  # type: ignore[return-value]  # the facts hold any value
        memo[key] = None
        found = self._around(caller, call, headers)
        memo[key] = found
        return found

    def _around(self, caller: Unit, call: Span, headers: Sequence[cst.CSTNode]) -> Enclosing:
        own = self._loops(caller) if self._in_a_pipeline(headers) else ()
        if not (is_inline_helper_unit(caller) and caller.callers):
            found = {
                enclosing(loops, call)
                for loops in _by_function_copy(own).values()
                if any(within(call, loop.span) for loop, _ in loops)
            }
            return found.pop() if len(found) == 1 else NOTHING
        # A helper calling the helper: one copy of it per call of it, each in its loops.
        found = set()
        for outer, site in sites_of(caller, self.constants, self.state):
            outside = self.around(outer, site.span, site.headers)
            mine = [
                (r, lowering)
                for r, lowering in own
                if r.instance is not None and r.instance.call == site.span
            ]
            found.add(enclosing(mine, call, outside))
        return found.pop() if len(found) == 1 else NOTHING

    def _in_a_pipeline(self, headers: Sequence[cst.CSTNode]) -> bool:
        return any(
            isinstance(header, cst.Call)
            and dsl.loop_kind(header, self.aliases) in ("pipeline", "bare_pipeline")
            for header in headers
        )

    def _loops(self, caller: Unit) -> Sequence[CallerLoop]:
        memo = self.state.facts
        key = ("caller's loops", *caller.cache_key, caller.qualname, id(self.constants))
        if key not in memo:
            memo[key] = ()  # (while it is walked: a cycle of helpers sees none)
            memo[key] = tuple(self.walk(caller, self.state) or ())
        return memo[key]  # type: ignore[return-value]  # the facts hold any value: this key's


def _by_function_copy(loops: Sequence[CallerLoop]) -> dict[tuple[object, ...], list[CallerLoop]]:
    found: dict[tuple[object, ...], list[CallerLoop]] = {}
    for loop in loops:
        found.setdefault(function_copy(loop[0]), []).append(loop)
    return found
