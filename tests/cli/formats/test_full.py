"""``full``: the remark, the marked loop source, the schedule, and a hint."""

from __future__ import annotations

from pathlib import Path

from skewlsp.cli.formats import FormatContext
from skewlsp.cli.formats.full import render_one, schedule_summary
from skewlsp.common.diagnostic import Diagnostic
from skewlsp.contract import LoopReport, Span
from tests.cli.conftest import Run
from tests.cli.helpers import write
from tests.kernels import BUILT_TWICE_AND_INLINED, COPIES_APART, DEMOTED, SKEWED


def test_demoted_loop_shows_source_marks_and_help(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"a.py": DEMOTED})
    out = run("a.py").out
    lines = out.splitlines()
    assert lines[0].startswith("a.py:8:9: SKW020 [information] loop not skewed")
    assert " 8 |         for i in pl.pipeline(0, 8, 1, stage=2):" in lines
    tpop = lines.index(" 9 |             s0 = pl.tile.tpop_from_aic(split=0)")
    assert lines[tpop + 1].endswith("^ lead, offending")
    assert lines[tpop + 1].index("^") == lines[tpop].index("s0")
    assert any(line.startswith("  = help: ") for line in lines)
    assert lines[-1] == "Found 1 diagnostic (1 information)."


def test_skewed_loop_shows_the_schedule(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"a.py": SKEWED})
    out = run("a.py").out
    assert "  = schedule: prologue 2, steady 3 x 2" in out
    assert "epilogue 2" in out and "help:" not in out


def test_schedule_summary_arithmetic() -> None:
    report = LoopReport(None, Span(1, 1, 2, 1), Span(1, 1, 1, 1), "skewed", "SKW001", "m",
                        depth=4, trip=16)
    summary = schedule_summary(report)
    assert summary is not None
    assert summary.startswith("schedule: prologue 4, steady 3 x 4 (3 iterations of 4 produces")
    assert summary.endswith("epilogue 4")


def test_long_loops_are_elided_around_the_marks() -> None:
    body = [(n, f"    x{n} = {n}") for n in range(2, 41)]
    report = LoopReport(None, Span(1, 1, 40, 10), Span(1, 10, 1, 30), "demoted", "SKW021",
                        "loop not skewed", lead=Span(20, 5, 20, 9),
                        offending=Span(30, 5, 30, 9))
    diagnostic = Diagnostic("k.py", "loop", "SKW021", "loop not skewed", report.span,
                            "warning", report, ((1, "for i in pl.pipeline(0, 4, stage=2):"),
                                                *body))
    out = render_one(diagnostic, FormatContext())
    shown = [line.split("|")[0].strip() for line in out.splitlines() if "|" in line]
    numbers = [int(n) for n in shown if n.isdigit()]
    assert numbers == [1, 2, 19, 20, 21, 29, 30, 31, 40]
    assert out.count("...") == 3


def test_colour_when_asked() -> None:
    report = LoopReport(None, Span(1, 1, 1, 5), Span(1, 1, 1, 5), "demoted", "SKW021", "m")
    diagnostic = Diagnostic("k.py", "loop", "SKW021", "m", report.span, "warning", report)
    assert "\x1b[" in render_one(diagnostic, FormatContext(color=True))
    assert "\x1b[" not in render_one(diagnostic, FormatContext(color=False))


def _notes(out: str) -> list[str]:
    return [line[4:] for line in out.splitlines() if line.startswith("  = ")]


def test_each_copy_of_a_loop_shows_its_cores_and_lowering(run: Run, tmp_path: Path) -> None:
    # one line per core of each copy, named as the message names the copy; the strictest
    # copy's cores are not listed a second time
    write(tmp_path, {"k.py": COPIES_APART})
    out = run("--no-cache", "--select", "ALL", "k.py").out
    built, spliced = out.split("\n\nk.py:")[:2]
    consumer = (
        "demoted (SKW020) consumer role: `s` from the lead half feeds the body "
        "(x2: dual AIV dispatch)"
    )
    assert _notes(built)[1:5] == [
        "blocks = 16, stage = 5: aic: skewed (SKW001) producer runs 4 iterations ahead "
        "(trip 16, stage 5)",
        f"blocks = 16, stage = 5: aiv: {consumer}",
        "blocks = 3, stage = 2: aic: skewed (SKW002) depth 1 (requested 2: trip 3 < 2 x depth 2)",
        f"blocks = 3, stage = 2: aiv: {consumer}",
    ]
    assert _notes(spliced)[:2] == [
        "called from `even` (line 45) with n = 8: aiv: left (SKW011) no boundary crossing at the "
        "top level; replicated: 2 copies per iteration, main loop 0..8 step 2 (4 iterations), "
        "asking 2 buffers per load",
        "called from `odd` (line 51) with n = 7: aiv: left (SKW012) no boundary crossing at the "
        "top level; replicated: 2 copies per iteration, main loop 0..6 step 2 (3 iterations), "
        "asking 2 buffers per load; then 1 copy after it (asking 1 buffer per load)",
    ]


def test_a_copy_of_a_loop_not_split_by_core_shows_its_own_verdict(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"k.py": BUILT_TWICE_AND_INLINED})
    out = run("--no-cache", "k.py").out
    assert _notes(out.split("\n\nk.py:")[0])[1:3] == [
        "n = 4: skewed (SKW001) depth 2",
        "n = 3: skewed (SKW002) depth 1",
    ]


def test_a_loop_built_once_lists_no_copies(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"k.py": SKEWED})
    assert _notes(run("k.py").out) == [
        "schedule: prologue 2, steady 3 x 2 (3 iterations of 2 produces + 2 consumes), epilogue 2"
    ]
