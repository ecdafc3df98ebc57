"""A run whose inputs are all unchanged is replayed; any change to what it read runs it in full.

These tests drive the console entry point (:func:`skewlsp.cli.main`) in-process and
then ask :func:`skewlsp.cli.replay.replay` whether the next identical run would be
replayed. Files written by a test are seconds old at most, so the "too fresh to
trust" window is closed here, except where a test is about that window.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import skewlsp.cli
from skewlsp.cli import recording, replay
from tests.cli.helpers import Result, write
from tests.kernels import DEMOTED, IMPORTED, SKEWED


@pytest.fixture(autouse=True)
def trust_fresh_files(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(replay, "FRESH_NS", 0)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("NO_COLOR", "SKEWLINT_OUTPUT_FORMAT", "GITHUB_WORKSPACE", "CI_PROJECT_DIR"):
        monkeypatch.delenv(name, raising=False)
    root = write(
        tmp_path / "proj",
        {
            "pyproject.toml": "[tool.skewlint]\nsrc = ['lib']\n",
            "kernels/demoted.py": DEMOTED,
            "kernels/skewed.py": SKEWED,
            "kernels/imported.py": IMPORTED,
            "lib/consts.py": "TRIP = 8\n",
        },
    )
    monkeypatch.chdir(root)
    return root


def lint(capsys: pytest.CaptureFixture[str], *args: str) -> Result:
    """``skewlint ARGS`` through the console entry point (replay first, record after)."""
    capsys.readouterr()
    old, leave = sys.argv, skewlsp.cli._terminate
    sys.argv = ["skewlint", *args]
    skewlsp.cli._terminate = _raise_exit  # (the real one ends the process: pytest's)
    try:
        with pytest.raises(SystemExit) as ended:
            skewlsp.cli.main()
    finally:
        sys.argv, skewlsp.cli._terminate = old, leave
    captured = capsys.readouterr()
    return Result(int(ended.value.code or 0), captured.out, captured.err)


def _raise_exit(code: int) -> None:
    raise SystemExit(code)


def recorded(capsys: pytest.CaptureFixture[str], *args: str) -> Result:
    """Run ``skewlint ARGS`` until a run is recorded: the first run creates the project's
    cache directory (a change to the project folder during the run, so it is not
    recorded), the second is recorded, unless a folder the run watched (``/tmp``, one of
    the ancestors searched for ``.git``) changed while it ran: another test writing there
    at that moment. Returns the recorded run's result."""
    lint(capsys, *args)
    for _ in range(3):
        result = lint(capsys, *args)
        if replay.load(replay.run_key(list(args))) is not None:
            return result
    raise AssertionError(f"skewlint {' '.join(args)} was never recorded")


# What trying to replay a run gives when it must run in full: no exit code, nothing written.
RUNS_IN_FULL = Result(None, "", "")  # type: ignore[arg-type]


def replayed(capsys: pytest.CaptureFixture[str], *args: str) -> Result:
    """What replaying ``skewlint ARGS`` now writes, and its exit code (None: not replayed)."""
    capsys.readouterr()
    code = replay.replay(list(args))
    captured = capsys.readouterr()
    return Result(code, captured.out, captured.err)  # type: ignore[arg-type]


ARGS = ("--output-format", "json", "--select", "ALL", ".")


def test_an_identical_run_is_replayed_byte_for_byte(project: Path, capsys) -> None:
    first = recorded(capsys, *ARGS)
    assert first.exit_code == 0 and {d["code"] for d in first.json()} >= {"SKW020", "SKW001"}
    again = replayed(capsys, *ARGS)
    assert again == first


def test_the_replayed_output_is_what_a_full_run_prints(project: Path, capsys) -> None:
    recorded(capsys, "--output-format", "concise", ".")
    again = replayed(capsys, "--output-format", "concise", ".")
    assert again != RUNS_IN_FULL
    for record in Path(replay.runs_directory()).iterdir():
        record.unlink()
    full = lint(capsys, "--output-format", "concise", ".")
    assert again == full and "SKW020" in full.out


def test_editing_a_linted_file_runs_in_full(project: Path, capsys) -> None:
    recorded(capsys, *ARGS)
    kernel = project / "kernels" / "skewed.py"
    kernel.write_text(kernel.read_text().replace("stage=2", "stage=3"))  # same size
    assert replayed(capsys, *ARGS) == RUNS_IN_FULL
    assert any(d["code"] == "SKW030" for d in lint(capsys, *ARGS).json())


def test_editing_an_imported_constants_module_runs_in_full(project: Path, capsys) -> None:
    first = recorded(capsys, *ARGS)
    (project / "lib" / "consts.py").write_text("TRIP = 1\n")
    assert replayed(capsys, *ARGS) == RUNS_IN_FULL
    assert lint(capsys, *ARGS).json() != first.json()


def test_a_new_module_that_an_import_now_finds_runs_in_full(project: Path, capsys) -> None:
    first = recorded(capsys, *ARGS)
    # The kernel's own directory comes before the src roots when an import is resolved.
    (project / "kernels" / "consts.py").write_text("TRIP = 1\n")
    assert replayed(capsys, *ARGS) == RUNS_IN_FULL
    assert lint(capsys, *ARGS).json() != first.json()


def test_a_module_appearing_where_a_dotted_import_is_looked_up_first_runs_in_full(
    project: Path, capsys
) -> None:
    write(
        project,
        {
            "kernels/dotted.py": IMPORTED.replace("from consts import", "from pkg.consts import"),
            "lib/pkg/consts.py": "TRIP = 8\n",
            "kernels/pkg/README.txt": "not a module yet\n",
        },
    )
    args = ("--output-format", "json", "kernels/dotted.py")  # a file: nothing is walked
    first = recorded(capsys, *args)
    (project / "kernels" / "pkg" / "consts.py").write_text("TRIP = 1\n")
    assert replayed(capsys, *args) == RUNS_IN_FULL
    assert lint(capsys, *args).json() != first.json()


def test_a_new_kernel_in_a_walked_directory_runs_in_full(project: Path, capsys) -> None:
    write(project, {"kernels/deeper/README.txt": "no kernel here yet\n"})
    recorded(capsys, *ARGS)
    write(project, {"kernels/deeper/more.py": DEMOTED})  # only kernels/deeper changes
    assert replayed(capsys, *ARGS) == RUNS_IN_FULL
    assert "kernels/deeper/more.py" in {d["filename"] for d in lint(capsys, *ARGS).json()}


def test_a_config_change_runs_in_full(project: Path, capsys) -> None:
    recorded(capsys, *ARGS)
    (project / "pyproject.toml").write_text("[tool.skewlint]\nsrc = ['lib']\nignore = ['SKW020']\n")
    assert replayed(capsys, *ARGS) == RUNS_IN_FULL
    assert "SKW020" not in {d["code"] for d in lint(capsys, *ARGS).json()}


def test_a_config_file_appearing_in_a_subdirectory_runs_in_full(project: Path, capsys) -> None:
    recorded(capsys, *ARGS)
    write(project, {"kernels/skewlint.toml": "ignore = ['SKW020']\n"})
    assert replayed(capsys, *ARGS) == RUNS_IN_FULL


def test_another_command_line_or_environment_is_not_replayed(
    project: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorded(capsys, *ARGS)
    assert replayed(capsys, "--output-format", "concise", ".") == RUNS_IN_FULL
    monkeypatch.setenv("GITHUB_WORKSPACE", str(project))
    assert replayed(capsys, *ARGS) == RUNS_IN_FULL


def test_skewlsp_sources_and_installed_dependencies_are_part_of_what_a_run_read(project: Path, capsys) -> None:
    recorded(capsys, *ARGS)
    found = replay.load(replay.run_key(list(ARGS)))
    assert found is not None
    observed = dict(found[0]["observed"])
    engine = Path(skewlsp.cli.__file__).parent.parent / "analysis" / "driver" / "__init__.py"
    assert observed[str(engine)] == replay.signature(str(engine))
    # Where libcst is installed: any package installed or upgraded there changes it.
    import libcst

    packages = str(Path(libcst.__file__).parent.parent)
    assert observed[packages] == replay.signature(packages)


@pytest.mark.parametrize(
    "extra",
    [("--no-cache",), ("--fix",), ("--diff",), ("--stdin-filename", "kernels/x.py")],
)
def test_runs_that_read_stdin_write_fixes_or_skip_the_cache_are_not_recorded(
    project: Path, capsys, monkeypatch: pytest.MonkeyPatch, extra: tuple[str, ...]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(DEMOTED.encode())))
    target = "-" if extra[0] == "--stdin-filename" else "kernels/demoted.py"
    args = (*extra, "--output-format", "json", target)
    lint(capsys, *args)
    assert replayed(capsys, *args) == RUNS_IN_FULL
    assert not Path(replay.runs_directory()).exists()


def test_a_failed_run_is_not_recorded(project: Path, capsys) -> None:
    assert lint(capsys, "--output-format", "json", "missing.py").exit_code == 2
    assert replayed(capsys, "--output-format", "json", "missing.py") == RUNS_IN_FULL


def test_files_changed_just_before_the_run_are_not_trusted(
    project: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(replay, "FRESH_NS", 2_000_000_000)
    lint(capsys, *ARGS)  # every file of the project was written a moment ago
    assert replayed(capsys, *ARGS) == RUNS_IN_FULL
    old = 1_600_000_000
    for path in [project, *project.rglob("*")]:
        os.utime(path, (old, old))
    lint(capsys, *ARGS)  # ctimes are still fresh: a change could hide in the clock's tick
    assert replayed(capsys, *ARGS) == RUNS_IN_FULL


def test_the_output_file_is_written_again(project: Path, capsys) -> None:
    args = ("--output-format", "json", "-o", "report.json", "kernels")
    first = recorded(capsys, *args)
    report = project / "report.json"
    expected = report.read_text()
    assert first.out == "" and json.loads(expected)
    report.write_text("stale")  # (deleting it would change the project folder: a full run)
    again = replayed(capsys, *args)
    assert again == Result(first.exit_code, "", "")
    assert report.read_text() == expected


def test_a_corrupt_record_means_a_full_run(project: Path, capsys) -> None:
    first = recorded(capsys, *ARGS)
    [record] = Path(replay.runs_directory()).iterdir()
    record.write_bytes(b"\x00garbage")
    assert replayed(capsys, *ARGS) == RUNS_IN_FULL
    assert lint(capsys, *ARGS) == first


def test_at_most_a_bounded_number_of_records_is_kept(
    project: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(recording, "MAX_RECORDS", 2)
    for name in ("demoted", "skewed", "imported"):
        last = recorded(capsys, "--output-format", "json", f"kernels/{name}.py")
    assert len(list(Path(replay.runs_directory()).iterdir())) == 2
    assert replayed(capsys, "--output-format", "json", "kernels/imported.py") == last


def test_a_symlinked_folder_pointed_elsewhere_runs_in_full(project: Path, capsys) -> None:
    write(project, {"one/kernel.py": SKEWED, "two/kernel.py": DEMOTED, "links/README": ""})
    link = project / "links" / "current"  # in a folder nothing else makes the run read
    link.symlink_to("../one", target_is_directory=True)
    args = ("--output-format", "json", "links/current")
    first = recorded(capsys, *args)
    link.unlink()
    link.symlink_to("../two", target_is_directory=True)
    assert replayed(capsys, *args) == RUNS_IN_FULL
    assert lint(capsys, *args).json() != first.json()


def test_a_file_force_excluded_by_its_folders_config_is_watched_too(
    project: Path, capsys
) -> None:
    write(project, {"sub/skewlint.toml": 'extend-exclude = ["x.py"]\n', "sub/x.py": DEMOTED})
    args = ("--output-format", "json", "--force-exclude", "sub/x.py")
    assert recorded(capsys, *args).json() == []
    (project / "sub" / "skewlint.toml").write_text("\n")
    assert replayed(capsys, *args) == RUNS_IN_FULL
    assert lint(capsys, *args).json() != []


def test_a_git_exclude_file_appearing_runs_in_full(project: Path, capsys) -> None:
    (project / ".git").mkdir()  # a repository root without .git/info yet
    recorded(capsys, *ARGS)
    write(project, {".git/info/exclude": "kernels/skewed.py\n"})
    assert replayed(capsys, *ARGS) == RUNS_IN_FULL
    assert "kernels/skewed.py" not in {d["filename"] for d in lint(capsys, *ARGS).json()}


def test_another_error_handler_on_stdout_is_another_run(
    project: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    keys = []
    for errors in ("strict", "replace"):
        stream = io.TextIOWrapper(io.BytesIO(), encoding="ascii", errors=errors)
        monkeypatch.setattr(sys, "stdout", stream)
        keys.append(replay.run_key(list(ARGS)))
    assert keys[0] != keys[1]  # a non-ASCII file name is an error with one, "?" with the other


def test_a_working_directory_that_is_gone_is_reported_not_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    kernel = write(tmp_path, {"k.py": DEMOTED}) / "k.py"
    monkeypatch.chdir(gone)
    gone.rmdir()
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    done = subprocess.run(
        [sys.executable, "-m", "skewlsp.cli", "--output-format", "concise", str(kernel)],
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "skewlint: error: the current directory no longer exists (deleted or moved); "
        "run from another\n"
    )


def test_the_replay_path_imports_neither_typing_nor_the_linter() -> None:
    # A replayed run costs little more than the interpreter's start: typing (with re and
    # enum behind it) was a third of it, the linter and libcst many times that.
    code = (
        "import sys\n"
        "import skewlsp.cli, skewlsp.cli.replay\n"
        "print(sorted(m for m in ('typing', 're', 'enum', 'libcst', 'skewlsp.cli.app')"
        " if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout == "[]\n"
