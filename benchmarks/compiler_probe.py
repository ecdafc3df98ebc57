"""Compile kernel files with pypto and dump every pipeline loop after the passes skewlsp models.

    PYTHON_WITH_PYPTO benchmarks/compiler_probe.py --planner pypto|ptoas FILE...

This script runs in the *compiler's* interpreter (one where ``import pypto`` works),
never in skewlsp's: compiling a kernel means importing it, which skewlint never does.
``compiler_check.py`` starts it in a subprocess and reads the JSON it prints.

For every ``@pl.program`` class and every ``@pl.jit`` / ``@pl.jit.host`` entry a file
defines, it runs pypto's own pass pipeline (``PassManager`` through the private
``_run_pass_pipeline`` that ``ir.compile`` and ``JITFunction.lower`` share; no codegen,
no ptoas) under the chosen memory planner, with a ``CallbackInstrument`` that records
each ``ForStmt`` of the IR after NormalizeReturnOrder (what SkewCrossCorePipeline
sees), SkewCrossCorePipeline, LowerPipelineToSlots and LowerPipelineLoops, and which
pass was running when the pipeline stopped. A jit entry is specialised from its
annotations, every scalar parameter without a default left to run time (``pl.RUNTIME``),
as skewlint sees a parameter. A file loads with its own command line and with stand-ins
for the test-harness and runtime modules it imports that are not installed (``STAND_INS``).
The C++ diagnostics of the memory passes (``PH-MR-001``
perf hints, warnings) reach stderr; the probe keeps the lines that name MemoryReuse or
AllocateMemoryAddr. It also records the tiles (``memory``) after InitMemRef (each one's
memory space, bytes, buffer, ``pipeline_membership`` and the loops around it),
MemoryReuse (the buffer it shares) and AllocateMemoryAddr (where that buffer sits).

The records are the IR's own facts (kind, ``pipeline_stages``, constant bounds, the
``for``'s source line from its span, the enclosing function and its type), so that the
interpretation lives in ``compiler_check.py`` and is tested without pypto.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.abc
import importlib.machinery
import inspect
import json
import os
import re
import runpy
import sys
import tempfile
import types
from pathlib import Path
from typing import Any

# The IR is recorded after these passes (their ``Pass.get_name()``).
SNAPSHOTS = (
    "NormalizeReturnOrder",
    "SkewCrossCorePipeline",
    "LowerPipelineToSlots",
    "LowerPipelineLoops",
)
# Lines of the compiler's stderr worth keeping: the memory passes' diagnostics, as pypto's
# C++ logging prints them ("[perf_hint PH-MR-001] ...", "[warning] [MemoryReuse] ...").
DIAGNOSTIC = re.compile(r"\[(perf_hint|warning|error)\b.*(PH-MR-|MemoryReuse|AllocateMemoryAddr)")


def first_line(exc: BaseException) -> str:
    """An exception as one line (pypto appends the C++ check and a traceback); a
    verification report keeps its first message."""
    text = str(exc).strip().splitlines()
    line = f"{type(exc).__name__}: {text[0] if text else ''}"
    message = next((t.strip() for t in text if t.strip().startswith("Message:")), None)
    return (f"{line} {message}" if message else line)[:500]


def const(expr: Any, ir: Any) -> int | None:
    """The value of an integer constant expression, None for anything else."""
    return expr.value if isinstance(expr, ir.ConstInt) else None


def loop_records(program: Any, ir: Any) -> list[dict[str, Any]]:
    """One record per ``ForStmt`` of every function, in program order."""
    records: list[dict[str, Any]] = []

    class Loops(ir.IRVisitor):
        def __init__(self, function: Any) -> None:
            super().__init__()
            self.function = function
            self.depth = 0

        def visit_stmt(self, stmt: Any) -> None:
            # Overridden only to be there: without a Python visit_stmt, the binding's
            # default recursion does not come back to visit_for_stmt for nested loops.
            super().visit_stmt(stmt)

        def visit_for_stmt(self, op: Any) -> None:
            stages = op.attrs.get("pipeline_stages")
            records.append(
                {
                    "function": self.function.name,
                    "function_type": self.function.func_type.name,
                    "file": op.span.filename,
                    "line": op.span.begin_line,
                    "kind": op.kind.name,
                    "stages": int(stages) if stages is not None else None,
                    "start": const(op.start, ir),
                    "stop": const(op.stop, ir),
                    "step": const(op.step, ir),
                    "nesting": self.depth,
                }
            )
            self.depth += 1
            super().visit_for_stmt(op)
            self.depth -= 1

    for function in program.functions.values():
        Loops(function).visit_function(function)
    return records


# The IR's tiles are recorded after these passes: InitMemRef gives each tile its MemRef and
# still carries LowerPipelineLoops' ``pipeline_membership`` (MemoryReuse strips it);
# MemoryReuse decides which tiles share a buffer; AllocateMemoryAddr places the buffers.
MEMORY_SNAPSHOTS = ("InitMemRef", "MemoryReuse", "AllocateMemoryAddr")


def tile_records(program: Any, ir: Any, with_membership: bool) -> list[dict[str, Any]]:
    """One record per tile-typed assignment that has a MemRef, in program order.

    A tile is named by its function, its variable's name and which assignment of that
    name it is (``nth``): the passes after InitMemRef rewrite types but keep the
    statements, so the key finds the same tile in each snapshot. ``loops``: the
    ``[file, line]`` of the ``for`` statements around it, outermost first (the main
    loop LowerPipelineLoops keeps at the user's ``for`` line is one). ``membership``:
    the ``(group, stage)`` pairs of the defining call, with the tile's shape and dtype
    and its source line (``with_membership`` only: the attr is gone after MemoryReuse).
    """
    records: list[dict[str, Any]] = []
    # pypto prints a dtype as "bfloat16"; the records use its enum name, "BF16".
    names = [n for n in dir(ir.DataType) if n.isupper() and not n.startswith("DEFAULT")]
    dtype_names = {str(getattr(ir.DataType, n)): n for n in names}

    class Tiles(ir.IRVisitor):
        def __init__(self, function: Any) -> None:
            super().__init__()
            self.function = function
            self.loops: list[list[Any]] = []
            self.seen: dict[str, int] = {}

        def visit_stmt(self, stmt: Any) -> None:
            super().visit_stmt(stmt)  # see loop_records: keeps the recursion in Python

        def visit_for_stmt(self, op: Any) -> None:
            self.loops.append([op.span.filename, op.span.begin_line])
            super().visit_for_stmt(op)
            self.loops.pop()

        def visit_assign_stmt(self, op: Any) -> None:
            kind = op.var.type
            memref = getattr(kind, "memref", None) if isinstance(kind, ir.TileType) else None
            if memref is not None:
                name = op.var.name_hint
                nth = self.seen.get(name, 0)
                self.seen[name] = nth + 1
                record = {
                    "function": self.function.name,
                    "name": name,
                    "nth": nth,
                    "space": kind.memory_space.name,
                    "bytes": int(memref.size_),
                    "base": memref.base_.name_hint if memref.base_ is not None else None,
                    "offset": const(memref.byte_offset_, ir),
                }
                if with_membership:
                    record["shape"] = [const(extent, ir) for extent in kind.shape]
                    record["dtype"] = dtype_names.get(str(kind.dtype), str(kind.dtype))
                    attrs = op.value.attrs if isinstance(op.value, ir.Call) else {}
                    stamp = attrs.get("pipeline_membership")
                    record["membership"] = str(stamp) if stamp is not None else None
                    record["file"] = op.span.filename
                    record["line"] = op.span.begin_line
                    record["loops"] = list(self.loops)
                records.append(record)
            super().visit_assign_stmt(op)

    for function in program.functions.values():
        Tiles(function).visit_function(function)
    return records


def memory_snapshot(name: str, program: Any, ir: Any) -> dict[str, Any]:
    """The tiles after one memory pass, and the program's functions (a perf hint names
    a function by its span)."""
    return {
        "tiles": tile_records(program, ir, with_membership=name == "InitMemRef"),
        "functions": [
            {
                "name": f.name,
                "type": f.func_type.name,
                "file": f.span.filename,
                "line": f.span.begin_line,
            }
            for f in program.functions.values()
        ],
    }


@contextlib.contextmanager
def captured_stderr(lines: list[str]):
    """Route file descriptor 2 (where pypto's C++ logging writes) to a temporary file."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile(mode="w+b") as sink:
        os.dup2(sink.fileno(), 2)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            sink.seek(0)
            lines.extend(sink.read().decode("utf-8", "replace").splitlines())


def defined_here(value: Any, path: Path) -> bool:
    """Whether a function (or a jit entry's function) comes from ``path``."""
    try:
        source = inspect.getsourcefile(value)
    except TypeError:
        return False
    return source is not None and Path(source).resolve() == path


def entries(
    namespace: dict[str, Any], path: Path, ir: Any, jit_type: type
) -> list[tuple[str, Any]]:
    """The programs and jit entries the file itself defines (not those it imports).

    A program is also taken from a builder the file defines: a function named
    ``build_..._program`` that needs no argument (pypto-lib builds programs that way).
    Calling it runs the user's code, as importing the file did.
    """
    found = []
    for name, value in namespace.items():
        if isinstance(value, ir.Program):
            span_file = getattr(value.span, "filename", "")
            if not span_file or Path(span_file).resolve() == path:
                found.append((name, value))
        elif isinstance(value, jit_type) and value._func_type in ("orchestration", "host"):
            if defined_here(value._func, path):
                found.append((name, value))
        elif is_builder(name, value) and defined_here(value, path):
            try:
                built = value()
            except Exception:  # noqa: BLE001 (a builder that fails leaves its loops unknown)
                continue
            if isinstance(built, ir.Program):
                found.append((f"{name}()", built))
    return found


def is_builder(name: str, value: Any) -> bool:
    """A module-level ``build_..._program`` function callable without arguments."""
    if not (inspect.isfunction(value) and name.startswith("build_") and name.endswith("_program")):
        return False
    parameters = inspect.signature(value).parameters.values()
    return all(p.default is not inspect.Parameter.empty for p in parameters)


def scalar_defaults(entry: Any, pl: Any) -> dict[str, Any]:
    """``pl.RUNTIME`` for every scalar parameter without a default (a value known at run time)."""
    kwargs = {}
    for name, parameter in inspect.signature(entry._func).parameters.items():
        text = str(parameter.annotation)
        if "Scalar" in text and parameter.default is inspect.Parameter.empty:
            kwargs[name] = pl.RUNTIME
    return kwargs


def run_pipeline(entry: Any, context: Any, modules: dict[str, Any]) -> dict[str, Any]:
    """One run of the pass pipeline on ``entry`` under ``context``'s settings."""
    ir, passes, pl = modules["ir"], modules["passes"], modules["pl"]
    from pypto.ir.compile import _run_pass_pipeline  # noqa: PLC0415 (pypto only here)

    snapshots: dict[str, list[dict[str, Any]]] = {}
    memory: dict[str, dict[str, Any]] = {}
    running = {"pass": ""}

    def before(pass_obj: Any, _program: Any) -> None:
        running["pass"] = pass_obj.get_name()

    def after(pass_obj: Any, program: Any) -> None:
        if pass_obj.get_name() in SNAPSHOTS:
            snapshots[pass_obj.get_name()] = loop_records(program, ir)
        if pass_obj.get_name() in MEMORY_SNAPSHOTS:
            memory[pass_obj.get_name()] = memory_snapshot(pass_obj.get_name(), program, ir)

    instrument = passes.CallbackInstrument(
        before_pass=before, after_pass=after, name="SkewlspProbe"
    )
    result: dict[str, Any] = {
        "error": None,
        "failed_in": None,
        "snapshots": snapshots,
        "memory": memory,
    }
    stderr: list[str] = []
    try:
        with captured_stderr(stderr), passes.PassContext([instrument], **context):
            if isinstance(entry, ir.Program):
                _run_pass_pipeline(entry, operation="lower")
            else:
                entry.lower(**scalar_defaults(entry, pl))
    except Exception as exc:  # the compiler's verdict on this entry, not the probe's failure
        result["error"] = first_line(exc)
        result["failed_in"] = running["pass"] or "frontend"
    result["diagnostics"] = [line for line in stderr if DIAGNOSTIC.search(line)]
    return result


def compile_entry(entry: Any, planner: Any, modules: dict[str, Any]) -> dict[str, Any]:
    """The pass pipeline on one entry: the loop snapshots, the failure, the diagnostics.

    A program the IR verifier rejects (a hand-written cube/vector pair without its pipe
    set-up fails MixedKernelExpanded) is run again without verification, so that the
    passes' decisions on its loops are still seen; the rejection is kept as ``rejected``.
    """
    passes = modules["passes"]
    result = run_pipeline(entry, {"memory_planner": planner}, modules)
    result["rejected"] = None
    if result["error"] and result["error"].split(": ", 1)[-1].startswith("Verification failed"):
        rejected = f"{result['error']} in {result['failed_in']}"
        unverified = {
            "memory_planner": planner,
            "verification_level": passes.VerificationLevel.NONE,
        }
        result = run_pipeline(entry, unverified, modules)
        result["rejected"] = rejected
    return result


# Modules a kernel file imports that belong to its test harness or its runtime, not to the
# compiler, and that are not installed beside it: pypto-lib's ``golden`` (tensor specs and
# checks for a device run, outside ``models/``) and the runtime's ``simpler_setup`` (which
# ``pypto.runtime.pto_isa_include_dir()`` asks for the pinned PTO-ISA checkout when a file
# builds its extern kernels' include path at import). Compiling to the IR needs neither.
STAND_INS = ("golden", "simpler_setup")


class Absent:
    """What a stand-in module gives for any name: callable, and a path when asked for one
    (``simpler_setup.pto_isa.ensure_pto_isa_root()``); never read by the pass pipeline."""

    def __init__(self, *_args: Any, **_kwargs: Any) -> None:
        pass

    def __call__(self, *_args: Any, **_kwargs: Any) -> Absent:
        return Absent()

    def __fspath__(self) -> str:
        # An empty checkout: a ``@pl.jit.extern`` include path under it must exist.
        root = Path(tempfile.gettempdir()) / "skewlsp-absent-checkout"
        (root / "include").mkdir(parents=True, exist_ok=True)
        return str(root)

    def __getattr__(self, name: str) -> Absent:
        return absent(name)


def absent(name: str) -> Any:
    """``Absent`` for an ordinary name; a dunder stays missing, so that what inspects
    objects (``__file__``, ``__wrapped__``, ``__qualname__``) is not misled."""
    if name.startswith("__") and name.endswith("__"):
        raise AttributeError(name)
    return Absent


class StandIns(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds each module of ``STAND_INS`` (and its submodules) only when nothing earlier on
    ``sys.meta_path`` does (``as_its_own`` appends it last): its every attribute is
    ``Absent``."""

    def find_spec(self, fullname: str, _path: Any, _target: Any = None) -> Any:
        if fullname.split(".")[0] not in STAND_INS:
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec: Any) -> Any:
        module = types.ModuleType(spec.name)
        module.__path__ = []
        module.__getattr__ = absent  # type: ignore[method-assign]
        return module

    def exec_module(self, module: Any) -> None:
        pass


@contextlib.contextmanager
def as_its_own(path: Path):
    """While one kernel file loads and its entries are found: the command line is the
    file's own (pypto-lib reads ``--tp`` and the like from ``sys.argv`` at import, and the
    probe's flags are not the kernel's), and the modules of ``STAND_INS`` that are not
    installed are stood in for. Both are undone afterwards (``sys.path`` keeps the file's
    directories: its compile may still import a sibling)."""
    finder = StandIns()
    saved_argv = list(sys.argv)
    sys.argv[:] = [str(path)]
    sys.meta_path.append(finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)
        sys.argv[:] = saved_argv
        for name in [n for n, m in sys.modules.items() if getattr(m, "__loader__", None) is finder]:
            del sys.modules[name]


def load(path: Path) -> dict[str, Any]:
    """Import one kernel file as its own imports expect.

    A module in a package (``__init__.py`` beside it, maybe with relative imports) is
    imported by its dotted name from above the package; any other file is run as a
    module named ``__skewlsp_compiler_check__`` (so ``if __name__ == "__main__"`` does
    not run). Its own directory is first on sys.path either way: sibling config
    modules are imported by their bare name (``from config import ...``).
    """
    parts, top = [path.stem], path.parent
    while (top / "__init__.py").exists():
        parts.insert(0, top.name)
        top = top.parent
    sys.path[:0] = [str(path.parent), str(top)]
    if len(parts) > 1:
        return vars(importlib.import_module(".".join(parts)))
    return runpy.run_path(str(path), run_name="__skewlsp_compiler_check__")


def probe_file(path: Path, planner: Any, modules: dict[str, Any]) -> dict[str, Any]:
    """Every entry of one kernel file through the pass pipeline (the file imported first)."""
    record: dict[str, Any] = {"path": str(path), "error": None, "entries": []}
    with as_its_own(path):
        try:
            with captured_stderr([]):
                namespace = load(path)
        except BaseException as exc:  # noqa: BLE001 (a kernel that cannot load is a result)
            record["error"] = first_line(exc)
            return record
        found = entries(namespace, path, modules["ir"], modules["JITFunction"])
    for name, entry in found:
        compiled = compile_entry(entry, planner, modules)
        compiled["entry"] = name
        compiled["entry_kind"] = "program" if isinstance(entry, modules["ir"].Program) else "jit"
        record["entries"].append(compiled)
    return record


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--planner", choices=("pypto", "ptoas"), default="pypto")
    parser.add_argument("files", nargs="+", type=Path)
    args = parser.parse_args(argv)

    import pypto.language as pl  # noqa: PLC0415 (only in the compiler's interpreter)
    from pypto import ir  # noqa: PLC0415
    from pypto.jit.decorator import JITFunction  # noqa: PLC0415
    from pypto.pypto_core import passes  # noqa: PLC0415

    planner = passes.MemoryPlanner.PTOAS if args.planner == "ptoas" else passes.MemoryPlanner.PYPTO
    modules = {"ir": ir, "passes": passes, "pl": pl, "JITFunction": JITFunction}
    out = {"planner": args.planner, "files": []}
    for path in args.files:
        out["files"].append(probe_file(path.resolve(), planner, modules))
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
