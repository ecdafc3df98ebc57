"""One module's analysis, every stage in order, as a batch run (the linter) does it.

The source is indexed (``frontend.source_index``: where the units holding loops are),
each unit is walked and its loops decided (:mod:`.unit_run`), inline helpers shared
with other modules are decided at their calls (:mod:`.helper_calls`), and the module
gets its syntax verdict: Python refuses the whole file for a syntax error anywhere, and
so does the compiler that imports it. Last, every ``pl.pipeline`` loop the walk did not
reach gets a report of its own (``report.coverage``).

The stage over the units (:func:`analyse_units`) and the syntax verdict
(:func:`with_syntax_verdict`) are shared with the language server's path
(:mod:`.edited_module`), which puts its cache in front of each unit.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from skewlsp.analysis.driver.helper_calls import HelperStage, external_calls, imported_calls
from skewlsp.analysis.driver.helper_scopes import helper_scopes
from skewlsp.analysis.driver.loop_decision import LoopModel
from skewlsp.analysis.driver.scope_stage import loopless_scopes
from skewlsp.analysis.driver.unit_run import analyse_unit, module_context
from skewlsp.analysis.frontend.constants import ModuleConstants
from skewlsp.analysis.frontend.source_index import (
    ModuleIndex,
    SyntaxProblem,
    Unit,
    build_exact_index,
    build_index,
    is_inline_helper_unit,
    may_hold_pipeline_loops,
    parse_whole,
    syntax_problem,
)
from skewlsp.analysis.frontend.state import AnalysisState
from skewlsp.analysis.report.coverage import syntax_error, unanalysed, unreported_loops
from skewlsp.contract import UNKNOWN, Importers, LoopReport, Resolver, Span


def analyse_module(
    source: str,
    path: str | None,
    resolver: Resolver | None,
    importers: Importers | None,
    state: AnalysisState,
) -> list[LoopModel]:
    """Every loop's model, nothing kept for a later run (``state``: this analysis's).

    A batch run checks the syntax of a file with loops as a whole anyway: parsed first,
    the tree also gives the index its blocks and each unit its own tree.
    """
    whole: ast.Module | SyntaxProblem | None = None
    if may_hold_pipeline_loops(source):  # (parsed already when decided under another build)
        whole = state.parses.module_tree(source) or parse_whole(source)
    # (read off the text alone: indexed once for the analysis and its other builds)
    tree = whole if isinstance(whole, ast.Module) else None
    key = (build_index, source, tree is None)
    index = state.syntactic_fact(key, lambda: build_index(source, tree))
    if index.syntax_problem is not None:
        return [LoopModel(syntax_report(index.syntax_problem, path))]
    if whole is None and index.units and not index.known_to_parse:
        whole = parse_whole(source)  # a loop the text did not show (a renamed pipeline)
    if isinstance(whole, ast.Module) and index.units:
        state.parses.share_module_tree(whole, source)
        if "argv" in source:  # (its options are scanned off this tree: not parsed again)
            state.build.scanned.parsed(source, whole)
    if not index.units:
        return without_units(source, path, index, resolver, state)
    constants, aliases = module_context(index, path, resolver, state, text=source)
    models, broken = analyse_units(
        source,
        path,
        index,
        resolver,
        importers,
        constants,
        state,
        lambda unit: analyse_unit(unit, path, aliases, constants, state),
    )
    models.extend(loopless_scopes(index, path, constants, state))
    models.extend(helper_scopes(index, source, path, resolver, state, lambda: constants))

    def whole_file_problem() -> SyntaxProblem | None:
        if whole is not None:  # what syntax_problem(source) says, from the parse done above
            return whole if isinstance(whole, SyntaxProblem) else None
        return syntax_problem(source, None)

    return with_syntax_verdict(
        source, path, resolver, index, models, broken, whole_file_problem, state
    )


def without_units(
    source: str,
    path: str | None,
    index: ModuleIndex,
    resolver: Resolver | None,
    state: AnalysisState,
    helper_stage: HelperStage | None = None,
) -> list[LoopModel]:
    """A module where no function holds a pipeline loop (nor mentions "pipeline").

    The loops of imported inline helpers are reported at their calls only in a file that
    mentions "pipeline"; an inline helper's scope that overflows, at the calls of every
    kernel (:mod:`.helper_scopes`): the linter reads the files that mention either.
    """
    made: list[ModuleConstants] = []

    def constants() -> ModuleConstants:
        if not made:
            made.append(module_context(index, path, resolver, state, text=source)[0])
        return made[0]

    models = helper_scopes(index, source, path, resolver, state, constants)
    if not index.imported or "pipeline" not in source:
        return never_silent(source, path, index, models)
    calls = imported_calls(index, path, resolver, constants(), state, helper_stage)
    return never_silent(source, path, index, calls + models)


def analyse_units(
    source: str,
    path: str | None,
    index: ModuleIndex,
    resolver: Resolver | None,
    importers: Importers | None,
    constants: ModuleConstants,
    state: AnalysisState,
    stage: Callable[[Unit], list[LoopModel] | None],
    helper_stage: HelperStage | None = None,
) -> tuple[list[LoopModel], bool]:
    """The models of every unit (from ``stage``, None for a unit libcst cannot parse) and
    of the inline helpers shared with other modules (imported ones through
    ``helper_stage``, if given); and whether a unit could not be parsed (a syntax error in
    it, or the fast split of the module was wrong).

    With ``importers``, a helper of this module without a caller here whose verdict waits
    for one (SKW050) is decided at each call in another module instead.
    """
    models: list[LoopModel] = []
    broken = False
    waiting: dict[str, list[LoopModel]] = {}
    for unit in index.units:
        unit_models = stage(unit)
        if unit_models is None:
            broken = True
            continue
        models.extend(unit_models)
        if (
            importers is not None
            and not unit.callers
            and is_inline_helper_unit(unit)
            and any(m.report.code == UNKNOWN for m in unit_models)
        ):
            waiting[unit.qualname] = unit_models
    if waiting and importers is not None:
        models = _with_external_copies(source, path, importers, resolver, models, waiting, state)
    models.extend(imported_calls(index, path, resolver, constants, state, helper_stage))
    return models, broken


def _with_external_copies(
    source: str,
    path: str | None,
    importers: Importers,
    resolver: Resolver | None,
    models: list[LoopModel],
    waiting: dict[str, list[LoopModel]],
    state: AnalysisState,
) -> list[LoopModel]:
    """Each call in another module decides its own copy of a waiting helper: those copies
    replace the one decided here with the parameters unknown."""
    external = external_calls(source, path, importers, resolver, waiting, state)
    for qualname in {name for name, _ in external}:
        dropped = {id(m) for m in waiting[qualname]}
        models = [m for m in models if id(m) not in dropped]
    models.extend(model for _, model in external)
    return models


def with_syntax_verdict(
    source: str,
    path: str | None,
    resolver: Resolver | None,
    index: ModuleIndex,
    models: list[LoopModel],
    broken: bool,
    whole_file_problem: Callable[[], SyntaxProblem | None],
    state: AnalysisState,
) -> list[LoopModel]:
    """The models, next to the file's syntax error if it has one.

    The fast index parses only the blocks it needs, but Python refuses the whole file
    for a syntax error anywhere: the loops that parsed keep their verdicts, next to the
    error. A unit that failed to parse in a file without one means the layout misled
    the fast split: the module is analysed again, the slow and exact way.
    """
    problem = None
    if broken or not index.known_to_parse:
        problem = whole_file_problem()
        index.known_to_parse = problem is None and not broken
    if problem is not None:
        models.append(LoopModel(syntax_report(problem, path)))
    elif broken:
        return analyze_exact(source, path, resolver, state)
    return never_silent(source, path, index, models)


def analyze_exact(
    source: str, path: str | None, resolver: Resolver | None, state: AnalysisState
) -> list[LoopModel]:
    """The slow, exact path: the whole module through the stdlib parser first."""
    index = build_exact_index(source)
    if index.syntax_problem is not None:
        return [LoopModel(syntax_report(index.syntax_problem, path))]
    constants, aliases = module_context(index, path, resolver, state, text=source)
    models: list[LoopModel] = imported_calls(index, path, resolver, constants, state)
    for unit in index.units:
        unit_models = analyse_unit(unit, path, aliases, constants, state)
        if unit_models is None:
            line = unit.line_offset + 1
            span = Span(line, 1, line, 2)
            message = "this function could not be parsed by libcst"
            unit_models = [LoopModel(unanalysed(path, span, message))]
        models.extend(unit_models)
    return never_silent(source, path, index, models)


def never_silent(
    source: str, path: str | None, index: ModuleIndex, models: list[LoopModel]
) -> list[LoopModel]:
    """The models, plus an honest report for any pipeline loop the walk did not reach."""
    reported = {m.report.span.line for m in models if not m.report.scope_only}
    missed = unreported_loops(source, path, reported, index.pl_aliases | {"pl"})
    models.extend(LoopModel(report) for report in missed)
    models.sort(key=lambda m: (m.report.span.line, m.report.span.column))
    return models


def syntax_report(problem: SyntaxProblem, path: str | None) -> LoopReport:
    """One SKW900 report at the position the stdlib parser gives."""
    return syntax_error(path, problem.line, problem.column, problem.message)
