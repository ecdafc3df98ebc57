"""The lowering passes over the models of one walk (LowerPipelineToSlots, LowerPipelineLoops).

They run at the end of each unit's walk (and on each copy of an inline helper as it is
decided), not once over the module. What a language server keeps of a unit, or of a
helper's copy at one call, is then its lowered reports, and a hit is what a fresh
analysis under the same planner would say. Nothing a lowering reads crosses a
unit: it nests loops of one function copy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from skewlsp.analysis.driver.loop_decision import LoopModel
from skewlsp.analysis.lower_pipeline.lowering import lowered_reports, with_reason
from skewlsp.contract import LoopReport


def lowered_models(models: Sequence[LoopModel], planner: str) -> list[LoopModel]:
    """``models`` with every loop the skew pass left lowered under ``planner`` (a model
    lowered before is kept as it is)."""
    reports = lowered_reports([model.report for model in models], planner)
    return [
        _with_lowered_copies(_with_report(model, report), planner)
        for model, report in zip(models, reports, strict=True)
    ]


def _with_report(model: LoopModel, report: LoopReport) -> LoopModel:
    """The model with its lowered report; a copy's message without its label says what
    the lowering does too (a copy reported at its call or in another file is worded
    from it)."""
    if report is model.report:
        return model
    unlabelled = model.unlabelled_message
    if unlabelled is not None and report.lowering is not None:
        unlabelled = with_reason(unlabelled, report.lowering)
    return replace(model, report=report, unlabelled_message=unlabelled)


def _with_lowered_copies(model: LoopModel, planner: str) -> LoopModel:
    """A loop under ``pl.unroll`` is lowered once per copy too (each copy's preview is
    written with its own constants)."""
    if not model.copies:
        return model
    copies = [
        (
            bindings,
            replace(copy, report=lowered_reports([copy.report], planner)[0]),
        )
        for bindings, copy in model.copies
    ]
    return replace(model, copies=copies)
