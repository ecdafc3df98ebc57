"""Running one unit's walk (:mod:`.unit_walk`), and what every unit of a module is given.

Three callers run units: the module's own analysis (:mod:`.module_run`), the copies of
an imported helper at the calls in the importing module, and the copies of this
module's helpers at the calls in other modules (:mod:`.helper_calls`). They share how a
walk falls back to libcst's tree when the tree made from the stdlib parser's cannot
serve it (``source.unit_parses``), how a failure becomes a report instead of an
exception, and the module context (the frontend's constants, imports and aliases).
"""

from __future__ import annotations

from collections.abc import Callable

from skewlsp.analysis.driver.loop_decision import LoopModel
from skewlsp.analysis.driver.site_memo import SiteMemo
from skewlsp.analysis.driver.unit_walk import UnitWalk
from skewlsp.analysis.frontend import dsl
from skewlsp.analysis.frontend.constants import ModuleConstants
from skewlsp.analysis.frontend.import_order import ImportOrder, Origin, import_order
from skewlsp.analysis.frontend.imports import imported_lookup
from skewlsp.analysis.frontend.program_modules import ProgramModules
from skewlsp.analysis.frontend.source_index import ModuleIndex, Unit
from skewlsp.analysis.frontend.state import AnalysisState
from skewlsp.analysis.report.coverage import unanalysed
from skewlsp.analysis.source.guard import TooDeep, describe
from skewlsp.analysis.source.unit_parses import NeedsConcreteTree
from skewlsp.contract import Resolver, Span


def module_context(
    index: ModuleIndex,
    path: str | None,
    resolver: Resolver | None,
    state: AnalysisState,
    origin: Origin | None = None,
    text: str | None = None,
) -> tuple[ModuleConstants, dsl.Aliases]:
    """What every unit of a module sees: its constants (and imports), and its aliases.

    ``state``: the analysis's (its units' made trees are what folding quotes code
    from, the imported modules' constants may be shared with a batch's other
    analyses, and its build is what their Python reads); ``origin``: how the kernel at
    ``path`` imported this module (:mod:`skewlsp.analysis.frontend.imports`); ``text``:
    the module's source, if at hand (where it declares the values of a variable it reads).
    """
    build = state.build
    program = _program(index, path, resolver, state, origin, text)
    constants = ModuleConstants(
        index.constant_sources,
        imported_lookup(
            index,
            path,
            resolver,
            origin=origin,
            shared=state.shared_modules,
            build=build,
            program=program,
        ),
        classes=index.class_sources,
        functions=index.function_sources,
        made=state.made,
        build=build,
        text=text,
        own=origin is None,
    )
    if program is not None and origin is None:
        program.kernel = constants
    return constants, dsl.Aliases(index.pl_aliases, index.pipeline_names)


def _program(
    index: ModuleIndex,
    path: str | None,
    resolver: Resolver | None,
    state: AnalysisState,
    origin: Origin | None,
    text: str | None,
) -> ProgramModules | None:
    """The program of the kernel at ``path`` when it writes a module attribute while it
    loads (None: it writes none): made with the kernel's context (``origin`` None), and
    found again by the contexts of the modules it imports (an inline helper's)."""
    if origin is not None:
        return program_of(state, path)
    order = load_order(index, path, resolver, state, text)
    program = ProgramModules(order, index, path, resolver, state.build) if order.writes else None
    state.facts[("program", path)] = program
    return program


def load_order(
    index: ModuleIndex,
    path: str | None,
    resolver: Resolver | None,
    state: AnalysisState,
    text: str | None = None,
) -> ImportOrder:
    """The order of the program of the kernel at ``path`` (``index``, ``text``): read off
    the modules' texts alone, once for the analysis and its other builds (each time
    without the kernel's text)."""
    if text is None:
        return import_order(index, path, resolver)
    return state.syntactic_fact(
        (import_order, path, text), lambda: import_order(index, path, resolver)
    )


def program_of(state: AnalysisState, path: str | None) -> ProgramModules | None:
    """The program of the kernel at ``path`` whose context this analysis made, when it
    sets a module attribute while it loads (None: it sets none, or no context was made)."""
    found = state.facts.get(("program", path))
    return found if isinstance(found, ProgramModules) else None


def run_walk(
    walk: Callable[[AnalysisState], UnitWalk], state: AnalysisState
) -> list[LoopModel] | None:
    """Run a unit's walk in the analysis of ``state``: on a made tree, or on libcst's when
    the made one cannot give what the walk asks (the trees, and so the verdicts, are the
    same)."""
    try:
        return walk(state).run()
    except NeedsConcreteTree:
        return walk(state.with_concrete_trees()).run()


def analyse_unit(
    unit: Unit,
    path: str | None,
    aliases: dsl.Aliases,
    constants: ModuleConstants,
    state: AnalysisState,
    sites: SiteMemo | None = None,
) -> list[LoopModel] | None:
    """One unit's loops; None when libcst cannot parse it, other failures become reports."""
    try:
        return run_walk(
            lambda state: UnitWalk(unit, path, aliases, constants, state, sites=sites), state
        )
    except RecursionError:
        reason = "the code is nested too deeply to analyse"
    except TooDeep as err:
        reason = str(err)
    except Exception as err:  # an analysis bug must not take the editor or CI down
        reason = f"internal error while analysing this function: {describe(err)}"
    line = unit.line_offset + (2 if unit.text.startswith("if 1:") else 1)
    span = Span(line, 1, line, 2)
    return [LoopModel(unanalysed(path, span, reason, function=unit.qualname))]
