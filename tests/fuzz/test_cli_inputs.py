"""``skewlint`` on hostile files: exit 0, 1 or 2 as documented, and never a traceback.

Run as a subprocess, as CI runs it, on files written to a temporary directory:
mutated kernels, bytes that are not UTF-8, binary files, BOMs, CRLF, empty and
huge files, and source on stdin.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from tests.fuzz.harness import EXAMPLES, check_cli, rng, sample_count, skewlint
from tests.fuzz.test_mutations import ENCODINGS, MUTATORS

pytestmark = pytest.mark.slow  # fuzzing: the slow tier (pytest -m slow)

GOOD = EXAMPLES["odd_trip.py"].encode()

HOSTILE_FILES: dict[str, bytes] = {
    "empty.py": b"",
    "only-bom.py": b"\xef\xbb\xbf",
    "bom.py": b"\xef\xbb\xbf" + GOOD,
    "utf16.py": "\ufeff".encode("utf-16-le") + GOOD.decode().encode("utf-16-le"),
    "crlf.py": GOOD.replace(b"\n", b"\r\n"),
    "cr-only.py": GOOD.replace(b"\n", b"\r"),
    "invalid-utf8.py": GOOD.replace(b"pl.tile.store", b"pl.tile.st\xff\xfeore"),
    "invalid-utf8-in-comment.py": b"# \xc3\x28 \xa0\xa1\n" + GOOD,
    "latin1-cookie.py": b"# -*- coding: latin-1 -*-\n# caf\xe9\n" + GOOD,
    "bogus-cookie.py": b"# -*- coding: no-such-codec -*-\n" + GOOD,
    "nul-bytes.py": GOOD.replace(b"pl.tile.store", b"pl.tile\x00.store"),
    "binary.py": bytes(range(256)) * 64 + b"pipeline",
    "elf.py": b"\x7fELF\x02\x01\x01" + bytes(500) + b"pl.pipeline",
    "truncated-utf8.py": GOOD + b"# \xe2\x82",
    "surrogate-bytes.py": GOOD + b"# \xed\xa0\x80\n",
    "deep-but-legal.py": GOOD + b"X = " + b"(" * 150 + b"1" + b")" * 150 + b"\n",
}


def _parse_json(stdout: bytes) -> list[dict]:
    items = json.loads(stdout.decode("utf-8"))
    assert isinstance(items, list)
    return items


def test_every_hostile_file_gets_a_diagnostic_or_nothing_and_never_a_traceback(
    tmp_path: Path,
) -> None:
    for name, data in HOSTILE_FILES.items():
        (tmp_path / name).write_bytes(data)
    result = skewlint("--no-cache", "--output-format", "json", ".", cwd=tmp_path)
    check_cli(result)
    items = _parse_json(result.stdout)
    reported = {Path(item["filename"]).name for item in items}
    for unreadable in ("binary.py", "elf.py", "nul-bytes.py"):
        assert unreadable in reported, f"{unreadable} must be reported (SKW902), not skipped"
    assert result.returncode == 1


@pytest.mark.parametrize("output_format", ["full", "concise", "json-lines", "sarif", "github"])
def test_hostile_files_in_every_output_format(output_format: str, tmp_path: Path) -> None:
    for name, data in HOSTILE_FILES.items():
        (tmp_path / name).write_bytes(data)
    result = skewlint("--no-cache", "--output-format", output_format, *HOSTILE_FILES, cwd=tmp_path)
    check_cli(result)
    assert result.returncode == 1
    if output_format == "sarif":
        json.loads(result.stdout.decode("utf-8"))
    if output_format == "json-lines":
        for line in result.stdout.decode("utf-8").splitlines():
            json.loads(line)


def test_hostile_bytes_on_stdin_are_linted_without_a_traceback(tmp_path: Path) -> None:
    for name, data in HOSTILE_FILES.items():
        result = skewlint(
            "--no-cache", "--output-format", "json", "--stdin-filename", name, cwd=tmp_path,
            stdin=data,
        )
        check_cli(result)
        _parse_json(result.stdout)


def raw_bytes(text: str) -> bytes:
    """Lone surrogates as the raw bytes they escape, or as CESU-style byte triples."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a high surrogate, which surrogateescape cannot express
        return text.encode("utf-8", "surrogatepass")


def test_mutated_kernels_are_linted_without_a_traceback(tmp_path: Path) -> None:
    r: random.Random = rng("cli-mutants")
    count = sample_count(ci_default=3)
    for name, source in EXAMPLES.items():
        for n in range(count):
            mutant = MUTATORS[r.choice(sorted(MUTATORS))](source, r)
            mutant = ENCODINGS[r.choice(sorted(ENCODINGS))](mutant)
            data = raw_bytes(mutant) if r.random() < 0.5 else mutant.encode("utf-8", "replace")
            (tmp_path / f"{n}_{name}").write_bytes(data)
    result = skewlint("--no-cache", "--output-format", "json", "--preview", ".", cwd=tmp_path)
    check_cli(result)
    _parse_json(result.stdout)


def test_unusable_arguments_exit_2_with_one_line_and_no_traceback(tmp_path: Path) -> None:
    (tmp_path / "k.py").write_bytes(GOOD)
    for args in (
        ["--output-format", "no-such-format", "k.py"],
        ["--select", "NOPE999", "k.py"],
        ["--fail-on", "sometimes", "k.py"],
        ["--config", "missing.toml", "k.py"],
        ["preview", "k.py:not-a-line"],
        ["preview", "missing.py:3"],
        ["explain", "\x01"],
        ["--jobs", "-5", "k.py"],
    ):
        result = skewlint(*args, cwd=tmp_path)
        check_cli(result)
        assert result.returncode == 2, (args, result.returncode)


def test_a_missing_path_is_reported_and_not_a_traceback(tmp_path: Path) -> None:
    result = skewlint("--no-cache", "does-not-exist.py", cwd=tmp_path)
    check_cli(result)
    assert result.returncode == 2
    assert result.stderr == b"skewlint: error: does-not-exist.py: no such file or directory\n"


def test_a_5_mb_file_is_linted_within_five_cpu_seconds_per_mb(tmp_path: Path) -> None:
    import resource

    (tmp_path / "big.py").write_bytes(GOOD + (b"# " + b"z" * 78 + b"\n") * 62_000)
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    result = skewlint("--no-cache", "--output-format", "concise", "big.py", cwd=tmp_path)
    spent = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - before
    check_cli(result)
    assert b"SKW002" in result.stdout
    assert spent < 1 + 5 * 5, f"{spent:.1f} CPU seconds for 5 MB"
