"""Per-file linting: text pre-filter, bad bytes, and the process pool."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from skewlsp.cli import runner
from skewlsp.cli.runner import Job, Options, decode_source, lint_job, run_jobs
from skewlsp.common.config import default_settings
from tests.cli.conftest import Run
from tests.cli.helpers import write
from tests.kernels import DEMOTED, IMPORTED, SHALLOW, SKEWED


def job(path: Path, **options: bool) -> Job:
    return Job(path.name, str(path), default_settings(path.parent), Options(**options))


def test_a_file_that_never_mentions_pipeline_is_not_decoded_nor_analysed(tmp_path: Path) -> None:
    # The same bad bytes and syntax error: reported only where ``pipeline`` is written.
    write(tmp_path, {
        "plain.py": "# caf\xe9\ndef broken(:\n".encode("latin-1"),
        "kernel.py": "# caf\xe9 pl.pipeline\ndef broken(:\n".encode("latin-1"),
    })  # fmt: skip
    assert lint_job(job(tmp_path / "plain.py")).diagnostics == ()
    [diagnostic] = lint_job(job(tmp_path / "kernel.py")).diagnostics
    assert diagnostic.code == "SKW902" and "not valid UTF-8 text" in diagnostic.message


def test_binary_file_is_reported_not_crashed(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"blob.py": b"pipeline\x00\x01\x02"})
    result = run("--output-format", "json", "blob.py")
    [item] = result.json()
    assert (item["code"], item["kind"]) == ("SKW902", "file")
    assert "binary file" in item["message"] and result.exit_code == 1


def test_non_utf8_file_is_reported(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"latin.py": "# caf\xe9 pl.pipeline\n".encode("latin-1")})
    [item] = run("--output-format", "json", "latin.py").json()
    assert item["code"] == "SKW902" and "not valid UTF-8 text" in item["message"]


def test_pep263_coding_cookie_is_honoured() -> None:
    data = "# -*- coding: latin-1 -*-\nx = 'caf\xe9'\n".encode("latin-1")
    assert "café" in decode_source(data)


def test_utf8_bom_is_dropped() -> None:
    assert decode_source(b"\xef\xbb\xbfx = 1\n") == "x = 1\n"


def test_unreadable_file_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "k.py"
    path.mkdir()  # reading it fails for real (root could read a chmod 000 file)
    [diagnostic] = lint_job(job(path)).diagnostics
    assert diagnostic.code == "SKW902" and "Is a directory" in diagnostic.message


def test_many_files_in_a_pool_are_each_linted(tmp_path: Path) -> None:
    files = {f"k{n:02}.py": (DEMOTED if n % 2 else SKEWED) for n in range(12)}
    write(tmp_path, files)
    jobs = [job(tmp_path / name, use_cache=False) for name in sorted(files)]
    assert len(jobs) > runner.PARALLEL_THRESHOLD
    expected = [(f"k{n:02}.py", "SKW020" if n % 2 else "SKW001") for n in range(12)]
    for workers in (2, 1):
        results = run_jobs(jobs, workers=workers)
        assert [(r.filename, [d.code for d in r.diagnostics]) for r in results] == [
            (name, [code]) for name, code in expected
        ]


def test_without_a_usable_pool_the_files_are_linted_serially(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import concurrent.futures

    def no_processes(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "no /dev/shm in this sandbox")

    files = {f"k{n:02}.py": SKEWED for n in range(runner.PARALLEL_THRESHOLD + 2)}
    write(tmp_path, files)
    jobs = [job(tmp_path / name, use_cache=False) for name in sorted(files)]
    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", no_processes)  # the OS refuses
    results = run_jobs(jobs, workers=2)
    assert [(r.filename, [d.code for d in r.diagnostics]) for r in results] == [
        (name, ["SKW001"]) for name in sorted(files)
    ]


def test_jobs_option_through_the_cli(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {f"k{n:02}.py": SHALLOW for n in range(10)})
    result = run("--jobs", "2", "--output-format", "json", ".")
    assert len(result.json()) == 10 and result.exit_code == 1
    assert run("--jobs", "0", ".").exit_code == 2


def test_imported_constants_are_resolved_from_the_importing_directory(
    run: Run, tmp_path: Path
) -> None:
    write(tmp_path, {"k.py": IMPORTED, "consts.py": "TRIP = 6\n"})
    [item] = run("--output-format", "json", "k.py").json()
    assert item["trip"] == 6


def test_each_package_of_one_run_reads_the_config_behind_its_own_imports(
    run: Run, tmp_path: Path
) -> None:
    # Both packages' cfg.py say the same; the dims.py behind them do not. The run folds
    # config modules once for the files that import them, never across that difference.
    kernel = IMPORTED.replace("from consts import TRIP", "from cfg import TRIP")
    files: dict[str, str | bytes] = {}
    for package, trip in (("a", 8), ("b", 16)):
        files |= {
            f"{package}/k1.py": kernel,
            f"{package}/k2.py": kernel,
            f"{package}/cfg.py": "from dims import TRIP\n",
            f"{package}/dims.py": f"TRIP = {trip}\n",
        }
    write(tmp_path, files)
    for jobs in ("1", "2"):
        found = run("--no-cache", "--jobs", jobs, "--output-format", "json", ".").json()
        assert [(item["filename"], item["trip"]) for item in found] == [
            ("a/k1.py", 8),
            ("a/k2.py", 8),
            ("b/k1.py", 16),
            ("b/k2.py", 16),
        ]


def test_imported_constants_are_resolved_from_src_roots(run: Run, tmp_path: Path) -> None:
    kernel = IMPORTED.replace("from consts import TRIP", "from shapes.consts import TRIP")
    write(tmp_path, {"skewlint.toml": 'src = ["lib"]\n', "kernels/k.py": kernel,
                     "lib/shapes/__init__.py": "", "lib/shapes/consts.py": "TRIP = 6\n"})
    [item] = run("--output-format", "json", "kernels/k.py").json()
    assert item["trip"] == 6


def test_only_the_full_format_carries_the_loop_lines(tmp_path: Path) -> None:
    path = write(tmp_path, {"k.py": SKEWED}) / "k.py"
    full = lint_job(job(path)).diagnostics
    bare = lint_job(job(path, use_cache=False, snippets=False)).diagnostics
    assert full and all(d.snippet for d in full)
    assert [d.snippet for d in bare] == [()] * len(full)
    assert [d.code for d in bare] == [d.code for d in full]
    assert [d.span for d in bare] == [d.span for d in full]


def test_concise_output_is_unchanged_without_the_loop_lines(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"k.py": SKEWED, "d.py": DEMOTED})
    concise = run("--no-cache", "--output-format", "concise", ".").out
    assert concise.count("SKW0") >= 2 and "k.py:" in concise and "d.py:" in concise
    full = run("--no-cache", "--output-format", "full", ".").out
    assert "for " in full and "for " not in concise


@pytest.mark.parametrize(
    "data, text",
    [
        (b"x = 1\n", "x = 1\n"),
        (b"\xef\xbb\xbfx = '\xc3\xa9'\n", "x = 'é'\n"),
        (b"# -*- coding: latin-1 -*-\nx = '\xe9'\n", "# -*- coding: latin-1 -*-\nx = '\xe9'\n"),
        (b"#!/usr/bin/env python\n# coding=latin-1\nx = '\xe9'\n",
         "#!/usr/bin/env python\n# coding=latin-1\nx = '\xe9'\n"),
        (b"x = 1\ny = 2\n# coding: latin-1 (third line: not a cookie)\n",
         "x = 1\ny = 2\n# coding: latin-1 (third line: not a cookie)\n"),
    ],
)
def test_sources_decode_the_way_python_reads_them(data: bytes, text: str) -> None:
    assert decode_source(data) == text


def test_undecodable_bytes_are_described_as_python_describes_them() -> None:
    with pytest.raises(ValueError, match=r"not valid UTF-8 text \(invalid or missing encoding"):
        decode_source(b"x = '\xff'\n")  # in the first two lines: tokenize's own complaint
    with pytest.raises(ValueError, match=r"not valid UTF-8 text \(byte 17: invalid start byte"):
        decode_source(b"x = 1\ny = 2\nz = '\xff'\n")
    with pytest.raises(ValueError, match=r"not valid UTF-8 text \(byte 21: invalid start byte"):
        decode_source(b"# coding: utf-8\nx = '\xff'\n")


class TestPoolTasks:
    """How the files of a parallel run are handed to the workers (runner.pool_tasks)."""

    def test_a_folder_s_files_travel_together_the_largest_folder_first(self) -> None:
        places = [("a", 10), ("b", 30), ("a", 10), ("b", 30), ("c", 40), ("a", 10)]
        # 2 workers: a folder is cut once it holds 1/4 of the 130 bytes (32.5)
        assert runner.pool_tasks(places, 2) == [[1, 3], [4], [0, 2, 5]]

    def test_a_folder_larger_than_its_share_is_cut_into_parts_of_about_that_size(
        self,
    ) -> None:
        places = [("big", 10)] * 10 + [("small", 20)]
        tasks = runner.pool_tasks(places, 2)  # share: 120 / 4 = 30 bytes
        assert tasks == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [10], [9]]

    def test_small_folders_are_packed_into_one_task(self) -> None:
        places = [("big", 1000)] + [(f"tiny{n}", 1) for n in range(8)]
        assert runner.pool_tasks(places, 2) == [[0], [1, 2, 3, 4, 5, 6, 7, 8]]

    @given(
        st.lists(st.tuples(st.sampled_from("abcde"), st.integers(0, 500)), max_size=60),
        st.integers(1, 8),
    )
    def test_every_file_is_in_exactly_one_task(
        self, places: list[tuple[str, int]], workers: int
    ) -> None:
        tasks = runner.pool_tasks(places, workers)
        assert sorted(i for task in tasks for i in task) == list(range(len(places)))
        assert [] not in tasks
