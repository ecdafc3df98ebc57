"""SKW060 in the editor: a warning on the loop with related information, and the hover text."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from skewlsp.analysis import analyze
from skewlsp.common.config import Settings
from skewlsp.common.select import Selection
from skewlsp.server.diagnostics import build
from skewlsp.server.fifo_hover import fifo_hover
from skewlsp.server.positions import split_lines
from tests.kernels import FIFO_REORDER

TEXT = FIFO_REORDER
URI = "file:///k.py"
ALL = Selection.from_settings(Settings(root=Path("/")))


def test_the_warning_points_at_the_moved_tpush_and_the_lead() -> None:
    found = build(analyze(TEXT), source=TEXT, lines=split_lines(TEXT), uri=URI, selection=ALL)
    assert [d.code for d in found] == ["SKW001", "SKW060"]
    hazard = found[1]
    assert hazard.severity == types.DiagnosticSeverity.Warning
    assert hazard.range.start == types.Position(7, 17)  # the pl.pipeline(...) call, 0-based
    related = hazard.related_information or []
    assert [(r.location.uri, r.location.range.start) for r in related] == [
        (URI, types.Position(12, 16)),  # the guarded tpush
        (URI, types.Position(9, 12)),  # the lead
    ]
    assert related[0].message == "this tpush is issued after later iterations' produces"


def test_a_suppression_comment_on_the_loop_silences_skw060_only() -> None:
    text = TEXT.replace("stage=2):", "stage=2):  # skewlint: ignore[SKW060]")
    found = build(analyze(text), source=text, lines=split_lines(text), uri=URI, selection=ALL)
    assert [d.code for d in found] == ["SKW001"]


def test_the_hover_shows_what_the_vector_core_receives_before_and_after() -> None:
    [report] = analyze(TEXT)
    assert fifo_hover(report) == (
        "**SKW060: the skew reorders the FIFO to the vector core (AIV).** The tpush at line 13 "
        "under `if n > 2` is issued after the next 2 produces (lead at line 10, depth 2), so "
        "the peer receives tiles in another order than the source says. Its messages are in "
        "bold.\n"
        "\n"
        "- source order: qt(0) **rt(0)** qt(1) **rt(1)** qt(2) **rt(2)** qt(3) **rt(3)**\n"
        "- after the skew: qt(0) qt(1) qt(2) qt(3) **rt(0)** **rt(1)** **rt(2)** **rt(3)**"
    )


def test_the_hover_elides_a_long_trip_and_is_silent_without_hazards() -> None:
    [report] = analyze(TEXT.replace("pl.pipeline(0, 4, 1,", "pl.pipeline(0, 64, 1,"))
    text = fifo_hover(report)
    assert text is not None
    assert "- source order: qt(0) **rt(0)** qt(1) **rt(1)** qt(2) **rt(2)** " in text
    assert text.endswith("**rt(0)** **rt(1)** qt(4) qt(5) **rt(2)** **rt(3)** qt(6) qt(7) …")
    [plain] = analyze(TEXT.replace("                pl.tpush_to_aiv(rt, split=0)\n",
                                   "                pass\n"))
    assert plain.verdict == "skewed" and fifo_hover(plain) is None
