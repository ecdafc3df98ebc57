"""Hover, lens and inlay wording, straight from a LoopReport."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from skewlsp.analysis import analyze
from skewlsp.common.resolver import RecordingResolver
from skewlsp.contract import Instance, Span
from skewlsp.server.presentation import (
    explain_markdown,
    hover_markdown,
    inlay_label,
    join_hovers,
    lens_title,
    plural,
    schedule_counts,
    timeline,
)
from tests.kernels import DEMOTED, FIFO_REORDER, SKEWED, STAGE3


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
        "         prologue  steady (3 x 2)  epilogue\n"
        "produce  0 1       2..7            —\n"
        "consume  —         0..5            6 7"
    )


def test_a_long_timeline_stays_three_lines():
    assert timeline(skewed_report(trip=64, depth=4)) == (
        "         prologue  steady (15 x 4)  epilogue\n"
        "produce  0..3      4..63            —\n"
        "consume  —         0..59            60..63"
    )


def test_hover_of_a_skewed_loop_is_verdict_then_timeline_then_details():
    assert hover_markdown(skewed_report()) == (
        "**skewed** `SKW001` [information] loop skewed: producer runs 2 iterations ahead "
        "(trip 8, stage 2)\n"
        "\n"
        "stage 2 · requested depth 2 · effective depth 2 · trip 8 (`0` to `8` step `1`) · "
        "1 push, 1 pop per iteration\n"
        "\n"
        "```text\n"
        "         prologue  steady (3 x 2)  epilogue\n"
        "produce  0 1       2..7            —\n"
        "consume  —         0..5            6 7\n"
        "```\n"
    )


def test_hover_uses_the_configured_severity_and_only_the_shown_hints():
    (report,) = analyze(STAGE3)
    text = hover_markdown(report, severity="warning", hints=())
    assert text.startswith("**skewed** `SKW001` [warning] ")
    assert "SKW030" not in text
    assert "`SKW030` [hint] stage=3 requests" in hover_markdown(report)


def test_hover_of_a_stale_loop_says_so():
    assert "*(as of the last version that parsed: the file has a syntax error now)*" in (
        hover_markdown(skewed_report(), stale=True)
    )


def test_plurals_are_words_not_parentheses():
    assert plural(1, "iteration") == "1 iteration"
    assert plural(2, "iteration") == "2 iterations"
    assert plural(3, "push") == "3 pushes"
    assert plural(1, "pop") == "1 pop"
    assert plural(2, "copy", "copies") == "2 copies"
    multi = skewed_report(verdict="demoted", code="SKW021", pushes=3, pops=1)
    assert "This body has 3 pushes and 1 pop per iteration." in hover_markdown(multi)
    once = skewed_report(verdict="demoted", code="SKW023", trip=1)
    assert "This loop runs 1 time." in hover_markdown(once)


def test_hover_of_a_demoted_loop_says_why_and_what_would_make_it_skew():
    (report,) = analyze(DEMOTED)
    text = hover_markdown(report)
    assert text.startswith(
        "**demoted** `SKW020` [warning] loop not skewed: consumer role: `s0` from the lead half"
    )
    assert "effective depth none (sequential)" in text
    assert "**help:** Usually nothing: this is the consumer side" in text
    assert f"line {report.offending.line}" in text
    assert "prologue" not in text


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


def test_hover_of_a_mixed_loop_names_each_core_and_the_messages_the_compiler_adds() -> None:
    example = Path(__file__).resolve().parents[2] / "examples" / "mixed_attention.py"
    (report,) = analyze(example.read_text(), str(example))
    text = hover_markdown(report)
    assert "cube (AIC) produce  0         1               —" in text
    assert "vector (AIV): demoted (SKW020), iterations 0 1 in order, 2 copies" in text
    assert (
        "- cube (AIC): skewed `SKW002` — depth 1 (requested 2: trip 2 < 2 x depth 2). "
        "Compiler adds `pl.tile.tpush_to_aiv(scores, split=0)`, "
        "`probs_bf16 = pl.tile.tpop_from_aiv(split=0)`, `pl.system.tfree_to_aiv(probs_bf16)`."
    ) in text
    assert "(x2: dual AIV dispatch)" in text
    assert (
        "**advice (a human's change, not applied by `--fix`):** a trip of 4 would give depth 2: "
        "e.g. halve QK_M_TILE"
    ) in text
    assert "…" not in text  # no statement cut short
    assert len(text.splitlines()) <= 20


def test_a_copy_of_a_loop_is_named_in_its_lens_and_inlay() -> None:
    one_iteration = skewed_report(instance=Instance((("tile", "8"),)))
    assert lens_title(one_iteration, previewable=False) == (
        "tile = 8 · skewed · depth 2 · prologue 2, steady 3 x 2, epilogue 2"
    )
    assert inlay_label(one_iteration) == "tile=8: depth 2"
    call = skewed_report(instance=Instance((("m", "4"),), "entry", Span(40, 5, 40, 12)))
    assert lens_title(call, previewable=False).startswith(
        "called from `entry` (line 40) with m = 4 · skewed"
    )


def test_the_copies_of_one_loop_share_one_hover_ruled_apart() -> None:
    assert join_hovers(["**skewed** a\n", "**demoted** b\n"]) == (
        "**skewed** a\n\n---\n\n**demoted** b\n"
    )


def test_the_hover_of_a_loop_whose_skew_reorders_a_fifo_shows_what_the_peer_receives():
    (report,) = analyze(FIFO_REORDER, "k.py")
    text = hover_markdown(report)
    assert "- source order: qt(0) **rt(0)** qt(1) **rt(1)**" in text
    assert "- after the skew: qt(0) qt(1) qt(2) qt(3) **rt(0)** **rt(1)**" in text
    assert text.count("SKW060") == 2  # the code once, in the section's own heading once


def test_hover_lists_the_buffers_memory_reuse_gives_each_core_copy_s_loads():
    mem_llm = Path(__file__).resolve().parents[1] / "fixtures" / "memory" / "models" / "mem_llm"
    path = mem_llm / "short.py"
    reports = analyze(path.read_text(), str(path), resolver=RecordingResolver((mem_llm,)))
    (short,) = [r for r in reports if r.function == "short_context_rows"]
    text = hover_markdown(short)
    assert "- memory (aiv): Vec: at most 2 of 3 buffers per load (65536 B per stage, slot-bound)" in text
    assert "`SKW080` [warning] PH-MR-001: MemoryReuse keeps at most 2 of the 3" in text


def test_hover_says_the_irs_depth_beside_memory_reuses_where_the_buffers_keep_more():
    # blocks.py:24. The compiler: PH-MR-001 Vec 1 of 2 for the row loop, while its IR
    # gives each stage's 48 KB tiles a buffer of their own (mem_vec_3/4, mem_vec_5/3).
    mem_llm = Path(__file__).resolve().parents[1] / "fixtures" / "memory" / "models" / "mem_llm"
    path = mem_llm / "blocks.py"
    reports = analyze(path.read_text(), str(path), resolver=RecordingResolver((mem_llm,)))
    (rows,) = [r for r in reports if r.span.line == 24]
    assert (
        "- memory (aiv): Vec: 1 of 2 buffers per load (49152 B per stage, space-pressure: the "
        "function's other tiles take the space); the IR still keeps each stage's largest "
        "tiles in buffers of their own, 2 stages apart"
    ) in hover_markdown(rows)


def test_hover_says_a_k_loop_s_two_depths_where_the_ir_keeps_more_than_its_hint():
    # cube.py:32. The compiler: PH-MR-001 Right 1 of 2 for the K loop AutoTileMatmulL0
    # makes (group 0) and for the loop's stages (group 1); its IR keeps the two K halves
    # in mem_right_9 and mem_right_11 in both of the loop's stages.
    mem_llm = Path(__file__).resolve().parents[1] / "fixtures" / "memory" / "models" / "mem_llm"
    path = mem_llm / "cube.py"
    reports = analyze(path.read_text(), str(path), resolver=RecordingResolver((mem_llm,)))
    (full,) = [r for r in reports if r.span.line == 32]
    text = hover_markdown(full)
    assert (
        "Right: 1 of 2 buffers per load (32768 B per stage, space-pressure: the function's "
        "other tiles take the space); its K loop for `matmul(x[...], wj)`: 1 of 2 stages "
        "kept apart (32768 B per stage, space-pressure); the IR still keeps each stage's "
        "largest tiles in buffers of their own, 2 stages apart"
    ) in text
    assert "(32768 B per stage, 1 of 2 stages kept apart; yet its packing still gives" in text


def test_hover_and_lens_of_a_scope_without_a_loop_claim_no_loop():
    path = Path(__file__).resolve().parents[1] / "fixtures" / "memory" / "models" / "mem_llm"
    text = (path / "vector.py").read_text()
    reports = analyze(text, str(path / "vector.py"), resolver=RecordingResolver((path,)))
    [scope] = [r for r in reports if r.span.line == 48]
    hover = hover_markdown(scope)
    assert hover.startswith("**error** `SKW081` [error] the scope's Vec tiles overflow Vec: ")
    assert hover.split("\n\n")[1].startswith("**help:** ")  # (no loop facts before it)
    assert "memory:" not in hover
    assert "`SKW082` [warning] MemoryReuse fits Vec at no depth" in hover
    assert lens_title(scope, previewable=False).startswith("error · SKW081: ")
