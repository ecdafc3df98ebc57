"""A program written in both branches of a module-level ``if`` on a bool switch.

The kernels are tests/fixtures/mixed/models/built_llm/switched.py (the switch
``USE_FAST_ATTENTION = False`` in the sibling config module) and switched_here.py
(``FUSED = True`` in the kernel module). Python runs only the branch it takes when
it imports the module, so only that branch's decorator runs. But ``@pl.program`` reads
the class's source through ``inspect`` (python/pypto/language/parser/source_lookup.py),
which before CPython 3.13 finds a class by its name, the first definition in the file
winning: the decorator that runs parses the FIRST ``class Attention`` of the file,
whichever branch defined the class object. So with the switch false, the ``if``
branch's loops are compiled and the ``else`` branch's never are (SKW070); with it true,
the ``if`` branch's are compiled and the ``else``'s never are. Checked against pypto
e2d0f78ae on CPython 3.11 (benchmarks/compiler_check.py: switched.py:25 compiled,
skewed at depth 2; switched.py:45 no compiled loop). A bool is Python's: ``not FUSED``
and ``8 if FUSED else 3`` are evaluated as Python does, when the module loads.

The skew verdicts follow skew_cross_core_pipeline_pass.cpp: depth max(2, stage - 1)
lowered to the largest d with trip % d == 0 and trip >= 2d; the cube pushes the scores
first (producer, skewed), the vector pops them first (consumer role, demoted).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from skewlsp.api import analyse
from skewlsp.common.resolver import RecordingResolver
from skewlsp.contract import NOT_COMPILED, LoopReport

ROOT = Path(__file__).resolve().parents[2] / "fixtures" / "mixed" / "models"
PACKAGE = ROOT / "built_llm"


def _reports(name: str) -> dict[int, LoopReport]:
    path = PACKAGE / name
    found = analyse(path.read_text(), str(path), resolver=RecordingResolver((ROOT,)))
    return {report.line: report for report in found}


@pytest.fixture(scope="module")
def imported_switch() -> dict[int, LoopReport]:
    return _reports("switched.py")


@pytest.fixture(scope="module")
def local_switch() -> dict[int, LoopReport]:
    return _reports("switched_here.py")


def test_the_first_of_two_same_named_programs_is_compiled_though_its_branch_is_skipped(
    imported_switch: dict[int, LoopReport],
) -> None:
    # The fused `Attention`, under `if USE_FAST_ATTENTION:` (false): the else branch's
    # decorator runs and parses this, the file's first `class Attention`: trip 8, depth 2.
    report = imported_switch[25]
    assert (report.verdict, report.code, report.depth) == ("skewed", "SKW001", 2)


def test_a_later_definition_of_the_same_program_is_never_compiled(
    imported_switch: dict[int, LoopReport],
) -> None:
    # The reference `Attention` (else branch, the one Python runs): its source is never
    # the one parsed.
    report = imported_switch[45]
    assert (report.verdict, report.code) == ("not_compiled", NOT_COMPILED)
    assert "the compiler parses the first `class Attention` of the file" in report.message


def test_a_true_switch_in_the_module_compiles_its_branch(
    local_switch: dict[int, LoopReport],
) -> None:
    # `HEADS = 8 if FUSED else 3` is 8: trip 8 at stage 2 skews at depth 2.
    report = local_switch[25]
    assert (report.verdict, report.code, report.depth, report.trip) == ("skewed", "SKW001", 2, 8)


def test_a_true_switch_never_compiles_its_else(local_switch: dict[int, LoopReport]) -> None:
    report = local_switch[45]
    assert (report.verdict, report.code) == ("not_compiled", NOT_COMPILED)
    assert "`if FUSED` is true when the module loads, so its `else` branch never runs" in (
        report.message
    )


def test_a_switch_negated_when_the_module_loads_is_false(
    local_switch: dict[int, LoopReport],
) -> None:
    report = local_switch[66]  # under `if REFERENCE:`, with `REFERENCE = not FUSED`
    assert (report.verdict, report.code) == ("not_compiled", NOT_COMPILED)
    assert "`if REFERENCE` is false when the module loads" in report.message


SWITCHED = """\
import os

import pypto.language as pl

{switch}

if {test}:

    @pl.program
    class Copy:
        @pl.function(type=pl.FunctionType.InCore)
        def copy(self, src: pl.Tensor[[256, 64], pl.FP32], dst: pl.Tensor[[256, 64], pl.FP32]):
            for r in pl.pipeline(0, 256, 16, stage=2):
                t = pl.tile.load(src, [r, 0], [16, 64])
                pl.tile.store(t, [r, 0], dst)

else:

    @pl.program
    class CopyWide:
        @pl.function(type=pl.FunctionType.InCore)
        def copy(self, src: pl.Tensor[[256, 64], pl.FP32], dst: pl.Tensor[[256, 64], pl.FP32]):
            for r in pl.pipeline(0, 256, 32, stage=2):
                t = pl.tile.load(src, [r, 0], [32, 64])
                pl.tile.store(t, [r, 0], dst)
"""


@pytest.mark.parametrize(
    ("switch", "test"),
    [
        ('DISABLE_RETIRE = os.environ.get("DSV4_DISABLE_RETIRE") == "1"', "DISABLE_RETIRE"),
        ("FAST = None", "FAST"),
        ("FAST = False", "FAST is True"),
        ("FAST = bool(0)", "FAST"),
        ('MODE = os.environ.get("MODE")', "MODE is not None"),
    ],
)
def test_a_switch_python_reads_as_false_skips_its_branch(switch: str, test: str) -> None:
    """Python's None, ``is`` and ``bool()`` as an import runs them, the environment empty."""
    source = SWITCHED.format(switch=switch, test=test)
    found = {report.line: report for report in analyse(source, "/project/switch.py")}
    assert (found[13].verdict, found[13].code) == ("not_compiled", NOT_COMPILED)
    assert (found[23].verdict, found[23].lowering and found[23].lowering.code) == ("left", "SKW011")


def test_of_two_same_named_programs_the_second_is_never_compiled_whatever_the_switch() -> None:
    source = SWITCHED.replace("class CopyWide", "class Copy").format(
        switch="FAST = False", test="FAST"
    )
    found = {report.line: report for report in analyse(source, "/project/switch.py")}
    assert (found[13].verdict, found[13].lowering and found[13].lowering.code) == ("left", "SKW011")
    assert (found[23].verdict, found[23].code) == ("not_compiled", NOT_COMPILED)
