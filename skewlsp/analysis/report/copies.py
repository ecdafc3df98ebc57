"""A copy's report: a loop Python builds more than once (a call of an inline helper, an
iteration of a module-level ``for``), each copy decided on its own.

The walk records which copy a report is (its :class:`Instance`); its message stays the
copy's own text, what the passes said of it. The label is put in front where the report
is finished (:mod:`.finish`, by :func:`labelled`), the one place a message is composed,
so no pass edits the message another pass wrote.
"""

from __future__ import annotations

from dataclasses import replace

from skewlsp.contract import HelperLoop, LoopReport, Span


def labelled(report: LoopReport) -> bool:
    """Whether ``report``'s message is named by its copy's label: a copy reported at its
    loop. A copy reported at its call in the caller's file (:func:`at_the_call`) is named
    by the helper's loop instead (the call is where it is)."""
    instance = report.instance
    if instance is None:
        return False
    return not (instance.call == report.span and instance.call_path is None)


def at_the_call(
    report: LoopReport, helper: str, module: str, path: str | None, sized_by_caller: bool = False
) -> LoopReport | None:
    """One spliced copy of the helper's loop, as a report located at its call in this file.

    Its message names the helper's loop, then the copy's own text (``report.message``:
    where the call is, which the copy's label says, is this report's location);
    ``helper``: the helper's qualified name, ``module``: its module as the import names
    it. (``report`` is the copy as its walk left it: what the lowering passes decided of
    it travels beside it, and joins it where it is finished, :mod:`.finish`.)
    ``sized_by_caller``: this file sets what the helper reads (:class:`HelperLoop`).
    """
    instance = report.instance
    if instance is None or instance.call is None:
        return None
    call: Span = instance.call
    loop = HelperLoop(helper, module, report.span.line, sized_by_caller)
    instance = replace(instance, helper_loop=loop)
    where = f"`{helper}` from `{module}`"
    return LoopReport(
        path,
        call,
        call,
        report.verdict,
        report.code,
        f"the loop of {where} (its line {report.span.line}) inlined here: {report.message}",
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
    )


def at_the_loop(report: LoopReport, path: str | None, caller_path: str) -> LoopReport | None:
    """One copy of this module's inline helper's loop, spliced into a call in another
    module (``caller_path``, where the walk decided it: ``report``), as a report located
    at the helper's loop in this file (``path``); None for a report that is no copy.

    It is named by its caller and that caller's file (the label is put in front where it
    is finished: :mod:`.finish`); the remark at the call belongs to the caller's file
    (its own analysis makes it), so it is not this report's.
    """
    if report.instance is None:
        return None
    instance = replace(report.instance, call_path=caller_path)
    own = tuple(hint for hint in report.hints if hint.span != instance.call)
    return replace(report, instance=instance, path=path, hints=own)
