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


@pytest.fixture(autouse=True)
def user_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user's cache directory for this test ($XDG_CACHE_HOME), outside ``tmp_path``:
    no test writes into the real one, whether it runs the CLI or the runner directly."""
    home = tmp_path_factory.mktemp("user-cache")
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    return home


@pytest.fixture
def run(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    user_cache: Path,
) -> Run:
    """``run(*args, cwd=..., stdin=...)`` runs ``skewlint ARGS`` (cwd defaults to tmp_path).

    The CI variables that move the repository root are unset; the user's cache
    directory is a fresh one per test.
    """
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("SKEWLINT_OUTPUT_FORMAT", raising=False)
    monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)
    monkeypatch.delenv("CI_PROJECT_DIR", raising=False)

    def invoke(*args: str, cwd: Path | None = None, stdin: bytes | None = None) -> Result:
        monkeypatch.chdir(cwd or tmp_path)
        if stdin is not None:
            monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
        capsys.readouterr()
        code = main(list(args))
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return invoke
