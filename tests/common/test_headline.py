"""A finding's headline (``common.headline``): the short line a terminal prints, within
160 characters, composed from the report's fields."""

from __future__ import annotations

from dataclasses import replace

from skewlsp.analysis.report.finish import NOTHING_SAID, finished_report
from skewlsp.common.headline import headline, without_call
from skewlsp.contract import Instance, LoopReport, Span

# pypto-lib's deepseek_v4_pro/lm_head.py:211: the tail loop of an inline helper, in a branch
# Simplify folds away, at a call that passes seven window arguments by name.
NOT_COMPILED = LoopReport(
    "lm_head.py", Span(211, 17, 217, 80), Span(211, 31, 211, 70), "not_compiled", "SKW070",
    "not compiled: Simplify folds `if VOCAB_TAIL != 0` to false: the branch never runs",
)
WINDOWS = tuple(
    (name, name)
    for name in (
        "hidden_window", "hidden_done", "logits_window", "logits_done", "group_base",
        "tp_rank", "done_epoch",
    )
)


def labelled(report: LoopReport, instance: Instance) -> LoopReport:
    """``report`` as the copy ``instance``, put together as the driver's last step does."""
    return finished_report(replace(report, instance=instance), NOTHING_SAID)


def test_a_not_compiled_copy_s_headline_leaves_its_long_call_values_to_the_details() -> None:
    at_327 = labelled(
        NOT_COMPILED, Instance(WINDOWS, caller="lm_head_test", call=Span(327, 9, 327, 60))
    )
    at_423 = labelled(
        NOT_COMPILED,
        Instance(WINDOWS, caller="lm_head_with_sampling", call=Span(423, 9, 423, 60))
    )
    assert headline(at_327, [at_327, at_423]) == (
        "called from `lm_head_test` (line 327) and 1 more: not compiled: Simplify folds "
        "`if VOCAB_TAIL != 0` to false: the branch never runs"
    )
    # The line a terminal prints when the call would take it over 160 characters:
    assert without_call(at_327) == (
        "not compiled: Simplify folds `if VOCAB_TAIL != 0` to false: the branch never runs"
    )
    # The message (JSON, hover) keeps every value the copy was built with.
    assert at_327.message.startswith(
        "called from `lm_head_test` (line 327) with hidden_window = hidden_window, "
    )


def test_a_one_core_copy_built_once_with_short_values_keeps_them_in_its_headline() -> None:
    copy = labelled(
        NOT_COMPILED, Instance((("n", "4"),), caller="attn", call=Span(40, 4, 40, 20))
    )
    assert headline(copy) == (
        "called from `attn` (line 40) with n = 4: not compiled: Simplify folds "
        "`if VOCAB_TAIL != 0` to false: the branch never runs"
    )


def test_a_memory_finding_s_terse_line_leaves_the_core_and_bytes_to_the_details() -> None:
    # pypto-lib deepseek_v4_flash_dspark/prefill_indexer_compressor.py:172: with its path,
    # code and location the headline took the concise line to 176 characters.
    from skewlsp.common.headline import hint_headline, hint_terse
    from skewlsp.contract import CoreResult, Finding, SpaceBuffers

    right = SpaceBuffers("Right", 32768, 2, 1, "space-pressure")
    core = CoreResult("aic", "left", "SKW010", "no boundary crossing", memory=(right,))
    span = Span(172, 13, 180, 1)
    loop = LoopReport("p.py", span, span, "left", "SKW012", "left", cores=(core,))
    hint = Finding("SKW080", "PH-MR-001: ...", Span(172, 60, 172, 67), buffers=right)
    assert hint_headline(hint, loop) == (
        "PH-MR-001: only 1 of 2 stage buffers fit in Right on the AIC core (space-pressure, "
        "32768 B per stage)"
    )
    assert hint_terse(hint, loop) == "PH-MR-001: only 1 of 2 stage buffers fit in Right (space-pressure)"


def test_a_remainder_s_memory_finding_says_it_is_about_the_copies_after_the_main_loop() -> None:
    # tests/fixtures/memory/models/mem_llm/accumulators.py:96: eight blocks at stage=3;
    # the two copies after the main loop keep 1 of 2 buffers in Right.
    from skewlsp.common.headline import hint_headline, hint_terse
    from skewlsp.common.wording import buffers_text
    from skewlsp.contract import CoreResult, Finding, SpaceBuffers

    main = SpaceBuffers("Right", 32768, 3, 1, "slot-bound", True)
    after = SpaceBuffers("Right", 32768, 2, 1, "space-pressure", True, remainder=True)
    core = CoreResult("aic", "left", "SKW012", "no boundary crossing", memory=(main, after))
    span = Span(96, 9, 99, 1)
    loop = LoopReport("a.py", span, span, "left", "SKW012", "left", cores=(core,))
    hint = Finding("SKW080", "PH-MR-001: ...", Span(96, 41, 96, 48), buffers=after)
    assert hint_headline(hint, loop) == (
        "PH-MR-001: only 1 of 2 remainder copies' buffers fit in Right on the AIC core "
        "(space-pressure, 32768 B per copy)"
    )
    assert hint_terse(hint, loop) == (
        "PH-MR-001: only 1 of 2 remainder copies' buffers fit in Right (space-pressure)"
    )
    assert buffers_text(after).startswith("Right (remainder): ")


def test_a_copy_that_asks_for_no_stages_says_so_beside_its_function_s_fallback_or_stop():
    # tests/fixtures/memory/models/mem_llm/skewed_scores.py:26: the vector copy the skew
    # demotes runs as a sequential loop in a function whose Vec tiles overflow.
    from skewlsp.common.wording import buffers_text
    from skewlsp.contract import SpaceBuffers

    reason = "the function's tiles, packed the legacy way, overflow"
    stop = SpaceBuffers("Vec", 0, 0, None, "overflow", True, reason)
    assert buffers_text(stop) == (
        "Vec: no stage buffers of its own; the function's tiles, packed the legacy way, "
        "overflow it: the compile stops"
    )
    legacy = SpaceBuffers("Vec", 0, 0, None, "legacy", True)
    assert buffers_text(legacy) == (
        "Vec: no stage buffers of its own; MemoryReuse fits the function's tiles at no "
        "depth and falls back to its legacy packing"
    )
