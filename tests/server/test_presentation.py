"""Hover, lens and inlay wording, straight from a LoopReport."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from skewlsp.analysis import analyze
from skewlsp.server.presentation import (
    explain_markdown,
    hover_markdown,
    inlay_label,
    lens_title,
    schedule_counts,
    timeline,
)

from .kernels import DEMOTED, SKEWED, STAGE3


def skewed_report(**changes):
    (report,) = analyze(SKEWED)
    return dataclasses.replace(report, **changes)


def test_schedule_is_prologue_d_steady_trip_over_d_minus_one_epilogue_d():
    assert schedule_counts(skewed_report()) == (2, 3, 2)
    assert schedule_counts(skewed_report(trip=16, depth=4)) == (4, 3, 4)
    (demoted,) = analyze(DEMOTED)
    assert schedule_counts(demoted) is None


def test_timeline_shows_the_producer_d_iterations_ahead():
    assert timeline(skewed_report()) == (
        "producer: 0 1 | 2 3 | 4 5 | 6 7 | . .\nconsumer: . . | 0 1 | 2 3 | 4 5 | 6 7"
    )


def test_a_long_timeline_is_shortened_with_an_ellipsis():
    rows = timeline(skewed_report(trip=64, depth=2)).splitlines()
    assert all("…" in row for row in rows)
    assert rows[0].endswith("62 63 |  .  .")
    assert rows[1].endswith("62 63")


def test_hover_of_a_skewed_loop_gives_depths_trip_stage_schedule_and_timeline():
    text = hover_markdown(skewed_report())
    for expected in [
        "**skewed**",
        "SKW001",
        "stage: `2`",
        "requested depth: 2",
        "effective depth: 2",
        "trip: 8",
        "prologue 2, steady 3 x 2, epilogue 2",
        "```text",
        "producer: 0 1",
    ]:
        assert expected in text


def test_hover_of_a_demoted_loop_says_why_and_what_would_make_it_skew():
    (report,) = analyze(DEMOTED)
    text = hover_markdown(report)
    assert "demoted" in text and "sequentially" in text
    assert "**To make it skew:**" in text
    assert f"line {report.offending.line}" in text
    assert "producer:" not in text


def test_hover_mentions_the_stage_hint():
    (report,) = analyze(STAGE3)
    assert "SKW030" in hover_markdown(report)


def test_lens_titles():
    assert lens_title(skewed_report()) == (
        "skewed · depth 2 · prologue 2, steady 3 x 2, epilogue 2 · Preview"
    )
    (demoted,) = analyze(DEMOTED)
    assert lens_title(demoted, previewable=False).startswith("demoted · SKW020: ")
    assert not lens_title(demoted, previewable=False).endswith("Preview")


def test_inlay_labels():
    assert inlay_label(skewed_report()) == "depth 2"
    (demoted,) = analyze(DEMOTED)
    assert inlay_label(demoted) == "demoted"
    assert inlay_label(skewed_report(verdict="left")) == "left"


def test_explain_covers_analysis_and_lint_codes():
    assert explain_markdown("SKW020").startswith("# SKW020: consumer role")
    assert "```python" in explain_markdown("skw001")
    assert explain_markdown("SKW901").startswith("# SKW901")
    assert explain_markdown("SKW999") is None


def test_hover_of_a_mixed_loop_shows_both_cores_side_by_side_with_compiler_messages() -> None:
    example = Path(__file__).resolve().parents[2] / "examples" / "mixed_attention.py"
    (report,) = analyze(example.read_text(), str(example))
    text = hover_markdown(report)
    assert "| cube (AIC) | vector (AIV) |" in text
    assert "**`pl.tile.tpush_to_aiv(scores, split=0)`** (compiler)" in text
    assert "**`scores = pl.tile.tpop_from_aic(split=0)`** (compiler)" in text
    assert "(x2, dual AIV dispatch)" in text
    assert "a trip of 4 would give depth 2: e.g. halve QK_M_TILE" in text
