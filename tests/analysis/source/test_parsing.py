"""Memoised parses of constant sources: the tree libcst gives, kept per distinct text.

How many parses a run makes is a budget, measured in ``benchmarks/``."""

from __future__ import annotations

import libcst as cst
import pytest

from skewlsp.analysis import analyze
from skewlsp.analysis.source import parsing

KERNEL = """\
import pypto.language as pl
from consts import TRIP_{n}


@pl.program
class Kernel:
    @pl.function
    def main(self, q: pl.Tensor[[64, 64], pl.FP32], out: pl.Tensor[[64, 64], pl.FP32]):
        for i in pl.pipeline(0, TRIP_{n}, 1, stage=2):
            qa: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(q, [i * 16, 0], [16, 64])
            pl.tile.tpush_to_aiv(qa, split=0)
            e: pl.Tile[[16, 64], pl.FP32] = pl.tile.tpop_from_aiv(split=0)
            pl.tile.store(e, [i * 16, 0], out)
"""
CONSTS = "BASE = 2\n" + "".join(f"TRIP_{n} = BASE * {n + 1} + (BASE - BASE)\n" for n in range(4))


def test_a_text_is_parsed_once_and_the_tree_is_what_libcst_gives() -> None:
    first = parsing.expression(" N * (2 + M) ")
    assert parsing.expression(" N * (2 + M) ") is first
    assert first.deep_equals(cst.parse_expression("N * (2 + M)"))
    module = parsing.dedented_module("    class C:\n        x: int = 1\n")
    assert module.deep_equals(cst.parse_module("class C:\n    x: int = 1\n"))


def test_a_bad_text_raises_every_time() -> None:
    for _ in range(2):
        with pytest.raises(cst.ParserSyntaxError):
            parsing.expression("N *")


def test_kernels_importing_the_same_constants_each_fold_their_own() -> None:
    # BASE is read by every TRIP_n; each kernel folds its own TRIP_n from the shared module.
    def resolver(module: str, level: int, path: str | None) -> str | None:
        return CONSTS if module == "consts" else None

    trips = [analyze(KERNEL.format(n=n), "k.py", resolver=resolver)[0].trip for n in range(4)]
    assert trips == [2, 4, 6, 8]
