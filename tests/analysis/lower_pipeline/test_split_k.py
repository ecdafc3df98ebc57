"""AutoTileMatmulL0 writes a loop in its canonical split-K form once per output tile
(``TryFoldCanonicalSplitKAcc``), before the skew pass: the cube function then holds the
loop that many times, each copy lowered on its own.

Kernels: tests/fixtures/lowering/models/lower_llm/split_k.py. pypto e2d0f78ae
(benchmarks/compiler_check.py on that file): under memory-planner=ptoas the loop at
line 30 is in its function twice and each copy rotated, the one at line 51 four times,
the one at line 76 (two accumulators) once; under the default planner each once, and
replicated.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from skewlsp.analysis.lower_pipeline.loop_facts import SlotLoad
from skewlsp.analysis.lower_pipeline.split_k import output_tiles
from skewlsp.analysis.passes.split_k_grid import SplitKLoop
from skewlsp.api import analyse
from skewlsp.common.resolver import RecordingResolver
from skewlsp.contract import LoopReport

PACKAGE = Path(__file__).resolve().parents[2] / "fixtures" / "lowering" / "models" / "lower_llm"
SPLIT_K = PACKAGE / "split_k.py"

# line: (the copies of the loop the cube function holds, its lowering) per planner
COMPILED = {
    "ptoas": {30: (2, "rotated"), 51: (4, "rotated"), 76: (1, "rotated")},
    "pypto": {30: (1, "replicated"), 51: (1, "replicated"), 76: (1, "replicated")},
}


def _reports(planner: str) -> dict[int, LoopReport]:
    found = analyse(
        SPLIT_K.read_text(), str(SPLIT_K), resolver=RecordingResolver((PACKAGE,)), planner=planner
    )
    return {report.line: report for report in found}


@pytest.mark.parametrize("planner", sorted(COMPILED))
def test_the_cube_function_holds_the_loop_once_per_output_tile(planner: str) -> None:
    reports = _reports(planner)
    said = {}
    for line, report in reports.items():
        (core,) = report.cores
        assert core.lowering is not None
        said[line] = (core.copies, core.lowering.verdict)
    assert said == COMPILED[planner]


def test_each_copy_rotates_through_slots_of_its_own() -> None:
    lowering = _reports("ptoas")[51].lowering
    assert lowering is not None
    assert (lowering.slots, lowering.buffers, lowering.nested, lowering.copies) == (
        ("a", "b"), 2, 4, 4
    )
    assert "writes the loop 4 times, once per [16, 256] output tile" in lowering.reason


def _load(name: str, extents: tuple[int, int], dtype: str, partial: bool = False) -> SlotLoad:
    size = extents[0] * extents[1] * (1 if dtype == "INT8" else 2)
    return SlotLoad(name, "Mat", size, extents=extents, dtype=dtype, partial=partial)


SPLIT = SplitKLoop("acc", "a", "b", "FP32")


def test_under_ptoas_the_chooser_double_buffers_l0c_and_halves_n() -> None:
    loads = (_load("a", (16, 128), "BF16"), _load("b", (128, 256), "BF16"))
    tiles = output_tiles(SPLIT, loads, "ptoas")
    assert tiles is not None
    assert (tiles.count, tiles.m, tiles.n) == (2, 16, 128)
    # each copy loads the whole left operand and its own [128, 128] of the right one
    assert [[(x.name, x.extents, x.size) for x in copy] for copy in tiles.loads] == [
        [("a", (16, 128), 4096), ("b", (128, 128), 32768)]
    ] * 2


def test_under_the_default_planner_the_output_fits_and_the_loop_is_written_once() -> None:
    loads = (_load("a", (16, 128), "BF16"), _load("b", (128, 256), "BF16"))
    assert output_tiles(SPLIT, loads, "pypto") is None


def test_a_padded_operand_keeps_the_loop_whole() -> None:
    # the pass leaves a load whose valid_shape is not its shape on its deferred path
    # (deepseek_v4_pro/decode_indexer.py:160: rotated once under ptoas)
    loads = (_load("a", (16, 128), "INT8", partial=True), _load("b", (128, 1024), "INT8"))
    assert output_tiles(SplitKLoop("acc", "a", "b", "INT32"), loads, "ptoas") is None
