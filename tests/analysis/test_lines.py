"""Lines of code as the analysis cuts them: where a comment starts, and continuation lines
as libcst renders a node alone."""

from __future__ import annotations

import pytest

from skewlsp.analysis.lines import split_comment, without_block_indent


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
