"""The ``run`` fixture: the skewlint CLI run in-process, with exit code and streams captured."""

from __future__ import annotations

import io
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from skewlsp.cli.app import main
from tests.cli.helpers import Result

Run = Callable[..., Result]


@pytest.fixture
def run(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Run:
    """``run(*args, cwd=..., stdin=...)`` runs ``skewlint ARGS`` (cwd defaults to tmp_path)."""
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("SKEWLINT_OUTPUT_FORMAT", raising=False)

    def invoke(*args: str, cwd: Path | None = None, stdin: bytes | None = None) -> Result:
        monkeypatch.chdir(cwd or tmp_path)
        if stdin is not None:
            monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
        capsys.readouterr()
        code = main(list(args))
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return invoke
