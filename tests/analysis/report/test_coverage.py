"""Never silent: a pipeline loop that discovery missed still gets a report saying so."""

from __future__ import annotations

from skewlsp.analysis.report.coverage import UNREACHED, unreported_loops
from skewlsp.contract import Span

SOURCE = '''\
import pypto.language as pl

"""Docs may show `for i in pl.pipeline(0, 4, stage=2):` without it being a loop."""


def helper():
    for i in pl.pipeline(0, 4, stage=2):
        pass
    x = [j for j in pl.pipeline(0, 4, stage=2)]  # a comprehension is no DSL loop
'''


def test_a_loop_without_a_report_is_reported_as_unknown_with_its_position() -> None:
    (report,) = unreported_loops(SOURCE, "k.py", set(), {"pl"})
    assert (report.code, report.verdict, report.message) == ("SKW050", "unknown", UNREACHED)
    assert report.span == Span(7, 5, 8, 13)
    assert report.call_span == Span(7, 14, 7, 40)


def test_a_reported_loop_adds_nothing() -> None:
    assert unreported_loops(SOURCE, "k.py", {7}, {"pl"}) == []


def test_another_alias_is_not_a_pipeline_loop() -> None:
    assert unreported_loops(SOURCE.replace("pl.pipeline", "np.pipeline"), "k.py", set(), {"pl"}) == []
