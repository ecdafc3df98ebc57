"""LowerPipelineToSlots: which pipeline loops rotate their loads through slots (PTOAS).

Models: ``src/ir/transforms/lower_pipeline_to_slots_pass.cpp`` (pass doc 27). Only under
``memory_planner=PTOAS``; the pass runs before LowerPipelineLoops and takes a loop
(``stage=F``) only when every gate holds, all or nothing:

- ``LoopShapeAllowsSlots``: ``2 <= F <= 16``, a step of 1 and a constant start that ``F``
  divides (the slot index must be literally ``i % F``);
- no enclosing pipeline loop was declined (its copies would share the slots);
- ``CollectCandidates``: the body's top-level loads (:mod:`.slot_loads`), each able to
  become a slot; a loop without one is left;
- ``SlotsFitOnChip``: ``F`` slots of each load, added to what the loops rotated before it
  in the same function pinned, fit each memory space (:mod:`.slot_capacity`).

A load whose size depends on a value computed when the module loads leaves the verdict
open: the reason names it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from skewlsp.analysis.lower_pipeline.loop_facts import SlotLoad
from skewlsp.analysis.lower_pipeline.slot_capacity import describe_overflow, overflow

MIN_SLOTS, MAX_SLOTS = 2, 16
CUBE_SPACES = frozenset({"Mat", "Acc", "Left", "Right", "Bias"})


@dataclass(frozen=True)
class SlotVerdict:
    """Whether the loop rotates, and why not (``declined``), or what it is not known
    for (``unknown``), or which loads and how many bytes per space (``regions``)."""

    rotated: bool
    declined: str | None = None
    loads: tuple[str, ...] = ()
    unknown: str | None = None
    regions: Mapping[str, int] = field(default_factory=dict)


def rotate(
    stage: int,
    start: int | None,
    step: int | None,
    *,
    declined_above: bool,
    loads: Sequence[SlotLoad] | None,
    core: str | None = None,
    committed: Mapping[str, int] | None = None,
) -> SlotVerdict:
    """The pass's verdict on a loop (``loads``: its body's, None when the body was not
    seen; ``core``: "aic"/"aiv" for one core's copy of a mixed loop, whose loads are the
    ones landing on that core; ``committed``: the bytes per memory space the loops
    rotated before it in its function pinned)."""
    shape = _shape_blocker(stage, start, step, declined_above)
    if shape is not None:
        return SlotVerdict(False, shape)
    if loads is None:
        return SlotVerdict(False, "its body is not available")
    mine = [load for load in loads if on_core(load, core)]
    if not mine:
        return SlotVerdict(False, "no top-level load to rotate")
    for load in mine:
        if load.blocker is not None:
            return SlotVerdict(False, load.blocker)
    for load in mine:
        if load.unknown is not None:
            return SlotVerdict(False, unknown=f"the size of `{load.name}` ({load.unknown})")
    regions: dict[str, int] = {}
    for load in mine:
        if load.size is None:
            return SlotVerdict(False, f"`{load.name}` has no static size to budget")
        regions[load.space] = regions.get(load.space, 0) + stage * load.size
    over = overflow(regions, committed or {})
    if over is not None:
        return SlotVerdict(False, describe_overflow(*over, stage))
    return SlotVerdict(True, loads=tuple(load.name for load in mine), regions=regions)


def _shape_blocker(
    stage: int, start: int | None, step: int | None, declined_above: bool
) -> str | None:
    if not MIN_SLOTS <= stage <= MAX_SLOTS:
        return f"stage={stage} is outside ptoas' {MIN_SLOTS}..{MAX_SLOTS} slots"
    if declined_above:
        return "an enclosing pipeline loop is replicated, so its copies would share the slots"
    if step != 1:
        return f"the step is {step if step is not None else 'not a constant'}, not 1"
    if start is None or start % stage:
        shown = start if start is not None else "not a constant"
        return f"the start ({shown}) is not a multiple of stage={stage}"
    return None


def on_core(load: SlotLoad, core: str | None) -> bool:
    """Whether ``load`` lands on ``core``'s copy of a mixed loop (a cube space on the
    cube, any other on the vector core; None: a loop not split, every load its own)."""
    if core is None:
        return True
    return (load.space in CUBE_SPACES) == (core == "aic")
