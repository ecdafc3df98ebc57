"""``analysis/report`` is the one place a loop's ``LoopReport`` is put together: the
stages before it hand on records (a ``Decision``, the copy's ``Instance``, a ``Lowered``,
a ``Said``, an ``Assumed``), never a report they made or edited (docs/architecture.md,
"The record a loop moves through")."""

from __future__ import annotations

import ast
from pathlib import Path

import skewlsp

PACKAGE = Path(skewlsp.__file__).parent
# Where a LoopReport is defined and where it is put together.
ALLOWED = (PACKAGE / "contract", PACKAGE / "analysis" / "report")


def _outside_report() -> list[Path]:
    return [
        path
        for path in sorted(PACKAGE.rglob("*.py"))
        if not any(path.is_relative_to(allowed) for allowed in ALLOWED)
    ]


def _called(node: ast.Call) -> str:
    func = node.func
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")


def _is_report(node: ast.expr) -> bool:
    """An argument the package's own names say is a loop's report (``report``,
    ``walked``, ``model.report``)."""
    if isinstance(node, ast.Name):
        return node.id in ("report", "walked")
    return isinstance(node, ast.Attribute) and node.attr == "report"


def test_the_modules_scanned_include_the_driver_and_the_adapters() -> None:
    scanned = {path.relative_to(PACKAGE).as_posix() for path in _outside_report()}
    assert {
        "analysis/driver/unit_walk.py",
        "analysis/driver/helper_calls.py",
        "analysis/driver/module_run.py",
        "api.py",
    } <= scanned


def test_no_module_outside_report_constructs_a_loop_report() -> None:
    made = [
        f"{path.relative_to(PACKAGE)}:{node.lineno}"
        for path in _outside_report()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call) and _called(node) == "LoopReport"
    ]
    assert made == []


def test_no_module_outside_report_replaces_fields_of_a_loop_s_report() -> None:
    edited = [
        f"{path.relative_to(PACKAGE)}:{node.lineno}"
        for path in _outside_report()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call)
        and _called(node) == "replace"
        and node.args
        and _is_report(node.args[0])
    ]
    assert edited == []


def _annotations(node: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[str, str]:
    """The text of a function's parameter annotations, and of its return annotation."""
    arguments = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
    taken = " ".join(ast.unparse(a.annotation) for a in arguments if a.annotation is not None)
    returned = ast.unparse(node.returns) if node.returns is not None else ""
    return taken, returned


def test_the_lowering_s_record_reaches_a_report_only_where_the_report_is_finished() -> None:
    """The lowering passes hand on a ``Lowered`` beside the loop's other records; the
    report is put together with it once (``report.finish.finished_report``), never by a
    function that takes a report built already and returns it lowered."""
    lowering_reports = [
        f"{path.relative_to(PACKAGE).as_posix()}:{node.name}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and "Lowered" in _annotations(node)[0]
        and "LoopReport" in _annotations(node)[1]
    ]
    assert lowering_reports == ["analysis/report/finish.py:finished_report"]


# Where a loop's report is read once it is finished (its lowering on it), not between
# the walk and ``report.finish``: the assembly itself, and what reads its output.
_FINISHED = (PACKAGE / "analysis" / "report" / "finish.py",)


def test_the_passes_before_the_report_is_finished_read_the_lowering_s_record() -> None:
    """Between the walk and ``report.finish`` (the lowering passes themselves, the function
    stage, the memory passes, the cache's copies, the calls' contexts) a loop's lowering
    is read off the lowering's record (``Lowered``, or a ``FunctionLoop`` made from it),
    never off a report or its core results (``report.lowering``, ``core.lowering``)."""
    analysis = PACKAGE / "analysis"
    read = [
        f"{path.relative_to(PACKAGE).as_posix()}:{node.lineno}"
        for path in sorted(analysis.rglob("*.py"))
        if path not in _FINISHED
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Attribute)
        and node.attr == "lowering"
        and (
            (isinstance(node.value, ast.Name) and node.value.id in ("report", "r", "c", "core"))
            or (isinstance(node.value, ast.Attribute) and node.value.attr == "report")
        )
    ]
    assert read == []
