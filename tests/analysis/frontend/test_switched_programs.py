"""A program written in both branches of a module-level ``if`` on a bool switch.

The kernels are tests/fixtures/mixed/models/built_llm/switched.py (the switch
``USE_FAST_ATTENTION = False`` in the sibling config module) and switched_here.py
(``FUSED = True`` in the kernel module). Python runs only the branch it takes when
it imports the module, so only that branch defines ``Attention``: ``@pl.program``
parses the class as Python defines it (python/pypto/language/parser/decorator.py),
and the other branch's class, of the same name, is never defined, so never compiled
(SKW070). A bool is Python's: ``not FUSED`` and ``8 if FUSED else 3`` are evaluated
as Python does, when the module loads.

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


def test_the_branch_a_false_switch_skips_is_never_compiled(
    imported_switch: dict[int, LoopReport],
) -> None:
    report = imported_switch[25]  # the fused `Attention`, under `if USE_FAST_ATTENTION:`
    assert (report.verdict, report.code, report.cores) == ("not_compiled", NOT_COMPILED, ())
    assert "`if USE_FAST_ATTENTION` is false when the module loads" in report.message


def test_the_class_of_the_taken_branch_is_the_one_compiled(
    imported_switch: dict[int, LoopReport],
) -> None:
    # The reference `Attention` (else branch): trip 3 at stage 2, depth 2 needs trip >= 4,
    # so the cube skews at depth 1; the vector is the consumer.
    report = imported_switch[45]
    assert (report.verdict, report.code, report.depth) == ("skewed", "SKW002", 1)


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
    class Copy:
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
