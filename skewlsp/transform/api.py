"""The transform on an analysed loop: the rewrite the compiler makes of it.

Pure: source text and a :class:`LoopModel` in, source text out; nothing is
executed or written. The model comes from the same analysis that produced the
verdict (see :mod:`skewlsp.api`), so the rewrite always matches the report and
the text it edits: there is no second analysis that could see other constants.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from skewlsp.analysis.driver import LoopModel
from skewlsp.contract import CORE_TITLES, LoopReport, PreviewUnavailable
from skewlsp.transform.context import build_context
from skewlsp.transform.demote import demoted_loop
from skewlsp.transform.expr import leading_lines
from skewlsp.transform.render import changed_region, loop_lines, replace_loop, statements_of
from skewlsp.transform.replicate import lowered_statements
from skewlsp.transform.schedule import skewed_statements


def loop_source(source: str, report: LoopReport) -> str:
    """The original loop's text (its full lines, indented as in the file)."""
    return loop_lines(source, report.span)


# Analyses a text with the same path and resolver as the model came from.
Reanalyse = Callable[[str], list[LoopModel]]


def preview_model(source: str, model: LoopModel, reanalyse: Reanalyse | None = None) -> str:
    """The loop as the compiler rewrites it, indented like the original ``for``.

    Raises ``PreviewUnavailable`` when the pass rewrites nothing (left loops),
    when the verdict is an error or unknown, or when the preview would be huge.
    """
    rewritten = rewrite_model(source, model, reanalyse)
    return changed_region(source, rewritten, model.report.span)


def rewrite_model(source: str, model: LoopModel, reanalyse: Reanalyse | None = None) -> str:
    """The whole file with the loop replaced by its rewrite; everything else byte-identical.

    Under ``pl.unroll`` each copy is rewritten with its own constants and the copies
    are told apart by the unrolled variables (``if g == 0: ... elif g == 1: ...``),
    so the preview is right for every copy, as the compiler's unrolled IR is.

    A loop whose body holds skewed inner pipelines is rewritten as the compiler does
    it: the inner loops first (their prologue, steady loop and epilogue flattened
    into this body), then this loop, decided again on that body (``reanalyse``).
    """
    if model.inner and model.report.verdict == "skewed":
        if reanalyse is None:
            raise PreviewUnavailable("a nested skew needs the analysis to preview the parent")
        return _after_inner_skews(source, model, reanalyse)
    if len(model.copies) > 1:
        return replace_loop(source, model.report.span, lambda loop: [_per_copy(model, loop)])
    _refuse_unless_rewritten(model)  # before the whole file goes through libcst's parser
    return replace_loop(source, model.report.span, lambda loop: _rewritten(model, loop))


def _rewritten(model: LoopModel, loop: cst.For) -> list[cst.BaseStatement] | str:
    """The statements that replace one copy of the loop; refuses when nothing is rewritten."""
    _refuse_unless_rewritten(model)
    if model.report.verdict == "skewed":
        return _labelled(skewed_statements(build_context(model)), model.report)
    if model.report.verdict == "left":
        return lowered_statements(model.report, loop)
    return [demoted_loop(loop)]


def _refuse_unless_rewritten(model: LoopModel) -> None:
    """Raise ``PreviewUnavailable`` (saying why) unless the pass rewrites this loop."""
    verdict = model.report.verdict
    instance = model.report.instance
    if model.node is None and instance is not None and instance.call == model.report.span:
        loop = instance.helper_loop  # a call of an imported inline helper
        where = f" (`{loop.module}`, line {loop.line})" if loop is not None else ""
        if loop is not None and loop.sized_by_caller:
            raise PreviewUnavailable(
                f"the loop spliced in at this call is written in another module{where}, "
                "with the sizes this file sets: no preview of this copy is made (the "
                "preview there shows its own module's copies)"
            )
        raise PreviewUnavailable(
            f"the loop spliced in at this call is written in another module{where}: "
            "preview it there"
        )
    if model.node is None and verdict in ("skewed", "demoted"):
        raise PreviewUnavailable("this loop was not analysed from this text; no rewrite is shown")
    if verdict in ("skewed", "demoted"):
        return
    if verdict == "left":
        lowering = model.report.lowering
        if model.node is not None and lowering is not None and lowering.code != "SKW010":
            return  # the lowering passes rewrite it (lowered_statements)
        why = lowering.reason if lowering is not None else "its stage is not known"
        raise PreviewUnavailable(f"left as a pipeline loop: {why}; nothing is rewritten")
    raise PreviewUnavailable(
        model.report.message or f"no preview for a loop with verdict {verdict}"
    )


def _per_copy(model: LoopModel, loop: cst.For) -> cst.If:
    """``if g == 0: <copy 0> elif g == 1: <copy 1> ...``: one branch per pl.unroll copy."""
    branches: list[tuple[cst.BaseExpression, list[cst.BaseStatement]]] = []
    for bindings, copy in model.copies:
        label = ", ".join(f"{name} = {value}" for name, value in bindings)
        try:
            made = _rewritten(copy, copy.node or loop)
            body = statements_of(made) if isinstance(made, str) else list(made)
            note = f"# pl.unroll copy {label}: {copy.report.message}"
        except PreviewUnavailable as refusal:
            body = [loop.with_changes(leading_lines=[])]
            note = f"# pl.unroll copy {label}: not rewritten ({refusal})"
        first = body[0]
        body[0] = first.with_changes(
            leading_lines=[cst.EmptyLine(comment=cst.Comment(note)), *leading_lines(first)]
        )
        test = cst.parse_expression(" and ".join(f"{name} == {value}" for name, value in bindings))
        branches.append((test, body))
    orelse: cst.If | None = None
    for test, body in reversed(branches):
        orelse = cst.If(test=test, body=cst.IndentedBlock(body=body), orelse=orelse)
    assert orelse is not None
    return orelse


def _after_inner_skews(source: str, model: LoopModel, reanalyse: Reanalyse) -> str:
    text = source
    for inner in sorted(model.inner, key=lambda m: m.report.span, reverse=True):
        text = rewrite_model(text, inner, reanalyse)  # bottom up: spans above stay valid
    span = model.report.span
    again = next(
        (
            m
            for m in reanalyse(text)
            if (m.report.span.line, m.report.span.column) == (span.line, span.column)
        ),
        None,
    )
    if again is None or again.inner:
        raise PreviewUnavailable("internal: the parent loop was not found after the inner rewrite")
    before, after = model.report, again.report
    if (before.verdict, before.depth, before.trip) != (after.verdict, after.depth, after.trip):
        raise PreviewUnavailable(
            "internal: with its inner loops rewritten the parent decides differently "
            f"({after.code} {after.message}); no preview is shown rather than a wrong one"
        )
    return rewrite_model(text, again, reanalyse)


def _labelled(statements: list[cst.BaseStatement], report: LoopReport) -> list[cst.BaseStatement]:
    """For a mixed loop, say whose function this is and where its messages come from."""
    core = next((c for c in report.cores if c.verdict == "skewed"), None)
    if core is None or not statements:
        return statements
    other = CORE_TITLES["aiv" if core.core == "aic" else "aic"]
    lines = [
        f"# the compiler's {CORE_TITLES[core.core]} function for this loop: ExpandMixedKernel",
        f"# creates the tpush/tpop/tfree below; the {other} work runs in the other core's copy",
    ]
    heading = [cst.EmptyLine(comment=cst.Comment(text)) for text in lines] + list(
        leading_lines(statements[0])
    )
    return [statements[0].with_changes(leading_lines=heading), *statements[1:]]
