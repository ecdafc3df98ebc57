"""The preview of a skew that reorders a FIFO marks each moved tpush with what happens to it."""

from __future__ import annotations

from skewlsp.analysis import analyze
from skewlsp.api import preview as preview_at
from tests.kernels import FIFO_REORDER_BODY, kernel


def test_each_consume_clone_of_the_moved_tpush_says_how_many_produces_it_now_follows() -> None:
    source = kernel(FIFO_REORDER_BODY)  # trip 8
    [report] = analyze(source)
    assert [h.code for h in report.hints] == ["SKW060"]
    lines = [line.strip() for line in preview_at(source, report.line).rewritten.splitlines()]
    marks = [(k, line) for k, line in enumerate(lines) if "SKW060" in line]
    assert [line for _, line in marks] == [
        "# SKW060: issued after the next 3 produces (FIFO to AIV)",  # steady consume(i-2)
        "# SKW060: issued after the next 2 produces (FIFO to AIV)",  # steady consume(i-1)
        "# SKW060: issued after the next 1 produce (FIFO to AIV)",  # epilogue consume(6)
    ]
    for k, _ in marks:  # each mark sits right above the guarded tpush it is about
        assert lines[k + 1] == "if n > 2:"
        assert lines[k + 2].startswith("pl.tpush_to_aiv(rt_c")
    assert lines.index("# epilogue: consume(6), consume(7)") < marks[2][0]


def test_a_skew_that_keeps_every_fifo_in_order_has_no_mark() -> None:
    source = kernel(FIFO_REORDER_BODY.replace("tpush_to_aiv(rt", "tpush_to_aic(rt"))
    [report] = analyze(source)
    assert report.verdict == "skewed" and report.hints == ()
    assert "SKW060" not in preview_at(source, report.line).rewritten
