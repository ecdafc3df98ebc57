"""skewlint's verdicts against the real compiler, loop by loop, under both memory planners.

    python benchmarks/compiler_check.py [--python PYTHON_WITH_PYPTO] [--planner pypto|ptoas]
        [--callers] PATH...

For every file under PATH with a ``pl.pipeline`` loop (with ``--callers``, and every file
there importing such a file's module, or a module that does: an inline helper's callers,
through other helpers), ``compiler_probe.py``
compiles its programs and jit entries with pypto in PYTHON (a subprocess per file: compiling imports
the kernel, which skewlint never does) through SkewCrossCorePipeline,
LowerPipelineToSlots, LowerPipelineLoops, MemoryReuse and AllocateMemoryAddr, and dumps
every loop after the passes skewlsp models. ``skewlint --select ALL --output-format json``
runs on the same files with the same ``memory-planner``. ``compiler_verdicts.py`` brings
both to one vocabulary and ``compiler_compare.py`` compares them per loop and per core.

Prints one summary line per planner (agree / disagree / unknown), then every
disagreement, every unknown with its reason (``--verbose``) and the memory passes'
diagnostics (PH-MR-001 perf hints, warnings) with the entry they came from; under the
pypto planner, the memory lines: the stage groups, the hints skewlint predicts, and every
depth skewlint states as known against the compiler's group (``compiler_depths.py``;
what differs under ``--verbose``), and the K loops AutoTileMatmulL0 makes whose IR keeps
more buffers than their hint against those skewlint states at both depths
(``compiler_k_loops.py``). Exit 1 when
anything disagrees, 0 otherwise, and 0 with a message when PYTHON cannot import pypto
(default: $SKEWLSP_PYPTO_PYTHON, else this interpreter).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Collection, Iterator, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if __package__ in (None, ""):  # run as a script: the checkout makes `benchmarks` importable
    sys.path.insert(0, str(HERE.parent))

from benchmarks.compiler_compare import (  # noqa: E402
    Comparison,
    compare,
    summarise_diagnostics,
)
from benchmarks.compiler_depths import compare_depths  # noqa: E402
from benchmarks.compiler_k_loops import compare_k_loops  # noqa: E402
from benchmarks.compiler_memory import (  # noqa: E402
    fallbacks,
    group_records,
    memory_predictions,
    over_capacity,
    sizes,
    skew_taken,
    space_footprints,
)
from benchmarks.compiler_verdicts import EntryResult  # noqa: E402
from skewlsp.analysis.memory.init_memref import allocation_bytes  # noqa: E402

PLANNERS = ("pypto", "ptoas")
# A pipeline that stopped here stopped a loop skewlint predicts (the comparison shows it).
AT_OR_BEFORE_LOWERING = (
    "frontend",
    "SkewCrossCorePipeline",
    "LowerPipelineToSlots",
    "LowerPipelineLoops",
)
ENV_PYTHON = "SKEWLSP_PYPTO_PYTHON"


def pypto_python(requested: str | None) -> tuple[str, str | None]:
    """The interpreter to compile with, and why it cannot (None when it can import pypto)."""
    python = requested or os.environ.get(ENV_PYTHON) or sys.executable
    try:
        done = subprocess.run(
            [python, "-c", "import pypto"], capture_output=True, text=True, timeout=300
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return python, f"{python} cannot be run: {exc}"
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        return python, f"{python} cannot import pypto ({last})"
    return python, None


def pipeline_files(paths: list[Path]) -> dict[Path, set[int]]:
    """The ``*.py`` files under ``paths`` holding a ``for ... in <x>.pipeline(...)``, and
    the lines of those ``for`` statements."""
    found = {}
    for path, tree in _parsed_files(paths):
        lines = {node.lineno for node in ast.walk(tree) if _is_pipeline_for(node)}
        if lines:
            found[path] = lines
    return found


def _parsed_files(
    paths: list[Path], skipped: Collection[Path] = ()
) -> Iterator[tuple[Path, ast.Module]]:
    """Each ``*.py`` file under ``paths`` (resolved; not in ``skipped``) that Python parses,
    with its tree."""
    for root in paths:
        for path in sorted(root.rglob("*.py")) if root.is_dir() else [root]:
            path = path.resolve()
            if path in skipped:
                continue
            try:
                yield path, ast.parse(path.read_bytes())
            except (SyntaxError, ValueError, OSError):
                continue


def caller_files(paths: list[Path], loop_files: Collection[Path]) -> list[Path]:
    """The ``*.py`` files under ``paths`` without a pipeline loop that import the module
    of a file in ``loop_files`` or of a file found so (by its last name, from the same
    directory): where an inline helper's loop or scope is spliced into a caller in another
    file, through any number of helpers (a driver that calls the MoE layer helper, which
    calls the gate's)."""
    stems: dict[Path, set[str]] = {}
    for path in loop_files:
        stems.setdefault(path.parent, set()).add(path.stem)
    imported = {
        path: _imported_modules(tree) for path, tree in _parsed_files(paths, loop_files)
    }
    found: list[Path] = []
    while True:
        more = [
            path
            for path, names in imported.items()
            if path not in found and names & stems.get(path.parent, set())
        ]
        if not more:
            return sorted(found)
        found += more
        for path in more:
            stems.setdefault(path.parent, set()).add(path.stem)


def kernel_files(paths: list[Path], compiled: Collection[Path]) -> list[Path]:
    """The ``*.py`` files under ``paths`` not in ``compiled`` that define a function with a
    ``jit`` decorator (``@pl.jit``, ``@pl.jit.inline``, ...): kernels with no pipeline loop
    that no loop file's module reaches, whose InCore scopes AllocateMemoryAddr places too
    (a stop there is an overflow skewlint should predict)."""
    return [
        path
        for path, tree in _parsed_files(paths, compiled)
        if any(_jit_decorated(node) for node in ast.walk(tree))
    ]


def _jit_decorated(node: ast.AST) -> bool:
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    return any("jit" in ast.unparse(decorator) for decorator in node.decorator_list)


def _imported_modules(tree: ast.Module) -> set[str]:
    """The last name of every module ``tree`` imports (``from a.b import c``: ``b``)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.rsplit(".", 1)[-1])
        elif isinstance(node, ast.Import):
            names.update(alias.name.rsplit(".", 1)[-1] for alias in node.names)
    return names


def source_loops(paths: list[Path]) -> tuple[dict[str, dict[int, int]], dict[str, dict[int, int]]]:
    """Each file's ``pl.pipeline`` loops and all its ``for`` statements, as ``for``
    line -> last line: where the memory report finds the loop a stage group belongs to
    (a file that does not parse has none)."""
    pipelines: dict[str, dict[int, int]] = {}
    every: dict[str, dict[int, int]] = {}
    for path in paths:
        try:
            tree = ast.parse(path.read_bytes())
        except (SyntaxError, ValueError, OSError):
            continue
        fors = [node for node in ast.walk(tree) if isinstance(node, ast.For)]
        every[str(path)] = {node.lineno: node.end_lineno or node.lineno for node in fors}
        pipelines[str(path)] = {
            node.lineno: node.end_lineno or node.lineno for node in fors if _is_pipeline_for(node)
        }
    return pipelines, every


def memory_report(probed: list[dict[str, Any]], files: list[Path]) -> dict[str, list[Any]]:
    """What the memory passes did, from the probe's dumps: one record per pipeline stage
    group and memory space (``compiler_memory.GroupRecord``), the legacy-packing
    warnings, each function's footprint per space, the entries AllocateMemoryAddr
    stopped (a space over capacity), and each buffer InitMemRef sized, whether
    skewlsp's ``init_memref`` sizes it the same."""
    ranges, every = source_loops(files)
    report: dict[str, list[Any]] = {
        "groups": [],
        "fallbacks": [],
        "footprints": [],
        "errors": [],
        "sized": [],  # tiles skewlsp's init_memref sizes as the compiler did
        "missized": [],
        # files the compiler could not import (a helper module has no entries of its own)
        "not_loaded": [rec["path"] for rec in probed if rec.get("error") and not rec["entries"]],
    }
    for rec in probed:
        for entry in rec["entries"]:
            memory = entry.get("memory") or {}
            where = {"file": rec["path"], "entry": entry["entry"]}
            taken = skew_taken(entry.get("snapshots") or {})
            groups = group_records(
                entry["entry"], memory, entry["diagnostics"], ranges, every, taken
            )
            report["groups"] += [dict(where, **g.to_json()) for g in groups]
            report["fallbacks"] += [
                dict(where, **f.__dict__) for f in fallbacks(memory, entry["diagnostics"])
            ]
            report["footprints"] += [
                dict(where, function=function, space=space, bytes=used)
                for (function, space), used in space_footprints(memory).items()
            ]
            if entry["error"] and entry["failed_in"] == "AllocateMemoryAddr":
                over = over_capacity(memory, entry["error"])
                report["errors"].append(dict(where, error=entry["error"], over=over))
            for shape, dtype, space, size in sizes(memory):
                ours = allocation_bytes(shape, dtype, space)
                key = "sized" if ours == size else "missized"
                report[key].append(dict(where, shape=shape, dtype=dtype, space=space, bytes=size))
                if key == "missized":
                    report[key][-1]["skewlsp"] = ours
    return report


def memory_summary(planner: str, report: dict[str, list[Any]]) -> str:
    """``memory pypto: 12 stage groups x spaces; 3 with a PH-MR-001 hint ...``: how many
    groups the hints say lost depth, in how many user loops, and whether the IR's
    buffers show the depth the hint says."""
    hinted = [g for g in report["groups"] if g["hint"]]
    compared = Counter(_against_hint(g["depth_seen"], g["hint"]["achieved"]) for g in hinted)
    made = sum(1 for g in hinted if g["made"])
    skews = [g for g in report["groups"] if g["skew"]]
    skewed = sum(1 for g in skews if g["hint"])
    loops = {(g["loop"], g["entry"]) for g in hinted if g["loop"] and not g["made"]}
    sized = len(report["sized"])
    return (
        f"memory {planner}: {len(report['groups'])} stage groups x spaces, {len(hinted)} "
        f"with a PH-MR-001 hint: {len(hinted) - made} in {len(loops)} user loops x "
        f"entries ({skewed} of the {len(skews)} of skewed loops' clones), {made} in loops "
        f"the compiler made; the IR's depth equals the hint's in {compared['equal']}, is "
        f"deeper in {compared['deeper']}, shallower in {compared['shallower']}, not "
        f"measured in {compared['unmeasured']} (no tile of one name in two stages)\n"
        f"memory {planner}: {len(report['fallbacks'])} legacy-packing warnings, "
        f"{len(report['errors'])} entries over capacity in AllocateMemoryAddr; InitMemRef "
        f"sized {sized} of {sized + len(report['missized'])} tiles as skewlsp's init_memref"
    )


def _against_hint(seen: int, achieved: int) -> str:
    """How the depth the IR shows compares with the depth a hint says."""
    if seen == 0:
        return "unmeasured"
    if seen == achieved:
        return "equal"
    return "deeper" if seen > achieved else "shallower"


def unrolled_lines(files: dict[Path, set[int]]) -> dict[str, set[int]]:
    """The ``for`` lines of each file's pipeline loops that sit inside a ``pl.unroll``
    loop: UnrollLoops writes such a loop once per unrolled value into one function, so
    how many copies a function holds is not compared for it."""
    found: dict[str, set[int]] = {}
    for path in files:
        try:
            tree = ast.parse(path.read_bytes())
        except (SyntaxError, ValueError, OSError):
            continue
        lines: set[int] = set()
        for node in ast.walk(tree):
            if _is_for_over(node, "unroll"):
                lines |= {n.lineno for n in ast.walk(node) if _is_pipeline_for(n)}
        found[str(path)] = lines
    return found


def _is_for_over(node: ast.AST, kind: str) -> bool:
    return (
        isinstance(node, ast.For)
        and isinstance(node.iter, ast.Call)
        and isinstance(node.iter.func, ast.Attribute)
        and node.iter.func.attr == kind
    )


def _is_pipeline_for(node: ast.AST) -> bool:
    return _is_for_over(node, "pipeline")


def run_skewlint(files: list[Path], planner: str, cwd: Path) -> list[dict[str, Any]]:
    """skewlint's JSON for ``files`` with ``memory-planner = planner`` (its own config file)."""
    skewlint = Path(sys.executable).parent / "skewlint"
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "skewlint.toml"
        config.write_text(f'memory-planner = "{planner}"\n')
        command = [str(skewlint), "--no-cache", "--config", str(config), "--select", "ALL"]
        command += ["--output-format", "json", "--exit-zero", *map(str, files)]
        done = subprocess.run(command, capture_output=True, text=True, cwd=cwd)
    if done.returncode != 0:
        raise SystemExit(f"skewlint failed ({done.returncode}): {done.stderr.strip()}")
    return json.loads(done.stdout)


def run_probe(python: str, path: Path, planner: str, timeout: float) -> dict[str, Any]:
    """One file through the compiler; a crash or a timeout is the file's error."""
    command = [python, str(HERE / "compiler_probe.py"), "--planner", planner, str(path)]
    # Nothing written beside the kernels (a read-only copy stays as it is).
    env = dict(os.environ, PYPTO_LOG_LEVEL="info", PYTHONDONTWRITEBYTECODE="1")
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=timeout, cwd=path.parent, env=env
        )
    except subprocess.TimeoutExpired:
        return {"path": str(path), "error": f"timed out after {timeout:.0f} s", "entries": []}
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return {
            "path": str(path),
            "error": f"probe exited {done.returncode}: {tail}",
            "entries": [],
        }
    return json.loads(lines[-1])["files"][0]


def check_planner(
    python: str,
    files: dict[Path, set[int]],
    planner: str,
    timeout: float,
    cwd: Path,
    saved: Path | None,
    callers: Sequence[Path] = (),
) -> tuple[list[Comparison], list[dict[str, Any]], list[dict[str, Any]]]:
    """The comparisons, the probe's per-file records and skewlint's findings (their
    ``filename`` made absolute) under one planner.

    ``saved``: a directory of earlier probe output (``<planner>.json``, written by
    ``--save-probe``) to compare again without compiling; it must hold every file.
    ``callers``: files without loops compiled and linted too (:func:`caller_files`).
    """
    compiled = [*files, *callers]
    if saved is not None:
        kept = {rec["path"]: rec for rec in json.loads((saved / f"{planner}.json").read_text())}
        missing = [str(path) for path in compiled if str(path) not in kept]
        if missing:  # (the dumps name each file by the path it was compiled at)
            raise SystemExit(
                f"{saved / f'{planner}.json'} holds no compile of {missing[0]}"
                f"{f' (and {len(missing) - 1} more)' if len(missing) > 1 else ''}: "
                "compile it (without --load-probe), or give the paths it was compiled at"
            )
        probed = [kept[str(path)] for path in compiled]
    else:
        probed = [run_probe(python, path, planner, timeout) for path in compiled]
    entries = {
        str(Path(rec["path"]).resolve()): [EntryResult.from_json(e) for e in rec["entries"]]
        for rec in probed
    }
    for_lines = {str(path): lines for path, lines in files.items()}
    linted = run_skewlint(compiled, planner, cwd)
    found = [dict(item, filename=str((cwd / item["filename"]).resolve())) for item in linted]
    return compare(linted, entries, cwd, for_lines, unrolled_lines(files), planner), probed, found


def summary(planner: str, results: list[Comparison], probed: list[dict[str, Any]]) -> str:
    """``planner pypto: 43 loops: 40 agree, 1 disagree, 2 unknown (12 files, ...)``."""
    counts = Counter(r.status for r in results)
    entries = [e for rec in probed for e in rec["entries"]]
    loops = len(results) - counts["made"]
    failed = sum(1 for e in entries if e["error"])
    rejected = sum(1 for e in entries if e.get("rejected"))
    unloaded = sum(1 for rec in probed if rec["error"])
    return (
        f"planner {planner}: {loops} loops: {counts['agree']} agree, "
        f"{counts['disagree']} disagree, {counts['unknown']} unknown "
        f"({len(probed)} files, {unloaded} not loaded; {len(entries)} entries compiled, "
        f"{rejected} rejected by the IR verifier, {failed} stopped with an error; "
        f"{counts['made']} pipeline loops the compiler made itself)"
    )


def findings(planner: str, probed: list[dict[str, Any]]) -> list[str]:
    """What the compiler said that skewlint does not model yet: the memory passes'
    diagnostics (PH-MR-001 perf hints, warnings), the verifier's rejections and the
    errors that stopped a pipeline after the lowering passes (an AllocateMemoryAddr
    overflow)."""
    lines = []
    for rec in probed:
        name = Path(rec["path"]).name
        for entry in rec["entries"]:
            where = f"  [{planner}] {name} {entry['entry']}"
            if entry.get("rejected"):
                lines.append(f"{where}: rejected by the IR verifier: {entry['rejected']}")
            if entry["error"] and entry["failed_in"] not in AT_OR_BEFORE_LOWERING:
                lines.append(f"{where}: stopped in {entry['failed_in']}: {entry['error']}")
    diagnostics = [
        line for rec in probed for entry in rec["entries"] for line in entry["diagnostics"]
    ]
    lines += [f"  [{planner}] {line}" for line in summarise_diagnostics(diagnostics, Path.cwd())]
    return lines


def unknowns(planner: str, results: list[Comparison], probed: list[dict[str, Any]]) -> list[str]:
    """Every unknown with its reason, and every file or entry that did not compile."""
    lines = [f"  [{planner}] {r.file}:{r.line}: {r.text}" for r in results if r.status == "unknown"]
    for rec in probed:
        if rec["error"]:
            lines.append(f"  [{planner}] {rec['path']}: not loaded: {rec['error']}")
        for entry in rec["entries"]:
            if entry["error"]:
                where = f"{rec['path']} {entry['entry']}"
                lines.append(
                    f"  [{planner}] {where}: stopped in {entry['failed_in']}: {entry['error']}"
                )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument(
        "--python", help=f"an interpreter that imports pypto (default: ${ENV_PYTHON})"
    )
    parser.add_argument("--planner", choices=PLANNERS, action="append", help="default: both")
    parser.add_argument("--timeout", type=float, default=900, help="seconds per file (default 900)")
    parser.add_argument("--verbose", action="store_true", help="also list unknowns and failures")
    parser.add_argument("--json", type=Path, help="write every comparison to this file")
    parser.add_argument("--save-probe", type=Path, help="keep the compiler's loop dumps here")
    parser.add_argument("--load-probe", type=Path, help="compare dumps kept by --save-probe")
    parser.add_argument(
        "--callers",
        action="store_true",
        help="also compile and lint the files that import a loop file's module (an inline "
        "helper's callers in other files), so that the copies spliced there are compared",
    )
    parser.add_argument(
        "--kernels",
        action="store_true",
        help="also compile and lint every other file defining a jit function (kernels with "
        "no pipeline loop), so that their AllocateMemoryAddr stops are counted",
    )
    args = parser.parse_args(argv)

    python = "(kept dumps)"
    if args.load_probe is None:
        python, problem = pypto_python(args.python)
        if problem is not None:
            print(f"compiler check skipped: {problem}; pass --python or set ${ENV_PYTHON}")
            return 0
    files = pipeline_files(args.paths)
    callers = caller_files(args.paths, files) if args.callers else []
    if args.kernels:
        callers += kernel_files(args.paths, {*files, *callers})
    cwd = Path.cwd()
    started = time.monotonic()
    sections: dict[str, list[str]] = {"disagree": [], "compiler": [], "unknown": [], "memory": []}
    lines, dumped = [], {}
    memory: dict[str, dict[str, list[Any]]] = {}
    for planner in args.planner or PLANNERS:
        results, probed, linted = check_planner(
            python, files, planner, args.timeout, cwd, args.load_probe, callers
        )
        if args.save_probe is not None:
            args.save_probe.mkdir(parents=True, exist_ok=True)
            (args.save_probe / f"{planner}.json").write_text(json.dumps(probed) + "\n")
        lines.append(summary(planner, results, probed))
        memory[planner] = memory_report(probed, list(files))
        if planner == "pypto":  # under ptoas MemoryReuse leaves slotted loops alone
            sections["memory"].append(memory_summary(planner, memory[planner]))
            predictions = memory_predictions(linted, memory[planner])
            sections["memory"].append(predictions.line())
            sections["memory"] += [f"  wrong: {line}" for line in predictions.wrong]
            sections["memory"] += [f"  missed: {line}" for line in predictions.missed]
            depths = compare_depths(linted, memory[planner]["groups"])
            sections["memory"].append(depths.line())
            if args.verbose:
                sections["memory"] += [f"  {line}" for line in depths.listed()]
            memory[planner]["depths"] = [c.to_json() for c in depths.checks]
            k_loops = compare_k_loops(linted, memory[planner]["groups"])
            sections["memory"].append(k_loops.line())
            if args.verbose:
                sections["memory"] += [f"  {line}" for line in k_loops.listed()]
        sections["disagree"] += [
            f"  [{planner}] {r.file}:{r.line}: {r.text}" for r in results if r.status == "disagree"
        ]
        sections["compiler"] += findings(planner, probed)
        sections["unknown"] += unknowns(planner, results, probed)
        dumped[planner] = [r.__dict__ for r in results]
    titles = {
        "disagree": "disagreements:",
        "compiler": "the compiler also said (the memory lines compare what skewlint models):",
        "unknown": "unknown, and what did not compile:",
        "memory": "the memory passes, per pipeline stage group (--json: every record):",
    }
    for name, title in titles.items():
        if sections[name] and (name != "unknown" or args.verbose):
            lines += [title, *sections[name]]
    print("\n".join(lines))
    print(f"({time.monotonic() - started:.0f} s, compiler: {python})")
    if args.json is not None:
        dumped["memory"] = memory
        args.json.write_text(json.dumps(dumped, indent=1) + "\n")
    return 1 if sections["disagree"] else 0


if __name__ == "__main__":
    sys.exit(main())
