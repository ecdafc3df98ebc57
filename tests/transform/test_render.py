"""Putting a loop's rewrite back into its file: every byte outside the loop as written,
the rewrite indented like the loop, whatever the loop's text holds."""

from __future__ import annotations

import libcst as cst

from skewlsp.contract import Span
from skewlsp.transform.render import changed_region, replace_loop


def _as_range(loop: cst.For) -> list[cst.BaseStatement]:
    """The demotion's kind of rewrite: the same loop, its iterator renamed."""
    return [loop.with_changes(iter=cst.parse_expression("pl.range(8)"))]


def _rewrite(source: str, line: int, column: int, end_line: int) -> str:
    return replace_loop(source, Span(line, column, end_line, 1), _as_range)


SOURCE = '''\
def kernel(x):
    # the loop's own comment
    for i in pl.pipeline(8, stage=2):
        t = load(x, i)

        store(t, i)  # kept
    return x
'''


def test_only_the_loop_changes_and_it_keeps_its_indentation_and_comments() -> None:
    after = _rewrite(SOURCE, 3, 5, 6)
    assert after == SOURCE.replace("pl.pipeline(8, stage=2)", "pl.range(8)")
    assert changed_region(SOURCE, after, Span(3, 5, 6, 1)) == (
        "    for i in pl.range(8):\n        t = load(x, i)\n\n        store(t, i)  # kept\n"
    )


def test_a_string_indented_less_than_the_loop_is_kept_byte_for_byte() -> None:
    source = (
        "def kernel(x):\n"
        "    for i in pl.pipeline(8, stage=2):\n"
        '        note = """first\n'
        "second line at column 0\n"
        '  third"""\n'
        "        store(note, i)\n"
    )
    after = _rewrite(source, 2, 5, 6)
    assert after == source.replace("pl.pipeline(8, stage=2)", "pl.range(8)")


def test_a_string_indented_more_than_the_loop_is_kept_byte_for_byte() -> None:
    source = (
        "def kernel(x):\n"
        "    for i in pl.pipeline(8, stage=2):\n"
        '        note = """first\n'
        "            second\n"
        '        """\n'
        "        store(note, i)\n"
    )
    after = _rewrite(source, 2, 5, 6)
    assert after == source.replace("pl.pipeline(8, stage=2)", "pl.range(8)")


def test_lines_of_only_spaces_and_crlf_endings_are_kept() -> None:
    source = "def kernel(x):\r\n    for i in pl.pipeline(8, stage=2):\r\n        a = 1\r\n  \r\n        b = 2\r\n"
    after = _rewrite(source, 2, 5, 5)
    assert after == source.replace("pl.pipeline(8, stage=2)", "pl.range(8)")


def test_a_loop_on_the_first_line_after_a_byte_order_mark_keeps_the_mark() -> None:
    source = "\ufefffor i in pl.pipeline(8, stage=2):\n    store(i)\nx = 1\n"
    after = _rewrite(source, 1, 1, 2)
    assert after == source.replace("pl.pipeline(8, stage=2)", "pl.range(8)")


def test_a_loop_at_the_end_of_a_file_without_a_final_newline() -> None:
    source = "def kernel(x):\n    for i in pl.pipeline(8, stage=2):\n        store(i)"
    after = _rewrite(source, 2, 5, 3)
    assert after == source.replace("pl.pipeline(8, stage=2)", "pl.range(8)")
