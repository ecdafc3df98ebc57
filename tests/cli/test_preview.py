"""``skewlint preview PATH:LINE`` and ``--preview``: hooks into skewlsp.transform.preview_loop."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

from skewlsp.analysis.report import LoopReport
from tests.cli.conftest import Run
from tests.cli.helpers import DEMOTED, write


class PreviewUnavailable(Exception):
    pass


@pytest.fixture
def transform(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    """A stand-in skewlsp.transform whose preview_loop echoes the loop it was given."""
    module = types.ModuleType("skewlsp.transform")

    def preview_loop(source: str, report: LoopReport) -> str:
        if report.stage == 9:
            raise PreviewUnavailable("stage 9 is not supported")
        return f"# rewritten loop at line {report.span.line} ({report.verdict})\n"

    module.preview_loop = preview_loop  # type: ignore[attr-defined]
    module.PreviewUnavailable = PreviewUnavailable  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "skewlsp.transform", module)
    return module


def test_preview_prints_the_rewritten_loop(run: Run, tmp_path: Path,
                                           transform: types.ModuleType) -> None:
    write(tmp_path, {"k.py": DEMOTED})
    result = run("preview", "k.py:10")  # a line inside the loop's body
    assert result.exit_code == 0
    assert result.out == "# rewritten loop at line 8 (demoted)\n"


def test_preview_without_a_loop_on_that_line_exits_2(run: Run, tmp_path: Path,
                                                     transform: types.ModuleType) -> None:
    write(tmp_path, {"k.py": DEMOTED})
    result = run("preview", "k.py:2")
    assert result.exit_code == 2
    assert result.err == "skewlint: error: k.py:2: no pl.pipeline loop spans this line\n"


def test_preview_unavailable_is_a_clean_message(run: Run, tmp_path: Path,
                                                transform: types.ModuleType) -> None:
    write(tmp_path, {"k.py": DEMOTED.replace("stage=2", "stage=9")})
    result = run("preview", "k.py:8")
    assert result.exit_code == 2 and result.err == "skewlint: error: stage 9 is not supported\n"


def test_missing_preview_loop_is_reported_cleanly(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "skewlsp.transform", types.ModuleType("skewlsp.transform"))
    write(tmp_path, {"k.py": DEMOTED})
    result = run("preview", "k.py:8")
    assert result.exit_code == 2
    assert "skewlsp.transform has no preview_loop" in result.err


def test_bad_target_exits_2(run: Run, tmp_path: Path) -> None:
    assert "expected PATH:LINE" in run("preview", "k.py").err
    assert "no such file" in run("preview", "nope.py:3").err


def test_preview_flag_adds_the_preview_to_json(run: Run, tmp_path: Path,
                                               transform: types.ModuleType) -> None:
    write(tmp_path, {"k.py": DEMOTED})
    [item] = run("--preview", "--output-format", "json", "k.py").json()
    assert item["preview"] == "# rewritten loop at line 8 (demoted)\n"
    assert item["preview_error"] is None


def test_preview_flag_without_transform_records_why(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "skewlsp.transform", types.ModuleType("skewlsp.transform"))
    write(tmp_path, {"k.py": DEMOTED})
    [item] = run("--preview", "--output-format", "json", "k.py").json()
    assert item["preview"] is None and "no preview_loop" in item["preview_error"]


def test_preview_in_full_output(run: Run, tmp_path: Path, transform: types.ModuleType) -> None:
    write(tmp_path, {"k.py": DEMOTED})
    assert "= preview:\n# rewritten loop at line 8" in run("--preview", "k.py").out


def test_real_transform_previews_a_skewed_loop(run: Run, tmp_path: Path) -> None:
    from tests.cli.helpers import SKEWED

    write(tmp_path, {"k.py": SKEWED})
    result = run("preview", "k.py:8")
    assert result.exit_code == 0, result.err
    assert "prologue" in result.out and "epilogue" in result.out
