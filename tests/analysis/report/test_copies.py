"""A copy's report (a call of an inline helper, an iteration of a module-level ``for``):
which copy it is recorded as an :class:`Instance`, its message composed from it where the
report is finished (``report.copies``, ``report.finish``)."""

from __future__ import annotations

from dataclasses import replace

from skewlsp.analysis.lower_pipeline.lowering import Lowered
from skewlsp.analysis.report.copies import at_the_call, labelled
from skewlsp.analysis.report.finish import NOTHING_SAID, finished_report, message
from skewlsp.contract import Instance, LoopReport, Lowering, Span

DEMOTED = LoopReport(
    None, Span(3, 5, 4, 20), Span(3, 14, 3, 40), "demoted", "SKW023",
    "demoted: trip 1 < 2 (nothing to overlap)",
)
CALL = Span(40, 4, 40, 20)


def test_a_copy_s_message_starts_with_its_label() -> None:
    copy = Instance((("n", "4"),), caller="attn", call=CALL)
    assert message(replace(DEMOTED, instance=copy)) == (
        "called from `attn` (line 40) with n = 4: demoted: trip 1 < 2 (nothing to overlap)"
    )


def test_a_copy_of_a_module_level_for_is_labelled_by_its_values() -> None:
    assert message(replace(DEMOTED, instance=Instance((("tile", "8"),)))) == (
        "tile = 8: demoted: trip 1 < 2 (nothing to overlap)"
    )


def test_a_lowered_copy_s_message_is_its_label_then_its_own_words_then_the_lowering_s() -> None:
    """The lowering hands on its record, not words put after a labelled text: the label,
    the skew pass's words and the lowering's are composed once, in that order."""
    copy = Instance((("tile", "8"),))
    left = replace(DEMOTED, verdict="left", code="SKW010", message="left: its own words")
    lowering = Lowering("replicated", "SKW012", "replicated: 4 copies")
    walked = replace(left, instance=copy)
    assert message(walked, lowered=Lowered(lowering)) == (
        "tile = 8: left: its own words; replicated: 4 copies"
    )
    report = finished_report(walked, NOTHING_SAID, lowered=Lowered(lowering))
    assert (report.code, report.message) == (
        "SKW012",
        "tile = 8: left: its own words; replicated: 4 copies",
    )


def test_a_copy_reported_at_its_call_is_named_by_the_helper_s_loop_not_labelled() -> None:
    copy = Instance((("n", "4"),), caller="attn", call=CALL)
    at_call = at_the_call(replace(DEMOTED, instance=copy), "tile_loop", "helpers", "model.py")
    assert at_call is not None
    assert not labelled(at_call)
    assert message(at_call) == (
        "the loop of `tile_loop` from `helpers` (its line 3) inlined here: "
        "demoted: trip 1 < 2 (nothing to overlap)"
    )


def test_a_copy_reported_in_the_helper_s_file_for_another_file_s_call_is_labelled() -> None:
    """Its call may sit at the same line and columns as the loop, in the caller's file."""
    copy = Instance((("n", "4"),), caller="attn", call=DEMOTED.span, call_path="model.py")
    assert labelled(replace(DEMOTED, instance=copy))
    assert message(replace(DEMOTED, instance=copy)).startswith(
        "called from `attn` in model.py (line 3) with n = 4: demoted:"
    )


def test_a_copy_made_in_another_module_is_shown_at_the_helper_s_loop_without_its_call_remark() -> None:
    """The caller's walk decided it (in the caller's file); the helper's file shows it at
    the loop, named by the caller's file, and leaves the remark at the call to the
    caller's own analysis."""
    from skewlsp.analysis.report.copies import at_the_loop
    from skewlsp.contract import Finding

    copy = Instance((("n", "4"),), caller="attn", call=CALL)
    at_call = Finding("SKW023", "the inlined loop of `tile_loop` is demoted here", CALL)
    stage = Finding("SKW030", "stage=3 requests skew depth 2", Span(3, 30, 3, 37))
    decided = replace(DEMOTED, path="model.py", instance=copy, hints=(stage, at_call))
    shown = at_the_loop(decided, "helpers.py", "model.py")
    assert shown is not None
    assert (shown.path, shown.hints) == ("helpers.py", (stage,))
    assert shown.instance == Instance((("n", "4"),), caller="attn", call=CALL, call_path="model.py")
    assert message(shown) == (
        "called from `attn` in model.py (line 40) with n = 4: "
        "demoted: trip 1 < 2 (nothing to overlap)"
    )


def test_a_report_that_is_no_copy_is_not_shown_for_another_module_s_call() -> None:
    from skewlsp.analysis.report.copies import at_the_loop

    assert at_the_loop(DEMOTED, "helpers.py", "model.py") is None
