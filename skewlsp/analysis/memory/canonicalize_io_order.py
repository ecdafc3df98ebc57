"""29 CanonicalizeIOOrder (``canonicalize_io_order_pass.cpp``): the order a core function's
stage-group tiles are laid out in, from what the analysis already knows of its loops.

The memory passes need a function's tiles (space, bytes, lifetime, stage group). Of
those, the analysis already finds the loads of each pipeline loop's body
(:mod:`skewlsp.analysis.lower_pipeline.slot_loads`: each one's memory space and bytes,
as LowerPipelineToSlots sizes a slot) and how LowerPipelineLoops replicates the loop
(:class:`skewlsp.contract.Lowering`: its main loop's trip and its remainder). This
module turns them into :class:`~skewlsp.analysis.memory.memory_reuse.ReuseTile` records
the way the compiler lays the lowered code out:

- each replicated region (the main loop's ``stage`` clones, then the remainder's
  copies) is one stage group, numbered in the order LowerPipelineLoops meets them
  (``ReplicateBody`` in ``lower_pipeline_loops_pass.cpp``: one group per call);
- CanonicalizeIOOrder (``canonicalize_io_order_pass.cpp``, pass doc 29) reorders the
  body of the main loop (the one still marked Pipeline) only: there every clone's
  loads come ahead of the clones' compute, so the loads are defined one after the
  other and each lives until its own clone's compute begins. The remainder's copies
  are written out after the loop and keep their order: a copy's loads, its compute;
- regions follow each other in program order (their tiles never overlap).

What it does not know yet: the tiles the body computes (a widened copy, a product: the
ones MemoryReuse's guard sheds), the tiles outside the loops (the L0 tiles of a
matmul's operands, Left and Right, are laid out by :mod:`.l0_tiles`), a loop nested in
a replicated one, and the remainder chain of a loop whose bounds are known only at run
time. A load with no static size makes the whole function unknown (None).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from skewlsp.analysis.lower_pipeline.loop_facts import SlotLoad
from skewlsp.analysis.memory.memory_reuse import ReuseTile


@dataclass(frozen=True)
class ReplicatedLoop:
    """One pipeline loop of a core function that LowerPipelineLoops replicates: its
    body's top-level loads, its ``stage``, its main loop's trip (0: the copies only;
    None: a trip known only at run time) and its remainder copies."""

    loads: tuple[SlotLoad, ...]
    stage: int
    main_trip: int | None
    tail: int = 0


@dataclass(frozen=True)
class TileOrigin:
    """Where a tile of :func:`canonicalize_io_order` comes from: the loop (its index), the
    region ("main" or "tail"), the clone, and the load's name."""

    loop: int
    region: str
    clone: int
    load: str


@dataclass(frozen=True)
class FunctionTiles:
    """The function's tiles for :func:`~.memory_reuse.memory_reuse`, and their origins."""

    tiles: tuple[ReuseTile, ...]
    origins: tuple[TileOrigin, ...]


def _regions(loop: ReplicatedLoop) -> list[tuple[str, int]]:
    """The replicated regions of a loop: (kind, clones)."""
    regions = []
    if loop.main_trip != 0 and loop.stage > 1:
        regions.append(("main", loop.stage))
    if loop.tail:
        regions.append(("tail", loop.tail))
    return regions


def _layout(
    region: str, clones: int, per_clone: int, at: int
) -> list[tuple[int, int, tuple[int, int]]]:
    """(clone, load, (definition, last use)) of a region's loads from program point
    ``at``: the main loop's loads all first, each read by its clone's compute after
    them; a remainder copy by copy."""
    placed = []
    for clone in range(clones):
        for index in range(per_clone):
            if region == "main":
                defined, used = at + clone * per_clone + index, at + clones * per_clone + clone
            else:
                defined = at + clone * (per_clone + 1) + index
                used = at + clone * (per_clone + 1) + per_clone
            placed.append((clone, index, (defined, used)))
    return placed


def function_tiles(loops: Sequence[ReplicatedLoop]) -> FunctionTiles | None:
    """The loads of ``loops`` (one core function's, in program order) as stage-group
    tiles; None when a load has no static size."""
    tiles: list[ReuseTile] = []
    origins: list[TileOrigin] = []
    group, at = 0, 0
    for number, loop in enumerate(loops):
        if any(load.size is None for load in loop.loads):
            return None
        for region, clones in _regions(loop):
            for clone, index, live in _layout(region, clones, len(loop.loads), at):
                load = loop.loads[index]
                assert load.size is not None
                tiles.append(ReuseTile(load.space, load.size, live, ((group, clone),), load=True))
                origins.append(TileOrigin(number, region, clone, load.name))
            group += 1
            at += clones * (len(loop.loads) + 1) + 1
    return FunctionTiles(tuple(tiles), tuple(origins))
