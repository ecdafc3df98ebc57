"""The JSON of a mixed loop carries both cores and the computed fix."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "mixed_attention.py"


def test_mixed_loop_json_lists_both_cores_and_the_fix() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "skewlsp.cli", "--no-cache", "--output-format", "json", str(EXAMPLE)],
        capture_output=True, text=True, check=False,
    )
    assert out.returncode == 1, out.stderr
    (loop,) = json.loads(out.stdout)
    assert [(c["core"], c["verdict"], c["code"], c["depth"]) for c in loop["cores"]] == [
        ("aic", "skewed", "SKW002", 1),
        ("aiv", "demoted", "SKW020", None),
    ]
    assert loop["cores"][1]["copies"] == 2
    assert loop["fix"] == "a trip of 4 would give depth 2: e.g. halve QK_M_TILE"


WRITEBACKS = (
    Path(__file__).resolve().parents[3]
    / "tests" / "fixtures" / "mixed" / "models" / "mixed_llm" / "writebacks.py"
)  # fmt: skip


def test_a_second_vector_lane_lowered_otherwise_has_its_own_lowering(tmp_path: Path) -> None:
    # writebacks.py:125 under PTOAS, dispatched on both AIV lanes without a split: pypto
    # e2d0f78ae rotates the first lane's loads and replicates the second lane's copy
    # (main 1), which SplitVectorKernel writes without them.
    config = tmp_path / "skewlint.toml"
    config.write_text('memory-planner = "ptoas"\n')
    out = subprocess.run(
        [sys.executable, "-m", "skewlsp.cli", "--no-cache", "--config", str(config),
         "--select", "ALL", "--output-format", "json", str(WRITEBACKS)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr  # (hints only)
    (loop,) = [f for f in json.loads(out.stdout) if f["kind"] == "loop" and f["line"] == 125]
    cube, vector = loop["cores"]
    assert (vector["core"], vector["copies"], vector["lowering"]["verdict"]) == ("aiv", 2, "rotated")
    second = vector["lowering"]["second_lane"]
    assert (second["verdict"], second["code"], second["main_trip"], second["slots"]) == (
        "replicated", "SKW016", 1, []
    )
    assert "second_lane" not in second  # said once: a lane has no lane of its own
    assert "second_lane" not in cube["lowering"]  # one cube copy: nothing said
