"""Every SKW080 finding's advice, applied to the kernel, gives the depth it promises.

For each loop MemoryReuse keeps below its stages' depth (slot-bound) in the sample kernels
and the fixture repositories, the test writes what the message offers (the ``stage=`` that
fits; loads of at most the bytes it names) into a copy of the package and decides the
changed loop again with the CLI: no buffer finding is left, and every stage it asks for
has a buffer of its own. On tests/fixtures/memory's short.py:19 the compiler (pypto
e2d0f78ae) agreed with both: at stage=2 its two 64 KB clones get 2 of 2 buffers (and the
copy after them 1), and with [16, 981] FP32 loads (62784 B) the three copies get 3 of 3,
no PH-MR-001 either way.
"""

from __future__ import annotations

import ast
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import Run, run, user_cache

__all__ = ["run", "user_cache"]  # the CLI, run in-process (fixtures)

ROOT = Path(__file__).resolve().parents[3]
CORPORA = (ROOT / "examples", ROOT / "tests" / "fixtures")
SHORT = ROOT / "tests" / "fixtures" / "memory" / "models" / "mem_llm" / "short.py"
STAGE = re.compile(r"stage=(?P<stage>\d+) fits")
KEEPS = re.compile(r"in (?P<space>\w+)[^:]*:.*; stage=(?P<stage>\d+) keeps all (?P=stage)$")
LOADS = re.compile(r"loads of at most (?P<bytes>\d+) B in (?P<space>\w+) keep all (?P<depth>\d+)")


def _slot_bound(run: Run, *paths: Path) -> list[dict[str, Any]]:
    result = run("--output-format", "json", "--exit-zero", "--no-cache", *map(str, paths))
    return [i for i in json.loads(result.out) if i["code"] == "SKW080"]


def _copy(item: dict[str, Any], tmp_path: Path, index: int) -> Path:
    source = Path(item["filename"])
    source = source if source.is_absolute() else ROOT / source
    target = tmp_path / str(index) / source.parent.name
    shutil.copytree(source.parent, target)
    return target / source.name


def _with_stage(path: Path, line: int, stage: int) -> None:
    text = path.read_text()
    loop = next(n for n in ast.walk(ast.parse(text)) if isinstance(n, ast.For) and n.lineno == line)
    assert isinstance(loop.iter, ast.Call)
    (keyword,) = [k for k in loop.iter.keywords if k.arg == "stage"]
    lines = text.splitlines(keepends=True)
    value = keyword.value
    row = lines[value.lineno - 1]
    lines[value.lineno - 1] = row[: value.col_offset] + str(stage) + row[value.end_col_offset :]
    path.write_text("".join(lines))


def _decided_again(run: Run, path: Path, line: int) -> tuple[dict[str, Any], list[str]]:
    """The changed loop's record, and the buffer findings (SKW08x) left at it."""
    result = run(
        "--output-format", "json", "--exit-zero", "--no-cache", "--select", "ALL", str(path)
    )
    items = [i for i in json.loads(result.out) if i["line"] == line]
    (loop,) = [i for i in items if i["kind"] == "loop"]
    return loop, [i["code"] for i in items if i["code"][:5] == "SKW08"]


def _spaces(loop: dict[str, Any]) -> list[dict[str, Any]]:
    return [space for core in loop["cores"] for space in core["memory"]] + loop["memory"]


@pytest.mark.slow
def test_every_stage_advice_gives_every_stage_its_buffer(run: Run, tmp_path: Path) -> None:
    offered = [(i, STAGE.search(i["message"])) for i in _slot_bound(run, *CORPORA)]
    staged = [(item, found) for item, found in offered if found is not None]
    assert len(staged) >= 1
    for index, (item, found) in enumerate(staged):
        path = _copy(item, tmp_path, index)
        _with_stage(path, item["line"], int(found["stage"]))
        loop, left = _decided_again(run, path, item["line"])
        assert left == [], (item["filename"], item["line"], loop["message"])
        spaces = _spaces(loop)
        assert spaces, (item["filename"], item["line"])
        assert [s["requested"] for s in spaces] == [int(found["stage"])] * len(spaces)
        assert [s["cause"] for s in spaces] == [None] * len(spaces)


@pytest.mark.slow
def test_every_space_pressure_stage_advice_keeps_every_stage_apart(
    run: Run, tmp_path: Path
) -> None:
    # tests/fixtures/memory's projection.py:129 (Right, 2 of 3): at stage=2 the compiler
    # (pypto e2d0f78ae) gave the function no PH-MR-001, every group at its full depth.
    offered = [(i, KEEPS.search(i["message"])) for i in _slot_bound(run, *CORPORA)]
    staged = [(item, found) for item, found in offered if found is not None]
    assert {"Vec", "Right"} <= {found["space"] for _, found in staged}
    for index, (item, found) in enumerate(staged):
        path = _copy(item, tmp_path, index)
        _with_stage(path, item["line"], int(found["stage"]))
        loop, left = _decided_again(run, path, item["line"])
        assert "SKW080" not in left, (item["filename"], item["line"], loop["message"])
        spaces = [s for s in _spaces(loop) if s["known"]]
        assert any(s["space"] == found["space"] for s in spaces), (item["filename"], item["line"])
        assert [s["requested"] for s in spaces] == [int(found["stage"])] * len(spaces)
        assert [s["achieved"] for s in spaces] == [int(found["stage"])] * len(spaces)


@pytest.mark.slow
def test_the_load_size_advice_keeps_all_three_copies(run: Run, tmp_path: Path) -> None:
    # short.py:19 loads [16, 1024] FP32 rows (64 bytes a column): the advice's bytes, as
    # columns, replace the full width the loop loads and stores.
    (item,) = [i for i in _slot_bound(run, SHORT) if i["line"] == 19]
    found = LOADS.search(item["message"])
    assert found is not None and (found["space"], found["depth"]) == ("Vec", "3")
    columns = int(found["bytes"]) // 64
    path = _copy(item, tmp_path, 0)
    text = path.read_text().splitlines(keepends=True)
    body = slice(item["line"], item["line"] + 2)
    text[body] = [row.replace("ROWS, :]", f"ROWS, 0:{columns}]") for row in text[body]]
    path.write_text("".join(text))
    loop, left = _decided_again(run, path, 19)
    assert left == []
    assert [(s["space"], s["stage_bytes"], s["requested"], s["cause"]) for s in _spaces(loop)] == [
        ("Vec", int(found["bytes"]), 3, None)
    ]
