"""Every SKW002 finding's advice, applied to the kernel, keeps or raises the loop's depth.

For each loop skewed below its requested depth in the sample kernels and the fixture
repositories, the test applies what the ``fix`` line says (the named constant changed
where the package defines it, else the loop's stop; the stage written) and decides the
changed tree again with the CLI.
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
TRIP = re.compile(
    r"a trip of (?P<trip>\d+) would give depth (?P<depth>\d+)"
    r"(?:: e\.g\. (?P<verb>halve|divide by \d+|multiply) (?P<name>\w+)(?: by (?P<times>\d+))?)?"
)
STAGE = re.compile(r"stage=(?P<stage>\d+) gives the same depth (?P<depth>\d+)")


def _findings(run: Run) -> list[dict[str, Any]]:
    result = run("--output-format", "json", "--exit-zero", "--no-cache", *map(str, CORPORA))
    return [i for i in result.json() if i["code"] == "SKW002" and i["kind"] == "loop"]


def _call(tree: ast.Module, line: int) -> ast.Call:
    loop = next(n for n in ast.walk(tree) if isinstance(n, ast.For) and n.lineno == line)
    assert isinstance(loop.iter, ast.Call)
    return loop.iter


def _replace(text: str, node: ast.AST, new: str) -> str:
    lines = text.splitlines(keepends=True)
    start = sum(len(x) for x in lines[: node.lineno - 1]) + node.col_offset
    end = sum(len(x) for x in lines[: node.end_lineno - 1]) + node.end_col_offset
    return text[:start] + new + text[end:]


def _with_stop(path: Path, line: int, item: dict[str, Any], trip: int) -> None:
    text = path.read_text()
    call = _call(ast.parse(text), line)
    stop = call.args[1] if len(call.args) >= 2 else call.args[0]
    path.write_text(_replace(text, stop, str(item["start"] + trip * item["step"])))


def _with_constant(package: Path, name: str, scale: tuple[str, int]) -> bool:
    """``NAME = <int>`` changed where the package defines it; False if it defines none."""
    for module in sorted(package.glob("*.py")):
        text = module.read_text()
        for node in ast.parse(text).body:
            if (
                isinstance(node, ast.Assign)
                and [getattr(t, "id", None) for t in node.targets] == [name]
                and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, int)
            ):
                op, factor = scale
                value = node.value.value * factor if op == "*" else node.value.value // factor
                module.write_text(_replace(text, node.value, str(value)))
                return True
    return False


def _with_stage(path: Path, line: int, stage: int) -> None:
    text = path.read_text()
    (keyword,) = [k for k in _call(ast.parse(text), line).keywords if k.arg == "stage"]
    path.write_text(_replace(text, keyword.value, str(stage)))


def _decided_again(run: Run, path: Path, line: int) -> dict[str, Any]:
    result = run("--output-format", "json", "--exit-zero", "--no-cache", "--select", "ALL",
                 str(path.parent))
    items = [i for i in json.loads(result.out) if i["filename"].endswith(path.name)
             and i["line"] == line and i["kind"] == "loop"]
    assert len(items) == 1, items
    return items[0]


def _copy(item: dict[str, Any], tmp_path: Path, index: int) -> Path:
    source = ROOT / item["filename"] if not Path(item["filename"]).is_absolute() else Path(
        item["filename"]
    )
    target = tmp_path / str(index) / source.parent.name
    shutil.copytree(source.parent, target)
    return target / source.name


@pytest.mark.slow
def test_every_trip_advice_gives_the_depth_it_promises(run: Run, tmp_path: Path) -> None:
    findings = _findings(run)
    assert len(findings) >= 20
    for index, item in enumerate(findings):
        found = TRIP.match(item["fix"] or "")
        assert found is not None, (item["filename"], item["line"], item["fix"])
        path = _copy(item, tmp_path, index)
        verb, name = found["verb"], found["name"]
        scale = ("*", int(found["times"] or 1)) if verb == "multiply" else (
            "//", 2 if verb == "halve" else int((verb or "divide by 1").split()[-1])
        )
        if name is None or not _with_constant(path.parent, name, scale):
            _with_stop(path, item["line"], item, int(found["trip"]))
        again = _decided_again(run, path, item["line"])
        assert again["depth"] is not None and again["depth"] >= int(found["depth"]), (
            item["filename"], item["line"], item["fix"], again["message"]
        )


@pytest.mark.slow
def test_every_stage_advice_keeps_the_depth_and_clears_the_finding(
    run: Run, tmp_path: Path
) -> None:
    findings = [(i, STAGE.search(i["fix"] or "")) for i in _findings(run)]
    staged = [(i, found) for i, found in findings if found is not None]
    assert len(staged) >= 4
    for index, (item, found) in enumerate(staged):
        path = _copy(item, tmp_path, index)
        _with_stage(path, item["line"], int(found["stage"]))
        again = _decided_again(run, path, item["line"])
        assert (again["code"], again["depth"]) == ("SKW001", int(found["depth"])), (
            item["filename"], item["line"], again["message"]
        )
