"""skewlsp's port of ``ChooseL0Tile`` against pypto's own binding, over a grid of shapes.

    python benchmarks/l0_tile_chooser_check.py [--python PYTHON_WITH_PYPTO] [--quick]

The grid: M, N, K over aligned and unaligned extents from 16 to 1024, the element
widths AutoTileMatmulL0 meets (INT8 -> INT32 with its 32-row accumulator group, BF16
and FP32 -> FP32), with and without ``c_read``, with the gates the pass sets under each
planner (A/B-stationary and K-boundary always, L0C double buffering under PTOAS), on
the 910B's L0 sizes. PYTHON (default: $SKEWLSP_PYPTO_PYTHON, else this interpreter)
runs pypto's ``pypto.pypto_core.passes.l0_tile_chooser.choose_l0_tile`` on each
config in a subprocess; this interpreter runs the port. Prints one summary line
(``chooser: N configs, M agree, K differ, E errors agree``) and every difference; exit
1 when any differs, 0 otherwise, and 0 with a message when PYTHON cannot import pypto.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if __package__ in (None, ""):  # run as a script: the checkout makes `benchmarks` importable
    sys.path.insert(0, str(HERE.parent))

from skewlsp.analysis.passes.l0_tile_chooser import (  # noqa: E402
    L0TileConfig,
    choose_l0_tile,
)

ENV_PYTHON = "SKEWLSP_PYPTO_PYTHON"
KB = 1024
# (bytes_a, bytes_b, bytes_c, l0c_align_m): INT8 -> INT32, BF16 -> FP32, FP32 -> FP32.
WIDTHS = ((1, 1, 4, 32), (2, 2, 4, 16), (4, 4, 4, 16))
EXTENTS = (16, 32, 48, 64, 80, 96, 128, 144, 160, 192, 256, 320, 384, 512, 640, 1024)
QUICK = (16, 48, 64, 128, 192, 256, 512)

# What runs in PYTHON: read configs (JSON lines) on stdin, print each result or error.
BINDING = """
import json, sys
from pypto.pypto_core.passes import l0_tile_chooser as t
for line in sys.stdin:
    fields = json.loads(line)
    cfg = t.L0TileConfig()
    for key, value in fields.items():
        setattr(cfg, key, value)
    try:
        r = t.choose_l0_tile(cfg)
    except Exception as exc:
        print(json.dumps({"error": type(exc).__name__}))
        continue
    stat = str(r.stationarity).rsplit(".", 1)[-1]
    print(json.dumps([r.m, r.n, r.k, stat, r.double_buffer_c, r.os_holds_a,
                      r.estimated_cost_cycles, r.estimated_traffic_bytes]))
"""
STATIONARITY = {"OUTPUT": "OutputStationary", "A": "AStationary", "B": "BStationary"}


def grid(extents: tuple[int, ...]) -> list[L0TileConfig]:
    """The configs compared: every shape x width x c_read x planner gate."""
    configs = []
    for (m, n, k), width, c_read, dbc in itertools.product(
        itertools.product(extents, repeat=3), WIDTHS, (False, True), (False, True)
    ):
        bytes_a, bytes_b, bytes_c, row_group = width
        configs.append(
            L0TileConfig(
                M=m, N=n, K=k, l0a_bytes=64 * KB, l0b_bytes=64 * KB, l0c_bytes=128 * KB,
                bytes_a=bytes_a, bytes_b=bytes_b, bytes_c=bytes_c, l0c_align_m=row_group,
                allow_a_stationary=True, allow_b_stationary=True,
                allow_double_buffer_c=dbc, c_read=c_read, allow_k_boundary=True,
            )
        )
    return configs


def ported(cfg: L0TileConfig) -> Any:
    """The port's answer in the binding script's format."""
    try:
        r = choose_l0_tile(cfg)
    except ValueError:
        return {"error": "ValueError"}
    return [r.m, r.n, r.k, STATIONARITY[r.stationarity.name], r.double_buffer_c,
            r.os_holds_a, r.estimated_cost_cycles, r.estimated_traffic_bytes]


def binding(python: str, configs: list[L0TileConfig]) -> list[Any] | None:
    """The binding's answers, or None when PYTHON cannot import pypto."""
    lines = "".join(json.dumps(dataclasses.asdict(c)) + "\n" for c in configs)
    done = subprocess.run([python, "-c", BINDING], input=lines, capture_output=True, text=True)
    if done.returncode != 0:
        print(f"chooser: skipped, {python} cannot run pypto's binding: "
              f"{done.stderr.strip().splitlines()[-1:]}")
        return None
    return [json.loads(line) for line in done.stdout.splitlines()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=os.environ.get(ENV_PYTHON, sys.executable))
    parser.add_argument("--quick", action="store_true", help="a smaller grid")
    args = parser.parse_args(argv)
    configs = grid(QUICK if args.quick else EXTENTS)
    theirs = binding(args.python, configs)
    if theirs is None:
        return 0
    differ = []
    errors = 0
    for cfg, expected in zip(configs, theirs, strict=True):
        got = ported(cfg)
        if got != expected:
            differ.append((cfg, expected, got))
        elif isinstance(got, dict):
            errors += 1
    agree = len(configs) - len(differ)
    print(f"chooser: {len(configs)} configs, {agree} agree, {len(differ)} differ, "
          f"{errors} errors agree")
    for cfg, expected, got in differ:
        print(f"  M={cfg.M} N={cfg.N} K={cfg.K} bytes={cfg.bytes_a}/{cfg.bytes_c} "
              f"c_read={cfg.c_read} dbc={cfg.allow_double_buffer_c}: pypto {expected}, port {got}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
