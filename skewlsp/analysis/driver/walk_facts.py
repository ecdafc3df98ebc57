"""What a unit's walk reads off its tree alone, kept for every walk of that tree.

An analysis walks one unit's tree several times: as a unit, as the caller of an inline
helper (the loops around each call are read off the caller's own walk:
:mod:`.call_context`), and once more under each other build the module is decided
under (:mod:`.variants`: pypto-lib's 33 re-analyses). What the walk asks of the tree
alone (which statements hold pipeline loops, the constructs a loop's body holds that
the DSL parser refuses, whether a scope multiplies, which bindings can decide a loop) is
the same every time: no build or copy changes it (the names a function and its
statements bind, which InlineFunctions asks of a caller too, are the analysis state's:
:meth:`~skewlsp.analysis.frontend.state.AnalysisState.function_names`). So it is
worked out once per tree and the module's aliases (two modules may hold the same text,
whose tree is shared, under other names of ``pypto.language``), and kept as long as the
tree:

- with a tree made for a unit text, which outlives the analysis (kept by text:
  ``source.unit_parses``), in that tree's facts
  (:meth:`~skewlsp.analysis.frontend.state.AnalysisState.tree_facts`): an imported
  inline helper is walked in its own module and again in every module of a batch that
  calls it, and two files of a batch may hold the same function;
- with libcst's tree (a rewrite's analysis), in the analysis's syntactic facts
  (:meth:`~skewlsp.analysis.frontend.state.AnalysisState.syntactic_fact`), for it and
  its other builds.

What it saves: benchmarks/README.md, "Cache layers". A fact is read off the tree and
the aliases alone, and any analysis that holds a made tree renders its code the same
(its own text), so an analysis reading facts another one found gets what it would have
found. Nothing here reads a value, so no build's reads are left uncharged.

The entries are keyed by the ids of the tree's nodes, which the tree keeps alive.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from skewlsp.analysis.frontend import dsl
from skewlsp.analysis.frontend.dsl_checks import BodyChecks
from skewlsp.analysis.frontend.state import AnalysisState
from skewlsp.analysis.report.informative import DecisiveNames


@dataclass
class WalkFacts:
    """What every walk of one tree (under one module's aliases) finds the same, by node id."""

    holds_pipeline_loops: dict[int, bool] = field(default_factory=dict)  # per statement
    body_checks: dict[int, BodyChecks] = field(default_factory=dict)  # per loop
    # Per outlined scope: whether it multiplies, whether it opens lane regions.
    multiplies: dict[int, bool] = field(default_factory=dict)
    lane_regions: dict[int, bool] = field(default_factory=dict)
    decisive: DecisiveNames = field(default_factory=DecisiveNames)  # per loop


def walk_facts(state: AnalysisState, tree: cst.Module, aliases: dsl.Aliases) -> WalkFacts:
    """The facts of every walk of ``tree`` (see the module's doc), ``aliases`` the module's."""
    kept = state.tree_facts(tree)
    if kept is None:
        return state.syntactic_fact((WalkFacts, tree, aliases), WalkFacts)
    key = (WalkFacts, aliases)
    found = kept.get(key)
    if found is None:
        # (a language server's two analysis threads may both make one: the first kept wins)
        found = kept.setdefault(key, WalkFacts())
    return found  # type: ignore[return-value]  # the facts hold any value: this key's
