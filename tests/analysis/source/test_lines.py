"""Lines of code as the analysis cuts them: where a comment starts, continuation lines as
libcst renders a node alone, and how many lines a text has."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from skewlsp.analysis.source.lines import (
    line_count,
    source_lines,
    split_comment,
    without_block_indent,
)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("x = 1", ("x = 1", "")),
        ("x = 1  # one", ("x = 1  ", "# one")),
        ("f('#', \"#\")  # it's", ("f('#', \"#\")  ", "# it's")),
        ('s = "a \\" # b"  # c', ('s = "a \\" # b"  ', "# c")),
        ("for x in y:  # q'", ("for x in y:  ", "# q'")),
        ("# only", ("", "# only")),
    ],
)
def test_a_comment_starts_at_the_first_hash_outside_a_string(
    line: str, expected: tuple[str, str]
) -> None:
    assert split_comment(line) == expected


def test_a_triple_quoted_string_makes_the_line_unknowable() -> None:
    assert split_comment('x = """a  # b') is None


def test_continuation_lines_lose_the_block_indent_they_start_with() -> None:
    code = "f(\n        a,\n      b,\n    )"
    assert without_block_indent(code, "    ") == "f(\n    a,\n  b,\n)"
    assert without_block_indent("f(a)", "    ") == "f(a)"


@given(st.text(alphabet="ab \n\r\x0b\x0c\x85\u2028"))
def test_a_line_count_is_the_number_of_source_lines(text: str) -> None:
    assert line_count(text) == len(source_lines(text))


def test_line_counts_by_hand() -> None:
    assert [line_count(t) for t in ("", "a", "a\n", "a\nb", "\n\n", "a\r\nb\r")] == [
        0, 1, 1, 2, 2, 2,
    ]
