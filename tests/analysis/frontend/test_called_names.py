"""Which names a function's text calls: how an inline helper's callers are found, in its
own module and in the modules that import it (a caller is read off its text)."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from skewlsp.analysis.frontend.text_search import called_names

NAMES = ("helper", "help", "rope_2d")


def as_one_pattern(names: tuple[str, ...], text: str) -> frozenset[str]:
    """The reading, written as one regular expression with a look-behind."""
    pattern = r"(?<![\w.])(" + "|".join(re.escape(n) for n in names) + r")\s*\("
    return frozenset(re.findall(pattern, text))


def test_a_call_by_its_own_name_and_not_as_part_of_another() -> None:
    text = "x = helper(a)\ny = self.help(b)\nz = my_help(c)\nw = rope_2d (d)\nhelpers(e)\n"
    assert called_names(NAMES, text) == {"helper", "rope_2d"}
    assert called_names(NAMES, "help\n(x)") == {"help"}  # (a call over two lines)
    assert called_names(NAMES, "é_helper(x) + éhelp(y)") == frozenset()


PIECES = st.sampled_from(
    ["helper", "help", "rope_2d", "(", " ", "\n", ".", "_", "é", "1", "x", "ers", "\t", "\xa0", "²"]
)


@given(st.lists(PIECES, max_size=30).map("".join))
def test_it_reads_what_the_one_pattern_finds(text: str) -> None:
    assert called_names(NAMES, text) == as_one_pattern(NAMES, text)
