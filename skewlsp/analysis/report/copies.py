"""A copy's report: a loop Python builds more than once (a call of an inline helper, an
iteration of a module-level ``for``), each copy decided on its own.

The walk records which copy a report is (its :class:`Instance`) and the copy's message
without its label; the label is put in front here, the one place a copy's message is
composed, so no pass edits the message another pass wrote.
"""

from __future__ import annotations

from dataclasses import replace

from skewlsp.contract import Instance, LoopReport, Span


def labelled(report: LoopReport, instance: Instance, unlabelled: str) -> LoopReport:
    """``report`` as the copy ``instance``: its message ``unlabelled`` (the copy's own
    text, what the passes said of it) with the copy's label in front."""
    return replace(
        report, instance=instance, message=f"{instance.label}: {unlabelled}", own_message=unlabelled
    )


def at_the_call(
    report: LoopReport, message: str | None, helper: str, module: str, path: str | None
) -> LoopReport | None:
    """One spliced copy of the helper's loop, as a report located at its call in this file.

    ``message`` is the copy's message without its label (where the call is, which this
    report's location already says); ``helper``: the helper's qualified name, ``module``:
    its module as the import names it.
    """
    instance = report.instance
    if instance is None or instance.call is None or message is None:
        return None
    where = f"`{helper}` from `{module}`"
    call: Span = instance.call
    return LoopReport(
        path,
        call,
        call,
        report.verdict,
        report.code,
        f"the loop of {where} (its line {report.span.line}) inlined here: {message}",
        function=instance.caller,
        loop_var=report.loop_var,
        stage=report.stage,
        requested_depth=report.requested_depth,
        depth=report.depth,
        trip=report.trip,
        start=report.start,
        stop=report.stop,
        step=report.step,
        dynamic_symbol=report.dynamic_symbol,
        cores=report.cores,
        fix_hint=report.fix_hint,
        instance=instance,
        lowering=report.lowering,
    )
