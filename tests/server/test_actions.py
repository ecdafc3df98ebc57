"""Code-action edits, computed without a client."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from lsprotocol.types import Command

from skewlsp.analysis import analyze
from skewlsp.api import analyse
from skewlsp.common.resolver import RecordingResolver, resolve_module
from skewlsp.server.actions import (
    PREVIEW_TITLE,
    PreviewUnavailableError,
    list_actions,
    resolve_edit,
    stage_edit,
    suppress_edit,
)
from skewlsp.server.commands import SHOW_PREVIEW, CommandChoice
from skewlsp.server.positions import split_lines
from tests.kernels import DEMOTED, FOR_LINE, SKEWED, SKEWED_AND_LEFT, STAGE3
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


# A stage above a trip of its own literals (SKW014): stage=1 gives the same single copy.
ONCE = SKEWED_AND_LEFT.replace("pl.pipeline(0, 4, 1, stage=2)", "pl.pipeline(0, 1, 1, stage=2)")


def _loop_fix_titles(source: str) -> list[str]:
    reports = analyze(source)
    found = list_actions("file:///k.py", 1, reports, 1, len(source.splitlines()), [])
    return [a.title for a in found if getattr(a, "data", None) and a.data["action"] == "stage_fix"]


def test_a_safe_stage_fix_is_offered_and_its_edit_is_the_stage_value():
    assert _loop_fix_titles(ONCE) == ["Use stage=1"]
    report = next(r for r in analyze(ONCE) if r.code == "SKW014")
    edit = resolve_edit("stage_fix", ONCE, split_lines(ONCE), report, "SKW014")
    assert edit is not None
    assert apply_edits(ONCE, [edit]) == ONCE.replace(
        "pl.pipeline(0, 1, 1, stage=2)", "pl.pipeline(0, 1, 1, stage=1)"
    )


def test_a_stage_fix_the_edited_file_does_not_confirm_gets_no_edit():
    report = next(r for r in analyze(ONCE) if r.code == "SKW014")
    assert report.stage_fix is not None
    wrong = replace(report, stage_fix=replace(report.stage_fix, promised="SKW001"))
    with pytest.raises(PreviewUnavailableError, match="SKW001"):
        resolve_edit("stage_fix", ONCE, split_lines(ONCE), wrong, "SKW014")


def test_an_unsafe_stage_fix_is_not_offered_in_the_editor():
    # The trip is read from a name: stage=1 would bake its value into the kernel.
    named = ONCE.replace("pl.pipeline(0, 1, 1, stage=2)", "pl.pipeline(0, ONE, 1, stage=2)")
    named = named.replace("import pypto.language as pl\n", "import pypto.language as pl\nONE = 1\n")
    report = next(r for r in analyze(named) if r.code == "SKW014")
    assert report.stage_fix is not None and report.stage_fix.applicability == "unsafe"
    assert _loop_fix_titles(named) == []


def test_a_scope_without_a_loop_offers_no_loop_action():
    # vector.py:48: the scope's SKW081 and SKW082 (no preview, no stage, no "this loop")
    mem_llm = Path(__file__).resolve().parents[1] / "fixtures" / "memory" / "models" / "mem_llm"
    path = mem_llm / "vector.py"
    reports = analyze(path.read_text(), str(path), resolver=RecordingResolver((mem_llm,)))
    assert [r.code for r in reports if r.span.line == 48] == ["SKW081"]
    assert list_actions("file:///vector.py", 3, reports, 48, 48, []) == []
