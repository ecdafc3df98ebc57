"""Pathological loop headers, end to end: computed answers and bounded previews.

``tests/analysis/test_depth.py`` checks the depth arithmetic itself; here the
same values go through ``analyze``, ``preview_loop`` and ``skewlint --output-format
json`` and must come back with an answer (or a clear refusal). How long they take is
measured in ``benchmarks/``.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from skewlsp.analysis import analyze
from skewlsp.api import PreviewUnavailable
from skewlsp.api import preview as preview_at
from skewlsp.contract import LoopReport

KERNEL = (Path(__file__).resolve().parents[2] / "examples" / "odd_trip.py").read_text()
HEADER = "pl.pipeline(0, 3, 1, stage=2)"
STORE = "            pl.tile.store(oi, [i * 16, 0], out)\n"


def with_header(header: str) -> str:
    assert HEADER in KERNEL
    return KERNEL.replace(HEADER, header)


def only_report(source: str) -> LoopReport:
    reports = analyze(source, "kernel.py")
    assert len(reports) == 1, [r.message for r in reports]
    return reports[0]


# (header, code, depth, trip)
CASES = [
    ("pl.pipeline(0, 10**18, 1, stage=10**9)", "SKW002", 976_562_500, 10**18),
    ("pl.pipeline(0, 3, 1, stage=10**9)", "SKW002", 1, 3),
    ("pl.pipeline(0, 10**18, 10**17, stage=3)", "SKW001", 2, 10),
    ("pl.pipeline(100, 0, -1, stage=2)", "SKW001", 2, 100),
    ("pl.pipeline(0, 100, -1, stage=2)", "SKW023", None, 0),
    ("pl.pipeline(0, 100, 0, stage=2)", "SKW040", None, 0),
    ("pl.pipeline(0, 2**70, 1, stage=2)", "SKW040", None, None),
    ("pl.pipeline(-(2**70), 2**70, 3, stage=4)", "SKW040", None, None),
    ("pl.pipeline(0, 8, 1, stage=2**70)", "SKW040", None, None),
    ("pl.pipeline(0, 10**4000, 1, stage=2)", "SKW040", None, None),
    ("pl.pipeline(0, 2**(2**40), 1, stage=2)", "SKW040", None, None),
]


@pytest.mark.parametrize(("header", "code", "depth", "trip"), CASES)
def test_pathological_headers_get_a_computed_verdict(
    header: str, code: str, depth: int | None, trip: int | None
) -> None:
    report = only_report(with_header(header))
    assert (report.code, report.depth, report.trip) == (code, depth, trip), report.message


# (header, why its preview is refused; None: it is shown)
PREVIEWS = [
    ("pl.pipeline(0, 10**18, 1, stage=10**9)", "previews are shown up to depth 64"),
    ("pl.pipeline(0, 3, 1, stage=10**9)", None),
    ("pl.pipeline(0, 10**18, 10**17, stage=3)", None),
    ("pl.pipeline(100, 0, -1, stage=2)", None),
    ("pl.pipeline(0, 100, -1, stage=2)", None),
    ("pl.pipeline(0, 100, 0, stage=2)", "step cannot be zero"),
    ("pl.pipeline(0, 2**70, 1, stage=2)", "stop 1180591620717411303424 does not fit in a 64-bit"),
    ("pl.pipeline(-(2**70), 2**70, 3, stage=4)", "start -1180591620717411303424 does not fit"),
    ("pl.pipeline(0, 8, 1, stage=2**70)", "stage 1180591620717411303424 does not fit in a 32-bit"),
    ("pl.pipeline(0, 10**4000, 1, stage=2)", "constant too large"),
    ("pl.pipeline(0, 2**(2**40), 1, stage=2)", "constant too large"),
]


def test_every_pathological_header_has_its_preview_case() -> None:
    assert [header for header, _ in PREVIEWS] == [header for header, *_ in CASES]


@pytest.mark.parametrize(("header", "refusal"), [p for p in PREVIEWS if p[1] is None])
def test_the_preview_of_a_pathological_loop_with_a_small_depth_is_shown_and_small(
    header: str, refusal: None
) -> None:
    source = with_header(header)
    text = preview_at(source, only_report(source).line).rewritten
    assert "pl.pipeline(" not in text  # the loop is rewritten
    assert len(text) < 100_000


@pytest.mark.parametrize(("header", "refusal"), [p for p in PREVIEWS if p[1] is not None])
def test_the_preview_of_a_pathological_loop_is_refused_with_the_reason(
    header: str, refusal: str
) -> None:
    source = with_header(header)
    with pytest.raises(PreviewUnavailable, match=re.escape(refusal)):
        preview_at(source, only_report(source).line)


def test_a_preview_that_would_print_megabytes_is_refused() -> None:
    source = with_header("pl.pipeline(0, 128, 1, stage=64)").replace(
        STORE, "            for j in pl.unroll(300):\n                pl.tile.store(oi, [i * 16 + j, 0], out)\n"
    )
    report = only_report(source)
    assert report.depth == 32
    with pytest.raises(PreviewUnavailable, match="about 19520 statements .* up to 5000 statements"):
        preview_at(source, report.line)


def test_skewlint_json_reports_pathological_values_as_exact_integers(tmp_path: Path) -> None:
    for n, (header, *_rest) in enumerate(CASES):
        (tmp_path / f"k{n}.py").write_text(with_header(header), encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "skewlsp.cli", "--no-cache", "--output-format", "json", "."],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 1, result.stderr  # warnings and errors are reported
    assert "Traceback" not in result.stderr
    loops = [item for item in json.loads(result.stdout) if item["kind"] == "loop"]
    by_file = {Path(item["filename"]).name: item for item in loops}
    for n, (_header, code, depth, trip) in enumerate(CASES):
        item = by_file[f"k{n}.py"]
        assert (item["code"], item["depth"], item["trip"]) == (code, depth, trip)
    assert by_file["k0.py"]["requested_depth"] == 10**9 - 1
    assert by_file["k0.py"]["stage"] == 10**9
