"""Which loops LowerPipelineToSlots rotates under memory_planner=PTOAS, and why it declines.

The fixture module ``tests/fixtures/lowering/models/lower_llm/slots.py`` (and the mixed
loops of ``tests/fixtures/mixed``) were compiled with pypto (e2d0f78ae, built outside
this repository) under both memory planners: each expectation below is what their IR
showed after LowerPipelineToSlots (rotated: the loop became sequential with its loads in
slots) and LowerPipelineLoops (replicated).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from skewlsp.analysis.lower_pipeline.slot_capacity import slot_bytes
from skewlsp.api import analyse
from skewlsp.common.resolver import RecordingResolver
from skewlsp.contract import LoopReport

PACKAGE = Path(__file__).resolve().parents[2] / "fixtures" / "lowering" / "models" / "lower_llm"
SLOTS = PACKAGE / "slots.py"

# line: the loads the compiler put in slots (a rotated loop)
ROTATED = {
    21: ("t",),  # a slice of pl.reshape(parameter)
    33: ("t",),  # a slice of a pl.create_tensor written by another scope
    74: ("x", "w"),  # a matmul's operands, its accumulator carried
    109: ("t",),  # the first loop of a scope: its slots fit
    121: ("t",),  # the same two loops, each in a scope (a function) of its own
    125: ("u",),
    # Not compiled here: a block read as ``c * K : (c + 1) * K`` is rotated by the compiler
    # (issue #39), as its ``c * K : c * K + K`` twin is: the DSL parser builds the extent
    # ``upper - lower`` through the arithmetic analyzer, which folds both to ``K``.
    137: ("t",),
    146: ("t",),
}
# line: (main-loop iterations when replicated, the start of the reason skewlsp gives)
DECLINED = {
    44: (4, "`t` has a shape known only at run time (`n`)"),
    53: (4, "`a[...]` is passed straight to `reshape`"),
    62: (4, "`c` is a [16, 1] column that `mul` reads row-major"),
    90: (2, "`w` is read by a matmul with b_trans=True"),
    100: (2, "its 2 slots per load need 384 KB of Vec, more than the 184 KB"),
    112: (1, "its 2 slots per load need 96 KB of Vec beside 96 KB pinned by loops rotated"),
}


def _reports(planner: str) -> dict[int, LoopReport]:
    found = analyse(
        SLOTS.read_text(), str(SLOTS), resolver=RecordingResolver((PACKAGE,)), planner=planner
    )
    return {report.line: report for report in found}


@pytest.fixture(scope="module")
def ptoas() -> dict[int, LoopReport]:
    return _reports("ptoas")


def test_the_rotated_loops_are_exactly_the_compiler_s(ptoas: dict[int, LoopReport]) -> None:
    rotated = {line for line, report in ptoas.items() if report.code == "SKW015"}
    assert rotated == set(ROTATED)


@pytest.mark.parametrize("line", sorted(ROTATED))
def test_a_rotated_loop_names_the_loads_in_its_slots(
    ptoas: dict[int, LoopReport], line: int
) -> None:
    lowering = ptoas[line].lowering
    assert lowering is not None and lowering.verdict == "rotated"
    assert lowering.slots == ROTATED[line]


@pytest.mark.parametrize("line", sorted(DECLINED))
def test_a_declined_loop_is_replicated_and_names_its_gate(
    ptoas: dict[int, LoopReport], line: int
) -> None:
    lowering = ptoas[line].lowering
    main_trip, gate = DECLINED[line]
    assert lowering is not None and lowering.declined is not None
    assert (lowering.verdict, lowering.main_trip) == ("replicated", main_trip)
    assert lowering.declined.startswith(gate)


def test_under_the_default_planner_every_loop_is_replicated() -> None:
    codes = {report.lowering.verdict for report in _reports("pypto").values() if report.lowering}
    assert codes == {"replicated"}


def test_a_slot_size_from_a_value_computed_at_load_time_leaves_the_verdict_open() -> None:
    # An environment variable without a default is read when the module loads: the
    # compiler sees its value, skewlsp does not.
    source = textwrap.dedent(
        """\
        import os

        import pypto.language as pl

        TILE = int(os.environ["ROW_TILE"])


        @pl.jit
        def k(a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="k"):
                for i in pl.pipeline(4, stage=2):
                    t = a[i * 64 : i * 64 + 64, 0:TILE]
                    out[i * 64 : i * 64 + 64, 0:TILE] = pl.add(t, t)
            return out
        """
    )
    (report,) = analyse(source, "k.py", planner="ptoas")
    assert report.lowering is not None and report.lowering.verdict == "replicated"
    assert report.lowering.declined is None
    assert "whether LowerPipelineToSlots takes it depends on the size of `t` (`TILE`)" in (
        report.message
    )


MIXED = Path(__file__).resolve().parents[2] / "fixtures" / "mixed" / "models"
# Mixed loops of tests/fixtures/mixed, compiled the same way: per core, how many loads the
# compiler put in slots (None: it replicated that core's copy). A whole tensor a matmul
# takes is loaded into Mat in the loop, as a slice is.
MIXED_PTOAS = {
    ("writebacks.py", 90): {"aic": 2, "aiv": None},  # aiv: x[...] straight into assemble
    ("writebacks.py", 125): {"aic": 3, "aiv": 1},  # w twice (two matmuls), q[...]
    ("shared_tiles.py", 63): {"aic": 1, "aiv": None},  # a matmul reads it: in Mat
    ("cube_only.py", 116): {"aic": 4},  # a pl.unroll(2) body is written out: twice two
    ("shapes.py", 135): {"aic": 4, "aiv": None},
}


@pytest.mark.parametrize(("name", "line"), sorted(MIXED_PTOAS))
def test_each_core_s_copy_of_a_mixed_loop_rotates_its_own_loads(name: str, line: int) -> None:
    path = MIXED / "mixed_llm" / name
    found = analyse(
        path.read_text(), str(path), resolver=RecordingResolver((MIXED,)), planner="ptoas"
    )
    (report,) = [r for r in found if r.line == line]
    slots = {
        core.core: len(core.lowering.slots) if core.lowering.verdict == "rotated" else None
        for core in report.cores
        if core.lowering is not None
    }
    assert slots == MIXED_PTOAS[(name, line)]


def test_the_second_vector_lane_s_replay_is_said_to_be_replicated() -> None:
    # writebacks.py:125 under no split mode: the compiler rotates the first lane's copy
    # and replicates the second's, which SplitVectorKernel writes without the load.
    path = MIXED / "mixed_llm" / "writebacks.py"
    found = analyse(
        path.read_text(), str(path), resolver=RecordingResolver((MIXED,)), planner="ptoas"
    )
    (report,) = [r for r in found if r.line == 125]
    (vector,) = [core for core in report.cores if core.core == "aiv"]
    assert vector.copies == 2 and vector.lowering is not None
    assert vector.lowering.verdict == "rotated"
    assert "the second lane's copy replays the body without its loads" in vector.lowering.reason
    # ... and the second lane's own lowering says so in numbers: pypto e2d0f78ae's
    # LowerPipelineLoops writes that copy as a main loop of one iteration of 2 copies.
    second = vector.lowering.second_lane
    assert second is not None
    assert (second.verdict, second.code, second.main_trip, second.tail) == (
        "replicated", "SKW016", 1, 0
    )
    assert second.declined is not None and "no loads" in second.declined
    assert second.slots == () and second.second_lane is None


@pytest.mark.parametrize(
    ("line", "copies", "verdict"),
    [
        (236, 1, "rotated"),  # one vector copy (a split mode): nothing replayed
        (135, 2, "replicated"),  # two lanes, neither rotated: lowered alike
    ],
)
def test_a_vector_copy_whose_lanes_are_lowered_alike_has_no_second_lane(
    line: int, copies: int, verdict: str
) -> None:
    path = MIXED / "mixed_llm" / "shapes.py"
    found = analyse(
        path.read_text(), str(path), resolver=RecordingResolver((MIXED,)), planner="ptoas"
    )
    (report,) = [r for r in found if r.line == line]
    (vector,) = [core for core in report.cores if core.core == "aiv"]
    assert vector.lowering is not None
    assert (vector.copies, vector.lowering.verdict) == (copies, verdict)
    assert vector.lowering.second_lane is None


@pytest.mark.parametrize(
    ("extents", "dtype", "space", "size"),
    [
        ((16, 768), "FP32", "Vec", 49152),  # 16 * 768 elements of 4 bytes
        ((3, 5), "INT4", "Vec", 8),  # 15 packed nibbles take 8 bytes
        ((3, 5), "BOOL", "Vec", 15),  # a BOOL takes a whole byte
        ((8, 64), "FP32", "Acc", 4096),  # Acc rows are allotted 16 at a time
        ((8, 64), "INT32", "Acc", 8192),  # 32 at a time for INT32 on the 910B
        ((2, 8, 64), "FP16", "Acc", 4096),  # a leading batch dimension multiplies
    ],
)
def test_a_slot_is_sized_as_the_compiler_allots_it(
    extents: tuple[int, ...], dtype: str, space: str, size: int
) -> None:
    assert slot_bytes(extents, dtype, space) == size
