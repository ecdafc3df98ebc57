"""The read-only documents the server shows: their names, text and where they are written."""

from __future__ import annotations

import ast
import stat
from pathlib import Path

from skewlsp import api
from skewlsp.analysis import analyze
from skewlsp.common.select import Selection
from skewlsp.server import preview_doc
from skewlsp.server.preview_files import DocumentFolder, cache_root
from skewlsp.server.visibility import shown
from tests.kernels import FOR_LINE, SKEWED, SKEWED_AND_LEFT, STAGE3

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_a_preview_is_named_after_the_file_and_the_loop_line():
    assert preview_doc.file_name("/w/attn kernel.py", "file:///w/x.py", 12) == "attn_kernel-L12.py"
    assert preview_doc.file_name(None, "untitled:Untitled-1", 3) == "Untitled-1-L3.py"
    assert preview_doc.explanation_name("skw010") == "SKW010.md"


def test_the_preview_text_is_a_header_then_the_rewrite_dedented():
    text = preview_doc.render(api.preview(SKEWED, FOR_LINE + 1), where="/w/k.py", version=4)
    lines = text.splitlines()
    assert lines[:5] == [
        "# skewlsp preview (read-only): what the compiler's passes make of the loop at",
        "# /w/k.py:8 (version 4). Nothing here is applied to your code.",
        "# skewed (SKW001: loop skewed)",
        "# why: loop skewed: producer runs 2 iterations ahead (trip 8, stage 2)",
        "# what changes: the producer half runs 2 iterations ahead of the consumer half: a "
        "prologue of 2 produces, a steady loop, an epilogue of 2 consumes",
    ]
    assert lines[6] == "# prologue: produce(0), produce(1)"
    assert "for i in pl.range(2, 8, 2):" in lines


def test_a_mixed_loop_preview_keeps_the_other_cores_statements():
    source = (EXAMPLES / "mixed_attention.py").read_text(encoding="utf-8")
    (report,) = analyze(source)
    text = preview_doc.render(api.preview(source, report.line), where="m.py")
    other = text[text.index("# the compiler's vector (AIV) function") :].splitlines()
    assert other[0] == (
        "# the compiler's vector (AIV) function for this loop: demoted (SKW020), "
        "its iterations run in order; x2, dual AIV dispatch"
    )
    assert "    out_mi[h0 : h0 + QK_M_TILE, 0:1] = mi" in other
    assert "    out_li[h0 : h0 + QK_M_TILE, 0:1] = li" in other
    assert "    pl.tile.tpush_to_aic(probs_bf16, split=0)  # added by the compiler" in other
    # statements longer than a hover line are shown whole: the other core's copy is code
    assert '    probs_bf16 = pl.cast(probs, target_type=pl.BF16, mode="rint")' in other
    loop = "\n".join(line for line in other if not line.startswith("#"))
    ast.parse(loop)


def test_written_documents_are_read_only_and_replaced_on_the_next_write(tmp_path: Path):
    folder = DocumentFolder(tmp_path / "cache")
    first = folder.write("previews", "k-L8.py", "one\n")
    again = folder.write("previews", "k-L8.py", "two\n")
    assert first == again == tmp_path / "cache" / "previews" / "k-L8.py"
    assert again.read_text() == "two\n"
    assert not again.stat().st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)
    assert sorted(p.name for p in again.parent.iterdir()) == ["k-L8.py"]
    assert folder.is_ours(str(again))
    assert not folder.is_ours(str(tmp_path / "k.py"))


def test_an_unwritable_cache_falls_back_to_a_temporary_folder(tmp_path: Path):
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    folder = DocumentFolder(blocked / "skewlsp")
    written = folder.write("previews", "k-L8.py", "x\n")
    assert written.read_text() == "x\n"
    assert blocked not in written.parents
    assert stat.S_IMODE(folder.root.stat().st_mode) == 0o700  # private, not a shared guessable path
    assert folder.is_ours(str(written))


def test_the_cache_root_follows_xdg_cache_home(tmp_path: Path):
    assert cache_root({"XDG_CACHE_HOME": str(tmp_path)}) == tmp_path / "skewlsp"
    assert cache_root({"XDG_CACHE_HOME": "relative"}) == Path.home() / ".cache" / "skewlsp"


def selection(**changes) -> Selection:
    return Selection(changes.get("select", ("ALL",)), changes.get("ignore", ()), {})


def test_shown_loops_follow_the_selection_and_the_suppression_comments():
    reports = analyze(SKEWED_AND_LEFT)
    assert [shown(reports, selection(), SKEWED_AND_LEFT).loop(r) for r in reports] == [True, True]
    # The left loop (trip 4 at stage=2) is replicated by LowerPipelineLoops: SKW011.
    ignored = shown(reports, selection(ignore=("SKW011",)), SKEWED_AND_LEFT)
    assert [ignored.loop(r) for r in reports] == [True, False]
    commented = SKEWED_AND_LEFT.replace(
        "stage=2):\n            t:", "stage=2):  # skewlint: ignore[SKW011]\n            t:"
    )
    reports = analyze(commented)
    assert [shown(reports, selection(), commented).loop(r) for r in reports] == [True, False]
    stale = shown(reports, selection(), commented, apply_comments=False)
    assert [stale.loop(r) for r in reports] == [True, True]


def test_shown_hints_and_severities_are_the_configured_ones():
    (report,) = analyze(STAGE3)
    configured = Selection(("ALL",), (), {"SKW001": "warning"})
    found = shown([report], configured, STAGE3)
    assert found.severity(report) == "warning"
    assert [code for code, _, _ in found.shown_hints(report)] == ["SKW030"]
    quiet = shown([report], selection(ignore=("SKW030",)), STAGE3)
    assert quiet.shown_hints(report) == ()


def test_the_other_cores_follow_the_rewrite_indented_like_the_loop():
    source = (EXAMPLES / "mixed_attention.py").read_text(encoding="utf-8")
    (report,) = analyze(source)
    others = preview_doc.others_text(api.preview(source, report.line)).splitlines()
    assert others[1].startswith("        # the compiler's vector (AIV) function for this loop")
    assert "            li = pl.row_sum(probs)" in others
    assert preview_doc.others_text(api.preview(SKEWED, FOR_LINE + 1)) == ""
