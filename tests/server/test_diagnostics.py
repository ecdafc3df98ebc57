"""Reports to LSP diagnostics, without a client."""

from __future__ import annotations

import json
from pathlib import Path

from lsprotocol import types

from skewlsp.analysis import analyze
from skewlsp.cli.app import main as cli_main
from skewlsp.common.config import Settings
from skewlsp.common.resolver import RecordingResolver
from skewlsp.common.select import Selection
from skewlsp.server.diagnostics import build
from skewlsp.server.positions import UTF32, split_lines
from tests.kernels import DEMOTED, FOR_LINE, SHALLOW, SKEWED, STAGE3

URI = "file:///k.py"
ALL = Selection.from_settings(Settings(root=__import__("pathlib").Path("/")))


def diagnose(text: str, selection: Selection = ALL, **kwargs):
    return build(
        analyze(text), source=text, lines=split_lines(text), uri=URI, selection=selection, **kwargs
    )


def test_severity_follows_the_reason_code_table():
    assert [d.severity for d in diagnose(SKEWED)] == [types.DiagnosticSeverity.Information]
    assert [d.severity for d in diagnose(SHALLOW)] == [types.DiagnosticSeverity.Warning]
    # A consumer of a tile from a producer in another file: nothing here to edit.
    assert [d.severity for d in diagnose(DEMOTED)] == [types.DiagnosticSeverity.Information]
    assert [(d.code, d.severity) for d in diagnose(STAGE3)] == [
        ("SKW001", types.DiagnosticSeverity.Information),
        ("SKW030", types.DiagnosticSeverity.Hint),
    ]


def test_selection_and_severity_overrides_apply():
    quiet = Selection(("ALL",), ("SKW030",), {"SKW001": "error"})
    assert [(d.code, d.severity) for d in diagnose(STAGE3, quiet)] == [
        ("SKW001", types.DiagnosticSeverity.Error)
    ]


def test_a_suppression_comment_hides_the_loop_and_an_unused_one_is_reported():
    text = DEMOTED.replace("stage=2):", "stage=2):  # skewlint: ignore[SKW020]")
    assert diagnose(text) == []
    unused = DEMOTED.replace("stage=2):", "stage=2):  # skewlint: ignore[SKW021]")
    assert sorted(d.code for d in diagnose(unused)) == ["SKW020", "SKW901"]


def test_a_syntax_error_comes_first_and_the_last_good_loops_stay_as_they_were():
    good = analyze(SKEWED)
    broken = SKEWED.replace("stage=2):", "stage=2)")
    (error,) = analyze(broken)
    found = build(
        good, source=broken, lines=split_lines(broken), uri=URI, selection=ALL, syntax_error=error
    )
    assert [d.code for d in found] == ["SKW900", "SKW001"]
    assert found[0].severity == types.DiagnosticSeverity.Error
    assert found[1].range == diagnose(SKEWED)[0].range


INLINE = """\
import pypto.language as pl


@pl.jit.inline
def h(a: pl.Tensor[[64, 64], pl.FP16], m: pl.Scalar[pl.INT32]):
    for i in pl.pipeline(0, m, 1, stage=2):
        pl.tile.tpush_to_aiv(pl.tile.load(a, [i, 0], [16, 64]), split=0)
        e = pl.tile.tpop_from_aiv(split=0)


@pl.jit
def entry(a: pl.Tensor[[64, 64], pl.FP16]):
    h(a, 1)
"""


def test_an_inline_helper_copy_points_at_its_call_and_the_call_at_the_loop():
    found = diagnose(INLINE)
    # trip 1 < 2 at this call: demoted (SKW023), on the loop and on the call (0-based lines).
    assert [(d.code, d.range.start.line) for d in found] == [("SKW023", 5), ("SKW023", 12)]
    loop, call = found
    assert [(r.location.range.start.line, r.message) for r in loop.related_information] == [
        (12, "this copy is spliced here, in `entry`"),
        (5, "the `pl.pipeline(...)` call"),
    ]
    assert [r.location.range.start.line for r in call.related_information] == [5]


def test_a_loop_finding_covers_its_header_and_points_at_the_pipeline_call():
    # The CLI prints a finding at its `for` (file:29:9): the editor's range starts there
    # too and ends with the `pl.pipeline(...)` call, which a related location names.
    (found,) = diagnose(SKEWED)
    lines = SKEWED.splitlines()
    start, end = found.range.start, found.range.end
    assert (start.line, end.line) == (FOR_LINE, FOR_LINE)
    header = lines[start.line]
    assert header[start.character :].startswith("for ")
    assert header[: end.character].endswith("stage=2)")
    calls = [r for r in found.related_information or () if "pl.pipeline" in r.message]
    assert [(r.location.range.start.line, r.location.range.start.character) for r in calls] == [
        (FOR_LINE, header.index("pl.pipeline("))
    ]


def test_the_editor_and_the_cli_put_each_finding_of_the_examples_at_one_range(capsys):
    examples = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.py"))
    assert len(examples) >= 5
    for path in examples:
        text = path.read_text(encoding="utf-8")
        editor = [
            (
                d.code,
                d.range.start.line + 1,
                d.range.start.character + 1,
                d.range.end.line + 1,
                d.range.end.character + 1,
            )
            for d in diagnose(text, encoding=UTF32)  # code points, as the CLI counts
        ]
        cli_main(
            ["--output-format", "json", "--select", "ALL", "--no-cache", "--exit-zero", str(path)]
        )
        printed = json.loads(capsys.readouterr().out)
        cli = [(i["code"], i["line"], i["column"], i["end_line"], i["end_column"]) for i in printed]
        assert sorted(editor) == sorted(cli), path.name


MEM_LLM = Path(__file__).resolve().parents[1] / "fixtures" / "memory" / "models" / "mem_llm"


def test_a_scope_without_a_loop_is_diagnosed_at_its_header_with_no_loop_to_act_on():
    # vector.py:48, three 64 KB tiles in a pl.at scope with no pipeline loop: pypto
    # e2d0f78ae warns (legacy packing) and stops in AllocateMemoryAddr there
    path = MEM_LLM / "vector.py"
    text = path.read_text()
    reports = analyze(text, str(path), resolver=RecordingResolver((MEM_LLM,)))
    found = build(reports, source=text, lines=split_lines(text), uri=URI, selection=ALL)
    at = [d for d in found if d.range.start.line == 47]
    assert [(d.code, d.severity) for d in at] == [
        ("SKW081", types.DiagnosticSeverity.Error),
        ("SKW082", types.DiagnosticSeverity.Warning),
    ]
    assert (at[0].range.start.character, at[0].range.end.character) == (4, 60)
    assert at[0].data is None  # (a code action finds a loop by it: there is none)
    assert at[0].related_information is None
