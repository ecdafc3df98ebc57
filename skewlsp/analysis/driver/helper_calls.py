"""Inline helpers whose caller and loop are in different modules (InlineFunctions).

``@pl.jit.inline`` splices a helper's body into each call, so the compiler decides each
copy with the caller's values. Across modules this happens twice over:

- a call here of a helper imported from elsewhere: the helper's loops are reported at
  the call, decided with this module's values (:func:`imported_calls`);
- a call elsewhere of a helper defined here: with ``importers``, each such copy is
  reported at the helper's loop, named by its caller (:func:`external_calls`).

Both run the helper's unit through the same walk as this module's own units
(:mod:`.unit_run`), with the other module's context.
"""

from __future__ import annotations

import os.path
from collections.abc import Callable, Collection
from dataclasses import replace

from skewlsp.analysis.driver.loop_decision import LoopModel
from skewlsp.analysis.driver.unit_run import module_context, run_walk
from skewlsp.analysis.driver.unit_walk import UnitWalk
from skewlsp.analysis.frontend import dsl
from skewlsp.analysis.frontend.constants import ModuleConstants
from skewlsp.analysis.frontend.import_order import Origin, attributes_set, reads_what_is_set
from skewlsp.analysis.frontend.source_index import ModuleIndex, imported_module_index
from skewlsp.analysis.frontend.state import AnalysisState
from skewlsp.analysis.passes.inline_functions.imported_helpers import (
    ImportedHelper,
    imported_helpers,
)
from skewlsp.analysis.report.copies import at_the_call, at_the_loop
from skewlsp.contract import Importers, Resolver

# What a caller may put in front of deciding one imported helper's copies at the calls
# here: given the helper and how to decide them, the copies (a language server's cache).
HelperStage = Callable[[ImportedHelper, Callable[[], list[LoopModel]]], list[LoopModel]]


def imported_calls(
    index: ModuleIndex,
    path: str | None,
    resolver: Resolver | None,
    constants: ModuleConstants,
    state: AnalysisState,
    stage: HelperStage | None = None,
) -> list[LoopModel]:
    """A report at each call of an imported inline helper: its loops, as spliced there;
    marked sized by this file where it sets a module attribute the helper reads
    (``contract.HelperLoop``: a linter lists those copies here, the helper's module cannot)."""
    models: list[LoopModel] = []
    aliases = dsl.Aliases(index.pl_aliases, index.pipeline_names)
    set_here = attributes_set(index)
    for helper in imported_helpers(index, path, resolver):
        sized = bool(set_here) and reads_what_is_set(
            helper.index, helper.origin, helper.unit.text, set_here
        )

        def decide(helper: ImportedHelper = helper, sized: bool = sized) -> list[LoopModel]:
            return _at_calls(helper, path, resolver, constants, state, aliases, sized)

        models.extend(decide() if stage is None else stage(helper, decide))
    return models


def _at_calls(
    helper: ImportedHelper,
    path: str | None,
    resolver: Resolver | None,
    constants: ModuleConstants,
    state: AnalysisState,
    aliases: dsl.Aliases,
    sized_by_caller: bool,
) -> list[LoopModel]:
    models: list[LoopModel] = []
    for model in helper_copies(helper, path, resolver, constants, state, aliases):
        name, module = helper.unit.qualname, helper.module
        report = at_the_call(model.report, name, module, path, sized_by_caller)
        if report is not None:
            models.append(LoopModel(report, facts=model.facts, lowered=model.lowered))
    return models


def helper_copies(
    helper: ImportedHelper,
    path: str | None,
    resolver: Resolver | None,
    constants: ModuleConstants,
    state: AnalysisState,
    caller_aliases: dsl.Aliases,
) -> list[LoopModel]:
    """The helper's loops as the calls in the module at ``path`` (whose ``constants`` and
    ``caller_aliases`` are given) splice them, each copy labelled by its call: what the
    caller's module reports at each call and the helper's module at its loop; [] when
    the helper's module fails to analyse."""
    other, aliases = module_context(
        helper.index, path, resolver, state, helper.origin, helper.text
    )

    def walk(state: AnalysisState) -> UnitWalk:
        callers = (constants, caller_aliases, helper.name)
        return UnitWalk(helper.unit, path, aliases, other, state, callers)

    try:
        return run_walk(walk, state) or []
    except Exception:  # the other module's problem is reported where it lives
        return []


def external_calls(
    source: str,
    path: str | None,
    importers: Importers,
    resolver: Resolver | None,
    helpers: Collection[str],
    state: AnalysisState,
) -> list[tuple[str, LoopModel]]:
    """(helper, copy) for every call of ``helpers`` (inline helpers of this module) made in
    another module.

    Each caller is read as its own analysis reads it (its constants, its scopes around
    the call), so the copy here is the one reported at the call there; it is located at
    the helper's loop, named by its caller and that caller's file.
    """
    names = list(helpers)
    found: list[tuple[str, LoopModel]] = []
    for caller_path, caller_text in importers(path):
        if caller_path == path or not any(name in caller_text for name in names):
            continue
        caller = imported_module_index(caller_text)  # read only; one index per text
        if caller.syntax_problem is not None or not any(
            imported.name in names for imported in caller.imported.values()
        ):
            continue
        constants, aliases = module_context(caller, caller_path, resolver, state, text=caller_text)
        for helper in imported_helpers(caller, caller_path, resolver, only=names):
            if helper.text != source or not _may_be(path, caller_path, helper.origin):
                continue  # an import of another module (another copy of this one's text)
            copies = helper_copies(helper, caller_path, resolver, constants, state, aliases)
            for model in copies:
                report = at_the_loop(model.report, path, caller_path)
                if report is None:
                    continue
                # The model stays: its tree is the helper's, in this file's coordinates,
                # so the copy has the preview its caller's values give it.
                found.append((helper.unit.qualname, replace(model, report=report)))
    return found


def _may_be(path: str | None, caller_path: str, origin: Origin) -> bool:
    """Whether the caller's relative import of ``origin`` can name the module at ``path``
    (paths compared as written, no file read): two copies of one package in a run have
    the same texts, and a caller imports only its own copy. An absolute import is left to
    the text (where it lands depends on the search path)."""
    module, level, is_package = origin
    if path is None or level == 0:
        return True
    base = os.path.dirname(os.path.abspath(caller_path))
    for _ in range(level - 1):
        base = os.path.dirname(base)
    target = os.path.join(base, *[part for part in module.split(".") if part])
    expected = os.path.join(target, "__init__.py") if is_package else target + ".py"
    return os.path.normcase(expected) == os.path.normcase(os.path.abspath(path))
