"""The public transform API the CLI and the language server call.

Pure: source text and a report in, source text out; nothing is executed or
written. The report only locates the loop: the loop is analysed again from
``source`` so the rewrite always matches the text it edits.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from ..analysis import LoopModel, LoopReport, analyze_models
from .context import build_context
from .demote import demoted_loop
from .errors import PreviewUnavailable
from .render import changed_region, loop_lines, replace_loop
from .schedule import skewed_statements

Resolver = Callable[[str, int, "str | None"], "str | None"]


def loop_source(source: str, report: LoopReport) -> str:
    """The original loop's text (its full lines, indented as in the file)."""
    return loop_lines(source, report.span)


def preview_loop(source: str, report: LoopReport, *, resolver: Resolver | None = None) -> str:
    """The loop as the compiler rewrites it, indented like the original ``for``.

    Raises ``PreviewUnavailable`` when the pass rewrites nothing (left loops),
    when the verdict is an error or unknown, or when the preview would be huge.
    """
    rewritten = rewrite_module(source, report, resolver=resolver)
    return changed_region(source, rewritten, report.span)


def rewrite_module(source: str, report: LoopReport, *, resolver: Resolver | None = None) -> str:
    """The whole file with the loop replaced by its rewrite; everything else byte-identical."""
    try:
        source.encode("utf-8")
    except UnicodeEncodeError as error:  # a lone surrogate: libcst cannot even read it
        raise PreviewUnavailable(
            f"the text holds a character that is not valid Unicode (at offset {error.start}); "
            "no rewrite is shown"
        ) from None
    model = find_model(source, report, resolver)
    verdict = model.report.verdict
    if verdict == "skewed":
        context = build_context(model)
        statements = _labelled(skewed_statements(context), model.report)
        return replace_loop(source, model.report.span, lambda _loop: statements)
    if verdict == "demoted":
        return replace_loop(source, model.report.span, lambda loop: [demoted_loop(loop)])
    if verdict == "left":
        raise PreviewUnavailable(
            f"left as a pipeline loop: LowerPipelineLoops replicates the body "
            f"{model.report.stage if model.report.stage is not None else 'stage'} times; "
            "nothing is rewritten by this pass"
        )
    raise PreviewUnavailable(
        model.report.message or f"no preview for a loop with verdict {verdict}"
    )


_CORE_TITLES = {"aic": "cube (AIC)", "aiv": "vector (AIV)"}


def _labelled(statements: list[cst.BaseStatement], report: LoopReport) -> list[cst.BaseStatement]:
    """For a mixed loop, say whose function this is and where its messages come from."""
    core = next((c for c in report.cores if c.verdict == "skewed"), None)
    if core is None or not statements:
        return statements
    other = "vector (AIV)" if core.core == "aic" else "cube (AIC)"
    lines = [
        f"# the compiler's {_CORE_TITLES[core.core]} function for this loop: ExpandMixedKernel",
        f"# creates the tpush/tpop/tfree below; the {other} work runs in the other core's copy",
    ]
    heading = [cst.EmptyLine(comment=cst.Comment(text)) for text in lines] + list(
        statements[0].leading_lines
    )
    return [statements[0].with_changes(leading_lines=heading), *statements[1:]]


def find_model(source: str, report: LoopReport, resolver: Resolver | None = None) -> LoopModel:
    """The analysed loop at the report's position (by span, then by its ``for`` line)."""
    models = analyze_models(source, report.path, resolver=resolver)
    models = [model for model in models if model.node is not None]
    for model in models:
        if model.report.span == report.span:
            return model
    for model in models:
        if model.report.span.line == report.span.line:
            return model
    raise PreviewUnavailable(
        f"no pl.pipeline loop at line {report.span.line} of this text (was the file edited?)"
    )
