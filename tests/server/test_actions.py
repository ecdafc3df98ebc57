"""Code-action edits, computed without a client."""

from __future__ import annotations

from pathlib import Path

from lsprotocol.types import Command

from skewlsp.analysis import analyze
from skewlsp.api import analyse
from skewlsp.common.resolver import resolve_module
from skewlsp.server.actions import PREVIEW_TITLE, list_actions, stage_edit, suppress_edit
from skewlsp.server.commands import SHOW_PREVIEW, CommandChoice
from skewlsp.server.positions import split_lines
from tests.kernels import DEMOTED, FOR_LINE, SKEWED, STAGE3
from tests.server.conftest import apply_edits


def test_listed_actions_carry_data_but_no_edit():
    found = list_actions("file:///k.py", 3, analyze(STAGE3), FOR_LINE + 1, FOR_LINE + 1, [])
    titles = [a.title for a in found]
    assert titles == [
        "Preview the rewritten loop (read-only)",
        "Use stage=2",
        "Suppress SKW001 for this loop",
        "Suppress SKW030 for this loop",
    ]
    assert [a.edit for a in found[1:]] == [None] * 3
    assert [a.data["version"] for a in found[1:]] == [3] * 3


def test_the_preview_action_carries_the_servers_command_and_never_an_edit():
    (preview, *_) = list_actions("file:///k.py", 3, analyze(SKEWED), FOR_LINE + 1, FOR_LINE + 1, [])
    assert preview == Command(
        PREVIEW_TITLE, SHOW_PREVIEW, arguments=["file:///k.py", {"line": FOR_LINE, "character": 8}]
    )


def test_the_preview_action_uses_the_clients_command_only_when_it_declared_one():
    declared = CommandChoice.of(["skewlsp.previewLoop"])
    (preview, *_) = list_actions(
        "file:///k.py", 3, analyze(SKEWED), FOR_LINE + 1, FOR_LINE + 1, [], commands=declared
    )
    assert preview.command == "skewlsp.previewLoop"
    other = CommandChoice.of(["someone.elsesCommand"])
    (preview, *_) = list_actions(
        "file:///k.py", 3, analyze(SKEWED), FOR_LINE + 1, FOR_LINE + 1, [], commands=other
    )
    assert preview.command == SHOW_PREVIEW


def test_a_demoted_loop_offers_a_preview_and_the_conversion_fix():
    found = list_actions("file:///k.py", 1, analyze(DEMOTED), FOR_LINE + 1, FOR_LINE + 1, [])
    assert [a.title for a in found] == [
        PREVIEW_TITLE,
        "Convert to pl.range",
        "Suppress SKW020 for this loop",
    ]


def test_only_filters_by_kind():
    found = list_actions(
        "file:///k.py", 1, analyze(SKEWED), FOR_LINE + 1, FOR_LINE + 1, [], only=["quickfix"]
    )
    assert [(a.title, a.kind) for a in found] == [("Suppress SKW001 for this loop", "quickfix")]


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


def test_a_loop_with_several_copies_gets_each_action_once_and_no_conversion_unless_all_demote():
    """An inline helper's loop is decided once per call: one preview and one suppression per
    code for the loop, and "Convert to pl.range" only when every copy is demoted (the edit
    rewrites the one text all copies share)."""
    root = Path(__file__).resolve().parents[1] / "fixtures" / "mixed" / "models"
    path = root / "built_llm" / "inline_attention.py"
    source = path.read_text()
    reports = analyse(source, str(path), resolver=lambda m, lv, i: resolve_module(m, lv, i, [root]))
    line = next(r.line for r in reports if r.instance is not None)
    copies = [r for r in reports if r.line == line]
    assert len(copies) > 1 and {r.verdict for r in copies} != {"demoted"}
    titles = [getattr(a, "title", None) for a in list_actions("file:///k.py", 1, reports, line, line, [])]
    assert titles.count(PREVIEW_TITLE) == 1
    assert "Convert to pl.range" not in titles
    suppressions = [t for t in titles if t and t.startswith("Suppress ")]
    assert len(suppressions) == len(set(suppressions)) > 0
