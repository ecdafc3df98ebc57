"""LowerPipelineLoops: how a same-core ``pl.pipeline`` loop is replicated.

Models: ``src/ir/transforms/lower_pipeline_loops_pass.cpp`` (pass doc 28). For a loop
still marked Pipeline after the skew pass with ``stage=F > 1``:

- the step must be a compile-time integer, and not zero (``GetConstIntValue``,
  ``INTERNAL_CHECK``); bounds known only at run time need a positive step;
- constant bounds (``LowerStatic``): trip 0 demotes the loop; else a main loop of
  ``T // F`` iterations with stride ``F * step`` (none when ``T < F``), then ``T % F``
  copies written out after it;
- other bounds (``LowerDynamic``): a main loop up to ``unroll_main_end``, then the
  remainder through ``if unroll_rem == k`` for k in 1..F-1;
- ``stage=1`` is left as it is (for CanonicalizeIOOrder).

Buffers: each ``ReplicateBody`` call is one ``pipeline_membership`` group whose copies are
tagged stage 0..k-1, and ``MemoryReuse`` keeps a load's buffers apart only within a
group: the main loop's copies get ``F`` buffers, a remainder's copies as many as it has.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

from skewlsp.contract import LOWERING_REJECTED, Lowering


def lower(
    stage: int | None,
    start: int | None,
    stop: int | None,
    step: int | None,
    trip: int | None,
    load_time: str | None = None,
    run_time: str | None = None,
) -> Lowering | None:
    """What the pass makes of a loop the skew pass left (None: its stage is not known).

    ``load_time``: a bound or step Python computes when the module loads, which the
    compiler folds to a constant but skewlsp cannot see: the copies are known, not the
    main loop's length or the remainder. ``run_time``: what makes a bound a run-time
    value (quoted in the message, so an author sees why the remainder is dispatched)."""
    if stage is None:
        return None
    if stage == 1:
        return Lowering("untouched", "SKW010", "stage=1: nothing replicated", stage)
    if load_time is not None:
        return Lowering(
            "replicated",
            "SKW010",
            f"replicated: {_copies(stage)} per iteration, the main loop's length and the "
            f"remainder depending on `{load_time}` (computed when the module loads, not "
            "visible statically)",
            stage,
            buffers=stage,
            copies=stage,
        )
    if step is None:
        return _rejected(stage, "step must be a compile-time integer constant")
    if step == 0:
        return _rejected(stage, "step cannot be zero")
    if start is None or stop is None or trip is None:
        if step < 0:
            return _rejected(stage, f"dynamic bounds require a positive step, got {step}")
        return _dynamic(stage, start, step, run_time)
    return _static(stage, start, step, trip)


def _rejected(stage: int, why: str) -> Lowering:
    return Lowering("error", LOWERING_REJECTED, f"LowerPipelineLoops: {why}", stage)


def _static(stage: int, start: int, step: int, trip: int) -> Lowering:
    if trip == 0:
        why = "the loop never runs (trip 0): nothing replicated"
        return Lowering("empty", "SKW017", why, stage)
    main, rest = divmod(trip, stage)
    stride = stage * step
    if main == 0:
        return Lowering(
            "replicated",
            "SKW014",
            f"stage={stage} but the loop runs {_times(trip)}: {_copies(trip)} written out and "
            f"no main loop, asking {_buffers(trip)} per load",
            stage,
            main_trip=0,
            tail=trip,
            buffers=trip,
            tail_buffers=trip,
            copies=trip,
        )
    main_stop = start + main * stride
    shape = (
        f"replicated: {_copies(stage)} per iteration, main loop {start}..{main_stop} step "
        f"{stride} ({main} iteration{'' if main == 1 else 's'}), asking {_buffers(stage)} per load"
    )
    found = Lowering(
        "replicated",
        "SKW011",
        shape,
        stage,
        main_trip=main,
        main_start=start,
        main_stop=main_stop,
        stride=stride,
        buffers=stage,
        copies=stage,
    )
    if not rest:
        return found
    return replace(
        found,
        code="SKW012",
        reason=f"{shape}; then {_copies(rest)} after it (asking {_buffers(rest)} per load)",
        tail=rest,
        tail_buffers=rest,
        copies=stage + rest,
    )


def _dynamic(stage: int, start: int | None, step: int, run_time: str | None) -> Lowering:
    branches = stage - 1
    known = f"`{run_time}` is known at run time only" if run_time else "known at run time"
    return Lowering(
        "replicated",
        "SKW013",
        f"replicated: {_copies(stage)} per iteration up to unroll_main_end ({known}), "
        f"step {stage * step}, asking {_buffers(stage)} per load; the remainder through "
        f"{branches} `if unroll_rem == k` {'branch' if branches == 1 else 'branches'}",
        stage,
        main_start=start,
        stride=stage * step,
        branches=branches,
        buffers=stage,
        tail_buffers=branches,
        copies=stage + stage * branches // 2,
    )


def replicated_regions(stage: int, main_trip: int | None, tail: int) -> list[tuple[str, int]]:
    """The regions LowerPipelineLoops writes out for a loop of known trip, in program
    order, as (kind, copies): the main loop's ``stage`` clones (none when the main loop
    runs no time, or ``stage`` is 1), then the remainder's ``tail`` copies."""
    regions = []
    if main_trip != 0 and stage > 1:
        regions.append(("main", stage))
    if tail:
        regions.append(("tail", tail))
    return regions


def nested_in(lowering: Lowering, replicated: int, skews: Sequence[int] = ()) -> Lowering:
    """``lowering`` inside loops that write it more than once: replicated pipelines that
    copy it ``replicated`` times, and skewed loops, each of whose prologue, steady body and
    epilogue hold it the number of times in ``skews`` (``clones_per_half``).
    LowerPipelineLoops runs after the skew and lowers every such copy on its own, so the
    body's copies multiply."""
    enclosing = replicated * math.prod(skews)
    if enclosing <= 1:
        return lowering
    return replace(
        lowering,
        nested=enclosing,
        copies=lowering.copies * enclosing,
        reason=f"{lowering.reason}; {written_by(replicated, skews)} "
        f"({lowering.copies * enclosing} copies of this body in all)",
    )


def written_by(replicated: int, skews: Sequence[int]) -> str:
    """``the enclosing pipelines copy it 3 times and the enclosing skewed loop writes it 4
    times``: which loops around a loop write it how often."""
    parts = []
    if replicated > 1:
        parts.append(f"the enclosing pipelines copy it {replicated} times")
    skewed = math.prod(skews)
    if skewed > 1:
        loops = "skewed loop writes" if len(skews) == 1 else "skewed loops write"
        parts.append(f"the enclosing {loops} it {skewed} times")
    return " and ".join(parts)


def _times(count: int) -> str:
    return "once" if count == 1 else f"{count} times"


def _copies(count: int) -> str:
    return "1 copy" if count == 1 else f"{count} copies"


def _buffers(count: int) -> str:
    return "1 buffer" if count == 1 else f"{count} buffers"
