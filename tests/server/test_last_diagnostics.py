"""A document's last diagnostics, given again only when building them would give the same."""

from __future__ import annotations

from skewlsp.analysis import analyze
from skewlsp.server.diagnostics import build
from skewlsp.server.documents import Analysis
from skewlsp.server.last_diagnostics import LastDiagnostics
from tests.kernels import FOR_LINE, SKEWED
from tests.server.test_diagnostics import ALL, URI

REPORTS = tuple(analyze(SKEWED))
OPTIONS = ("ALL", "utf-16", None)


def version(source: str, reports=REPORTS, number: int = 1) -> Analysis:
    return Analysis(URI, number, (number,), source, reports, may_suppress="skewlint" in source)


class Builds:
    """How many times the diagnostics were built, and from which analysis."""

    def __init__(self) -> None:
        self.count = 0

    def of(self, memo: LastDiagnostics, analysis: Analysis):
        def fresh():
            self.count += 1
            return built(analysis)

        return memo.of(analysis, OPTIONS, fresh)


def built(analysis: Analysis):
    return build(
        analysis.reports, source=analysis.source, lines=analysis.lines, uri=URI, selection=ALL
    )


def with_line(source: str, index: int, text: str) -> str:
    lines = source.split("\n")
    lines[index] = text
    return "\n".join(lines)


def test_an_edit_on_a_line_no_range_is_on_gets_the_last_diagnostics_without_building():
    memo, builds = LastDiagnostics(), Builds()
    first = builds.of(memo, version(SKEWED))
    typed = version(with_line(SKEWED, 0, SKEWED.split("\n")[0] + "  # typed"), number=2)
    again = builds.of(memo, typed)
    assert (builds.count, memo.reused) == (1, 1)
    assert again == built(typed) == first


def test_the_same_reports_over_a_changed_line_of_a_range_are_built_again():
    # A character two UTF-16 units wide before the `for`: its range starts one unit later.
    memo, builds = LastDiagnostics(), Builds()
    first = builds.of(memo, version(SKEWED))
    header = SKEWED.split("\n")[FOR_LINE]
    moved = version(with_line(SKEWED, FOR_LINE, "\U0001f600" + header[1:]), number=2)
    again = builds.of(memo, moved)
    assert builds.count == 2
    assert again[0].range.start.character == first[0].range.start.character + 1


def test_a_changed_line_count_other_reports_or_a_suppression_mark_are_built_again():
    memo, builds = LastDiagnostics(), Builds()
    builds.of(memo, version(SKEWED))
    longer = SKEWED + "\n"
    builds.of(memo, version(longer, number=2))  # one line more
    others = tuple(analyze(SKEWED))  # equal reports, not the same ones
    builds.of(memo, version(longer, others, number=3))
    marked = with_line(longer, 0, longer.split("\n")[0] + "  # skewlint: noqa")
    builds.of(memo, version(marked, others, number=4))  # a suppression comment on line 0
    assert (builds.count, memo.reused) == (4, 0)


def test_other_options_are_built_again_and_a_closed_document_is_forgotten():
    memo, builds = LastDiagnostics(), Builds()
    builds.of(memo, version(SKEWED))
    memo.of(version(SKEWED, number=2), ("ALL", "utf-8", None), lambda: built(version(SKEWED)))
    memo.forget(URI)
    builds.of(memo, version(SKEWED, number=3))
    assert (builds.count, memo.reused) == (2, 0)
