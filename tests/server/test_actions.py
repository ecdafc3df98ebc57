"""Code-action edits, computed without a client."""

from __future__ import annotations

from skewlsp.analysis import analyze
from skewlsp.server.actions import list_actions, stage_edit, suppress_edit
from skewlsp.server.positions import split_lines

from .conftest import apply_edits
from .kernels import DEMOTED, FOR_LINE, SKEWED, STAGE3


def test_listed_actions_carry_data_but_no_edit():
    found = list_actions("file:///k.py", 3, analyze(STAGE3), FOR_LINE + 1, FOR_LINE + 1, [])
    titles = [a.title for a in found]
    assert titles == [
        "Preview skewed loop",
        "Use stage=2",
        "Suppress SKW001 for this loop",
        "Suppress SKW030 for this loop",
    ]
    assert all(a.edit is None and a.data["version"] == 3 for a in found)


def test_only_filters_by_kind():
    found = list_actions(
        "file:///k.py", 1, analyze(SKEWED), FOR_LINE + 1, FOR_LINE + 1, [], only=["quickfix"]
    )
    assert all(a.kind == "quickfix" for a in found)


def test_use_stage_replaces_only_the_value():
    (report,) = analyze(STAGE3)
    edit = stage_edit(split_lines(STAGE3), report)
    assert apply_edits(STAGE3, [edit]) == SKEWED


def test_suppress_appends_a_comment_or_extends_an_existing_one():
    (report,) = analyze(DEMOTED)
    lines = split_lines(DEMOTED)
    once = apply_edits(DEMOTED, [suppress_edit(lines, report, "SKW020")])
    assert once.splitlines()[FOR_LINE].endswith("stage=2):  # skewlint: ignore[SKW020]")
    (again,) = analyze(once)
    twice = apply_edits(once, [suppress_edit(split_lines(once), again, "SKW021")])
    assert twice.splitlines()[FOR_LINE].endswith("# skewlint: ignore[SKW020, SKW021]")
