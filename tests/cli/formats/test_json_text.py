"""The C-speed JSON layout: valid JSON, one element per line, non-ASCII kept."""

from __future__ import annotations

import json

from skewlsp.cli.formats.json_text import array, compact


def test_empty_array_is_brackets_and_newline() -> None:
    assert array([]) == "[]\n"


def test_array_round_trips_with_one_element_per_line() -> None:
    items = [{"a": 1, "b": [1, 2], "c": None}, {"message": "tile ≥ 16 \"quoted\"\nnext"}]
    text = array(items)
    assert json.loads(text) == items
    lines = text.splitlines()
    assert lines[0] == "[" and lines[-1] == "]" and len(lines) == 4
    assert json.loads(lines[1].strip().rstrip(",")) == items[0]
    assert text.endswith("]\n")


def test_non_ascii_is_written_as_is() -> None:
    assert compact({"m": "≥"}) == '{"m": "≥"}'
