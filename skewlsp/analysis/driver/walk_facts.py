"""What a unit's walk reads off its tree alone, kept for every walk of that tree.

An analysis walks one unit's tree several times: as a unit, as the caller of an inline
helper (the loops around each call are read off the caller's own walk:
:mod:`.call_context`), and once more under each other build the module is decided
under (:mod:`.variants`: pypto-lib's 33 re-analyses). What the walk asks of the tree
alone (which statements hold pipeline loops, the names a function and each of its
statements bind, the constructs a loop's body holds that the DSL parser refuses,
whether a scope multiplies, which bindings can decide a loop) is the same every time:
no build or copy changes it. So it is worked out once for the analysis and its other
builds, in the analysis's syntactic facts
(:meth:`~skewlsp.analysis.frontend.state.AnalysisState.syntactic_fact`), keyed by the
tree and the module's aliases (two modules may hold the same text, whose tree is
shared, under other names of ``pypto.language``). What it saves: benchmarks/README.md,
"Cache layers".

The entries are keyed by the ids of the tree's nodes, which the key (the tree) keeps
alive.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from skewlsp.analysis.frontend import dsl
from skewlsp.analysis.frontend.dsl_checks import BodyChecks
from skewlsp.analysis.frontend.state import AnalysisState
from skewlsp.analysis.report.informative import DecisiveNames

# A function's parameters, the names it binds and those bound to tiles.
FunctionNames = tuple[frozenset[str], frozenset[str], frozenset[str]]


@dataclass
class WalkFacts:
    """What every walk of one tree (under one module's aliases) finds the same, by node id."""

    holds_pipeline_loops: dict[int, bool] = field(default_factory=dict)  # per statement
    function_names: dict[int, FunctionNames] = field(default_factory=dict)  # per function
    # Per top-level compound statement: the names it binds, as a list and as a set.
    bound_by_statement: dict[int, tuple[list[str], frozenset[str]]] = field(
        default_factory=dict
    )
    body_checks: dict[int, BodyChecks] = field(default_factory=dict)  # per loop
    # Per outlined scope: whether it multiplies, whether it opens lane regions.
    multiplies: dict[int, bool] = field(default_factory=dict)
    lane_regions: dict[int, bool] = field(default_factory=dict)
    decisive: DecisiveNames = field(default_factory=DecisiveNames)  # per loop


def walk_facts(state: AnalysisState, tree: cst.Module, aliases: dsl.Aliases) -> WalkFacts:
    """The facts of every walk of ``tree`` in the analysis of ``state`` (and its other
    builds), ``aliases`` the module's."""
    return state.syntactic_fact((WalkFacts, tree, aliases), WalkFacts)
