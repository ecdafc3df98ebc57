"""Edits as data, applied as text: spans are 1-based lines and code-point columns."""

from __future__ import annotations

from skewlsp.common.fixes import apply_edits
from skewlsp.common.suppressions import parse_suppressions
from skewlsp.contract import Edit, Span


def test_edits_apply_bottom_up_and_overlaps_are_left_for_the_next_run() -> None:
    source = "ab\ncdé\nf\n"
    edits = [
        Edit(Span(2, 3, 2, 4), "E"),  # é -> E (code points, not bytes)
        Edit(Span(1, 1, 1, 2), "A"),
        Edit(Span(1, 1, 1, 3), "zz"),  # overlaps the first edit taken on line 1
        Edit(Span(3, 1, 4, 1), ""),  # the whole last line
    ]
    assert apply_edits(source, edits) == ("Ab\ncdE\n", 3)


def test_an_edit_outside_the_text_is_skipped() -> None:
    assert apply_edits("a\n", [Edit(Span(5, 1, 5, 2), "x")]) == ("a\n", 0)


def test_removing_a_trailing_directive_takes_the_spaces_before_it() -> None:
    (found,) = parse_suppressions("x = 1  # skewlint: ignore[SKW021]\n")
    assert found.removal == Span(1, 6, 1, 34)
    assert apply_edits("x = 1  # skewlint: ignore[SKW021]\n", [Edit(found.removal, "")])[0] == "x = 1\n"


def test_removing_a_directive_alone_on_its_line_takes_the_line() -> None:
    source = "a = 1\n    # skewlint: ignore[SKW021]\nb = 2\n"
    (found,) = parse_suppressions(source)
    assert apply_edits(source, [Edit(found.removal, "")])[0] == "a = 1\nb = 2\n"


def test_a_directive_followed_by_more_comment_keeps_that_comment() -> None:
    source = "x = 1  # skewlint: ignore[SKW021] -- tuned by hand\n"
    (found,) = parse_suppressions(source)
    assert apply_edits(source, [Edit(found.removal, "")])[0] == "x = 1  # -- tuned by hand\n"
