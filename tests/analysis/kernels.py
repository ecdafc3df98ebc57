"""Builders for small kernels, so each test states only the loop it is about."""

from __future__ import annotations

import textwrap

from skewlsp.analysis import analyze
from skewlsp.contract import LoopReport

HEADER = """\
import pypto.language as pl

{prelude}

@pl.program
class Kernel:
    @pl.function
    def main(self, q: pl.Tensor[[64, 64], pl.FP32], out: pl.Tensor[[64, 64], pl.FP32], n: pl.INDEX):
{body}
"""

PRODUCER = """\
qa: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(q, [i * 16, 0], [16, 64])
rs: pl.Tile[[16, 64], pl.FP32] = pl.tile.add(qa, qa)
pl.tile.tpush_to_aiv(rs, split=0)
e: pl.Tile[[16, 64], pl.FP32] = pl.tile.tpop_from_aiv(split=0)
oi: pl.Tile[[16, 64], pl.FP32] = pl.tile.add(e, e)
pl.tile.store(oi, [i * 16, 0], out)
"""

CONSUMER = """\
s0 = pl.tile.tpop_from_aic(split=0)
c0 = pl.tile.exp(s0)
pl.tile.tpush_to_aic(c0, split=0)
pl.tile.store(c0, [i * 16, 0], out)
"""


def kernel(
    loop_body: str,
    header: str = "pl.pipeline(0, 8, 1, stage=2)",
    *,
    before: str = "",
    prelude: str = "",
    target: str = "i",
) -> str:
    """A module with one kernel whose function body is ``before`` then the loop."""
    loop = f"for {target} in {header}:\n" + textwrap.indent(textwrap.dedent(loop_body), "    ")
    body = textwrap.dedent(before) + loop
    return HEADER.format(prelude=textwrap.dedent(prelude), body=textwrap.indent(body, " " * 8))


def only_loop(source: str) -> LoopReport:
    reports = analyze(source, "kernel.py")
    assert len(reports) == 1, [r.message for r in reports]
    assert "internal error" not in reports[0].message, reports[0].message
    return reports[0]


def loop_at(source: str, line_text: str) -> LoopReport:
    """The report of the loop whose ``for`` line contains ``line_text``."""
    lines = source.splitlines()
    wanted = next(i + 1 for i, line in enumerate(lines) if line_text in line)
    for report in analyze(source, "kernel.py"):
        if report.span.line == wanted:
            return report
    raise AssertionError(f"no loop at line {wanted}")
