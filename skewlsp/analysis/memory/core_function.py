"""A core function as the per-loop passes leave it: the record the function-level passes read.

pypto's passes after LowerPipelineLoops (InitMemRef, MemoryReuse, AllocateMemoryAddr:
``docs/en/dev/passes/31-*``, ``33-*``, ``34-*``) work on a whole outlined function of one
core, every loop in it at once: the buffers one loop's lowering asks for share the
function's memory with the others'. skewlsp decides and lowers loop by loop, so what
such a pass needs is gathered here, once per function copy and core, after every loop
of the function is lowered (the driver's function stage: ``driver.function_stage``):
each loop's verdict and lowering on that core, and what the lowering read of it; then
what the memory passes make of each loop (:class:`LoopMemory`, filled in pass by pass:
:mod:`.function_passes`).
"""

from __future__ import annotations

from dataclasses import dataclass

from skewlsp.analysis.lower_pipeline.loop_facts import LoopFacts
from skewlsp.analysis.memory.allocate_memory_addr import Allocation
from skewlsp.analysis.memory.canonicalize_io_order import (
    FunctionTiles,
    LoopLowering,
    ReplicatedLoop,
    ScopeLayout,
)
from skewlsp.analysis.memory.l0_tiles import L0Memory
from skewlsp.analysis.memory.mat_tiles import MatMemory
from skewlsp.analysis.memory.memory_reuse import ReuseResult
from skewlsp.analysis.passes.scope_tile_ops import ScopeTiles
from skewlsp.contract import Core, Instance, Lowering, Span


@dataclass(frozen=True)
class FunctionLoop:
    """One loop of a core function: its verdict and lowering on that core (a split
    loop's core copy's), and what the lowering read of the loop (its loads, the outlined
    scope they are charged to). ``copies``: 2 where the vector copy runs on both lanes
    (SplitVectorKernel's dual dispatch: the AIV function's body once per lane);
    ``depth``: a skewed copy's depth, its clones' stages (0: not skewed);
    ``helper_line``: an imported helper's loop reported at its call (``span``, the call,
    is every spliced loop's): its line in the helper's module (0: the loop is the
    file's own)."""

    span: Span
    verdict: str
    code: str
    lowering: Lowering | None
    facts: LoopFacts
    copies: int = 1
    depth: int = 0
    helper_line: int = 0

    @property
    def own_span(self) -> Span:
        """Where the loop stands in its scope as the walks of the scope met it: its span,
        or for an imported helper's loop its span in the helper's module, the one at its
        line among the scope's Mat loops (else the call's: the loop read no scope)."""
        mat = self.facts.scope_mat
        if self.helper_line and mat is not None:
            return next((at for at in mat.loops if at.line == self.helper_line), self.span)
        return self.span


@dataclass(frozen=True)
class LoopMemory:
    """What the memory passes make of one loop's loads, alone: the tiles 31 InitMemRef
    sizes (laid out as CanonicalizeIOOrder leaves them), 33 MemoryReuse's packing and
    34 AllocateMemoryAddr's placement of them.

    Alone, because where a tile of the function is not modelled (in Mat or Vec) the
    loads are all skewlsp sees: what they cannot fit by themselves the whole function
    cannot fit either (a slot-bound depth, an overflow). The spaces skewlsp sees whole
    are beside them: ``vec``, ``l0`` and ``mat``. ``why``: why the loop
    is not modelled (not replicated, loads of no static size, ...), None when it is;
    ``loop``: the loop as the layout read it (its loads, stage, trip and remainder);
    ``vec``: the whole function's Vec tiles packed together, or why they are not known
    (None: not looked at, as on the cube core); ``l0``: the Left and Right tiles of its
    function's matmuls, which are modelled whole (:mod:`.l0_tiles`), None when its
    function holds none or is not a cube function; ``mat``: what the cube function's
    Mat tiles decide of the loop's group there (:mod:`.mat_tiles`), None when the loop
    holds no matmul or the function is not a cube function.
    """

    loop: ReplicatedLoop | None = None
    tiles: FunctionTiles | None = None
    reuse: ReuseResult | None = None
    allocation: Allocation | None = None
    why: str | None = None
    vec: ScopeMemory | None = None
    l0: L0Memory | None = None
    mat: MatMemory | None = None


@dataclass(frozen=True)
class ScopeMemory:
    """The whole function's tiles of one space (``space``), when every one is known: the
    InCore scope's tiles as 31 InitMemRef sizes them in CanonicalizeIOOrder's layout
    (``layout``) and 33 MemoryReuse's packing of them (``reuse``); ``groups``: the stage
    groups of the loop this record is handed to (its regions', in the function's
    numbering). ``why``: why the function's tiles there are not all known (then
    ``layout`` and ``reuse`` are None and only the loop's loads alone are packed).
    ``scope``, ``lowerings`` and ``loop`` (the loop's index among the scope's) are what
    the layout was made from, for advice decided again by laying it out once more.
    ``allocation``: 34 AllocateMemoryAddr's placement of the packing where MemoryReuse
    fell back to its legacy one (the only packing that can overflow: the guarded one
    sheds depth until it fits), else None. ``second_loop``: where the vector function
    runs on both lanes, the second lane's copy of the loop among the scope's (its
    groups are ``layout.groups[second_loop]``); -1 otherwise."""

    space: str
    layout: ScopeLayout | None = None
    reuse: ReuseResult | None = None
    groups: tuple[int, ...] = ()
    why: str | None = None
    scope: ScopeTiles | None = None
    lowerings: tuple[LoopLowering | str, ...] = ()
    loop: int = -1
    allocation: Allocation | None = None
    second_loop: int = -1


@dataclass(frozen=True)
class ScopeAlone:
    """An InCore scope that holds no pipeline loop, every one of its Vec tiles known: the
    tiles as 31 InitMemRef sizes them in program order (``layout``), 33 MemoryReuse's
    packing of them (``reuse``: no stage group, so its legacy fallback is its only
    finding) and 34 AllocateMemoryAddr's placement (``allocation``: the overflow that
    stops the compile)."""

    layout: ScopeLayout
    reuse: ReuseResult
    allocation: Allocation


@dataclass(frozen=True)
class CoreFunction:
    """One copy of a Python function (``instance``: which, when Python builds it more
    than once or it is an inline helper's copy at a call) on one core, and its loops in
    source order. ``core`` None: loops the model gives no core (no message, no split).
    ``planner``: the compiler's memory planner ("pypto" or "ptoas": then MemoryReuse and
    AllocateMemoryAddr leave the function alone); ``memory``: one record per loop, in the
    loops' order, once InitMemRef has run (empty before, and under ptoas)."""

    path: str | None
    function: str
    instance: Instance | None
    core: Core | None
    loops: tuple[FunctionLoop, ...]
    planner: str = "pypto"
    memory: tuple[LoopMemory, ...] = ()
