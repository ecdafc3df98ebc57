"""The transform on an analysed loop: the rewrite the compiler makes of it.

Pure: source text and a :class:`LoopModel` in, source text out; nothing is
executed or written. The model comes from the same analysis that produced the
verdict (see :mod:`skewlsp.api`), so the rewrite always matches the report and
the text it edits: there is no second analysis that could see other constants.
"""

from __future__ import annotations

import libcst as cst

from ..analysis import LoopReport
from ..analysis.engine import LoopModel
from .context import build_context
from .demote import demoted_loop
from .errors import PreviewUnavailable
from .render import changed_region, loop_lines, replace_loop
from .schedule import skewed_statements


def loop_source(source: str, report: LoopReport) -> str:
    """The original loop's text (its full lines, indented as in the file)."""
    return loop_lines(source, report.span)


def preview_model(source: str, model: LoopModel) -> str:
    """The loop as the compiler rewrites it, indented like the original ``for``.

    Raises ``PreviewUnavailable`` when the pass rewrites nothing (left loops),
    when the verdict is an error or unknown, or when the preview would be huge.
    """
    rewritten = rewrite_model(source, model)
    return changed_region(source, rewritten, model.report.span)


def rewrite_model(source: str, model: LoopModel) -> str:
    """The whole file with the loop replaced by its rewrite; everything else byte-identical."""
    verdict = model.report.verdict
    if model.node is None and verdict in ("skewed", "demoted"):
        raise PreviewUnavailable("this loop was not analysed from this text; no rewrite is shown")
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
