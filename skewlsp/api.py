"""The public seam both adapters and the tests use (what Fixit's ``api.py`` is).

The CLI and the server reach the analysis and the transform only through here (the
data they read is :mod:`skewlsp.contract`; import-linter holds them to it). Three
questions, each answered from one analysis of the source:

- :func:`analyse`: every ``pl.pipeline`` loop's report;
- :func:`preview` / :func:`previews`: the loop as the compiler rewrites it, taken
  from the *same* analysis (same resolver, same constants) as the verdict, so a
  preview can never disagree with the lint of the file;
- :func:`rewrite`: the whole module with one loop rewritten.

Besides them, what an adapter needs to call the analysis well: a :class:`UnitCache`
for a server's edits, :class:`SharedModules` for a batch, :func:`load_engine`
before a process pool forks, the lines of a text as the analysis counts them
(:func:`source_lines`) and the record of what an analysis read (:class:`ReadLog`).

Pure: text in, data out. Imported modules come through the caller's resolver.
Importing this module is cheap: the engine and libcst behind it are imported on
first use (a linter run answered from its cache never needs them).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from skewlsp.analysis.frontend.reads import ReadLog, digest_of
from skewlsp.analysis.frontend.text_search import worth_reading
from skewlsp.analysis.source.lines import source_lines
from skewlsp.contract import (
    SYNTAX_ERROR,
    Assumptions,
    Importers,
    LoopReport,
    PreviewUnavailable,
    Resolver,
    loop_at,
)

if TYPE_CHECKING:
    from skewlsp.analysis import LoopModel, SharedModules, UnitCache

__all__ = [
    "Assumptions",
    "LoopPreview",
    "PreviewUnavailable",
    "Previewer",
    "ReadLog",
    "Resolver",
    "SharedModules",
    "UnitCache",
    "analyse",
    "digest_of",
    "load_engine",
    "loop_at",
    "loop_source",
    "preview",
    "previewer",
    "previews",
    "rewrite",
    "source_lines",
    "worth_reading",
]


def __getattr__(name: str) -> Any:
    """``UnitCache`` and ``SharedModules``, imported with the engine on first use."""
    if name not in ("UnitCache", "SharedModules"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import skewlsp.analysis

    return getattr(skewlsp.analysis, name)


def load_engine() -> None:
    """Import the analysis engine (libcst included) now: before a process pool forks, so
    that its workers inherit it instead of importing it each."""
    import skewlsp.analysis.driver  # noqa: F401


def loop_source(source: str, report: LoopReport) -> str:
    """The loop of ``report`` as the file has it, indented like its ``for``."""
    from skewlsp.transform import loop_source as original

    return original(source, report)


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
    shared_modules: SharedModules | None = None,
    planner: str = "pypto",
    assumptions: Assumptions | None = None,
) -> list[LoopReport]:
    """Every loop's report (see :func:`skewlsp.analysis.driver.analyze`); the analyses of a
    batch given the same ``shared_modules`` share the constants of the modules they
    import; ``planner`` is the compiler's memory planner ("pypto", its default, or
    "ptoas"); ``assumptions`` the environment and command line the kernel's modules are
    assumed imported under (None: an empty environment and no arguments; the real
    process's are never read)."""
    from skewlsp.analysis import analyze

    return analyze(
        source,
        path,
        resolver=resolver,
        cache=cache,
        importers=importers,
        shared_modules=shared_modules,
        planner=planner,
        assumptions=assumptions,
    )


@dataclass(frozen=True)
class Previewer:
    """One analysis of a text, kept to preview any of its loops (:meth:`at`).

    The analysis a rewrite prints from (libcst's own trees) is most of a preview's cost:
    an editor that previews several loops of one version of a document asks for one
    :func:`previewer` and keeps it while that version is current (the server's
    ``skewlsp/preview``). Its models are never changed once made.
    """

    source: str
    models: tuple[LoopModel, ...]
    reanalyse: Callable[[str], list[LoopModel]]

    def at(self, line: int) -> LoopPreview:
        """The innermost loop spanning 1-based ``line``, rewritten as the compiler does
        (raises :class:`PreviewUnavailable`, with the reason, as :func:`preview`)."""
        model = _model_at(self.models, line)
        refusal = _unparsable(self.models)
        if refusal is not None:
            raise refusal
        from skewlsp.transform import preview_model

        rewritten = preview_model(self.source, model, self.reanalyse)
        return LoopPreview(model.report, loop_source(self.source, model.report), rewritten)


def previewer(
    source: str,
    *,
    path: str | None = None,
    resolver: Resolver | None = None,
    importers: Importers | None = None,
    planner: str = "pypto",
    assumptions: Assumptions | None = None,
) -> Previewer:
    """The analysis :func:`preview` makes, kept for the previews of any loop of ``source``."""
    models = _models(source, path, resolver, importers, None, planner, assumptions)
    return Previewer(source, tuple(models), _reanalyse(path, resolver, None, assumptions))


def preview(
    source: str,
    line: int,
    *,
    path: str | None = None,
    resolver: Resolver | None = None,
    importers: Importers | None = None,
    planner: str = "pypto",
    assumptions: Assumptions | None = None,
) -> LoopPreview:
    """The innermost loop spanning 1-based ``line``, rewritten as the compiler does.

    ``importers``: where an inline helper's callers are (see :func:`analyze`). Raises
    :class:`PreviewUnavailable` (with the reason) when no loop spans the line or the
    pass rewrites nothing there.
    """
    found = previewer(
        source,
        path=path,
        resolver=resolver,
        importers=importers,
        planner=planner,
        assumptions=assumptions,
    )
    return found.at(line)


def previews(
    source: str,
    path: str | None = None,
    *,
    resolver: Resolver | None = None,
    importers: Importers | None = None,
    shared_modules: SharedModules | None = None,
    planner: str = "pypto",
    assumptions: Assumptions | None = None,
) -> list[tuple[LoopReport, LoopPreview | PreviewUnavailable]]:
    """Every loop with its preview, or the reason it has none, from one analysis
    (``shared_modules`` and ``assumptions`` as for :func:`analyse`)."""
    from skewlsp.transform import preview_model

    found: list[tuple[LoopReport, LoopPreview | PreviewUnavailable]] = []
    reanalyse = _reanalyse(path, resolver, shared_modules, assumptions)
    models = _models(source, path, resolver, importers, shared_modules, planner, assumptions)
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
    source: str,
    line: int,
    *,
    path: str | None = None,
    resolver: Resolver | None = None,
    planner: str = "pypto",
    assumptions: Assumptions | None = None,
) -> str:
    """The whole file with the loop spanning ``line`` rewritten; everything else unchanged."""
    models = _models(source, path, resolver, None, None, planner, assumptions)
    model = _model_at(models, line)
    refusal = _unparsable(models)
    if refusal is not None:
        raise refusal
    from skewlsp.transform import rewrite_model

    return rewrite_model(source, model, _reanalyse(path, resolver, None, assumptions))


def _reanalyse(
    path: str | None,
    resolver: Resolver | None,
    shared_modules: SharedModules | None = None,
    assumptions: Assumptions | None = None,
) -> Callable[[str], list[LoopModel]]:
    """How the transform decides a parent again once its inner skews are flattened (under
    the same build, with no other one: only the verdicts of this build are rewritten)."""
    build = replace(assumptions or Assumptions(), variants=False)
    return lambda text: _concrete_models(
        text, path, resolver, None, shared_modules, assumptions=build
    )


def _models(
    source: str,
    path: str | None,
    resolver: Resolver | None,
    importers: Importers | None = None,
    shared_modules: SharedModules | None = None,
    planner: str = "pypto",
    assumptions: Assumptions | None = None,
) -> list[LoopModel]:
    try:
        source.encode("utf-8")
    except UnicodeEncodeError as error:  # a lone surrogate: libcst cannot even read it
        raise PreviewUnavailable(
            f"the text holds a character that is not valid Unicode (at offset {error.start}); "
            "no rewrite is shown"
        ) from None
    return _concrete_models(
        source, path, resolver, importers, shared_modules, planner, assumptions
    )


def _concrete_models(
    source: str,
    path: str | None,
    resolver: Resolver | None,
    importers: Importers | None = None,
    shared_modules: SharedModules | None = None,
    planner: str = "pypto",
    assumptions: Assumptions | None = None,
) -> list[LoopModel]:
    """The models a rewrite prints from: on libcst's own trees (with the text's whitespace
    and comments), not the ones a lint reads (made from the stdlib's)."""
    from skewlsp.analysis import analyze_models

    return analyze_models(
        source,
        path,
        resolver=resolver,
        importers=importers,
        concrete=True,
        shared_modules=shared_modules,
        planner=planner,
        assumptions=assumptions,
    )


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
    """The loop spanning ``line``; on a line that calls an inline helper, the copy of the
    helper's loop spliced in by that call (the call is where that copy is remarked)."""
    report = loop_at([model.report for model in models], line)
    if report is None:
        at_call = [
            model
            for model in models
            if model.report.instance is not None
            and model.report.instance.call is not None
            and model.report.instance.call_path is None
            and model.report.instance.call.line <= line <= model.report.instance.call.end_line
        ]
        if at_call:
            return at_call[0]
        raise PreviewUnavailable("no pl.pipeline loop spans this line")
    return next(model for model in models if model.report is report)
