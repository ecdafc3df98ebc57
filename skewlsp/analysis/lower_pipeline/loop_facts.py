"""What the lowering passes read of a loop that its report does not say.

The skew pass's model hands the lowering passes each loop's report (its verdict,
header, cores) and these facts, which only the lowering reads: the loads of the body as
LowerPipelineToSlots sees them, the outlined scope (one function of the compiler) whose
slot budget they are charged to, and the symbol of a bound Python computes when the
module loads. They stay off :class:`~skewlsp.contract.LoopReport` (no adapter reads them),
on the driver's per-loop record (``driver.loop_decision.LoopModel``) and in the
language server's cache of a unit's or a helper copy's loops, whose lowered loops charge
the slot budget of the loops lowered after them.
"""

from __future__ import annotations

from dataclasses import dataclass

from skewlsp.analysis.passes.op_conversion import ScopeTiles


@dataclass(frozen=True)
class SlotLoad:
    """A top-level load of a loop body, as LowerPipelineToSlots sees it under PTOAS.

    ``space`` is where its tile lands (the core it runs on follows); ``size`` one slot's
    bytes (None when it has none the compiler can pin); ``blocker`` why it cannot become
    a slot, which declines the whole loop; ``unknown`` a value computed when the module
    loads that its size depends on (then whether the loop rotates is not known).
    """

    name: str
    space: str
    size: int | None = None
    blocker: str | None = None
    unknown: str | None = None


@dataclass(frozen=True)
class LoopFacts:
    """One loop's facts for the lowering passes (see the module docstring).

    ``slot_loads``: the body's top-level loads (None: not known); ``slot_scope``: the line
    of the outlined scope holding the loop; ``load_time_bound``: the symbol of a bound or
    step computed when the module loads (a constant to the compiler, not visible here);
    ``scope_tiles``: the Vec tiles of the whole InCore scope holding the loop, for the
    memory passes (None: not looked at), shared by the scope's loops; ``scope_loop``: which
    of its loops this one is (-1: none).
    """

    slot_loads: tuple[SlotLoad, ...] | None = None
    slot_scope: int = 0
    load_time_bound: str | None = None
    scope_tiles: ScopeTiles | None = None
    scope_loop: int = -1


NO_FACTS = LoopFacts()
