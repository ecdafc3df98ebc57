"""What every fuzz test shares: the budget, the seed corpus, and the properties checked.

The CI budget is small and fixed (``derandomize=True``: the same examples on every
run); ``FUZZ_EXAMPLES=N`` raises the number of generated examples per test and
``FUZZ_SEED=S`` changes the seed of the mutation tests (see README.md).
"""

from __future__ import annotations

import ast
import os
import random
import subprocess
import sys
from pathlib import Path

from hypothesis import HealthCheck, settings

from skewlsp.analysis import LoopReport, analyze
from skewlsp.api import PreviewUnavailable
from skewlsp.api import preview as preview_at

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES_DIR = ROOT / "examples"
EXAMPLES: dict[str, str] = {
    path.name: path.read_text(encoding="utf-8") for path in sorted(EXAMPLES_DIR.glob("*.py"))
}

LONG_RUN = "FUZZ_EXAMPLES" in os.environ


def examples(ci_default: int) -> int:
    """How many generated examples a property test runs: ``ci_default`` unless overridden."""
    return int(os.environ.get("FUZZ_EXAMPLES", ci_default))


def seed() -> int:
    return int(os.environ.get("FUZZ_SEED", "20240808"))


def rng(name: str) -> random.Random:
    """A random generator per test, reproducible from ``FUZZ_SEED`` and the test's name."""
    return random.Random(f"{seed()}:{name}")


def fuzz_settings(ci_default: int) -> settings:
    """Deterministic in CI (derandomized, no example database); no per-example deadline."""
    return settings(
        max_examples=examples(ci_default),
        derandomize=not LONG_RUN,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


def sample_count(ci_default: int) -> int:
    """How many mutants a seeded (non-hypothesis) mutation test makes per seed kernel."""
    return examples(ci_default)


def parses(text: str) -> bool:
    try:
        ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    return True


def check_preview(source: str, report: LoopReport) -> None:
    """``preview_loop`` returns text that parses (dedented as a block) or refuses cleanly."""
    try:
        text = preview_at(source, report.line).rewritten
    except PreviewUnavailable as refused:
        assert str(refused), "PreviewUnavailable must say why"
        return
    assert isinstance(text, str)
    assert parses(_as_block(text)), f"preview does not parse:\n{text}"


def _as_block(text: str) -> str:
    """The previewed lines are indented like the original ``for``: nest them to parse them.

    (Not ``splitlines``/``dedent``: a lone ``\\r`` inside brackets is legal and must stay.)
    """
    if text[:1] in (" ", "\t"):
        return "if 1:\n" + text + "\n"
    return text + "\n"


def check_analysis(source: str, *, preview: bool = True) -> list[LoopReport]:
    """The analysis contract on any text: a list of reports, never an exception."""
    reports = analyze(source, "fuzzed.py")
    assert isinstance(reports, list)
    for report in reports:
        assert isinstance(report, LoopReport)
        assert report.code.startswith("SKW"), report.code
        assert "internal error" not in report.message.lower(), report.message
    if preview:
        for report in reports:
            check_preview(source, report)
    return reports


def skewlint(
    *args: str, cwd: Path, stdin: bytes | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run the installed ``skewlint`` as a user would, in ``cwd``, without its cache."""
    return subprocess.run(
        [sys.executable, "-m", "skewlsp.cli", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        timeout=timeout,
        env={**os.environ, "NO_COLOR": "1"},
        check=False,
    )


def check_cli(result: subprocess.CompletedProcess) -> None:
    """``skewlint``'s contract: exit 0/1/2, never a traceback."""
    stderr = result.stderr.decode("utf-8", "replace") if result.stderr else ""
    stdout = result.stdout.decode("utf-8", "replace") if result.stdout else ""
    assert "Traceback" not in stderr, stderr
    assert "Traceback" not in stdout, stdout
    assert result.returncode in (0, 1, 2), (result.returncode, stderr)
    if result.returncode == 2:
        assert stderr.strip(), "exit 2 must say why on stderr"


ISOLATED_ANALYSIS = """
import sys
from skewlsp.analysis import analyze
from skewlsp.api import PreviewUnavailable, preview as preview_at

source = open(sys.argv[1], encoding="utf-8", errors="surrogateescape", newline="").read()
reports = analyze(source, sys.argv[1])
if sys.argv[2] == "preview":
    for report in reports:
        try:
            preview_at(source, report.line)
        except PreviewUnavailable:
            pass
print("ok", len(reports), " ".join(sorted({r.code for r in reports})))
"""


def analyze_isolated(
    source: str, tmp_path: Path, *, cpu_seconds: float, preview: bool = False
) -> subprocess.CompletedProcess[str]:
    """``analyze`` (and ``preview_loop``) in a child process capped at ``cpu_seconds`` of CPU.

    A crash of the interpreter (stack overflow in a native parser) or a runaway
    computation then fails one test with a readable message instead of killing
    or stalling the whole test run. The child prints ``ok N CODES`` on success.
    """
    import resource

    path = tmp_path / "kernel.py"
    path.write_text(source, encoding="utf-8", errors="surrogateescape", newline="")
    limit = max(1, int(cpu_seconds + 0.999))

    def cap_cpu() -> None:  # runs in the child
        resource.setrlimit(resource.RLIMIT_CPU, (limit, limit + 1))

    return subprocess.run(
        [sys.executable, "-c", ISOLATED_ANALYSIS, str(path), "preview" if preview else "-"],
        capture_output=True,
        text=True,
        timeout=limit * 10 + 60,
        preexec_fn=cap_cpu,
        check=False,
    )


def describe(result: subprocess.CompletedProcess[str]) -> str:
    """Why an isolated run failed, in one readable block (signal, CPU limit, traceback)."""
    if result.returncode < 0:
        import signal

        name = signal.Signals(-result.returncode).name
        what = "CPU limit exceeded" if name in ("SIGXCPU", "SIGKILL") else "crashed"
        return f"child {what} ({name})\n{result.stderr[-3000:]}"
    return f"exit {result.returncode}\n{result.stdout[-500:]}\n{result.stderr[-3000:]}"
