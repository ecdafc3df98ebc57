"""What every walk of one unit's tree finds the same is worked out once for the analysis
and its other builds, and kept apart for another module's names of pypto.language."""

from __future__ import annotations

from dataclasses import replace

import libcst as cst

from skewlsp.analysis.driver.walk_facts import walk_facts
from skewlsp.analysis.frontend.assumed import Build
from skewlsp.analysis.frontend.dsl import Aliases
from skewlsp.analysis.frontend.state import AnalysisState
from skewlsp.contract import Assumptions

KERNEL = """\
@pl.jit
def kernel(x: pl.Tensor[[64, 64], pl.FP32]):
    for i in pl.pipeline(4, stage=2):
        x = pl.exp(x)
    return x
"""
PL = Aliases(frozenset({"pl"}), frozenset())


def test_the_walks_of_a_tree_under_the_analysis_s_other_builds_share_its_facts() -> None:
    state = AnalysisState()
    tree = cst.parse_module(KERNEL)
    facts = walk_facts(state, tree, PL)
    facts.holds_pipeline_loops[id(tree.body[0])] = True
    # the module decided again under another build: the driver's state for it (``again``)
    other = replace(state, build=Build(Assumptions.of({"DUO_VARIANT": "lite"})), facts={})
    assert walk_facts(other, tree, PL) is facts
    assert walk_facts(other, tree, PL).holds_pipeline_loops == {id(tree.body[0]): True}


def test_another_tree_or_another_module_s_aliases_get_facts_of_their_own() -> None:
    state = AnalysisState()
    tree = cst.parse_module(KERNEL)
    facts = walk_facts(state, tree, PL)
    # the same text in a module that binds pypto.language to another name
    assert walk_facts(state, tree, Aliases(frozenset({"pyl"}), frozenset())) is not facts
    assert walk_facts(state, cst.parse_module(KERNEL), PL) is not facts
    assert walk_facts(AnalysisState(), tree, PL) is not facts  # another analysis


HELPER = """\
@pl.jit.inline
def scale_rows(x: pl.Tensor[[64, 64], pl.FP32], rows: int):
    for i in pl.pipeline(rows, stage=2):
        x = pl.exp(x)
    return x
"""


def _made_tree(state: AnalysisState, text: str) -> cst.Module:
    made = state.analysis_module(text, lambda: state.parses.unit_tree(text, None))
    assert made is not None
    return made


def test_analyses_that_read_one_made_tree_share_its_facts() -> None:
    # An imported helper's unit, walked in each module of a batch that calls it.
    first, second = AnalysisState(), AnalysisState()
    tree = _made_tree(first, HELPER)
    facts = walk_facts(first, tree, PL)
    facts.holds_pipeline_loops[id(tree.body[0])] = True
    again = _made_tree(second, HELPER)
    assert again is tree  # (the made tree is kept across analyses, by text)
    assert walk_facts(second, again, PL) is facts
    assert walk_facts(second, again, Aliases(frozenset({"pyl"}), frozenset())) is not facts

