"""Nothing the user wrote is executed, and files are written only in the cache directory.

A kernel whose module-level code would leave marker files (plain ``open``,
``os.system``, a socket, ``__import__`` of a module that itself writes a marker
when imported), next to a constants module that does the same, in a project
whose ``pyproject.toml`` holds shell-looking strings. It goes through
``analyze``, ``preview``, ``skewlint`` (on the file, the directory, stdin,
``preview``) and the language server; no marker may appear, no ``__pycache__``,
and the only new files are under ``.skewlint_cache/``. The imported constant is
still resolved (the loop's trip comes from it), so the module was read as text, and
every preview (API, CLI, server) shows the rewrite at that trip.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from skewlsp.analysis import analyze
from skewlsp.api import preview as preview_at
from skewlsp.common.resolver import RecordingResolver
from tests.fuzz.rawlsp import RawServer

KERNEL = '''\
"""A kernel whose import would have side effects."""
import os
import socket
import pypto.language as pl
from consts import HEADS

open({marker_open!r}, "w").write("kernel module-level code ran")
os.system("touch " + {marker_system!r})
_sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
open({marker_socket!r}, "w").write("a socket was opened")
__import__("evil_module")
exec("open({marker_exec!r}, 'w')")


@pl.program
class Kernel:
    @pl.function
    def main(self, q: pl.Tensor[[128, 64], pl.FP32], out: pl.Tensor[[128, 64], pl.FP32]):
        for i in pl.pipeline(0, HEADS, 1, stage=2):
            qa: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(q, [i * 16, 0], [16, 64])
            pl.tile.tpush_to_aiv(qa, split=0)
            e: pl.Tile[[16, 64], pl.FP32] = pl.tile.tpop_from_aiv(split=0)
            pl.tile.store(e, [i * 16, 0], out)
'''

CONSTS = '''\
open({marker_consts!r}, "w").write("consts.py was imported")
HEADS = 6
'''

EVIL_MODULE = '''\
open({marker_evil!r}, "w").write("evil_module was imported")
'''

# The loop above as the pass rewrites it, worked out from SKEW_RULES.md §4.1: trip 6
# (HEADS, read from consts.py as text), stage 2 -> depth 2; prologue produce(0), produce(1);
# steady range(2, 6, 2); epilogue consume(4), consume(5) with the indices folded.
REWRITTEN = """\
        # prologue: produce(0), produce(1)
        qa_p0: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(q, [0, 0], [16, 64])
        pl.tile.tpush_to_aiv(qa_p0, split=0)
        qa_p1: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(q, [16, 0], [16, 64])
        pl.tile.tpush_to_aiv(qa_p1, split=0)
        # steady: produce(i), produce(i+1); consume(i-2), consume(i-1)
        for i in pl.range(2, 6, 2):
            qa_p2: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(q, [i * 16, 0], [16, 64])
            pl.tile.tpush_to_aiv(qa_p2, split=0)
            qa_p3: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(q, [(i + 1) * 16, 0], [16, 64])
            pl.tile.tpush_to_aiv(qa_p3, split=0)
            e_c0: pl.Tile[[16, 64], pl.FP32] = pl.tile.tpop_from_aiv(split=0)
            pl.tile.store(e_c0, [(i - 2) * 16, 0], out)
            e_c1: pl.Tile[[16, 64], pl.FP32] = pl.tile.tpop_from_aiv(split=0)
            pl.tile.store(e_c1, [(i - 1) * 16, 0], out)
        # epilogue: consume(4), consume(5)
        e_c2: pl.Tile[[16, 64], pl.FP32] = pl.tile.tpop_from_aiv(split=0)
        pl.tile.store(e_c2, [64, 0], out)
        e_c3: pl.Tile[[16, 64], pl.FP32] = pl.tile.tpop_from_aiv(split=0)
        pl.tile.store(e_c3, [80, 0], out)
"""

PYPROJECT = '''\
[build-system]
requires = ["$(touch {marker_toml})", "`touch {marker_toml}`"]
build-backend = "os.system"

[project]
name = "; touch {marker_toml}"
scripts = {{ x = "os:system" }}

[tool.other]
"key with spaces" = """multi
line $(touch {marker_toml})"""
nested = {{ a = [1, 2.5, true, 1979-05-27T07:32:00Z, {{ b = "c" }}] }}

[tool.skewlint]
src = ["$(touch {marker_toml})", "../../.."]
extend-exclude = ["`touch {marker_toml}`"]
'''


@pytest.fixture
def project(tmp_path: Path) -> dict[str, Path]:
    """A project dir with the hostile kernel, its constants, and markers that must stay absent."""
    root = tmp_path / "project"
    (root / "kernels").mkdir(parents=True)
    markers = {
        name: tmp_path / "markers" / name
        for name in ("open", "system", "socket", "exec", "consts", "evil", "toml")
    }
    (tmp_path / "markers").mkdir()
    fill = {f"marker_{name}": str(path) for name, path in markers.items()}
    (root / "kernels" / "kernel.py").write_text(KERNEL.format(**fill), encoding="utf-8")
    (root / "kernels" / "consts.py").write_text(CONSTS.format(**fill), encoding="utf-8")
    (root / "kernels" / "evil_module.py").write_text(EVIL_MODULE.format(**fill), encoding="utf-8")
    (root / "pyproject.toml").write_text(PYPROJECT.format(**fill), encoding="utf-8")
    (tmp_path / "home").mkdir()
    return {"root": root, "tmp": tmp_path, "kernel": root / "kernels" / "kernel.py", **markers}


def assert_nothing_ran(project: dict[str, Path]) -> None:
    ran = sorted(p.name for p in (project["tmp"] / "markers").iterdir())
    assert ran == [], f"user code was executed: markers {ran}"
    assert not list(project["root"].rglob("__pycache__")), "a module was imported (bytecode cache)"


def snapshot(directory: Path) -> dict[str, tuple[int, int]]:
    """Every file and directory below ``directory`` (a directory's own mtime is not compared:
    it changes when the cache directory is created inside it)."""
    return {
        str(p.relative_to(directory)): (p.stat().st_size, p.stat().st_mtime_ns)
        if p.is_file()
        else (0, 0)
        for p in directory.rglob("*")
    }


def env_for(project: dict[str, Path]) -> dict[str, str]:
    """PYTHONPATH points at the kernel's directory: importing would find and run it."""
    return {
        **os.environ,
        "HOME": str(project["tmp"] / "home"),
        "XDG_CACHE_HOME": str(project["tmp"] / "home" / ".cache"),
        "PYTHONPATH": str(project["kernel"].parent),
        "NO_COLOR": "1",
    }


def skewlint(project: dict[str, Path], *args: str, stdin: bytes | None = None) -> dict:
    result = subprocess.run(
        [sys.executable, "-m", "skewlsp.cli", "--output-format", "json", *args],
        cwd=project["root"],
        env=env_for(project),
        input=stdin,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert result.returncode in (0, 1), result.stderr.decode()
    return json.loads(result.stdout) if result.stdout.strip().startswith(b"[") else {}


def test_analyze_and_preview_read_the_constants_module_and_run_nothing(
    project: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(project["kernel"].parent))
    source = project["kernel"].read_text(encoding="utf-8")
    resolver = RecordingResolver([project["root"]])
    path = str(project["kernel"])
    (report,) = analyze(source, path, resolver=resolver)
    assert (report.verdict, report.trip, report.depth) == ("skewed", 6, 2), report.message
    assert [module for module, _level, _digest in resolver.fingerprint] == ["consts"]
    preview = preview_at(source, report.line, path=path, resolver=resolver)
    assert preview.rewritten == REWRITTEN  # the bound came from consts.py here too
    assert_nothing_ran(project)
    assert "evil_module" not in sys.modules and "consts" not in sys.modules


def test_skewlint_on_the_file_the_directory_stdin_and_preview_runs_nothing(
    project: dict[str, Path],
) -> None:
    items = skewlint(project, "kernels/kernel.py")
    assert [item["trip"] for item in items if item["kind"] == "loop"] == [6]
    skewlint(project, "--preview", ".")
    skewlint(project, "kernels")
    source = project["kernel"].read_bytes()
    skewlint(project, "--stdin-filename", "kernels/kernel.py", stdin=source)
    preview = subprocess.run(
        [sys.executable, "-m", "skewlsp.cli", "preview", "kernels/kernel.py:19"],
        cwd=project["root"], env=env_for(project), capture_output=True, timeout=120, check=False,
    )
    assert preview.returncode == 0, preview.stderr.decode()
    shown = preview.stdout.decode().splitlines(keepends=True)
    assert shown[0].strip() == "# skewed (SKW001: loop skewed)"
    code = "".join(line for line in shown if not line.lstrip().startswith(("# skewed (", "# why: ", "# what changes: ")))
    assert code.rstrip("\n") == REWRITTEN.rstrip("\n")
    subprocess.run(
        [sys.executable, "-m", "skewlsp.cli", "--show-settings", "kernels/kernel.py"],
        cwd=project["root"], env=env_for(project), capture_output=True, timeout=120, check=False,
    )
    assert_nothing_ran(project)


def test_skewlint_writes_only_inside_its_cache_directory(project: dict[str, Path]) -> None:
    before = snapshot(project["tmp"])
    skewlint(project, ".")
    skewlint(project, "kernels/kernel.py")  # a second run reads the cache
    after = snapshot(project["tmp"])
    changed = sorted(
        path for path in set(before) | set(after) if before.get(path) != after.get(path)
    )
    assert changed, "the run should have cached something"
    # Its two cache directories: the project's, and the user's, where the record of a run
    # to replay is kept (written only when no input changed within 2 s before the run:
    # on a loaded machine, these files were written long enough before).
    caches = ("project/.skewlint_cache", "home/.cache/skewlint")

    def in_a_cache(path: str) -> bool:  # (or a folder made on the way to one)
        return any(path == c or path.startswith(c + "/") or c.startswith(path + "/") for c in caches)

    outside = [path for path in changed if not in_a_cache(path)]
    assert outside == [], f"written outside the cache directory: {outside}"
    assert_nothing_ran(project)


def test_skewlint_no_cache_writes_nothing(project: dict[str, Path]) -> None:
    before = snapshot(project["tmp"])
    skewlint(project, "--no-cache", ".")
    assert snapshot(project["tmp"]) == before
    assert_nothing_ran(project)


def test_the_language_server_opening_the_kernel_runs_nothing(project: dict[str, Path]) -> None:
    server = RawServer(project["root"])
    try:
        server.initialize(project["root"])
        uri = project["kernel"].as_uri()
        server.open(uri, project["kernel"].read_text(encoding="utf-8"))
        line = next(
            n for n, text in enumerate(project["kernel"].read_text().splitlines())
            if "pl.pipeline" in text
        )
        hover = server.hover(uri, line, 20)
        assert "trip 6" in json.dumps(hover["result"]), hover
        answer = server.call(
            "skewlsp/preview", {"textDocument": {"uri": uri}, "position": {"line": line, "character": 8}}
        )
        assert "error" not in answer, answer
        assert answer["result"]["rewritten"] == REWRITTEN
        assert answer["result"]["range"]["start"] == {"line": line, "character": 0}
        server.notify(
            "textDocument/didSave", {"textDocument": {"uri": (project["root"] / "pyproject.toml").as_uri()}}
        )
        server.call("shutdown")
        server.notify("exit")
        server.exit_code(timeout=10)
    finally:
        server.close()
    assert_nothing_ran(project)
