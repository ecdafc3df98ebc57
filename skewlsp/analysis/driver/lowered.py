"""The lowering passes over the models of one walk (LowerPipelineToSlots, LowerPipelineLoops).

They run at the end of each unit's walk (and on each copy of an inline helper as it is
decided, with the loops around its call), not once over the module. What a language
server keeps of a unit, or of a helper's copy at one call, is then its lowered reports,
and a hit is what a fresh analysis under the same planner would say. Nothing a lowering
reads crosses a unit but the loops around a helper's call (``outside``), which the
walk works out from the caller (:mod:`.call_context`) and the copy's cache key holds.

What they decide of a loop is their own record (a ``Lowered``), put beside the loop's
report as the walk left it (``LoopModel.lowered``): the passes after them read it, and
the report is put together with it once, where it is finished (``report.finish``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from skewlsp.analysis.driver.loop_decision import LoopModel
from skewlsp.analysis.lower_pipeline.loop_facts import LoopFacts
from skewlsp.analysis.lower_pipeline.lowering import NOTHING, Enclosing, Lowered, lowerings
from skewlsp.contract import LoopReport

Bindings = tuple[tuple[str, int], ...]  # the pl.unroll variables' values of one copy


def lowered_models(
    models: Sequence[LoopModel], planner: str, outside: Enclosing = NOTHING
) -> list[LoopModel]:
    """``models`` with every loop the skew pass left lowered under ``planner`` (a model
    lowered before is kept as it is); ``outside``: the loops around them all (around the
    call of the inline helper whose copy they are)."""
    decided = lowerings([_loop(model) for model in models], planner, outside)
    lowered = [_with_record(model, said) for model, said in zip(models, decided, strict=True)]
    return _with_lowered_copies(lowered, planner, outside)


def _loop(model: LoopModel) -> tuple[LoopReport, LoopFacts, Lowered | None]:
    """What the lowering passes read of a loop: its report as the walk left it, what only
    they read of it, and what they decided of it before (a copy lowered at its call)."""
    return model.report, model.facts, model.lowered


def _with_record(model: LoopModel, lowered: Lowered | None) -> LoopModel:
    """The model with the lowering's record of it (None: the lowering left it as it was,
    a model lowered before keeps the record it has)."""
    if lowered is None:
        return model
    return replace(model, lowered=lowered)


def _with_lowered_copies(
    models: list[LoopModel], planner: str, outside: Enclosing
) -> list[LoopModel]:
    """A loop under ``pl.unroll`` is lowered once per copy too (each copy's preview is
    written with its own constants).

    UnrollLoops writes the copies out before the skew pass and the lowering passes run,
    so a copy sits in the loops around the ``pl.unroll`` as the first one does, and in
    the same pl.unroll copy of the loops inside it: each combination of the unrolled
    values is lowered as the walk's loops are, with every loop that has copies taken at
    that combination.
    """
    combinations: list[Bindings] = []
    for model in models:
        for bindings, _ in model.copies:
            if bindings not in combinations:
                combinations.append(bindings)
    lowered: dict[tuple[int, Bindings], Lowered | None] = {}
    for bindings in combinations:
        taken = [_copy_at(model, bindings) for model in models]
        decided = lowerings([_loop(m) for m in taken], planner, outside)
        for copy, said in zip(taken, decided, strict=True):
            lowered[(id(copy), bindings)] = said
    return [
        model
        if not model.copies
        else replace(
            model,
            copies=[
                (bindings, _with_record(copy, lowered[(id(copy), bindings)]))
                for bindings, copy in model.copies
            ],
        )
        for model in models
    ]


def _copy_at(model: LoopModel, bindings: Bindings) -> LoopModel:
    """The model's copy in the pl.unroll copy ``bindings`` (the one whose unrolled values
    agree with them: a loop outside an inner ``pl.unroll`` has fewer); the model itself
    if it has none there."""
    values = dict(bindings)
    for own, copy in model.copies:
        if all(values.get(name) == value for name, value in own):
            return copy
    return model
