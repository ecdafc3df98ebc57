"""Speed of skewlint and the skewlsp server, side by side with ruff and Fixit (issue 7).

One run measures, on the same files and the same machine load:

1. ``skewlint`` cold (``--no-cache``; and with an emptied cache dir) and warm
   (cache populated) vs ``ruff check --no-cache`` vs ``fixit lint`` on a corpus;
2. the servers: ``didChange`` -> matching ``publishDiagnostics`` over 100 small
   edits of a 3,000-line kernel, skewlsp vs ``ruff server``, driven by the same
   minimal LSP client below;
3. scaling: the same kernel padded to 10x with code holding no pipeline loops;
4. peak memory of each command (max RSS of its largest process) and server (VmHWM);
5. with ``--floor`` (issue 19), only: cold skewlint's CPU against the parser floor
   (libcst parsing exactly the pipeline loops) and warm skewlint against ruff, on
   pypto-lib's ``models/`` (``--pypto``) and a loop-dense tree, side by side.

Every command runs in a fresh wrapper subprocess so that ``RUSAGE_CHILDREN``
covers that command only; repeated runs are interleaved tool by tool so a busy
machine slows every tool alike rather than whichever ran during a spike.

Usage: ``/work/venv/bin/python benchmarks/run.py [--quick] [PATH ...]`` (see README).
Fixit is installed on first use into ``benchmarks/.venv-peers`` (not a project
dependency); the generated corpus lives in ``benchmarks/.corpus``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
VENV_BIN = Path(sys.executable).parent
PEERS = HERE / ".venv-peers"
CORPUS_ROOT = HERE / ".corpus"
FIXIT_VERSION = "2.2.1"
RUFF_RULES = "E,F,W"
CORPUS_FORMAT = "2"  # bump when the generator changes: regenerates cached corpora
PIPELINE_SHARE = 0.25
EDITS = 100
EDIT_TIMEOUT = 60.0

# ----------------------------------------------------------------------------- corpus


DTYPES = ("pl.FP32", "pl.FP16", "pl.BF16")
SHAPES = ((16, 64), (16, 128), (32, 64), (64, 64), (16, 16), (32, 128))
CONST_NAMES = ("ROWS", "COLS", "HEADS", "SEQ", "TILE_M", "TILE_N", "BLOCK", "BATCH", "DIM")
WORDS = (
    "attn", "norm", "rope", "gemm", "softmax", "gelu", "swiglu", "rms", "scale", "mask",
    "reduce", "gather", "scatter", "quant", "dequant", "topk", "decode", "prefill", "kv",
    "moe", "expert", "router", "conv", "pool", "bias", "residual", "score", "rotary",
)
UNARY = ("pl.exp", "pl.tile.exp", "pl.row_max", "pl.row_sum", "pl.tile.neg", "pl.tile.sqrt")
BINARY = ("pl.tile.add", "pl.tile.mul", "pl.tile.sub", "pl.tile.maximum", "pl.tile.div")


class KernelWriter:
    """Writes pypto-style kernel source from a seeded RNG (same seed, same bytes).

    Units are the things real kernel modules hold: constants, config dataclasses,
    plain helpers, ``@pl.program`` classes of ``@pl.function`` methods, ``@pl.jit``
    functions with ``pl.at`` scopes; ``pipeline=True`` mixes in ``pl.pipeline``
    loops of every verdict the pass can give (skewed, demoted, left, dynamic).
    """

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.used: set[str] = set()

    def name(self, suffix: str = "") -> str:
        """A fresh identifier built from kernel words (unique within one file)."""
        for _ in range(1000):
            base = "_".join(self.rng.sample(WORDS, self.rng.choice((1, 2, 2, 3))))
            candidate = base + suffix
            if candidate not in self.used:
                self.used.add(candidate)
                return candidate
        candidate = f"{base}_{len(self.used)}{suffix}"
        self.used.add(candidate)
        return candidate

    # -- module-level units -----------------------------------------------------------

    def header(self, title: str, imports_consts: Sequence[str], dataclass_: bool) -> list[str]:
        out = [f'"""{title} kernels for the {self.rng.choice(WORDS)} block."""', ""]
        if dataclass_:
            out += ["from dataclasses import dataclass", ""]
        out.append("import pypto.language as pl")
        if imports_consts:
            out.append(f"from .consts import {', '.join(sorted(imports_consts))}")
        return out + [""]

    def constants(self) -> list[str]:
        names = self.rng.sample(CONST_NAMES, self.rng.randint(3, 6))
        out = [f"{n} = {self.rng.choice((8, 16, 32, 64, 128, 256, 1024))}" for n in names]
        out.append(f"SCALE = {self.rng.choice((0.125, 0.0883883, 0.5))}")
        out.append(f"EPS = {self.rng.choice(('1e-5', '1e-6'))}")
        return out + ["", ""]

    def config(self) -> list[str]:
        cls = "".join(w.title() for w in self.name().split("_")) + "Config"
        out = ["@dataclass(frozen=True)", f"class {cls}:"]
        out.append(f'    """Static shape of one {self.rng.choice(WORDS)} launch."""')
        out.append("")
        fields = self.rng.sample(("heads", "head_dim", "seq", "tile", "batch", "experts"), 4)
        out += [f"    {f}: int = {self.rng.choice((8, 16, 64, 128))}" for f in fields]
        out += ["", "    def tiles(self) -> int:", f"        return self.{fields[0]} // 16", ""]
        out += [
            "    def describe(self) -> str:",
            f'        return f"{cls}({{self.{fields[1]}}}, {{self.{fields[2]}}})"',
            "",
            "",
        ]
        return out

    def helper(self) -> list[str]:
        fname = "_" + self.name()
        kind = self.rng.randrange(3)
        if kind == 0:
            body = ["    return (a + b - 1) // b"]
            sig = "(a: int, b: int) -> int"
        elif kind == 1:
            body = [
                "    out = []",
                "    for start in range(0, total, step):",
                "        out.append((start, min(step, total - start)))",
                "    return out",
            ]
            sig = "(total: int, step: int) -> list[tuple[int, int]]"
        else:
            body = [
                "    if dtype == pl.FP32:",
                "        return 4",
                "    return 2",
            ]
            sig = "(dtype) -> int"
        doc = f'    """Host-side helper for the {self.rng.choice(WORDS)} tiling."""'
        return [f"def {fname}{sig}:", doc, *body, "", ""]

    # -- kernel bodies ----------------------------------------------------------------

    def tile_type(self) -> str:
        h, w = self.rng.choice(SHAPES)
        return f"pl.Tile[[{h}, {w}], {self.rng.choice(DTYPES)}]"

    def tensor_params(self, count: int) -> list[str]:
        names = ["x", "y", "q", "k", "v", "w", "bias", "gamma"][:count] + ["out"]
        h, w = self.rng.choice(((128, 64), (256, 64), (512, 128), (1024, 64)))
        return [f"{n}: pl.Tensor[[{h}, {w}], {self.rng.choice(DTYPES)}]" for n in names]

    def tile_statements(
        self, indent: str, index: str, inputs: Sequence[str], count: int
    ) -> list[str]:
        """A straight run of loads, element-wise ops, reductions and matmuls, ending in a store.

        Operands prefer values not used yet, so most assignments feed later ones (as in
        real kernels: few dead stores for ruff's F841 to find).
        """
        live: list[str] = []
        fresh: list[str] = []
        offsets = [f"{index} * 16"]
        out: list[str] = []

        def operand() -> str:
            return fresh.pop(0) if fresh else self.rng.choice(live)

        for step in range(count):
            var = f"t{step}"
            choice = self.rng.random()
            if not live or choice < 0.25:
                h, w = self.rng.choice(SHAPES)
                src = self.rng.choice(inputs)
                expr = f"pl.tile.load({src}, [{offsets[-1]}, 0], [{h}, {w}])"
            elif choice < 0.5:
                expr = f"{self.rng.choice(UNARY)}({operand()})"
            elif choice < 0.8:
                a, b = operand(), operand()
                expr = f"{self.rng.choice(BINARY)}({a}, {b})"
            elif choice < 0.9:
                a, b = operand(), operand()
                expr = f"{self.rng.choice(('pl.matmul', 'pl.tile.matmul'))}({a}, {b})"
            else:
                out.append(f"{indent}off{step}: pl.Scalar[pl.INDEX] = {index} * 16 + {step}")
                offsets.append(f"off{step}")
                continue
            out.append(f"{indent}{var}: {self.tile_type()} = {expr}")
            live.append(var)
            fresh.append(var)
        result = fresh[-1] if fresh else live[-1]
        out.append(f"{indent}pl.tile.store({result}, [{offsets[-1]}, 0], out)")
        return out

    def plain_loop(self, indent: str, inputs: Sequence[str], consts: Sequence[str]) -> list[str]:
        var = self.rng.choice("ijbhr")
        kind = self.rng.choice(("range", "range", "parallel"))
        bound = self.rng.choice(consts) if consts else str(self.rng.choice((4, 8, 16)))
        out = [f"{indent}for {var} in pl.{kind}(0, {bound}, 1):"]
        inner = indent + "    "
        if self.rng.random() < 0.3:
            out.append(f"{inner}for c in pl.range(0, {self.rng.choice((2, 4))}, 1):")
            index = f"({var} * 4 + c)"
            out += self.tile_statements(inner + "    ", index, inputs, self.rng.randint(3, 8))
        else:
            out += self.tile_statements(inner, var, inputs, self.rng.randint(3, 10))
        return out

    def pipeline_loop(self, indent: str, inputs: Sequence[str], consts: Sequence[str]) -> list[str]:
        """One ``pl.pipeline`` loop; the template decides which verdict the pass gives."""
        i = indent + "    "
        trip = self.rng.choice([*consts, "4", "8", "3"]) if consts else "8"
        stage = self.rng.choice((2, 2, 2, 3, 4))
        src, ty = inputs[0], self.tile_type()
        kind = self.rng.randrange(6)
        head = f"{indent}for h in pl.pipeline(0, {trip}, 1, stage={stage}):"
        if kind == 0:  # cube producer: skewed
            return [
                head,
                f"{i}row: pl.Scalar[pl.INDEX] = h * 16",
                f"{i}qa: {ty} = pl.tile.load({src}, [row, 0], [16, 64])",
                f"{i}ka: {ty} = pl.tile.load({inputs[-1]}, [row, 0], [16, 64])",
                f"{i}s: {ty} = pl.tile.matmul(qa, ka)",
                f"{i}pl.tile.tpush_to_aiv(s, split=0)",
                f"{i}p: {ty} = pl.tile.tpop_from_aiv(split=0)",
                f"{i}va: {ty} = pl.tile.load({inputs[-1]}, [row, 0], [16, 64])",
                f"{i}o: {ty} = pl.tile.matmul(p, va)",
                f"{i}pl.tile.store(o, [row, 0], out)",
            ]
        if kind == 1:  # vector consumer: demoted (consumer role)
            return [
                head,
                f"{i}e: {ty} = pl.tile.tpop_from_aic(split=0)",
                f"{i}m: {ty} = pl.row_max(e)",
                f"{i}p: {ty} = pl.exp(pl.tile.sub(e, m))",
                f"{i}pl.tile.tpush_to_aic(p, split=0)",
                f"{i}pl.tile.store(p, [h * 16, 0], out)",
            ]
        if kind == 2:  # same-core: left for LowerPipelineLoops
            return [
                head,
                f"{i}t: {ty} = pl.tile.load({src}, [h * 16, 0], [16, 64])",
                f"{i}u: {ty} = pl.tile.mul(t, t)",
                f"{i}pl.tile.store(u, [h * 16, 0], out)",
            ]
        if kind == 3:  # two round trips: demoted
            return [
                head,
                f"{i}a: {ty} = pl.tile.load({src}, [h * 16, 0], [16, 64])",
                f"{i}pl.tile.tpush_to_aiv(a, split=0)",
                f"{i}b: {ty} = pl.tile.tpop_from_aiv(split=0)",
                f"{i}pl.tile.tpush_to_aiv(pl.tile.add(a, b), split=0)",
                f"{i}c: {ty} = pl.tile.tpop_from_aiv(split=0)",
                f"{i}pl.tile.store(c, [h * 16, 0], out)",
            ]
        if kind == 4:  # dynamic bound: demoted
            return [
                f"{indent}for h in pl.pipeline(0, n_tiles, 1, stage={stage}):",
                f"{i}a: {ty} = pl.tile.load({src}, [h * 16, 0], [16, 64])",
                f"{i}pl.tile.tpush_to_aiv(a, split=0)",
                f"{i}b: {ty} = pl.tile.tpop_from_aiv(split=0)",
                f"{i}pl.tile.store(b, [h * 16, 0], out)",
            ]
        return [  # loop-carried accumulator
            f"{indent}for h, (acc,) in pl.pipeline(0, {trip}, 1, stage={stage}, "
            "init_values=(acc0,)):",
            f"{i}off: pl.Scalar[pl.INDEX] = h * 16",
            f"{i}ka: {ty} = pl.tile.load({src}, [off, 0], [16, 64])",
            f"{i}pl.tile.tpush_to_aiv(ka, split=0)",
            f"{i}e: {ty} = pl.tile.tpop_from_aiv(split=0)",
            f"{i}va: {ty} = pl.tile.load({src}, [off, 0], [16, 64])",
            f"{i}acc_new: {ty} = pl.tile.add(acc, pl.tile.mul(e, va))",
            f"{i}acc_out = pl.yield_(acc_new)",
            f"{indent}pl.tile.store(acc_out, [0, 0], out)",
        ]

    def loops(
        self, indent: str, inputs: Sequence[str], consts: Sequence[str], pipeline: bool
    ) -> list[str]:
        out: list[str] = []
        for n in range(self.rng.randint(1, 4)):
            if pipeline and (n == 0 or self.rng.random() < 0.3):
                out += self.pipeline_loop(indent, inputs, consts)
            else:
                out += self.plain_loop(indent, inputs, consts)
        return out

    def program(self, consts: Sequence[str], pipeline: bool) -> list[str]:
        cls = "".join(w.title() for w in self.name().split("_"))
        out = ["@pl.program", f"class {cls}:"]
        out.append(f'    """{cls}: {self.rng.choice(WORDS)} and {self.rng.choice(WORDS)}."""')
        out.append("")
        for m in range(self.rng.randint(1, 4)):
            params = self.tensor_params(self.rng.randint(1, 4))
            with_loops = pipeline and (m == 0 or self.rng.random() < 0.4)
            extra = ["n_tiles: pl.Scalar[pl.INDEX]", "acc0: pl.Tile[[16, 64], pl.FP32]"]
            out.append("    @pl.function")
            out.append(f"    def {self.name()}(")
            out += [f"        {p}," for p in ["self", *params, *(extra if with_loops else ())]]
            out.append("    ):")
            inputs = [p.split(":")[0] for p in params[:-1]]
            out += self.loops("        ", inputs, consts, with_loops)
            out.append("")
        return out + [""]

    def jit(self, consts: Sequence[str], pipeline: bool) -> list[str]:
        params = self.tensor_params(self.rng.randint(1, 3))
        inputs = [p.split(":")[0] for p in params[:-1]]
        out = ["@pl.jit", f"def {self.name('_kernel')}("]
        out += [f"    {p}," for p in params]
        if pipeline:
            out += ["    n_tiles: pl.Scalar[pl.INDEX],", "    acc0: pl.Tile[[16, 64], pl.FP32],"]
        out.append("):")
        out.append('    """Launch on one core group; the host wrapper picks the shapes."""')
        out.append("    with pl.at(level=pl.Level.CORE_GROUP):")
        out += self.loops("        ", inputs, consts, pipeline)
        return [*out, "    return out", "", ""]

    def unit(self, consts: Sequence[str], pipeline: bool, dataclass_: bool) -> list[str]:
        """One top-level unit; about half of the units of a pipeline file hold loops."""
        roll = self.rng.random()
        if roll < 0.12:
            return self.helper()
        if roll < 0.18 and dataclass_:
            return self.config()
        with_pipeline = pipeline and self.rng.random() < 0.5
        if roll < 0.6:
            return self.program(consts, with_pipeline)
        return self.jit(consts, with_pipeline)

    def module(
        self, target_lines: int, pipeline: bool, shared: Sequence[str], mention: bool
    ) -> str:
        """A whole kernel module of about ``target_lines`` lines."""
        imports = self.rng.sample(list(shared), min(len(shared), self.rng.randint(0, 2)))
        dataclass_ = self.rng.random() < 0.3
        title = self.rng.choice(WORDS).title()
        lines = self.header(title, imports, dataclass_) + self.constants()
        consts = [ln.split(" = ")[0] for ln in lines if ln[:1].isupper() and " = " in ln]
        consts = [c for c in consts if c not in ("SCALE", "EPS")] + list(imports)
        if mention:  # real code talks about pipelines without holding pl.pipeline loops
            lines += ["# TODO: move the main loop to a software pipeline once shapes settle", ""]
        while len(lines) < target_lines:
            lines += self.unit(consts, pipeline, dataclass_)
        if pipeline and "pl.pipeline(" not in "\n".join(lines):
            lines += self.jit(consts, True)
        return "\n".join(lines).rstrip() + "\n"


def consts_module(rng: random.Random) -> tuple[str, list[str]]:
    names = rng.sample(("TRIP", "N_HEADS", "N_BLOCKS", "KV_TILES", "Q_TILES"), 3)
    body = [f"{n} = {rng.choice((2, 4, 8, 16))}" for n in names]
    return '"""Shapes shared by the kernels of this package."""\n\n' + "\n".join(body) + "\n", names


def generate_corpus(dest: Path, total_lines: int, seed: int) -> list[Path]:
    """Deterministic corpus: packages of kernel files, ~25% of them with pipeline loops."""
    rng = random.Random(seed)
    files: list[Path] = []
    written = 0
    package = 0
    while written < total_lines:
        pkg = dest / f"pkg{package:02d}"
        pkg.mkdir(parents=True, exist_ok=True)
        (pkg / "__init__.py").write_text("")
        text, shared = consts_module(rng)
        (pkg / "consts.py").write_text(text)
        for n in range(rng.randint(15, 30)):
            if written >= total_lines:
                break
            size = int(min(900, max(60, rng.lognormvariate(5.3, 0.6))))
            pipeline = rng.random() < PIPELINE_SHARE
            mention = not pipeline and rng.random() < 0.1
            source = KernelWriter(rng).module(size, pipeline, shared, mention)
            path = pkg / f"{rng.choice(WORDS)}_{n:02d}.py"
            path.write_text(source)
            files.append(path)
            written += source.count("\n")
        package += 1
    write_project_file(dest, "benchmark corpus")
    return files


PROJECT_FILE = """# {what} generated by benchmarks/run.py
# A project root of its own: skewlint keeps its cache here, and Fixit (whose file
# walker honours the nearest project's .gitignore) does not skip these files for
# being under the gitignored benchmarks/.corpus.
[tool.skewlint]

[tool.fixit]
root = true
"""


def write_project_file(dest: Path, what: str) -> None:
    (dest / "pyproject.toml").write_text(PROJECT_FILE.format(what=what))


def big_kernel(seed: int, lines: int, pad_factor: int) -> tuple[str, str, int]:
    """The server kernel (~``lines`` lines) and the same padded with pipeline-free code.

    Returns (base, padded, offset): base line ``n`` is padded line ``n + offset``.
    Half the padding goes between the module header and the units, half after.
    """
    rng = random.Random(seed)
    writer = KernelWriter(rng)
    head = writer.header("Attention", ["TRIP"], True) + writer.constants()
    consts = ["TRIP", *(ln.split(" = ")[0] for ln in head if ln[:1].isupper() and " = " in ln)]
    consts = [c for c in consts if c not in ("SCALE", "EPS")]
    body: list[str] = []
    while len(head) + len(body) < lines:
        body += writer.unit(consts, rng.random() < PIPELINE_SHARE, True)
    units: list[list[str]] = []
    while sum(map(len, units)) < (pad_factor - 1) * (len(head) + len(body)):
        units.append(writer.unit(consts, False, True))
    before = [line for unit in units[: len(units) // 2] for line in unit]
    after = [line for unit in units[len(units) // 2 :] for line in unit]
    base = "\n".join(head + body) + "\n"
    padded = "\n".join(head + before + body + after) + "\n"
    for text in (base, padded):
        compile(text, "<benchmark kernel>", "exec")  # the generator must write valid Python
    return base, padded, len(before)


def ensure_corpus(total_lines: int, seed: int) -> tuple[Path, list[Path]]:
    """Generate (or reuse) the corpus for these parameters under benchmarks/.corpus."""
    dest = CORPUS_ROOT / f"corpus-{total_lines}-{seed}"
    stamp = dest / ".format"
    if stamp.is_file() and stamp.read_text() == CORPUS_FORMAT:
        return dest, sorted(p for p in dest.rglob("*.py") if p.name not in ("__init__.py",))
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    generate_corpus(dest, total_lines, seed)
    stamp.write_text(CORPUS_FORMAT)
    return dest, sorted(p for p in dest.rglob("*.py") if p.name not in ("__init__.py",))


def python_files(paths: Sequence[str]) -> list[Path]:
    """The ``*.py`` files under the given paths (what all three tools are given, explicitly)."""
    found: list[Path] = []
    for raw in paths:
        path = Path(raw).resolve()
        if path.is_file():
            found.append(path)
            continue
        for item in sorted(path.rglob("*.py")):
            if not any(part.startswith(".") or part in ("venv", "build") for part in
                       item.relative_to(path).parts[:-1]):
                found.append(item)
    return found


def count_lines(files: Sequence[Path]) -> int:
    return sum(p.read_bytes().count(b"\n") for p in files)


# ----------------------------------------------------------------------------- commands

WRAPPER = r"""
import json, resource, subprocess, sys, time
argv = json.loads(sys.argv[1])
start = time.perf_counter()
proc = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
elapsed = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)  # every waited-for descendant
rss = usage.ru_maxrss
print(json.dumps({"seconds": elapsed, "maxrss_kb": rss, "rc": proc.returncode,
                  "cpu": usage.ru_utime + usage.ru_stime,
                  "stderr": proc.stderr.decode(errors="replace")[-400:]}))
"""


@dataclass
class Sample:
    seconds: float
    maxrss_kb: int
    rc: int
    stderr: str = ""
    cpu: float = 0.0  # user + system seconds of the command's whole process tree


def measure(argv: Sequence[str], cwd: Path) -> Sample:
    """Run ``argv`` once in a fresh wrapper process: wall time and peak RSS of that command only."""
    out = subprocess.run(
        [sys.executable, "-c", WRAPPER, json.dumps(list(argv))],
        cwd=cwd, capture_output=True, text=True, check=True,
    )
    return Sample(**json.loads(out.stdout))


@dataclass
class Series:
    """Repeated samples of one command (or one derived figure)."""

    label: str
    samples: list[Sample] = field(default_factory=list)
    note: str = ""
    scale: float = 1.0  # extrapolation factor applied to times (Fixit on a subset)

    def times(self) -> list[float]:
        return [s.seconds * self.scale for s in self.samples]

    @property
    def median(self) -> float:
        return statistics.median(self.times())

    @property
    def peak_mb(self) -> float:
        return max(s.maxrss_kb for s in self.samples) / 1024

    def check(self, ok_codes: Sequence[int]) -> None:
        bad = [s for s in self.samples if s.rc not in ok_codes]
        if bad:
            self.note += f" exit {bad[0].rc}: {bad[0].stderr.strip()[-200:]}"


def skewlint_cache_dir(sample_file: Path) -> Path | None:
    """Where skewlint keeps its cache for this file (the settings root it reports)."""
    out = subprocess.run(
        [str(VENV_BIN / "skewlint"), "--show-settings", str(sample_file)],
        capture_output=True, text=True, check=False,
    )
    for line in out.stdout.splitlines():
        if line.startswith("cache: "):  # .skewlint_cache at the root, or the user's cache dir
            return Path(line[7:].strip())
    return None


def clear_cache(directory: Path | None) -> None:
    if directory is not None and (directory / "CACHEDIR.TAG").is_file():  # skewlint's only
        shutil.rmtree(directory, ignore_errors=True)


def ensure_fixit() -> Path:
    """``fixit`` from a private venv (benchmarks/.venv-peers), created on first use."""
    fixit = PEERS / "bin" / "fixit"
    if fixit.exists():
        return fixit
    print(f"installing fixit=={FIXIT_VERSION} into {PEERS} (benchmark only) ...", flush=True)
    subprocess.run([sys.executable, "-m", "venv", str(PEERS)], check=True)
    subprocess.run(
        [str(PEERS / "bin" / "pip"), "install", "-q", f"fixit=={FIXIT_VERSION}"], check=True
    )
    return fixit


def fixit_subset(files: Sequence[Path], budget_lines: int) -> list[Path]:
    """Every k-th file, k chosen so the subset holds about ``budget_lines`` lines."""
    total = count_lines(files)
    if total <= budget_lines:
        return list(files)
    step = max(1, round(total / budget_lines))
    return list(files[::step])


# ----------------------------------------------------------------------------- LSP client


class LspClient:
    """A minimal JSON-RPC client over a server's stdio (Content-Length framing).

    Answers server->client requests with empty results, collects
    ``publishDiagnostics`` per (uri, version) with their arrival time, so both
    servers are driven by exactly the same bytes and measured the same way.
    """

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.next_id = 0
        self.pending: dict[int, asyncio.Future[Any]] = {}
        self.published: asyncio.Queue[tuple[float, dict[str, Any]]] = asyncio.Queue()
        self.by_order = 0  # publishes matched by order because they carried no version
        self.reader = asyncio.ensure_future(self._read_loop())

    @classmethod
    async def start(cls, argv: Sequence[str], cwd: Path) -> LspClient:
        proc = await asyncio.create_subprocess_exec(
            *argv, cwd=cwd, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
        )
        return cls(proc)

    def _send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    async def request(self, method: str, params: Any, timeout: float = 30) -> Any:
        self.next_id += 1
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.pending[self.next_id] = future
        self._send({"id": self.next_id, "method": method, "params": params})
        return await asyncio.wait_for(future, timeout)

    def notify(self, method: str, params: Any) -> None:
        self._send({"method": method, "params": params})

    async def _read_message(self) -> dict[str, Any] | None:
        assert self.proc.stdout is not None
        length = 0
        while True:
            line = await self.proc.stdout.readline()
            if not line:
                return None
            if line in (b"\r\n", b"\n"):
                break
            key, _, value = line.decode().partition(":")
            if key.lower() == "content-length":
                length = int(value)
        return json.loads(await self.proc.stdout.readexactly(length))

    async def _read_loop(self) -> None:
        while (message := await self._read_message()) is not None:
            now = time.perf_counter()
            if "id" in message and "method" in message:  # a request from the server
                result: Any = None
                if message["method"] == "workspace/configuration":
                    result = [None] * len(message.get("params", {}).get("items", []))
                self._send({"id": message["id"], "result": result})
            elif "id" in message:
                future = self.pending.pop(message["id"], None)
                if future is not None and not future.done():
                    future.set_result(message.get("result"))
            elif message.get("method") == "textDocument/publishDiagnostics":
                self.published.put_nowait((now, message["params"]))

    async def wait_diagnostics(self, uri: str, version: int | None) -> float:
        """Arrival time of the publish for ``version`` (or, without versions, the next one)."""
        deadline = time.perf_counter() + EDIT_TIMEOUT
        while True:
            left = deadline - time.perf_counter()
            when, params = await asyncio.wait_for(self.published.get(), max(left, 0.001))
            if params.get("uri") != uri:
                continue
            got = params.get("version")
            if got is None or version is None:
                self.by_order += 1
                return when
            if got == version:
                return when

    def peak_memory_kb(self) -> int:
        """VmHWM of the server process (read before shutdown)."""
        try:
            status = Path(f"/proc/{self.proc.pid}/status").read_text()
        except OSError:
            return 0
        for line in status.splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
        return 0

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.request("shutdown", None, timeout=10)
            self.notify("exit", None)
        try:
            await asyncio.wait_for(self.proc.wait(), 10)
        except asyncio.TimeoutError:
            self.proc.kill()
            await self.proc.wait()
        self.reader.cancel()


@dataclass(frozen=True)
class Edit:
    """One keystroke: replace ``length`` characters at (line, character) by ``text``."""

    line: int
    character: int
    length: int
    text: str


def edit_sequence(text: str, count: int, seed: int, offset: int = 0) -> list[Edit]:
    """``count`` small edits: typing a comment at line ends (half in pipeline loops) and
    flipping ``stage=`` digits of pipeline headers, so every version parses and some change
    verdicts. ``offset`` shifts the line numbers (the padded file's copy of the kernel).
    """
    rng = random.Random(seed)
    lines = text.splitlines()
    headers = [n for n, ln in enumerate(lines) if "pl.pipeline(" in ln and "stage=" in ln]
    in_loops = [n + 1 for n in headers if n + 1 < len(lines)]
    others = [n for n, ln in enumerate(lines) if ln.strip().startswith(("t", "pl.tile.store"))
              and n not in in_loops]
    targets = rng.sample(in_loops, min(5, len(in_loops))) + rng.sample(others, 5)
    edits: list[Edit] = []
    typed = "  # retuned"
    keys = 0  # characters typed so far (flips do not advance the typing)
    while len(edits) < count:
        if len(edits) % 5 == 4 and headers:
            n = rng.choice(headers)
            col = lines[n].index("stage=") + len("stage=")
            new = "3" if lines[n][col] == "2" else "2"
            lines[n] = lines[n][:col] + new + lines[n][col + 1:]
            edits.append(Edit(n + offset, col, 1, new))
            continue
        n = targets[(keys // len(typed)) % len(targets)]
        char = typed[keys % len(typed)]  # a whole comment per line, so every version parses
        edits.append(Edit(n + offset, len(lines[n]), 0, char))
        lines[n] += char
        keys += 1
    return edits


@dataclass
class ServerRun:
    label: str
    latencies: list[float] = field(default_factory=list)
    open_seconds: float = 0.0
    peak_kb: int = 0
    missed: int = 0
    note: str = ""

    def pct(self, q: float) -> float:
        data = sorted(self.latencies)
        if not data:
            return float("nan")
        return data[min(len(data) - 1, int(round(q * (len(data) - 1))))]


async def drive_server(
    label: str, argv: Sequence[str], init_options: Any, path: Path, edits: Sequence[Edit]
) -> ServerRun:
    """Open ``path``, then apply ``edits`` one at a time, timing each to its diagnostics."""
    run = ServerRun(label)
    client = await LspClient.start(argv, path.parent)
    uri = path.as_uri()
    try:
        await client.request("initialize", {
            "processId": os.getpid(),
            "rootUri": path.parent.as_uri(),
            "workspaceFolders": [{"uri": path.parent.as_uri(), "name": "bench"}],
            "capabilities": {"textDocument": {
                "synchronization": {"didSave": True},
                "publishDiagnostics": {"versionSupport": True},
            }},
            "initializationOptions": init_options,
        }, timeout=60)
        client.notify("initialized", {})
        start = time.perf_counter()
        client.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "python", "version": 0, "text": path.read_text()}})
        run.open_seconds = await client.wait_diagnostics(uri, 0) - start
        for version, edit in enumerate(edits, start=1):
            rng = {"start": {"line": edit.line, "character": edit.character},
                   "end": {"line": edit.line, "character": edit.character + edit.length}}
            sent = time.perf_counter()
            client.notify("textDocument/didChange", {
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"range": rng, "text": edit.text}],
            })
            try:
                run.latencies.append(await client.wait_diagnostics(uri, version) - sent)
            except asyncio.TimeoutError:
                run.missed += 1
        run.peak_kb = client.peak_memory_kb()
        run.note = "matched by order" if client.by_order else "matched by version"
    except (asyncio.TimeoutError, ConnectionError, OSError) as error:
        run.note = f"failed: {type(error).__name__} {error}"
    finally:
        await client.close()
    return run


def skewlsp_init_options() -> tuple[dict[str, Any], str]:
    """Debounce off when the server has the setting (it would dominate the latency)."""
    settings = REPO / "skewlsp" / "server" / "settings.py"
    if settings.is_file() and '"debounce"' in settings.read_text():
        return {"debounce": 0}, "debounce 0"
    return {}, "server default debounce (no setting found)"


# ----------------------------------------------------------------------------- report


def fmt_s(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds < 10 else f"{seconds:.1f} s"


def fmt_ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}"


def verdict(ratio: float, limit: float, higher_is_better: bool = False) -> str:
    """PASS/MISS, and by how much a miss misses."""
    if ratio != ratio:  # NaN
        return "n/a"
    ok = ratio >= limit if higher_is_better else ratio <= limit
    if ok:
        return "PASS"
    factor = limit / ratio if higher_is_better else ratio / limit
    return f"MISS by {factor:.2f}x"


def print_table(title: str, header: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    print(f"\n## {title}\n")
    print("| " + " | ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in rows:
        print("| " + " | ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)) + " |")


def machine() -> str:
    cpu = "unknown CPU"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return (f"nproc {os.cpu_count()}, {cpu}, Python {platform.python_version()}, "
            f"{platform.system()} {platform.release()}; load average {load}")


def version_of(argv: Sequence[str]) -> str:
    out = subprocess.run([*argv, "--version"], capture_output=True, text=True, check=False)
    return (out.stdout or out.stderr).strip().splitlines()[0] if (out.stdout or out.stderr) else "?"


# ----------------------------------------------------------------------------- phases


@dataclass
class Config:
    runs: int
    corpus_lines: int
    fixit_lines: int
    kernel_lines: int
    pad_factor: int
    edits: int
    seed: int
    paths: list[str]
    skip_fixit: bool
    skip_server: bool
    skip_size: bool = False
    floor: bool = False
    pypto: str = ""
    floor_runs: int = 5
    dense_files: int = 1160
    previews: bool = False


def cli_phase(cfg: Config, files: list[Path], cwd: Path) -> dict[str, Series]:
    """Interleaved runs of every CLI command on the same file list."""
    names = [str(p) for p in files]
    skewlint = [str(VENV_BIN / "skewlint"), "--output-format", "concise", "--exit-zero"]
    ruff = [str(VENV_BIN / "ruff"), "check", "--no-cache", "--isolated", "--select", RUFF_RULES,
            "--output-format", "concise", "--exit-zero"]
    cache = skewlint_cache_dir(files[0])
    series = {k: Series(k) for k in ("nocache", "empty", "warm", "ruff")}
    series["nocache"].label = "skewlint --no-cache"
    series["empty"].label = "skewlint, empty cache dir"
    series["warm"].label = "skewlint, warm cache"
    series["ruff"].label = f"ruff check --no-cache --select {RUFF_RULES}"
    for _ in range(cfg.runs):
        series["nocache"].samples.append(measure([*skewlint, "--no-cache", *names], cwd))
        clear_cache(cache)
        series["empty"].samples.append(measure([*skewlint, *names], cwd))
        series["warm"].samples.append(measure([*skewlint, *names], cwd))
        series["ruff"].samples.append(measure([*ruff, *names], cwd))
    for item in series.values():
        item.check((0,))
    if cfg.skip_fixit:
        return series
    fixit = ensure_fixit()
    subset = fixit_subset(files, cfg.fixit_lines)
    sub_lines, all_lines = count_lines(subset), count_lines(files)
    fx = Series("fixit lint (default rules)", scale=all_lines / sub_lines)
    if len(subset) < len(files):
        fx.label += f", {len(subset)} of {len(files)} files"
        fx.note = f"measured on {sub_lines} lines, extrapolated per line x{fx.scale:.1f}"
    for _ in range(max(1, min(cfg.runs, 3))):
        fx.samples.append(measure([str(fixit), "lint", *map(str, subset)], cwd))
    fx.check((0, 1))
    series["fixit"] = fx
    return series


def scaling_phase(cfg: Config, base: Path, padded: Path) -> dict[str, Series]:
    """``skewlint --no-cache`` on the kernel alone vs padded; plus the bare analysis inside."""
    argv = [str(VENV_BIN / "skewlint"), "--no-cache", "--output-format", "concise", "--exit-zero"]
    out = {"base": Series("skewlint --no-cache, 1 kernel"),
           "padded": Series(f"skewlint --no-cache, kernel padded {cfg.pad_factor}x")}
    for _ in range(cfg.runs):
        out["base"].samples.append(measure([*argv, str(base)], base.parent))
        out["padded"].samples.append(measure([*argv, str(padded)], base.parent))
    for item in out.values():
        item.check((0,))
    for key, path in (("a_base", base), ("a_padded", padded)):
        out[key] = Series(f"analyze() in-process, {path.name}", analyze_samples(path, cfg.runs))
    return out


ANALYZE = r"""
import json, sys, time
from skewlsp.analysis import analyze
text = open(sys.argv[1]).read()
analyze(text, sys.argv[1])
times = []
for _ in range(int(sys.argv[2])):
    t = time.perf_counter(); analyze(text, sys.argv[1]); times.append(time.perf_counter() - t)
print(json.dumps(times))
"""


def analyze_samples(path: Path, runs: int) -> list[Sample]:
    """Time the pure analysis of one file (warm interpreter): what one server edit costs."""
    out = subprocess.run([sys.executable, "-c", ANALYZE, str(path), str(runs)],
                         capture_output=True, text=True, check=True)
    return [Sample(t, 0, 0) for t in json.loads(out.stdout)]


# ----------------------------------------------------------------------------- size (issue 8)

SIZE_GOAL_SECONDS_PER_MB = 1.0
MB = 1_000_000

PER_MB = r"""
import json, sys, time
from skewlsp.analysis import analyze
text = open(sys.argv[1], encoding="utf-8").read()
start = time.process_time()
reports = analyze(text, sys.argv[1])
print(json.dumps([time.process_time() - start, len(reports)]))
"""


def size_inputs(dest: Path) -> list[tuple[str, Path]]:
    """About 1 MB each: loop-dense shapes (the worst case) and loop-free ones."""
    kernel = (REPO / "examples" / "odd_trip.py").read_text(encoding="utf-8")
    last_body_line = "            pl.tile.store(oi, [i * 16, 0], out)\n"
    body = "@pl.program" + kernel.split("@pl.program", 1)[1]
    copies = MB // len(body)
    shapes = {
        "loop-dense: many small kernels": kernel + "".join(
            body.replace("class OddTrip", f"class K{n}") for n in range(copies)),
        "loop-dense: one huge loop body": kernel.replace(
            last_body_line, last_body_line * (MB // len(last_body_line))),
        "loop-free functions": kernel + "".join(
            f"def helper_{n}(a):\n    return [a + 1 for b in range(3)]\n"
            for n in range(MB // 50)),
        "comments": kernel + ("# " + "x" * 78 + "\n") * (MB // 81),
    }
    dest.mkdir(parents=True, exist_ok=True)
    files = []
    for n, (name, text) in enumerate(shapes.items()):
        path = dest / f"size_{n}.py"
        path.write_text(text, encoding="utf-8")
        files.append((name, path))
    return files


def size_phase() -> list[list[str]]:
    """CPU seconds per MB of ``analyze()`` on each shape (one run each: they are slow)."""
    rows = []
    for name, path in size_inputs(CORPUS_ROOT / "size"):
        megabytes = path.stat().st_size / MB
        out = subprocess.run([sys.executable, "-c", PER_MB, str(path)],
                             capture_output=True, text=True, check=True)
        seconds, loops = json.loads(out.stdout)
        per_mb = seconds / megabytes
        verdict = "PASS" if per_mb <= SIZE_GOAL_SECONDS_PER_MB else (
            f"MISS by {per_mb / SIZE_GOAL_SECONDS_PER_MB:.1f}x")
        rows.append([name, f"{megabytes:.2f}", str(loops), f"{seconds:.2f}", f"{per_mb:.2f}",
                     f"<= {SIZE_GOAL_SECONDS_PER_MB:g}", verdict])
    return rows


def server_phase(cfg: Config, base: Path, padded: Path, offset: int) -> list[ServerRun]:
    options, note = skewlsp_init_options()
    ruff_options = {"settings": {"lint": {"select": RUFF_RULES.split(",")},
                                 "configurationPreference": "editorOnly"}}
    servers = [
        (f"skewlsp ({note})", [sys.executable, "-m", "skewlsp"], options),
        ("ruff server", [str(VENV_BIN / "ruff"), "server"], ruff_options),
    ]
    text = base.read_text()
    runs: list[ServerRun] = []
    for path, shift in ((base, 0), (padded, offset)):
        edits = edit_sequence(text, cfg.edits, cfg.seed, shift)
        for label, argv, init in servers:
            run = asyncio.run(drive_server(f"{label}, {path.name}", argv, init, path, edits))
            runs.append(run)
    return runs


# ----------------------------------------------------------------------------- floor (issue 19)

PYPTO_ENV = "SKEWLSP_PYPTO_MODELS"
DENSE_FILES = 1160
FLOOR_RUNS = 5
FLOOR_COLD_GOAL = 1.5
FLOOR_WARM_GOAL = 1.0
FLOOR_FORMAT = "json"  # the machine contract, for skewlint and ruff alike

# The least work any libcst analyzer of the pipeline loops can do, in a fresh
# interpreter: read every file, skip those that never say "pipeline" (skewlint's
# own exact pre-filter), find the outermost ``for ... in <x>.pipeline(...)``
# statements with the stdlib parser, and parse exactly those statements with
# libcst (inside an ``if 1:`` block, so that their indentation stays as written).
FLOOR = r"""
import ast, json, sys
import libcst

def outermost_pipeline_loops(node):
    for child in ast.iter_child_nodes(node):
        if (isinstance(child, (ast.For, ast.AsyncFor)) and isinstance(child.iter, ast.Call)
                and isinstance(child.iter.func, ast.Attribute)
                and child.iter.func.attr == "pipeline"):
            yield child
        else:
            yield from outermost_pipeline_loops(child)

loops = 0
for name in json.loads(open(sys.argv[1]).read()):
    with open(name, "rb") as stream:
        data = stream.read()
    if b"pipeline" not in data:
        continue
    text = data.decode("utf-8")
    lines = text.splitlines(keepends=True)
    for loop in outermost_pipeline_loops(ast.parse(text)):
        libcst.parse_module("if 1:\n" + "".join(lines[loop.lineno - 1 : loop.end_lineno]))
        loops += 1
print(loops, file=sys.stderr)
"""


# What parsing alone costs an analyzer that gives libcst each whole top-level definition
# holding a pipeline loop (a method on its own, in an ``if 1:`` block), as skewlint's
# units do today: the same reading and stdlib parse as the floor, more libcst text. The
# gap between this and the floor is what taking a loop's context from the stdlib tree
# (issue 19) can win; the gap between cold skewlint and this is the analysis itself.
FLOOR_DEFINITIONS = r"""
import ast, json, sys
import libcst

def holds_pipeline_loop(node):
    return any(
        isinstance(n, (ast.For, ast.AsyncFor)) and isinstance(n.iter, ast.Call)
        and isinstance(n.iter.func, ast.Attribute) and n.iter.func.attr == "pipeline"
        for n in ast.walk(node)
    )

def definitions(body, nested):
    for stmt in body:
        if isinstance(stmt, ast.ClassDef):
            yield from definitions(stmt.body, True)
        elif holds_pipeline_loop(stmt):
            yield stmt, nested

parsed = 0
for name in json.loads(open(sys.argv[1]).read()):
    with open(name, "rb") as stream:
        data = stream.read()
    if b"pipeline" not in data:
        continue
    text = data.decode("utf-8")
    lines = text.splitlines(keepends=True)
    for stmt, nested in definitions(ast.parse(text).body, False):
        first = min([stmt.lineno, *(d.lineno for d in getattr(stmt, "decorator_list", ()))])
        block = "".join(lines[first - 1 : stmt.end_lineno])
        libcst.parse_module("if 1:\n" + block if nested else block)
        parsed += 1
print(parsed, file=sys.stderr)
"""


def dense_tree(dest: Path, count: int) -> list[Path]:
    """``count`` small kernels, every one with pipeline loops: our examples in rotation.

    Packages of 40 files each, with a ``pyproject.toml`` at the top so skewlint keeps
    its cache inside the tree (which lives in a temporary directory).
    """
    examples = sorted((REPO / "examples").glob("*.py"))
    texts = [p.read_text(encoding="utf-8") for p in examples]
    files = []
    for n in range(count):
        package = dest / f"pkg{n // 40:02d}"
        package.mkdir(parents=True, exist_ok=True)
        path = package / f"{examples[n % len(examples)].stem}_{n:04d}.py"
        path.write_text(texts[n % len(texts)], encoding="utf-8")
        files.append(path)
    write_project_file(dest, "loop-dense tree")
    return files


@dataclass
class FloorRow:
    """One tree: the floor, cold and warm skewlint, and ruff, interleaved run by run."""

    tree: str
    files: int
    lines: int
    floor: Series
    cold: Series
    warm: Series
    ruff: Series
    # The same warm run with its replay record removed first: every file answered by the
    # per-file cache (what a run after editing one file costs, minus that file's analysis).
    per_file: Series = field(default_factory=lambda: Series("skewlint, per-file cache"))
    definitions: Series = field(
        default_factory=lambda: Series("whole loop-holding definitions (ast + libcst, CPU)")
    )

    @staticmethod
    def cpu(series: Series) -> float:
        return statistics.median(s.cpu for s in series.samples)

    @property
    def cold_ratio(self) -> float:
        return self.cpu(self.cold) / self.cpu(self.floor)

    @property
    def warm_ratio(self) -> float:
        return self.warm.median / self.ruff.median

    @property
    def per_file_ratio(self) -> float:
        return self.per_file.median / self.ruff.median


def floor_tree(tree: str, files: list[Path], cwd: Path, runs: int, scratch: Path) -> FloorRow:
    """Median of ``runs`` alternating runs: floor, skewlint cold/warm, ruff (same file list)."""
    names = [str(p) for p in files]
    listing = scratch / f"files-{len(names)}.json"
    listing.write_text(json.dumps(names))
    skewlint = [str(VENV_BIN / "skewlint"), "--output-format", FLOOR_FORMAT,
                "--select", "ALL", "--exit-zero"]
    ruff = [str(VENV_BIN / "ruff"), "check", "--no-cache", "--isolated", "--select", RUFF_RULES,
            "--output-format", FLOOR_FORMAT, "--exit-zero"]
    row = FloorRow(tree, len(files), count_lines(files), Series("floor (ast + libcst, CPU)"),
                   Series("skewlint --no-cache (CPU)"), Series("skewlint, warm cache"),
                   Series(f"ruff check --no-cache --select {RUFF_RULES}"))
    measure([*skewlint, *names], cwd)  # populate the cache
    # Another command line (-q changes nothing in JSON) has a replay record of its own:
    # the one file that appears in the records folder when it first runs, deleted before
    # each timed run of it so that the per-file cache answers.
    per_file = [*skewlint, "--quiet", *names]
    time.sleep(2.1)  # files written just now are not trusted for a replay record
    measure([*skewlint, *names], cwd)  # records the warm run
    before = set(replay_records())
    measure(per_file, cwd)
    own_record = set(replay_records()) - before
    for _ in range(runs):
        row.floor.samples.append(measure([sys.executable, "-c", FLOOR, str(listing)], cwd))
        row.definitions.samples.append(
            measure([sys.executable, "-c", FLOOR_DEFINITIONS, str(listing)], cwd)
        )
        row.cold.samples.append(measure([*skewlint, "--no-cache", *names], cwd))
        row.warm.samples.append(measure([*skewlint, *names], cwd))
        for record in own_record:
            record.unlink(missing_ok=True)
        row.per_file.samples.append(measure(per_file, cwd))
        row.ruff.samples.append(measure([*ruff, *names], cwd))
    for item in (row.floor, row.definitions, row.cold, row.warm, row.per_file, row.ruff):
        item.check((0,))
    return row


def replay_records() -> list[Path]:
    """skewlint's replay records (skewlsp.cli.replay), as the commands run here see them."""
    from skewlsp.cli.replay import runs_directory

    folder = Path(runs_directory())
    return list(folder.glob("*.marshal")) if folder.is_dir() else []


def largest_kernel(files: Sequence[Path]) -> Path | None:
    """The largest file holding a ``pl.pipeline(`` loop (the server case of issue 19)."""
    kernels = [p for p in files if b"pl.pipeline(" in p.read_bytes()]
    return max(kernels, key=lambda p: p.stat().st_size, default=None)


def floor_server(cfg: Config, path: Path) -> list[ServerRun]:
    """Edit -> diagnostics on one real kernel, skewlsp and ruff server, the same edits."""
    options, note = skewlsp_init_options()
    ruff_options = {"settings": {"lint": {"select": RUFF_RULES.split(",")},
                                 "configurationPreference": "editorOnly"}}
    edits = edit_sequence(path.read_text(encoding="utf-8"), cfg.edits, cfg.seed)
    return [
        asyncio.run(drive_server(f"skewlsp ({note}), {path.name}",
                                 [sys.executable, "-m", "skewlsp"], options, path, edits)),
        asyncio.run(drive_server(f"ruff server, {path.name}", [str(VENV_BIN / "ruff"), "server"],
                                 ruff_options, path, edits)),
    ]


@contextlib.contextmanager
def _environment(name: str, value: str) -> Iterator[None]:
    """``$name`` is ``value`` for this process and the commands it runs, until the block ends."""
    before = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if before is None:
            del os.environ[name]
        else:
            os.environ[name] = before


def floor_phase(cfg: Config) -> tuple[list[FloorRow], list[ServerRun]]:
    """Both trees of issue 19: pypto-lib ``models/`` (if given) and the loop-dense tree;
    and the server on pypto-lib's largest kernel (unless ``--skip-server``)."""
    rows = []
    servers: list[ServerRun] = []
    with contextlib.ExitStack() as stack:
        import tempfile

        scratch = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="skewlsp-floor-")))
        # skewlint's replay records start empty: one left by an earlier run of this
        # benchmark (same tree, same command) would answer the "per-file cache" runs.
        stack.enter_context(_environment("XDG_CACHE_HOME", str(scratch / "cache")))
        pypto = cfg.pypto or os.environ.get(PYPTO_ENV, "")
        if pypto and Path(pypto).is_dir():
            files = python_files([pypto])
            rows.append(floor_tree(f"pypto-lib models/ ({pypto})", files, Path(pypto),
                                   cfg.floor_runs, scratch))
            kernel = largest_kernel(files)
            if kernel is not None and not cfg.skip_server:
                servers = floor_server(cfg, kernel)
        else:
            print(f"floor: no pypto-lib models/ tree (pass --pypto PATH or set ${PYPTO_ENV}); "
                  "measuring the loop-dense tree only", file=sys.stderr)
        dense = scratch / "dense"
        files = dense_tree(dense, cfg.dense_files)
        rows.append(floor_tree(f"loop-dense: {len(files)} small kernels", files, dense,
                               cfg.floor_runs, scratch))
    return rows, servers


def floor_report(rows: Sequence[FloorRow], runs: int) -> None:
    print_table(
        f"Floor (issue 19): CPU of the whole process tree for cold runs, wall for warm "
        f"(median of {runs} alternating runs; --output-format {FLOOR_FORMAT})",
        ["tree", "files", "lines", "floor CPU", "cold CPU", "cold / floor", "goal",
         "warm wall", "ruff wall", "warm / ruff", "goal", "per-file cache", "/ ruff"],
        [[r.tree, str(r.files), f"{r.lines:,}", f"{FloorRow.cpu(r.floor):.2f} s",
          f"{FloorRow.cpu(r.cold):.2f} s", f"{r.cold_ratio:.2f}x",
          verdict(r.cold_ratio, FLOOR_COLD_GOAL), fmt_s(r.warm.median), fmt_s(r.ruff.median),
          f"{r.warm_ratio:.2f}x", verdict(r.warm_ratio, FLOOR_WARM_GOAL),
          fmt_s(r.per_file.median), f"{r.per_file_ratio:.2f}x"] for r in rows])
    print_table(
        "Where the cold CPU goes: the floor, libcst given whole loop-holding definitions "
        "(what skewlint's units cost when libcst parsed them), and cold skewlint "
        "(which lints on trees made from the stdlib's)",
        ["tree", "floor CPU", "definitions CPU", "definitions / floor", "cold CPU",
         "cold / definitions"],
        [[r.tree, f"{FloorRow.cpu(r.floor):.2f} s", f"{FloorRow.cpu(r.definitions):.2f} s",
          f"{FloorRow.cpu(r.definitions) / FloorRow.cpu(r.floor):.2f}x",
          f"{FloorRow.cpu(r.cold):.2f} s",
          f"{FloorRow.cpu(r.cold) / FloorRow.cpu(r.definitions):.2f}x"] for r in rows])
    notes = [f"{r.tree}: {s.label}: {s.note.strip()}" for r in rows
             for s in (r.floor, r.definitions, r.cold, r.warm, r.ruff) if s.note.strip()]
    for note in notes:
        print(f"- {note}")


# ----------------------------------------------------------------------------- output


def cli_rows(series: dict[str, Series], lines: int) -> list[list[str]]:
    rows = []
    for item in series.values():
        t = item.times()
        rows.append([item.label, fmt_s(item.median), fmt_s(min(t)), fmt_s(max(t)),
                     f"{lines / item.median:,.0f}", f"{item.peak_mb:.0f}",
                     f"{len(t)}", item.note.strip()])
    return rows


def target_rows(cli: dict[str, Series], scale: dict[str, Series],
                servers: list[ServerRun]) -> list[list[str]]:
    rows: list[list[str]] = []
    if cli:
        ruff = cli["ruff"].median
        for key, limit in (("nocache", 3.0), ("empty", 3.0), ("warm", 1.0)):
            ratio = cli[key].median / ruff
            rows.append([f"{cli[key].label} / ruff", f"<= {limit:g}x", f"{ratio:.2f}x",
                         verdict(ratio, limit)])
        if "fixit" in cli:
            ratio = cli["fixit"].median / cli["nocache"].median
            rows.append(["fixit / skewlint --no-cache", ">= 50x", f"{ratio:.1f}x",
                         verdict(ratio, 50, higher_is_better=True)])
    if len(servers) == 4:
        ratio = servers[0].pct(0.5) / servers[1].pct(0.5)
        rows.append(["skewlsp p50 / ruff server p50", "<= 5x", f"{ratio:.2f}x",
                     verdict(ratio, 5)])
        ratio = servers[2].pct(0.5) / servers[0].pct(0.5)
        rows.append(["skewlsp p50, padded / kernel", "< 2x", f"{ratio:.2f}x", verdict(ratio, 2)])
    if scale:
        ratio = scale["padded"].median / scale["base"].median
        rows.append(["skewlint --no-cache, padded / kernel", "< 2x", f"{ratio:.2f}x",
                     verdict(ratio, 2)])
    return rows


def server_table(title: str, servers: Sequence[ServerRun]) -> None:
    print_table(
        title,
        ["server, file", "p50", "p95", "min", "max", "didOpen", "peak MB (VmHWM)", "note"],
        [[r.label, fmt_ms(r.pct(0.5)), fmt_ms(r.pct(0.95)),
          fmt_ms(min(r.latencies, default=float("nan"))),
          fmt_ms(max(r.latencies, default=float("nan"))), fmt_ms(r.open_seconds),
          f"{r.peak_kb / 1024:.0f}",
          (f"{r.missed} edits timed out; " if r.missed else "") + r.note]
         for r in servers])


def report(cfg: Config, lines: int, nfiles: int, cli: dict[str, Series],
           scale: dict[str, Series], servers: list[ServerRun], kernel: tuple[int, int],
           started: float, size: Sequence[Sequence[str]] = ()) -> None:
    print(f"\n# skewlsp benchmark ({time.strftime('%Y-%m-%d %H:%M')})\n")
    print(f"machine: {machine()}")
    fixit = "" if cfg.skip_fixit else f", fixit {FIXIT_VERSION}"  # only a tool that ran
    print(f"tools: {version_of([str(VENV_BIN / 'skewlint')])}, "
          f"{version_of([str(VENV_BIN / 'ruff')])}{fixit}")
    if cli:
        print_table(
            f"CLI on {nfiles} files, {lines:,} lines (median of {cfg.runs}; "
            "max RSS of the largest process)",
            ["command", "median", "min", "max", "lines/s", "peak MB", "runs", "note"],
            cli_rows(cli, lines))
    if scale:
        print_table(
            f"Scaling: one kernel ({kernel[0]:,} lines) vs padded {cfg.pad_factor}x "
            f"({kernel[1]:,} lines, no extra pipeline loops)",
            ["command", "median", "min", "max", "lines/s", "peak MB", "runs", "note"],
            cli_rows({k: v for k, v in scale.items() if k in ("base", "padded")}, kernel[0])
            + [[v.label, fmt_s(v.median), fmt_s(min(v.times())), fmt_s(max(v.times())),
                "", "", str(len(v.samples)), "warm interpreter"]
               for k, v in scale.items() if k.startswith("a_")])
    if servers:
        server_table(f"Server: didChange -> publishDiagnostics, {cfg.edits} edits (ms)", servers)
    print_table("Targets", ["ratio", "target", "measured", "result"],
                target_rows(cli, scale, servers))
    if size:
        print_table("Size: analyze() CPU seconds per MB of input (one run each)",
                    ["input", "MB", "loops", "CPU s", "CPU s/MB", "goal", "result"], size)
    print(f"\ntotal wall time {time.perf_counter() - started:.0f} s; "
          f"load average now {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


# ----------------------------------------------------------------------------- main


def parse_args(argv: Sequence[str] | None = None) -> Config:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*",
                        help="lint these files/directories instead of the generated corpus")
    parser.add_argument("--quick", action="store_true", help="smaller corpus, fewer runs")
    parser.add_argument("--runs", type=int, default=3, help="repetitions per command (3)")
    parser.add_argument("--corpus-lines", type=int, help="default 100000; quick 30000")
    parser.add_argument("--fixit-lines", type=int,
                        help="Fixit runs on a subset of about this many lines and is "
                             "extrapolated per line (default 5000; quick 2500)")
    parser.add_argument("--edits", type=int, help=f"server edits (default {EDITS}; quick 30)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--skip-fixit", action="store_true")
    parser.add_argument("--skip-server", action="store_true")
    parser.add_argument("--skip-size", action="store_true",
                        help="skip the CPU-seconds-per-MB measurement (~25 s)")
    parser.add_argument("--floor", action="store_true",
                        help="only the parser-floor comparison of issue 19 (both trees)")
    parser.add_argument("--pypto", default="",
                        help="pypto-lib's models/ directory for --floor "
                             "(default: $SKEWLSP_PYPTO_MODELS; skipped when absent)")
    parser.add_argument("--previews", action="store_true",
                        help="only what previews cost (benchmarks/previews.py) on PATHS "
                             "(a models/ tree): `--preview` next to a plain lint, and the "
                             "server's skewlsp/preview on the tree's largest kernel")
    parser.add_argument("--floor-runs", type=int, default=FLOOR_RUNS,
                        help=f"alternating runs per command for --floor ({FLOOR_RUNS})")
    parser.add_argument("--dense-files", type=int, default=DENSE_FILES,
                        help=f"kernels in the loop-dense tree of --floor ({DENSE_FILES})")
    args = parser.parse_args(argv)
    quick = args.quick
    return Config(
        runs=args.runs,
        corpus_lines=args.corpus_lines or (30_000 if quick else 100_000),
        fixit_lines=args.fixit_lines or (2_500 if quick else 5_000),
        kernel_lines=3_000, pad_factor=10, edits=args.edits or (30 if quick else EDITS),
        seed=args.seed,
        paths=args.paths, skip_fixit=args.skip_fixit, skip_server=args.skip_server,
        skip_size=args.skip_size, floor=args.floor, pypto=args.pypto,
        floor_runs=args.floor_runs, dense_files=args.dense_files, previews=args.previews,
    )


def kernel_files(cfg: Config) -> tuple[Path, Path, int]:
    """Write the server/scaling kernel, its padded twin and a consts module (deterministic)."""
    dest = CORPUS_ROOT / f"kernel-{cfg.kernel_lines}-{cfg.seed}"
    dest.mkdir(parents=True, exist_ok=True)
    base, padded, offset = big_kernel(cfg.seed, cfg.kernel_lines, cfg.pad_factor)
    (dest / "__init__.py").write_text("")
    (dest / "consts.py").write_text("TRIP = 8\n")
    write_project_file(dest, "benchmark kernel")
    (dest / "kernel.py").write_text(base)
    (dest / "kernel_padded.py").write_text(padded)
    return dest / "kernel.py", dest / "kernel_padded.py", offset


@contextlib.contextmanager
def phase(name: str) -> Iterator[None]:
    start = time.perf_counter()
    print(f"[{time.strftime('%H:%M:%S')}] {name} ...", flush=True)
    yield
    print(f"[{time.strftime('%H:%M:%S')}] {name}: {time.perf_counter() - start:.0f} s",
          flush=True)


def compile_skewlsp() -> None:
    """Byte-compile skewlsp's modules before anything is timed.

    A user's ``pip install`` compiles them; an editable install does not, and where
    ``PYTHONDONTWRITEBYTECODE`` is set (this machine) Python compiles every module
    edited since the last ``compileall`` again on each start, in every timed run:
    0.16 s of a 3.5 s cold run on pypto-lib here, charged to skewlint and not to the
    floor (whose libcst is compiled in site-packages).
    """
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO / "skewlsp")], check=True)


def main(argv: Sequence[str] | None = None) -> int:
    started = time.perf_counter()
    cfg = parse_args(argv)
    compile_skewlsp()
    if cfg.previews:
        import previews  # noqa: PLC0415 - only this phase needs it (it imports this module)

        print(f"\n# skewlsp previews ({time.strftime('%Y-%m-%d %H:%M')})\n")
        print(f"machine: {machine()}")
        return previews.main(cfg.paths or [cfg.pypto], cfg.runs)
    if cfg.floor:
        with phase("floor"):
            rows, servers = floor_phase(cfg)
        print(f"\n# skewlsp parser floor ({time.strftime('%Y-%m-%d %H:%M')})\n")
        print(f"machine: {machine()}")
        print(f"tools: {version_of([str(VENV_BIN / 'skewlint')])}, "
              f"{version_of([str(VENV_BIN / 'ruff')])}")
        floor_report(rows, cfg.floor_runs)
        if servers:
            server_table(f"Server: didChange -> publishDiagnostics, {cfg.edits} edits (ms), "
                         "pypto-lib's largest kernel", servers)
        print(f"\ntotal wall time {time.perf_counter() - started:.0f} s")
        return 0
    with phase("corpus"):
        if cfg.paths:
            cwd, files = Path.cwd(), python_files(cfg.paths)
        else:
            cwd, files = ensure_corpus(cfg.corpus_lines, cfg.seed)
        if not files:
            print("no Python files found", file=sys.stderr)
            return 2
        lines = count_lines(files)
        base, padded, offset = kernel_files(cfg)
    with phase("CLI"):
        cli = cli_phase(cfg, files, cwd)
    with phase("scaling"):
        scale = scaling_phase(cfg, base, padded)
    servers: list[ServerRun] = []
    if not cfg.skip_server:
        with phase("servers"):
            servers = server_phase(cfg, base, padded, offset)
    size: list[list[str]] = []
    if not cfg.skip_size:
        with phase("size"):
            size = size_phase()
    kernel = (count_lines([base]), count_lines([padded]))
    report(cfg, lines, len(files), cli, scale, servers, kernel, started, size)
    return 0


if __name__ == "__main__":
    sys.exit(main())
