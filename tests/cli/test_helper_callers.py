"""An inline helper's loop, linted with the modules that call it: one copy per call."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.cli.conftest import Run

PACKAGE = Path(__file__).resolve().parents[1] / "fixtures" / "mixed" / "models" / "built_llm"


def _tree(tmp_path: Path) -> Path:
    target = tmp_path / "models" / "built_llm"
    shutil.copytree(PACKAGE, target)
    return tmp_path / "models"


def _helper_loops(result) -> list[tuple[int, str, str | None, str | None]]:
    return [
        (i["line"], i["code"], i["instance"] and i["instance"]["caller"],
         i["instance"] and i["instance"]["call_path"] and Path(i["instance"]["call_path"]).name)
        for i in result.json()
        if i["filename"].endswith("helpers.py") and i["kind"] == "loop"
    ]


def test_the_helper_module_reports_each_call_made_in_the_other_modules(
    run: Run, tmp_path: Path
) -> None:
    root = _tree(tmp_path)
    result = run("--output-format", "json", "--exit-zero", "--no-cache", ".", cwd=root)
    # attend_rows' stop is each caller's argument; attend_fixed needs nothing from a caller.
    # attend_rows' loop is one finding, under its strictest copy, listing both copies.
    assert _helper_loops(result) == [
        (15, "SKW002", "decode_steps", "decode_steps.py"),
        (30, "SKW001", None, None),
    ]
    (loop,) = [i for i in result.json() if i["filename"].endswith("helpers.py") and i["line"] == 15]
    assert [(c["code"], c["instance"]["call"]["line"]) for c in loop["copies"]] == [
        ("SKW001", 18),
        ("SKW002", 19),
    ]


def test_linted_alone_the_helper_says_its_verdict_depends_on_the_call(
    run: Run, tmp_path: Path
) -> None:
    root = _tree(tmp_path)
    result = run("--output-format", "json", "--exit-zero", "built_llm/helpers.py", cwd=root)
    assert [(line, code) for line, code, _, _ in _helper_loops(result)] == [
        (15, "SKW050"),
        (30, "SKW001"),
    ]


def test_a_cached_helper_is_decided_again_when_a_caller_changes(run: Run, tmp_path: Path) -> None:
    root = _tree(tmp_path)
    first = run("--output-format", "json", "--exit-zero", "--jobs", "1", ".", cwd=root)
    assert [code for _, code, _, _ in _helper_loops(first)] == ["SKW002", "SKW001"]
    caller = root / "built_llm" / "decode_steps.py"
    text = caller.read_text().replace("attend_rows(q, k, o, 2)", "attend_rows(q, k, o, 1)")
    caller.write_text(text)
    again = run("--output-format", "json", "--exit-zero", "--jobs", "1", ".", cwd=root)
    assert [code for _, code, _, _ in _helper_loops(again)] == ["SKW023", "SKW001"]


def test_preview_of_a_helper_loop_takes_its_callers_from_the_modules_next_to_it(
    run: Run, tmp_path: Path
) -> None:
    root = _tree(tmp_path)
    result = run("preview", "built_llm/helpers.py:15", cwd=root)
    assert result.exit_code == 0, result.err
    lines = result.out.splitlines()
    assert lines[0] == "    # skewed (SKW001: loop skewed)"
    assert "called from `decode_steps` in decode_steps.py (line 18) with blocks = 8" in lines[1]
    assert "pl.tile.tpush_to_aiv(s_p0, split=0)" in result.out
    assert "pl.pipeline(" not in result.out


HELPER = """\
import pypto.language as pl


@pl.jit.inline
def stream(q, out, n: pl.Scalar[pl.INT32]):
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.pipeline(0, n, 1, stage=2):
            qa: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(q, [i * 16, 0], [16, 64])
            pl.tile.tpush_to_aiv(qa, split=0)
            e: pl.Tile[[16, 64], pl.FP32] = pl.tile.tpop_from_aiv(split=0)
            pl.tile.store(e, [i * 16, 0], out)
"""
CALLER = """\
import pypto.language as pl
from ..helpers.helper import stream
from .cfg import TRIP


@pl.jit
def main(q: pl.Tensor[[64, 64], pl.FP32], out: pl.Tensor[[64, 64], pl.FP32]):
    stream(q, out, TRIP)
    return out
"""


def test_a_cached_helper_is_decided_again_when_a_caller_s_own_import_changes(
    run: Run, tmp_path: Path
) -> None:
    # The caller's `from .cfg import TRIP` is pkg/kernels/cfg.py: what the helper's entry
    # depends on. Checked again from the helper's folder it would be pkg/helpers/cfg.py,
    # which has the same text (until the caller's changes).
    files = {
        "pkg/__init__.py": "",
        "pkg/helpers/__init__.py": "",
        "pkg/helpers/helper.py": HELPER,
        "pkg/helpers/cfg.py": "TRIP = 8\n",
        "pkg/kernels/__init__.py": "",
        "pkg/kernels/caller.py": CALLER,
        "pkg/kernels/cfg.py": "TRIP = 8\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)

    def helper_codes() -> list[str]:
        result = run("--output-format", "json", "--exit-zero", "--jobs", "1", "pkg")
        return [i["code"] for i in result.json() if i["filename"].endswith("helper.py")]

    assert helper_codes() == ["SKW001"]
    (tmp_path / "pkg" / "kernels" / "cfg.py").write_text("TRIP = 1\n")
    assert helper_codes() == ["SKW023"]


def test_the_worker_pool_finds_the_callers_in_the_other_modules_too(
    run: Run, tmp_path: Path
) -> None:
    # Enough files that need an analysis to start a pool: each task carries the run's files.
    root = _tree(tmp_path)
    for n in range(10):
        (root / "built_llm" / f"notes_{n}.py").write_text(f"# about pl.pipeline {n}\nX = {n}\n")
    result = run(
        "--output-format", "json", "--exit-zero", "--no-cache", "--jobs", "2", ".", cwd=root
    )
    assert _helper_loops(result) == [
        (15, "SKW002", "decode_steps", "decode_steps.py"),
        (30, "SKW001", None, None),
    ]


def test_two_copies_of_a_package_in_one_run_each_count_only_their_own_calls(
    run: Run, tmp_path: Path
) -> None:
    # first_hour's helpers.attend is called twice, by its own package's decode.py; two
    # checkouts of the package linted together hold the same texts, and a relative
    # import reaches only its own copy: each helper's loop has 2 copies, not 4.
    first_hour = PACKAGE.parents[2] / "first_hour" / "models" / "pair_llm"
    for checkout in ("main", "wip"):
        shutil.copytree(first_hour, tmp_path / checkout / "models" / "pair_llm")
    result = run("--no-cache", "--select", "ALL", "--output-format", "json", ".", cwd=tmp_path)
    loops = {
        item["filename"]: len(item["copies"])
        for item in result.json()
        if item["filename"].endswith("helpers.py") and item["kind"] == "loop"
    }
    assert loops == {
        "main/models/pair_llm/helpers.py": 2,
        "wip/models/pair_llm/helpers.py": 2,
    }
