"""What every walk of one unit's tree finds the same is worked out once for the analysis
and its other builds, and kept apart for another module's names of pypto.language."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import libcst as cst
import pytest

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



PACKAGE = Path(__file__).resolve().parents[2] / "fixtures" / "mixed" / "models" / "built_llm"
HELPERS, CALLER = str(PACKAGE / "helpers.py"), str(PACKAGE / "decode_steps.py")
# Each module's reports from a batch of the given files, analysed in order in one fresh
# process (no tree of them kept yet), sharing what a batch shares, as the linter's runner
# does; both files are the run's, where a helper's callers are looked for.
BATCH = f"""
import sys
from skewlsp import api
from skewlsp.common.importers import ProjectImporters
from skewlsp.common.resolver import RecordingResolver

shared = api.SharedModules()
for path in sys.argv[1:]:
    with open(path, encoding="utf-8") as file:
        source = file.read()
    reports = api.analyse(
        source,
        path,
        resolver=RecordingResolver(()),
        importers=ProjectImporters([{HELPERS!r}, {CALLER!r}]),
        shared_modules=shared,
    )
    print(path, repr(reports))
"""


def _batch(*paths: str) -> dict[str, str]:
    done = subprocess.run(
        [sys.executable, "-c", BATCH, *paths], capture_output=True, text=True, check=True
    )
    lines = done.stdout.splitlines()
    assert len(lines) == len(paths)
    return dict(line.split(" ", 1) for line in lines)


@pytest.mark.slow
@pytest.mark.parametrize("order", [(HELPERS, CALLER), (CALLER, HELPERS)])
def test_a_batch_reports_each_module_as_it_is_analysed_alone(order: tuple[str, str]) -> None:
    # The helper module's analysis walks the helper for each call in the caller (its copies
    # there), the caller's walks it at its own calls: one made tree, its facts found by the
    # first analysis and read by the second.
    alone = {**_batch(HELPERS), **_batch(CALLER)}
    assert "attend_rows" in alone[HELPERS]  # (the helper's copies, named by their caller)
    assert _batch(*order) == alone
