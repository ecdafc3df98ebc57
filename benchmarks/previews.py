"""What previews cost, next to what they are shown with (``run.py --previews MODELS``).

Two measurements, each side by side with its baseline in the same run, so a shared
machine's load falls on both sides alike; CPU seconds (user + system of the whole process
tree) rather than wall time for the CLI, for the same reason:

- ``skewlint --select ALL`` on a tree, plain and with ``--preview`` (every loop's rewrite),
  interleaved runs, one worker (``--jobs 1``: the CPU of one process tree, no pool start);
- the language server's ``skewlsp/preview`` request on the tree's largest kernel (the one
  with most pipeline loops): each loop with a rewrite previewed in turn, timed from request
  to answer, the first request (libcst's import, the concrete analysis) apart from the
  others' median.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from run import VENV_BIN, LspClient, Sample, measure, print_table

PREVIEW_TIMEOUT = 120.0  # seconds: the old whole-file rewrite took minutes on a big kernel


def cli_cpu(models: Path, runs: int) -> tuple[list[Sample], list[Sample]]:
    """Interleaved plain and ``--preview`` runs of ``skewlint --select ALL`` on ``models``."""
    base = [str(VENV_BIN / "skewlint"), "--no-cache", "--jobs", "1", "--select", "ALL",
            "--exit-zero", "--output-format", "json", str(models)]
    plain: list[Sample] = []
    previews: list[Sample] = []
    for _ in range(runs):
        plain.append(measure(base, models.parent))
        previews.append(measure([*base, "--preview"], models.parent))
    failed = [s.stderr for s in (*plain, *previews) if s.rc != 0]
    if failed:
        raise SystemExit(f"skewlint failed: {failed[0]}")
    return plain, previews


def largest_kernel(models: Path) -> Path:
    """The file with the most ``pl.pipeline(`` loops (the longest on a tie)."""
    files = [p for p in models.rglob("*.py") if "pl.pipeline(" in p.read_text(errors="replace")]
    return max(files, key=lambda p: (p.read_text().count("pl.pipeline("), len(p.read_text())))


async def server_previews(path: Path) -> tuple[float, list[float], int]:
    """(first preview, the others, loops refused) over every pipeline loop of ``path``."""
    client = await LspClient.start([str(VENV_BIN / "skewlsp")], path.parent)
    uri = path.as_uri()
    text = path.read_text()
    lines = [n for n, line in enumerate(text.splitlines()) if "in pl.pipeline(" in line]
    times: list[float] = []
    refused = 0
    try:
        await client.request("initialize", {
            "processId": os.getpid(), "rootUri": path.parent.as_uri(),
            "capabilities": {"textDocument": {"publishDiagnostics": {"versionSupport": True}}},
            "initializationOptions": {},
        }, timeout=60)
        client.notify("initialized", {})
        client.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "python", "version": 0, "text": text}})
        await client.wait_diagnostics(uri, 0)
        for line in lines:
            column = text.splitlines()[line].index("for")
            params = {"textDocument": {"uri": uri}, "position": {"line": line, "character": column}}
            sent = time.perf_counter()
            answer: Any = await client.request("skewlsp/preview", params, PREVIEW_TIMEOUT)
            elapsed = time.perf_counter() - sent
            if isinstance(answer, dict) and answer.get("document"):
                times.append(elapsed)
            else:
                refused += 1
    finally:
        await client.close()
    if not times:
        raise SystemExit(f"no loop of {path} has a preview")
    return times[0], times[1:], refused


def report(models: Path, runs: int) -> None:
    plain, previews = cli_cpu(models, runs)
    cpu_plain = statistics.median(s.cpu for s in plain)
    cpu_previews = statistics.median(s.cpu for s in previews)
    print_table(
        f"`skewlint --select ALL --jobs 1` on {models} (median of {runs}, CPU seconds)",
        ["run", "CPU", "wall", "x plain"],
        [
            ["plain lint", f"{cpu_plain:.2f} s",
             f"{statistics.median(s.seconds for s in plain):.1f} s", "1.0"],
            ["--preview", f"{cpu_previews:.2f} s",
             f"{statistics.median(s.seconds for s in previews):.1f} s",
             f"{cpu_previews / cpu_plain:.1f}"],
        ],
    )
    sys.stdout.flush()
    kernel = largest_kernel(models)
    first, others, refused = asyncio.run(server_previews(kernel))
    rows = [["first", f"{first * 1000:.0f} ms"]]
    if others:
        ordered = sorted(others)
        rows += [
            ["p50 of the others", f"{statistics.median(ordered) * 1000:.0f} ms"],
            ["max of the others", f"{ordered[-1] * 1000:.0f} ms"],
        ]
    print_table(
        f"Server `skewlsp/preview` on {kernel.name} ({len(others) + 1} loops with a preview, "
        f"{refused} without; wall ms)",
        ["request", "time"],
        rows,
    )


def main(models: Sequence[str], runs: int) -> int:
    for name in models:
        report(Path(name).resolve(), runs)
    return 0
