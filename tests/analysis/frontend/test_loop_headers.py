"""Which lines the index reads as ``for ... in <callee>(``: a pipeline loop makes its
definition a unit, and an edit that changes a line's callee changes the units."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from skewlsp.analysis.frontend.source_index import may_hold_pipeline_loops
from skewlsp.analysis.frontend.text_search import loop_callees

# The reading, written as one regular expression (what the index once ran as is).
AS_ONE_PATTERN = re.compile(r"\bfor\b[^\n]*\bin\b[^\n]*?([\w.]+)\s*\(")


def test_the_callee_after_the_in_of_each_for() -> None:
    text = (
        "for i in pl.pipeline(0, n, 1, stage=2):\n"
        "    for j in pl.range(4):  # inner\n"
        "rows = [x for x in range(3)]; for k in f (1)\n"
    )
    # (on a line, the callee after its last ``in``: one reading per line here)
    assert loop_callees(text) == ["pl.pipeline", "pl.range", "f"]


def test_a_for_inside_a_word_is_no_loop() -> None:
    assert loop_callees("perform in pl.pipeline(8)\n_for x in g(1)\néfor y in h(2)\n") == []
    assert not may_hold_pipeline_loops("platform in pl.pipeline(0, 8)\n")
    assert may_hold_pipeline_loops("x = 1\nfor i in pl.pipeline(0, 8):\n    pass\n")


# Text made of the pieces that decide a match: words with "for" inside them, word
# characters of other scripts, dots, brackets, spaces and line ends.
PIECES = st.sampled_from(
    ["for", " for ", "in", " in ", "pl.pipeline", "f", "(", ")", " ", "\n", ".", "_", "é",
     "ß", "1", "x", "performin", "\t", "forin("]
)


@given(st.lists(PIECES, max_size=40).map("".join))
def test_the_index_reads_what_the_one_pattern_finds(text: str) -> None:
    assert loop_callees(text) == [m.group(1) for m in AS_ONE_PATTERN.finditer(text)]
