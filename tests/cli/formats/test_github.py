"""``github``: one workflow command per diagnostic, with escaped properties."""

from __future__ import annotations

from pathlib import Path

import pytest

from skewlsp.cli.formats import FormatContext
from skewlsp.cli.formats.github import render
from skewlsp.common.diagnostic import Diagnostic
from skewlsp.contract import Span
from tests.cli.conftest import Run
from tests.cli.helpers import write
from tests.kernels import DEMOTED, STAGE3


def test_annotation_per_diagnostic(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"a.py": DEMOTED, "b.py": STAGE3})
    lines = run("--output-format", "github", ".").out.splitlines()
    assert lines[0].startswith(
        "::notice file=a.py,line=8,col=9,endLine=8,endColumn=47,title=SKW020::loop "
    )
    assert lines[1].startswith("::notice file=b.py,line=8,col=9,")
    assert len(lines) == 3  # no summary line in machine formats


def test_escaping() -> None:
    diagnostic = Diagnostic("dir,x/a:b.py", "loop", "SKW021", "50% done\nnext",
                            Span(1, 2, 3, 4), "error")
    out = render([diagnostic], FormatContext())
    assert out == ("::error file=dir%2Cx/a%3Ab.py,line=1,col=2,endLine=3,endColumn=4,"
                   "title=SKW021::50%25 done%0Anext\n")


def test_file_is_relative_to_the_git_root_from_a_subdirectory(run: Run, tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    write(tmp_path, {"kernels/a.py": DEMOTED})
    [line] = run("--output-format", "github", ".", cwd=tmp_path / "kernels").out.splitlines()
    assert line.startswith("::notice file=kernels/a.py,line=8,")


def test_file_is_relative_to_github_workspace(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, {"ws/sub/a.py": DEMOTED})
    monkeypatch.setenv("GITHUB_WORKSPACE", str(tmp_path / "ws"))
    [line] = run("--output-format", "github", "a.py", cwd=tmp_path / "ws" / "sub").out.splitlines()
    assert line.startswith("::notice file=sub/a.py,line=8,")
