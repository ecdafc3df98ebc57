"""benchmarks/compiler_check.py as a maintainer runs it: against kept compiler dumps (no
pypto needed), without pypto (a clear skip), and against the real compiler when
``$SKEWLSP_PYPTO_PYTHON`` names an interpreter that imports pypto (skipped otherwise).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHECK = ROOT / "benchmarks" / "compiler_check.py"
ODD_TRIP = ROOT / "examples" / "odd_trip.py"
MIXED = ROOT / "examples" / "mixed_attention.py"


def run_check(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(CHECK), *args], capture_output=True, text=True, cwd=ROOT, timeout=1800
    )


def odd_trip_dump(steady_start: int) -> list[dict]:
    """What compiler_probe.py prints for examples/odd_trip.py: the loop at line 13 before
    SkewCrossCorePipeline, and after it (a steady loop starting at ``steady_start``)."""

    def loop(kind: str, start: int, stages: int | None) -> dict:
        return {
            "function": "main",
            "function_type": "Opaque",
            "file": str(ODD_TRIP),
            "line": 13,
            "kind": kind,
            "stages": stages,
            "start": start,
            "stop": 3,
            "step": 1,
            "nesting": 0,
        }

    after = loop("Sequential", steady_start, None)
    entry = {
        "entry": "OddTrip",
        "entry_kind": "program",
        "error": None,
        "failed_in": None,
        "rejected": None,
        "diagnostics": [],
        "snapshots": {
            "NormalizeReturnOrder": [loop("Pipeline", 0, 2)],
            "SkewCrossCorePipeline": [after],
            "LowerPipelineToSlots": [after],
            "LowerPipelineLoops": [after],
        },
    }
    return [{"path": str(ODD_TRIP), "error": None, "entries": [entry]}]


def test_kept_dumps_are_compared_with_skewlint_and_summarised_in_one_line(tmp_path):
    (tmp_path / "pypto.json").write_text(json.dumps(odd_trip_dump(steady_start=1)))
    done = run_check("--load-probe", str(tmp_path), "--planner", "pypto", "examples/odd_trip.py")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[0] == (
        "planner pypto: 1 loops: 1 agree, 0 disagree, 0 unknown (1 files, 0 not loaded; "
        "1 entries compiled, 0 rejected by the IR verifier, 0 stopped with an error; "
        "0 pipeline loops the compiler made itself)"
    )


def test_a_disagreement_is_listed_with_what_each_side_said_and_fails_the_run(tmp_path):
    # A steady loop from 0 keeps the bounds: the compiler would have demoted the loop.
    (tmp_path / "pypto.json").write_text(json.dumps(odd_trip_dump(steady_start=0)))
    done = run_check("--load-probe", str(tmp_path), "--planner", "pypto", "examples/odd_trip.py")
    assert done.returncode == 1
    assert done.stdout.splitlines()[1:3] == [
        "disagreements:",
        "  [pypto] examples/odd_trip.py:13: loop: skewlint skewed depth 1; "
        "compiler demoted [OddTrip/main]",
    ]


def test_kept_dumps_without_a_file_asked_for_say_so_and_name_it(tmp_path):
    # The dumps name each file by the path it was compiled at: a file compiled elsewhere
    # (another checkout) is named, with what to do, rather than a traceback.
    (tmp_path / "pypto.json").write_text(json.dumps(odd_trip_dump(steady_start=1)))
    done = run_check("--load-probe", str(tmp_path), "--planner", "pypto", str(MIXED))
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stderr.strip() == (
        f"{tmp_path / 'pypto.json'} holds no compile of {MIXED}: compile it (without "
        "--load-probe), or give the paths it was compiled at"
    )


def test_without_pypto_the_check_is_skipped_with_a_message_and_exit_0():
    # This interpreter is skewlsp's, where pypto is not installed.
    done = run_check("--python", sys.executable, "examples/odd_trip.py")
    assert done.returncode == 0
    assert done.stdout.startswith(f"compiler check skipped: {sys.executable} cannot import pypto")
    assert "SKEWLSP_PYPTO_PYTHON" in done.stdout


def pypto_python() -> str:
    """$SKEWLSP_PYPTO_PYTHON when it imports pypto; the test is skipped otherwise."""
    python = os.environ.get("SKEWLSP_PYPTO_PYTHON")
    if not python:
        pytest.skip("set SKEWLSP_PYPTO_PYTHON to an interpreter that imports pypto")
    probe = subprocess.run([python, "-c", "import pypto"], capture_output=True, timeout=300)
    if probe.returncode != 0:
        pytest.skip(f"{python} (SKEWLSP_PYPTO_PYTHON) cannot import pypto")
    return python


@pytest.mark.slow
def test_the_compiler_agrees_with_skewlint_on_two_examples_under_both_planners(tmp_path):
    python = pypto_python()
    out = tmp_path / "results.json"
    done = run_check("--python", python, "--json", str(out), str(ODD_TRIP), str(MIXED))
    assert done.returncode == 0, done.stdout + done.stderr
    results = json.loads(out.read_text())
    expected = [
        {
            "file": "examples/mixed_attention.py",
            "line": 29,
            "status": "agree",
            "text": "aic: skewed depth 1; aiv: demoted x2",
        },
        {"file": "examples/odd_trip.py", "line": 13, "status": "agree", "text": "skewed depth 1"},
    ]
    assert results == {"pypto": expected, "ptoas": expected}


def test_the_pipeline_loops_inside_a_pl_unroll_are_found_in_the_source():
    # skewed_calls.py: scale_halves' column loop (67) in `for half in pl.unroll(2)`, and
    # halves_of_rows' row and column loops (177, 178) in another; no other loop is.
    from benchmarks.compiler_check import unrolled_lines

    path = ROOT / "tests" / "fixtures" / "lowering" / "models" / "lower_llm" / "skewed_calls.py"
    assert unrolled_lines({path.resolve(): set()}) == {str(path.resolve()): {67, 177, 178}}


def test_the_files_calling_a_loop_file_s_helpers_are_found_by_their_imports(tmp_path):
    # --callers compiles them too: an inline helper's loop spliced into a caller in
    # another file is compiled only there.
    from benchmarks.compiler_check import caller_files, pipeline_files

    pkg = tmp_path / "models" / "llm"
    pkg.mkdir(parents=True)
    (pkg / "helpers.py").write_text(
        "import pypto.language as pl\n\n@pl.jit.inline\ndef rows(x):\n"
        "    for i in pl.pipeline(0, 4, 1, stage=2):\n        pass\n"
    )
    (pkg / "config.py").write_text("TILE = 64\n")
    (pkg / "attn.py").write_text("from helpers import rows\nfrom config import TILE\n")
    (pkg / "mlp.py").write_text("import models.llm.helpers\n")
    (pkg / "only_config.py").write_text("from config import TILE\n")
    (pkg / "broken.py").write_text("from helpers import (\n")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "attn.py").write_text("from helpers import rows\n")  # another folder
    loops = pipeline_files([tmp_path])
    assert list(loops) == [(pkg / "helpers.py").resolve()]
    assert caller_files([tmp_path], loops) == [
        (pkg / "attn.py").resolve(),
        (pkg / "mlp.py").resolve(),
    ]


def test_a_file_calling_a_helper_through_another_helper_s_module_is_a_caller_too(tmp_path):
    # a driver imports the layer, whose helper calls the gate's (the file with the loop):
    # the gate's scope and loop are compiled in the driver's program
    from benchmarks.compiler_check import caller_files, pipeline_files

    (tmp_path / "gate.py").write_text(
        "import pypto.language as pl\n\n@pl.jit.inline\ndef gate(x):\n"
        "    for i in pl.pipeline(0, 4, 1, stage=2):\n        pass\n"
    )
    (tmp_path / "layer.py").write_text("from gate import gate\n")
    (tmp_path / "driver.py").write_text("import config\nfrom layer import moe\n")
    (tmp_path / "unrelated.py").write_text("from config import TILE\n")
    loops = pipeline_files([tmp_path])
    assert caller_files([tmp_path], loops) == [
        (tmp_path / "driver.py").resolve(),
        (tmp_path / "layer.py").resolve(),
    ]


def test_the_other_kernels_are_the_files_defining_a_jit_function_not_compiled_otherwise(tmp_path):
    # --kernels compiles them too: a kernel with no pipeline loop whose InCore scope
    # AllocateMemoryAddr cannot place stops the compile as well
    from benchmarks.compiler_check import caller_files, kernel_files, pipeline_files

    (tmp_path / "gate.py").write_text(
        "import pypto.language as pl\n\n@pl.jit.inline\ndef gate(x):\n"
        "    for i in pl.pipeline(0, 4, 1, stage=2):\n        pass\n"
    )
    (tmp_path / "driver.py").write_text("from gate import gate\n\n@pl.jit\ndef run(x):\n    pass\n")
    (tmp_path / "sample.py").write_text("import pypto.language as pl\n\n@pl.jit\ndef top(x):\n    pass\n")
    (tmp_path / "host.py").write_text("@pl.jit.host\ndef host(x):\n    pass\n")
    (tmp_path / "plain.py").write_text("def jit_like(x):  # a jit in a name is not a kernel\n    pass\n")
    loops = pipeline_files([tmp_path])
    callers = caller_files([tmp_path], loops)
    assert kernel_files([tmp_path], {*loops, *callers}) == [
        (tmp_path / "host.py").resolve(),
        (tmp_path / "sample.py").resolve(),
    ]
