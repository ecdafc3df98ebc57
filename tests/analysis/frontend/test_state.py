"""One analysis's state (``frontend.state``): what its stages, and the module decided
again under another build, share."""

from __future__ import annotations

from dataclasses import replace

from skewlsp.analysis.frontend.assumed import Build
from skewlsp.analysis.frontend.state import AnalysisState
from skewlsp.contract import Assumptions


def test_a_fact_of_the_trees_alone_is_made_once_for_every_build() -> None:
    """The driver decides a module again under another build with the state's trees and
    a fresh set of value facts; what is read off the trees alone is not read again."""
    state = AnalysisState()
    made: list[str] = []

    def sides() -> str:
        made.append("walked")
        return f"walk {len(made)}"

    assert state.syntactic_fact(("sides", "k"), sides) == "walk 1"
    other_build = replace(state, build=Build(Assumptions()), facts={})
    assert other_build.syntactic_fact(("sides", "k"), sides) == "walk 1"
    assert other_build.syntactic_fact(("sides", "other"), sides) == "walk 2"
    assert made == ["walked", "walked"]
