"""The preview of a skew that reorders a FIFO marks each moved tpush with what happens to it."""

from __future__ import annotations

from skewlsp.analysis import analyze
from skewlsp.api import preview as preview_at
from tests.transform.kernels import HEADER

LOOP = """\
        for i in pl.pipeline(0, 8, 1, stage=2):
            qt = pl.tile.load(q, [i * 16, 0], [16, 64])
            pl.tile.tpush_to_aiv(qt, split=0)
            rt = pl.tile.tpop_from_aiv(split=0)
            if acc0 > 2:
                pl.tile.tpush_to_aiv(rt, split=0)
            pl.tile.store(rt, [i * 16, 0], out)
"""


def test_each_consume_clone_of_the_moved_tpush_says_how_many_produces_it_now_follows() -> None:
    source = HEADER + LOOP
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
        assert lines[k + 1] == "if acc0 > 2:"
        assert lines[k + 2].startswith("pl.tile.tpush_to_aiv(rt_c")
    assert lines.index("# epilogue: consume(6), consume(7)") < marks[2][0]


def test_a_skew_that_keeps_every_fifo_in_order_has_no_mark() -> None:
    source = HEADER + LOOP.replace("tpush_to_aiv(rt", "tpush_to_aic(rt")
    [report] = analyze(source)
    assert report.verdict == "skewed" and report.hints == ()
    assert "SKW060" not in preview_at(source, report.line).rewritten
