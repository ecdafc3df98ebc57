"""The public seam both adapters and the tests use (what Fixit's ``api.py`` is).

Three questions, each answered from one analysis of the source:

- :func:`analyse`: every ``pl.pipeline`` loop's report;
- :func:`preview` / :func:`previews`: the loop as the compiler rewrites it, taken
  from the *same* analysis (same resolver, same constants) as the verdict, so a
  preview can never disagree with the lint of the file;
- :func:`rewrite`: the whole module with one loop rewritten.

Pure: text in, data out. Imported modules come through the caller's resolver.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .analysis import (
    LoopReport,
    Resolver,
    UnitCache,
    analyze,
    analyze_models,
    concrete_trees,
    loop_at,
)
from .analysis.codes import SYNTAX_ERROR
from .analysis.engine import LoopModel
from .analysis.report import Importers
from .transform import PreviewUnavailable, loop_source, preview_model, rewrite_model

__all__ = [
    "LoopPreview",
    "PreviewUnavailable",
    "Resolver",
    "analyse",
    "loop_at",
    "preview",
    "previews",
    "rewrite",
]


@dataclass(frozen=True)
class LoopPreview:
    """One loop before and after the pass: the file's lines and the rewrite, both indented
    like the ``for``."""

    report: LoopReport
    original: str
    rewritten: str


def analyse(
    source: str,
    path: str | None = None,
    *,
    resolver: Resolver | None = None,
    cache: UnitCache | None = None,
    importers: Importers | None = None,
) -> list[LoopReport]:
    """Every loop's report (see :func:`skewlsp.analysis.analyze`)."""
    return analyze(source, path, resolver=resolver, cache=cache, importers=importers)


def preview(
    source: str,
    line: int,
    *,
    path: str | None = None,
    resolver: Resolver | None = None,
    importers: Importers | None = None,
) -> LoopPreview:
    """The innermost loop spanning 1-based ``line``, rewritten as the compiler does.

    ``importers``: where an inline helper's callers are (see :func:`analyze`). Raises
    :class:`PreviewUnavailable` (with the reason) when no loop spans the line or the
    pass rewrites nothing there.
    """
    models = _models(source, path, resolver, importers)
    model = _model_at(models, line)
    refusal = _unparsable(models)
    if refusal is not None:
        raise refusal
    rewritten = preview_model(source, model, _reanalyse(path, resolver))
    return LoopPreview(model.report, loop_source(source, model.report), rewritten)


def previews(
    source: str,
    path: str | None = None,
    *,
    resolver: Resolver | None = None,
    importers: Importers | None = None,
) -> list[tuple[LoopReport, LoopPreview | PreviewUnavailable]]:
    """Every loop with its preview, or the reason it has none, from one analysis."""
    found: list[tuple[LoopReport, LoopPreview | PreviewUnavailable]] = []
    reanalyse = _reanalyse(path, resolver)
    models = _models(source, path, resolver, importers)
    refusal = _unparsable(models)
    for model in models:
        if refusal is not None:
            found.append((model.report, refusal))
            continue
        try:
            text = preview_model(source, model, reanalyse)
        except PreviewUnavailable as refused:  # not `refusal`: `except ... as` unbinds it
            found.append((model.report, refused))
            continue
        found.append(
            (model.report, LoopPreview(model.report, loop_source(source, model.report), text))
        )
    return found


def rewrite(
    source: str, line: int, *, path: str | None = None, resolver: Resolver | None = None
) -> str:
    """The whole file with the loop spanning ``line`` rewritten; everything else unchanged."""
    models = _models(source, path, resolver)
    model = _model_at(models, line)
    refusal = _unparsable(models)
    if refusal is not None:
        raise refusal
    return rewrite_model(source, model, _reanalyse(path, resolver))


def _reanalyse(path: str | None, resolver: Resolver | None) -> Callable[[str], list[LoopModel]]:
    """How the transform decides a parent again once its inner skews are flattened."""
    return lambda text: _concrete_models(text, path, resolver)


def _models(
    source: str, path: str | None, resolver: Resolver | None, importers: Importers | None = None
) -> list[LoopModel]:
    try:
        source.encode("utf-8")
    except UnicodeEncodeError as error:  # a lone surrogate: libcst cannot even read it
        raise PreviewUnavailable(
            f"the text holds a character that is not valid Unicode (at offset {error.start}); "
            "no rewrite is shown"
        ) from None
    return _concrete_models(source, path, resolver, importers)


def _concrete_models(
    source: str, path: str | None, resolver: Resolver | None, importers: Importers | None = None
) -> list[LoopModel]:
    """The models a rewrite prints from: on libcst's own trees (with the text's whitespace
    and comments), not the ones a lint reads (made from the stdlib's)."""
    with concrete_trees():
        return analyze_models(source, path, resolver=resolver, importers=importers)


def _unparsable(models: Sequence[LoopModel]) -> PreviewUnavailable | None:
    """A rewrite re-parses the whole file: while it has a syntax error, nothing is shown."""
    broken = next((m.report for m in models if m.report.code == SYNTAX_ERROR), None)
    if broken is None:
        return None
    return PreviewUnavailable(
        f"the file does not parse ({broken.message}, line {broken.span.line}); "
        "fix it to preview its loops"
    )


def _model_at(models: Sequence[LoopModel], line: int) -> LoopModel:
    report = loop_at([model.report for model in models], line)
    if report is None:
        raise PreviewUnavailable("no pl.pipeline loop spans this line")
    return next(model for model in models if model.report is report)
