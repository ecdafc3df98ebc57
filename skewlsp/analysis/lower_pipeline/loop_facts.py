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

from skewlsp.analysis.passes.body import BodyMatmuls, MatmulSite
from skewlsp.analysis.passes.scope_tile_ops import ScopeTiles
from skewlsp.analysis.passes.split_k_grid import SplitKLoop
from skewlsp.contract import Span


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
    extents: tuple[int, ...] | None = None  # its static shape (the L0 tiles read it)
    dtype: str | None = None
    partial: bool = False  # a valid_shape written and not known to be its whole shape


@dataclass(frozen=True)
class OutsideMatmul:
    """A matmul of a loop's scope outside its pipeline loops: how many of the scope's
    pipeline loops come before it, the matmul, and the loads its operands are (None: no
    one load of that name)."""

    after_loops: int
    site: MatmulSite
    lhs: SlotLoad | None
    rhs: SlotLoad | None


@dataclass(frozen=True)
class CubeScope:
    """The outlined scope (one function of the compiler) a loop is in, for the L0 tiles
    of its matmuls: its number in its Python function, how many cube ops it holds in
    all, its first call whose ops are not seen (None: none), the matmuls outside its
    pipeline loops, and why those are not known (None: they are)."""

    scope: int
    cube_ops: int | None = None  # (None: not read, the loop holds no matmul)
    opaque: str | None = None
    outside: tuple[OutsideMatmul, ...] = ()
    outside_unknown: str | None = None
    pipeline_loops: int = 0  # the scope's, nested ones too


@dataclass(frozen=True)
class MatLoad:
    """A load into Mat of an outlined scope: its name, its tile's bytes (InitMemRef's),
    and the scope's pipeline loop it is in (an index into :attr:`ScopeMat.loops`; -1:
    none), whose copies hold it once each."""

    name: str
    bytes: int
    loop: int = -1


@dataclass(frozen=True)
class ScopeMat:
    """An outlined scope's Mat loads (``memory/mat_tiles.py``), for MemoryReuse's depth
    in Mat: the loads, the scope's pipeline loops (their spans, and the loop each is
    nested in: -1 none), the matmul operands read transposed in a pipeline loop (its
    index, the name), the Mat tiles and what reads them in program order for their
    lifetimes (``ordered``: every loop of the scope among its loops; its ``unknown``: why
    they cannot be laid out), or why the loads are not all known (``unknown``).
    ``popped``: the matmul operands that are no load but a tile the scope computes (one
    the vector pushes to the cube is popped into the ring's buffer in Mat: no tile)."""

    loads: tuple[MatLoad, ...] = ()
    loops: tuple[Span, ...] = ()
    parents: tuple[int, ...] = ()
    views: tuple[tuple[int, str], ...] = ()
    ordered: ScopeTiles = ScopeTiles(unknown="not laid out")
    unknown: str | None = None
    popped: tuple[str, ...] = ()


@dataclass(frozen=True)
class SkewClones:
    """What SkewCrossCorePipeline clones of a skewed core copy, for the memory passes:
    its effective depth D (D producer clones in the prologue, D of each half in the
    steady body, D consumer clones in the epilogue, clone i of either half in stage i of
    the skew's own pipeline group) and, per matmul of the body in program order, whether
    it is in the producer half; per top-level statement of the body, the half it is in
    (``statements``: True the producer's, False the consumer's, None neither or both)."""

    depth: int
    produce: tuple[bool, ...]
    computed: tuple[SlotLoad, ...] = ()  # operands the body computes (a popped tile), in Mat
    statements: tuple[bool | None, ...] = ()


@dataclass(frozen=True)
class LoopFacts:
    """One loop's facts for the lowering passes (see the module docstring).

    ``slot_loads``: the body's top-level loads (None: not known); ``slot_scope``: the line
    of the outlined scope holding the loop; ``load_time_bound``: the symbol of a bound or
    step computed when the module loads (a constant to the compiler, not visible here);
    ``matmuls``: the body's matmuls as AutoTileMatmulL0 meets them, and ``scope_matmuls``
    the scope's (None: not read), for the L0 tiles of the memory passes;
    ``scope_tiles``: the Vec tiles of the whole InCore scope holding the loop, for the
    memory passes (None: not looked at), shared by the scope's loops; ``scope_loop``: which
    of its loops this one is (-1: none); ``skew``: the cube copy's skew (None: that copy
    is not skewed).
    """

    slot_loads: tuple[SlotLoad, ...] | None = None
    matmuls: BodyMatmuls | None = None
    scope_matmuls: CubeScope | None = None
    slot_scope: int = 0
    load_time_bound: str | None = None
    scope_tiles: ScopeTiles | None = None
    scope_loop: int = -1
    skew: SkewClones | None = None
    # the vector copy's skew (None: that copy is not skewed), for its Vec tiles
    vector_skew: SkewClones | None = None
    # the loads each of ``matmuls``' sites reads, in order (None: read by name off
    # ``slot_loads``): a branch of an ``if`` may load its own
    matmul_operands: tuple[tuple[SlotLoad | None, SlotLoad | None], ...] | None = None
    # the Mat loads of the outlined scope holding a cube loop (None: not looked at)
    scope_mat: ScopeMat | None = None
    # 15 AutoTileMatmulL0's canonical split-K form (None: not it), whose output tiles the
    # lowering works out under its planner (``lower_pipeline.split_k``)
    split_k: SplitKLoop | None = None


NO_FACTS = LoopFacts()
