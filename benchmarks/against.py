"""This checkout against another checkout of skewlsp, side by side in one run.

A restructuring keeps the speed users feel only if a cold lint of a real tree and the
server's per-edit latency stay near what they were. Numbers from different runs on a
shared 2-core machine differ by more than the change being judged, so both checkouts
are measured here, alternating, on the same files and the same edits:

- **cold CPU**: ``skewlint --no-cache`` over the tree (the user + system seconds of the
  whole process tree, pool workers included), ``--runs`` times each, alternating;
- **edit latency**: ``textDocument/didChange`` to its diagnostics on the tree's largest
  file that holds a ``pl.pipeline`` loop, the same ``--edits`` edits for both servers.

The other checkout runs with the same interpreter and libraries, its own code first on
``PYTHONPATH``: e.g. ``git worktree add /tmp/before <commit>`` then
``python benchmarks/against.py /tmp/before --tree <pypto-lib>/models``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from run import (  # noqa: E402 - the shared measuring code of the other benchmarks
    REPO,
    Series,
    ServerRun,
    drive_server,
    edit_sequence,
    largest_kernel,
    measure,
    python_files,
    skewlsp_init_options,
)


def _python(checkout: Path) -> list[str]:
    """The interpreter running ``checkout``'s skewlsp (first on the path)."""
    return ["env", f"PYTHONPATH={checkout}", sys.executable]


def cold_cpu(checkouts: dict[str, Path], tree: Path, runs: int) -> dict[str, Series]:
    """Alternating cold lints of ``tree``: CPU of each run's whole process tree."""
    series = {label: Series(label) for label in checkouts}
    for _ in range(runs):
        for label, checkout in checkouts.items():
            argv = [*_python(checkout), "-m", "skewlsp.cli", "--no-cache", "--exit-zero",
                    "--output-format", "json", str(tree)]
            series[label].samples.append(measure(argv, tree))
    for found in series.values():
        found.check([0])
    return series


def edit_latency(checkouts: dict[str, Path], tree: Path, edits: int, seed: int) -> list[ServerRun]:
    """Each checkout's server on the tree's largest loop file, the same edits for both."""
    path = largest_kernel(python_files([str(tree)]))
    if path is None:
        raise SystemExit(f"no file under {tree} holds a pl.pipeline loop")
    options, note = skewlsp_init_options()
    changes = edit_sequence(path.read_text(encoding="utf-8"), edits, seed)
    return [
        asyncio.run(drive_server(f"{label} ({note}), {path.name}",
                                 [*_python(checkout), "-m", "skewlsp"], options, path, changes))
        for label, checkout in checkouts.items()
    ]


def _cpu(found: Series) -> float:
    return statistics.median(sample.cpu for sample in found.samples)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("other", type=Path, help="the other checkout (its root folder)")
    parser.add_argument("--tree", type=Path, required=True, help="the tree to lint")
    parser.add_argument("--runs", type=int, default=5, help="cold runs of each (5)")
    parser.add_argument("--edits", type=int, default=100, help="server edits (100)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--skip-server", action="store_true")
    parser.add_argument("--skip-cold", action="store_true", help="only the edit latency")
    args = parser.parse_args(argv)
    checkouts = {"this": REPO, "other": args.other.resolve()}
    if not (checkouts["other"] / "skewlsp" / "__init__.py").is_file():
        parser.error(f"{args.other} is not a checkout of skewlsp")
    if not args.skip_cold:
        cold = cold_cpu(checkouts, args.tree.resolve(), args.runs)
        for label, found in cold.items():
            cpus = ", ".join(f"{sample.cpu:.2f}" for sample in found.samples)
            print(f"cold CPU, {label}: median {_cpu(found):.2f} s ({cpus}){found.note}")
        print(f"cold CPU, this / other: {_cpu(cold['this']) / _cpu(cold['other']):.2f}x")
    if args.skip_server:
        return 0
    servers = edit_latency(checkouts, args.tree.resolve(), args.edits, args.seed)
    for server in servers:
        print(f"edit -> diagnostics, {server.label}: p50 {server.pct(0.5) * 1000:.1f} ms, "
              f"p95 {server.pct(0.95) * 1000:.1f} ms, missed {server.missed}, {server.note}")
    this, other = servers
    print(f"edit p50, this / other: {this.pct(0.5) / other.pct(0.5):.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
