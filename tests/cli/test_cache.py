"""The content-hash cache: hits skip the analysis, imported constants invalidate it, and it
lives at the config or git root, else in the user's cache directory (never in a source folder).

Most tests here run in a git repository (``tmp_path/.git``), where the cache is
``tmp_path/.skewlint_cache``; the location tests at the end say where it goes otherwise.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import skewlsp
import skewlsp.analysis
import skewlsp.cli.cache
from skewlsp.cli.cache import (
    CACHE_DIRNAME,
    Cache,
    DependencyDigests,
    PlainFiles,
    cache_directory,
    cache_key,
)
from skewlsp.cli.codec import report_from_data, report_to_data
from tests.cli.conftest import Run
from tests.cli.helpers import write
from tests.kernels import BUILT_TWICE_AND_INLINED, COPIES_APART, FIFO_REORDER, IMPORTED, STAGE3

KERNEL = IMPORTED  # its trip is TRIP, from consts


@pytest.fixture(autouse=True)
def git_repository(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    return tmp_path


CACHED = "(served from the cache)"


def entries(cache: Path) -> list[Path]:
    """The stored analyses under a cache directory (one per file content and imports)."""
    return sorted(p for p in cache.glob("v*/*/*.json"))


def mark_cached(cache: Path) -> None:
    """Rewrite every stored report's message, so that a run that shows it was served from
    what is on disk."""
    for entry in entries(cache):
        data = json.loads(entry.read_text())
        for report in data["reports"]:
            report["message"] = CACHED
        entry.write_text(json.dumps(data))


def messages(result_json: list[dict]) -> list[str]:
    return [d["message"] for d in result_json if d["code"] == "SKW001"]


def test_second_run_is_served_from_the_cache(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"k.py": STAGE3})
    first = run("--output-format", "json", "k.py").json()
    assert messages(first) == ["loop skewed: producer runs 2 iterations ahead (trip 8, stage 3)"]
    assert len(entries(tmp_path / CACHE_DIRNAME)) == 1
    mark_cached(tmp_path / CACHE_DIRNAME)
    assert messages(run("--output-format", "json", "k.py").json()) == [CACHED]
    assert (tmp_path / CACHE_DIRNAME / "CACHEDIR.TAG").is_file()


def test_editing_the_file_misses(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"k.py": STAGE3})
    run("--output-format", "json", "k.py")
    mark_cached(tmp_path / CACHE_DIRNAME)
    write(tmp_path, {"k.py": STAGE3 + "\n"})
    found = run("--output-format", "json", "k.py").json()
    assert messages(found) == ["loop skewed: producer runs 2 iterations ahead (trip 8, stage 3)"]
    assert len(entries(tmp_path / CACHE_DIRNAME)) == 2  # one per content


def test_editing_an_imported_constant_misses(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"k.py": KERNEL, "consts.py": "TRIP = 4\n"})
    assert run("--output-format", "json", "k.py").json()[0]["trip"] == 4
    mark_cached(tmp_path / CACHE_DIRNAME)
    write(tmp_path, {"consts.py": "TRIP = 8\n"})
    found = run("--output-format", "json", "k.py").json()
    assert (found[0]["trip"], found[0]["message"]) == (
        8, "loop skewed: producer runs 2 iterations ahead (trip 8, stage 2)"
    )
    mark_cached(tmp_path / CACHE_DIRNAME)
    assert messages(run("--output-format", "json", "k.py").json()) == [CACHED]  # unchanged: a hit


def _skewlint_from(site: Path, cwd: Path, *args: str) -> list[dict]:
    """``skewlint ARGS`` in a fresh interpreter that imports skewlsp from ``site``."""
    environment = {**os.environ, "PYTHONPATH": str(site), "XDG_CACHE_HOME": str(cwd / "xdg")}
    for name in ("NO_COLOR", "SKEWLINT_OUTPUT_FORMAT", "GITHUB_WORKSPACE", "CI_PROJECT_DIR"):
        environment.pop(name, None)
    done = subprocess.run(
        [sys.executable, "-m", "skewlsp.cli", "--output-format", "json", *args],
        cwd=cwd, env=environment, capture_output=True, text=True, check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout)


def test_an_edited_installed_skewlsp_does_not_answer_from_the_old_code_s_cache(
    tmp_path: Path,
) -> None:
    """The version string stays "0.1.0" across commits and edits: the key names the code.

    A copy of the package stands for an installed skewlsp; the runs differ in their
    arguments so that no run is a replay of the one before (the replay has its own check).
    """
    site = tmp_path / "site"
    shutil.copytree(
        Path(skewlsp.__file__).parent, site / "skewlsp",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    project = tmp_path / "project"
    write(project, {"k.py": STAGE3})
    (project / ".git").mkdir()
    first = _skewlint_from(site, project, "k.py")
    assert messages(first) == ["loop skewed: producer runs 2 iterations ahead (trip 8, stage 3)"]
    mark_cached(project / CACHE_DIRNAME)
    assert messages(_skewlint_from(site, project, "--quiet", "k.py")) == [CACHED]  # a hit
    decide = site / "skewlsp" / "analysis" / "skew_cross_core_pipeline" / "decide.py"
    decide.write_text(decide.read_text() + "\n# edited after the first run\n")
    again = _skewlint_from(site, project, "--no-color", "k.py")
    assert messages(again) == ["loop skewed: producer runs 2 iterations ahead (trip 8, stage 3)"]
    assert len(entries(project / CACHE_DIRNAME)) == 2  # one per code that analysed k.py


def test_the_key_names_the_code_and_the_planner() -> None:
    keys = {
        cache_key(b"x", "k.py", (), planner, code)
        for planner in ("pypto", "ptoas")
        for code in ("code-a", "code-b")
    }
    assert len(keys) == 4


def test_no_cache_neither_reads_nor_writes(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"k.py": STAGE3})
    run("k.py")
    mark_cached(tmp_path / CACHE_DIRNAME)
    stored = {p: p.read_bytes() for p in entries(tmp_path / CACHE_DIRNAME)}
    write(tmp_path, {"other.py": STAGE3.replace("stage=3", "stage=2")})
    found = run("--no-cache", "--output-format", "json", "k.py", "other.py").json()
    assert messages(found) == [
        "loop skewed: producer runs 2 iterations ahead (trip 8, stage 3)",
        "loop skewed: producer runs 2 iterations ahead (trip 8, stage 2)",
    ]
    assert {p: p.read_bytes() for p in entries(tmp_path / CACHE_DIRNAME)} == stored


def test_without_a_cache_directory_no_cache_creates_none(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"k.py": STAGE3})
    run("--no-cache", "k.py")
    assert not (tmp_path / CACHE_DIRNAME).exists()


def test_cache_writes_only_under_its_own_directory(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"k.py": STAGE3})
    before = {p for p in tmp_path.rglob("*")}
    run("k.py")
    created = {p for p in tmp_path.rglob("*")} - before
    assert created and all(CACHE_DIRNAME in p.relative_to(tmp_path).parts for p in created)


def test_corrupt_entries_are_misses(tmp_path: Path) -> None:
    cache = Cache(tmp_path / CACHE_DIRNAME)
    key = cache_key(b"x", "k.py", (), "pypto", "code")
    cache.put(key, [], [])
    entry = next((tmp_path / CACHE_DIRNAME).rglob(f"{key}.json"))
    entry.write_text("{not json")
    assert cache.get(key, "k.py", ()) is None


def test_unwritable_cache_is_silently_skipped(tmp_path: Path) -> None:
    (tmp_path / CACHE_DIRNAME).write_text("a file where the directory should be")
    cache = Cache(tmp_path / CACHE_DIRNAME)
    cache.put("ab" * 32, [], [])
    assert cache.get("ab" * 32, "k.py", ()) is None


def test_reports_round_trip_through_the_codec(tmp_path: Path) -> None:
    reports = skewlsp.analysis.analyze(STAGE3, "k.py")
    assert [report_from_data(report_to_data(r)) for r in reports] == reports


def test_within_one_run_an_imported_module_is_read_once_for_all_its_importers(
    tmp_path: Path,
) -> None:
    """Kernels of a package share one read of their ``consts.py``: a run sees one text of
    it, even when it changes while the run goes on."""
    write(tmp_path, {"a.py": "", "b.py": "", "consts.py": "TRIP = 4\n"})
    digests = DependencyDigests()
    first = digests.digest("consts", 0, str(tmp_path / "a.py"), [])
    write(tmp_path, {"consts.py": "TRIP = 8\n"})
    assert digests.digest("consts", 0, str(tmp_path / "b.py"), []) == first
    assert DependencyDigests().digest("consts", 0, str(tmp_path / "b.py"), []) != first


def test_a_new_run_sees_an_edited_module(tmp_path: Path) -> None:
    write(tmp_path, {"a.py": "", "consts.py": "TRIP = 4\n"})
    before = DependencyDigests().digest("consts", 0, str(tmp_path / "a.py"), [])
    write(tmp_path, {"consts.py": "TRIP = 8\n"})
    after = DependencyDigests().digest("consts", 0, str(tmp_path / "a.py"), [])
    assert before != after
    assert DependencyDigests().digest("missing", 0, str(tmp_path / "a.py"), []) == "-"


# -- files without "pipeline": known by their stat signature, not read again -----------------


def test_a_file_without_pipeline_is_recorded_by_its_stat_signature(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"plain.py": "x = 1\n", "k.py": STAGE3})
    run("plain.py", "k.py")
    record = tmp_path / CACHE_DIRNAME / f"v{skewlsp.cli.cache._FORMAT}" / "plain.json"
    assert list(json.loads(record.read_text())["files"]) == [str((tmp_path / "plain.py").resolve())]
    found = run("--output-format", "json", "plain.py", "k.py").json()
    assert [(d["filename"], d["code"]) for d in found] == [("k.py", "SKW001"), ("k.py", "SKW030")]


def test_a_file_that_gains_a_loop_is_read_again(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"k.py": "x = 1\n"})
    assert run("--output-format", "json", "k.py").json() == []
    write(tmp_path, {"k.py": STAGE3})
    assert [d["code"] for d in run("--output-format", "json", "k.py").json()] == [
        "SKW001", "SKW030",
    ]


def test_a_same_size_rewrite_with_the_old_mtime_is_still_noticed(run: Run, tmp_path: Path) -> None:
    """The ctime in the signature changes on every write; mtimes can be set back."""
    plain = "x = 1\n" + "#" * (len(STAGE3) - 7) + "\n"  # as long as the kernel, no loop
    path = write(tmp_path, {"k.py": plain}) / "k.py"
    assert run("--output-format", "json", "k.py").json() == []
    before = path.stat()
    path.write_text(STAGE3)  # same size, and now a pipeline loop
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_size == before.st_size and path.stat().st_mtime_ns == before.st_mtime_ns
    assert [d["code"] for d in run("--output-format", "json", "k.py").json()] == [
        "SKW001", "SKW030",
    ]


def test_a_record_of_plain_files_made_by_other_code_is_not_trusted(tmp_path: Path) -> None:
    """The pre-filter that found them plain is skewlsp's code: other code reads them again."""
    plain = tmp_path / "plain.py"
    plain.write_text("x = 1\n")
    cache = Cache(tmp_path / CACHE_DIRNAME)
    earlier = PlainFiles(cache, "code-a")
    earlier.add(str(plain), plain.stat())
    earlier.save()
    assert PlainFiles(cache, "code-a").known(str(plain), plain.stat())
    assert not PlainFiles(cache, "code-b").known(str(plain), plain.stat())


def test_a_damaged_record_of_plain_files_is_ignored(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"plain.py": "x = 1\n", "k.py": STAGE3})
    run("plain.py", "k.py")
    record = tmp_path / CACHE_DIRNAME / f"v{skewlsp.cli.cache._FORMAT}" / "plain.json"
    assert record.is_file()
    record.write_text("{not json")
    assert [d["code"] for d in run("--output-format", "json", "plain.py", "k.py").json()] == [
        "SKW001", "SKW030",
    ]
    assert json.loads(record.read_text())  # rewritten


# -- where the cache lives ----------------------------------------------------------------


def test_without_config_or_git_the_cache_goes_to_the_user_cache_dir(
    run: Run, tmp_path: Path, user_cache: Path
) -> None:
    (tmp_path / ".git").rmdir()
    write(tmp_path, {"src/k.py": STAGE3})
    before = {p for p in tmp_path.rglob("*")}
    run("src")
    [tag] = list(user_cache.glob("skewlint/*/CACHEDIR.TAG"))
    mark_cached(tag.parent)
    assert messages(run("--output-format", "json", "src").json()) == [CACHED]  # served from there
    assert {p for p in tmp_path.rglob("*")} == before  # nothing written into the sources


def test_a_config_file_puts_the_cache_next_to_it(run: Run, tmp_path: Path, user_cache: Path) -> None:
    (tmp_path / ".git").rmdir()
    write(tmp_path, {"proj/pyproject.toml": "[tool.skewlint]\n", "proj/k.py": STAGE3})
    run("proj")
    assert (tmp_path / "proj" / CACHE_DIRNAME / "CACHEDIR.TAG").is_file()
    assert not list(user_cache.rglob("*"))


def test_show_settings_names_the_cache_directory(run: Run, tmp_path: Path, user_cache: Path) -> None:
    (tmp_path / ".git").rmdir()
    write(tmp_path, {"k.py": STAGE3})
    out = run("--show-settings", "k.py").out
    line = next(line for line in out.splitlines() if line.startswith("cache: "))
    assert Path(line[7:]).parent == user_cache / "skewlint"


def test_cache_directory_honours_only_an_absolute_xdg_cache_home(tmp_path: Path) -> None:
    from skewlsp.common.config import Settings

    settings = Settings(root=tmp_path / "sources")
    assert cache_directory(settings, {"XDG_CACHE_HOME": str(tmp_path / "c")}).parent == (
        tmp_path / "c" / "skewlint"
    )
    relative = cache_directory(settings, {"XDG_CACHE_HOME": "relative/dir"})
    assert relative.parent == Path.home() / ".cache" / "skewlint"
    assert cache_directory(Settings(root=tmp_path)) == tmp_path / CACHE_DIRNAME  # git root


def test_fifo_hazards_round_trip_through_the_codec() -> None:
    reports = skewlsp.analysis.analyze(FIFO_REORDER, "k.py")
    assert [len(r.hazards) for r in reports] == [1]
    assert [h.code for h in reports[0].hints] == ["SKW060"]
    data = json.loads(json.dumps([report_to_data(r) for r in reports]))  # as the cache stores it
    assert [report_from_data(d) for d in data] == reports


def test_reports_of_loops_built_several_times_round_trip_with_their_instance() -> None:
    reports = skewlsp.analysis.analyze(BUILT_TWICE_AND_INLINED, "k.py")
    assert [r.instance.label for r in reports if r.instance is not None] == [
        "n = 4",
        "n = 3",
        "called from `entry` (line 17) with m = 4",
    ]
    assert [report_from_data(report_to_data(r)) for r in reports] == reports


def test_a_warm_run_prints_each_copys_cores_and_lowering_as_a_cold_one(
    run: Run, tmp_path: Path
) -> None:
    write(tmp_path, {"k.py": COPIES_APART})
    listed = ("--extend-select", "SKW01", "--output-format", "json")  # the left loop too
    cold = run("--no-cache", *listed, "k.py").out
    run(*listed, "k.py")  # writes the cache
    assert len(entries(tmp_path / CACHE_DIRNAME)) == 1
    warm = run(*listed, "k.py").out
    assert warm == cold
    copies = [c for item in json.loads(warm) for c in item["copies"]]
    assert [[core["depth"] for core in c["cores"]] for c in copies[:2]] == [[4, None], [1, None]]
    assert [(c["lowering"]["main_trip"], c["lowering"]["tail"]) for c in copies[2:]] == [
        (4, 0), (3, 1)
    ]
    mark_cached(tmp_path / CACHE_DIRNAME)  # and it was the cache that answered
    assert {c["message"] for item in run(*listed, "k.py").json()
            for c in item["copies"]} == {CACHED}


MEM_GATE = Path(__file__).resolve().parents[1] / "fixtures" / "memory" / "models" / "mem_gate"


def test_a_driver_s_entry_misses_when_a_module_of_the_helpers_it_calls_changes(
    run: Run, tmp_path: Path
) -> None:
    # prefill.py holds no loop: its SKW081 is about the gate's scope, sized by config.py
    # (both read through the resolver, so both in the entry's dependencies)
    for module in MEM_GATE.glob("*.py"):
        shutil.copy(module, tmp_path / module.name)
    first = run("--output-format", "json", "--select", "SKW081", "prefill.py").json()
    assert [(d["line"], d["code"]) for d in first] == [(22, "SKW081")]
    mark_cached(tmp_path / CACHE_DIRNAME)
    assert [d["message"] for d in run("--output-format", "json", "prefill.py").json()] == [CACHED]
    config = (tmp_path / "config.py").read_text()
    write(tmp_path, {"config.py": config.replace("SCORE_PAD = 1088", "SCORE_PAD = 576")})
    assert run("--output-format", "json", "prefill.py").json() == []
