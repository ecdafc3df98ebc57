"""Golden previews: tests/fixtures/transform/NAME.py -> NAME.preview.txt (readable by eye).

The golden files are the reference for both the loop's preview and the whole-file
rewrite (the file with the golden loop spliced in).

Set SKEWLSP_UPDATE_GOLDEN=1 to rewrite the expected files after a deliberate change.
"""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import libcst as cst
import pytest

from skewlsp.analysis import analyze
from skewlsp.api import preview as preview_at
from tests.transform.equivalence import check_loop
from tests.transform.fake_pl import Tensor

FIXTURES = Path(__file__).parent.parent / "fixtures" / "transform"
CASES = sorted(p for p in FIXTURES.glob("*.py"))
ARGS = {  # each case's kernel arguments for the run against the recording fake
    "design_note_trip8": (Tensor("q"), Tensor("out")),
    "trip3_depth1": (Tensor("q"), Tensor("out")),
    "consumer_role": (Tensor("s"), Tensor("out")),
    "recompute_init_values": (Tensor("kv"), Tensor("out"), ("init", "acc0")),
    "negative_step_stage4": (Tensor("q"), Tensor("out")),
    "nested_calls_inner_loops": (Tensor("q"), Tensor("kv"), Tensor("out"), ("init", "acc0")),
}


def test_every_golden_case_is_there() -> None:
    assert [p.stem for p in CASES] == sorted(ARGS)
    assert all(p.with_suffix(".preview.txt").exists() for p in CASES)


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_golden_preview(path: Path) -> None:
    source = path.read_text()
    [report] = analyze(source)
    preview = preview_at(source, report.line).rewritten
    cst.parse_module(textwrap.dedent(preview))
    expected = path.with_suffix(".preview.txt")
    if os.environ.get("SKEWLSP_UPDATE_GOLDEN"):
        expected.write_text(preview)
        pytest.skip(f"rewrote {expected.name}: review the diff, then run without the variable")
    assert expected.exists(), f"no golden {expected.name}: run with SKEWLSP_UPDATE_GOLDEN=1"
    assert preview == expected.read_text()


def spliced(source: str, loop: str) -> str:
    """``source`` with its one ``pl.pipeline`` loop (the ``for`` line and every following
    line indented deeper, or blank) replaced by ``loop``: the file a rewrite must give."""
    lines = source.splitlines(keepends=True)
    [header] = [n for n, line in enumerate(lines) if "pl.pipeline(" in line]
    indent = len(lines[header]) - len(lines[header].lstrip())
    end = header + 1
    while end < len(lines) and (
        not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) > indent
    ):
        end += 1
    while end > header + 1 and not lines[end - 1].strip():
        end -= 1  # trailing blank lines belong to what follows
    return "".join(lines[:header]) + loop + "".join(lines[end:])


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_golden_is_equivalent(path: Path) -> None:
    """The whole-file rewrite is the file with the golden loop spliced in, and it does the
    same work as the original (run against the recording fake)."""
    source = path.read_text()
    [report] = analyze(source)
    rewritten = check_loop(source, report, ARGS[path.stem])
    golden = path.with_suffix(".preview.txt").read_text()
    assert rewritten == spliced(source, golden)
