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
