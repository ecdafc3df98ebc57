"""A pipeline loop in a branch Simplify removes is never compiled.

Simplify (``src/ir/transforms/simplify_pass.cpp``, "Fold A") collapses an ``if`` whose
test the analyzer proves, wherever it is in the function, before the skew pass: the
branch that never runs is gone with its loops. pypto-lib's LM heads guard a ragged last
vocabulary tile with ``if VOCAB_TAIL != 0:``; at ``--tp 2`` (the build compiled without
arguments) the tile divides the shard of deepseek_v4_pro and the compiler holds no loop
at that branch's ``pl.pipeline`` (benchmarks/compiler_check.py on pypto e2d0f78ae:
"no compiled loop here").
"""

from __future__ import annotations

from skewlsp.api import analyse
from skewlsp.contract import NOT_COMPILED

SOURCE = """\
import pypto.language as pl

TAIL = 0
BLOCKS = 4


@pl.jit
def kernel(x: pl.Tensor[[64, 512], pl.FP32], out: pl.Out[pl.Tensor[[64, 512], pl.FP32]]):
    for core in pl.spmd(2, name_hint="tail"):
        if TAIL != 0:
            for kb in pl.pipeline(0, 4, stage=2):
                out = pl.assemble(out, pl.add(x[0:16, 0:128], x[0:16, 0:128]), [0, 0])
        else:
            for kb in pl.pipeline(0, 4, stage=2):
                out = pl.assemble(out, pl.mul(x[0:16, 0:128], x[0:16, 0:128]), [0, 0])
        for lane in pl.unroll(2):
            if lane == 1:
                for kb in pl.pipeline(0, 4, stage=2):
                    out = pl.assemble(out, pl.exp(x[0:16, 0:128]), [0, 0])
    return out
"""


def test_a_loop_in_a_branch_simplify_proves_false_is_not_compiled() -> None:
    reports = {report.line: report for report in analyse(SOURCE, "kernel.py")}
    removed = reports[11]
    assert (removed.verdict, removed.code) == ("not_compiled", NOT_COMPILED)
    assert "`if TAIL != 0`" in removed.message and "Simplify" in removed.message
    assert reports[14].verdict == "left"  # the else branch runs: kept


def test_a_test_on_an_unrolled_variable_is_decided_per_copy_not_folded_for_all() -> None:
    reports = {report.line: report for report in analyse(SOURCE, "kernel.py")}
    assert reports[18].verdict == "left"
