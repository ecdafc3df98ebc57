"""What every fuzz test shares: the budget, the seed corpus, and the properties checked.

The CI budget is small and fixed (``derandomize=True``: the same examples on every
run); ``FUZZ_EXAMPLES=N`` raises the number of generated examples per test and
``FUZZ_SEED=S`` changes the seed of the mutation tests (see README.md).
"""

from __future__ import annotations

import ast
import json
import os
import random
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings

from skewlsp.analysis import analyze
from skewlsp.api import PreviewUnavailable
from skewlsp.api import preview as preview_at
from skewlsp.contract import LoopReport

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
    """``preview`` returns text that parses (dedented as a block) or refuses with a reason.

    A refusal is a documented limit (a verdict with nothing to rewrite, a nested skew, a
    shape the transform does not handle), never one of the transform's ``internal:``
    consistency checks: those mean the analysis and the rewrite disagree.
    """
    try:
        text = preview_at(source, report.line).rewritten
    except PreviewUnavailable as refused:
        assert str(refused), "PreviewUnavailable must say why"
        assert not str(refused).startswith("internal"), (report, str(refused))
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
import ast, json, sys
from skewlsp.analysis import analyze
from skewlsp.api import PreviewUnavailable, preview as preview_at

source = open(sys.argv[1], encoding="utf-8", errors="surrogateescape", newline="").read()
found = []
for report in analyze(source, sys.argv[1]):
    item = {"line": report.line, "verdict": report.verdict, "code": report.code,
            "depth": report.depth, "trip": report.trip, "preview": None}
    if sys.argv[2] == "preview":
        try:
            text = preview_at(source, report.line).rewritten
        except PreviewUnavailable as refused:
            item["preview"] = {"refused": str(refused)}
        else:
            try:
                ast.parse("if 1:\\n" + text + "\\n")
            except SyntaxError as error:
                item["preview"] = {"lines": text.count("\\n"), "syntax_error": str(error)}
            else:
                item["preview"] = {"lines": text.count("\\n"), "syntax_error": None}
    found.append(item)
print(json.dumps(found))
"""


@dataclass(frozen=True)
class Isolated:
    """What the child reported for each loop: its verdict and, if asked, its preview.

    ``preview`` is None (not asked), ``{"refused": reason}``, or ``{"lines": n,
    "syntax_error": None | message}`` (the preview's text parsed as an indented block).
    """

    reports: list[dict[str, Any]]

    @property
    def codes(self) -> list[str]:
        return [report["code"] for report in self.reports]


def analyze_isolated(
    source: str, tmp_path: Path, *, cpu_seconds: float, preview: bool = False
) -> Isolated:
    """``analyze`` (and ``preview``) in a child process capped at ``cpu_seconds`` of CPU.

    A crash of the interpreter (stack overflow in a native parser) or a runaway
    computation then fails one test with a readable message instead of killing
    or stalling the whole test run. The child prints one JSON list, a dict per loop.
    """
    import resource

    path = tmp_path / "kernel.py"
    path.write_text(source, encoding="utf-8", errors="surrogateescape", newline="")
    limit = max(1, int(cpu_seconds + 0.999))

    def cap_cpu() -> None:  # runs in the child
        resource.setrlimit(resource.RLIMIT_CPU, (limit, limit + 1))

    result = subprocess.run(
        [sys.executable, "-c", ISOLATED_ANALYSIS, str(path), "preview" if preview else "-"],
        capture_output=True,
        text=True,
        timeout=limit * 10 + 60,
        preexec_fn=cap_cpu,
        check=False,
    )
    assert result.returncode == 0, describe(result)
    try:
        reports = json.loads(result.stdout)
    except json.JSONDecodeError:
        raise AssertionError(f"the child printed no report list\n{describe(result)}") from None
    return Isolated(reports)


def describe(result: subprocess.CompletedProcess[str]) -> str:
    """Why an isolated run failed, in one readable block (signal, CPU limit, traceback)."""
    if result.returncode < 0:
        import signal

        name = signal.Signals(-result.returncode).name
        what = "CPU limit exceeded" if name in ("SIGXCPU", "SIGKILL") else "crashed"
        return f"child {what} ({name})\n{result.stderr[-3000:]}"
    return f"exit {result.returncode}\n{result.stdout[-500:]}\n{result.stderr[-3000:]}"
