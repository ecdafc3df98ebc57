"""A core function as the per-loop passes leave it: the record the function-level passes read.

pypto's passes after LowerPipelineLoops (InitMemRef, MemoryReuse, AllocateMemoryAddr:
``docs/en/dev/passes/31-*``, ``33-*``, ``34-*``) work on a whole outlined function of one
core, every loop in it at once: the buffers one loop's lowering asks for share the
function's memory with the others'. skewlsp decides and lowers loop by loop, so what
such a pass needs is gathered here, once per function copy and core, after every loop
of the function is lowered (the driver's function stage: ``driver.function_stage``):
each loop's verdict and lowering on that core, and what the lowering read of it.
"""

from __future__ import annotations

from dataclasses import dataclass

from skewlsp.analysis.lower_pipeline.loop_facts import LoopFacts
from skewlsp.contract import Core, Instance, Lowering, Span


@dataclass(frozen=True)
class FunctionLoop:
    """One loop of a core function: its verdict and lowering on that core (a split
    loop's core copy's), and what the lowering read of the loop (its loads, the outlined
    scope they are charged to)."""

    span: Span
    verdict: str
    code: str
    lowering: Lowering | None
    facts: LoopFacts


@dataclass(frozen=True)
class CoreFunction:
    """One copy of a Python function (``instance``: which, when Python builds it more
    than once or it is an inline helper's copy at a call) on one core, and its loops in
    source order. ``core`` None: loops the model gives no core (no message, no split)."""

    path: str | None
    function: str
    instance: Instance | None
    core: Core | None
    loops: tuple[FunctionLoop, ...]
