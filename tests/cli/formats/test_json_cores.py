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
