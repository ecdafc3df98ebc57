"""``--output-format junit``: JUnit XML, one test suite per file and one test case per
diagnostic, as ruff writes it (CI systems show it as a test report).

A diagnostic at its file's ``fail-on`` severity or above (what makes the exit code 1) is
a failing test case; one below it (SKW001 "nothing to fix" under the default ``warning``)
is a passing test case with the finding in its ``system-out``. A run without
diagnostics is one passing test case, so the report is never empty.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence

from skewlsp.cli.formats.context import FormatContext
from skewlsp.common.diagnostic import Diagnostic

SUITE = "skewlint"


def render(diagnostics: Sequence[Diagnostic], context: FormatContext) -> str:
    failing = sum(context.fails(d) for d in diagnostics)
    top = ET.Element(
        "testsuites", name=SUITE, tests=str(len(diagnostics)), failures=str(failing), errors="0"
    )
    if not diagnostics:
        suite = ET.SubElement(
            top,
            "testsuite",
            name=SUITE,
            tests="1",
            disabled="0",
            errors="0",
            failures="0",
            package=f"org.{SUITE}",
        )
        ET.SubElement(suite, "testcase", name="No diagnostics found")
    by_file: dict[str, list[Diagnostic]] = {}
    for diagnostic in diagnostics:
        by_file.setdefault(context.report_path(diagnostic.filename), []).append(diagnostic)
    for path, found in by_file.items():
        suite = ET.SubElement(
            top,
            "testsuite",
            name=path,
            tests=str(len(found)),
            disabled="0",
            errors="0",
            failures=str(sum(context.fails(d) for d in found)),
            package=f"org.{SUITE}",
        )
        for d in found:
            case = ET.SubElement(
                suite,
                "testcase",
                name=f"org.{SUITE}.{d.code}",
                classname=path,
                line=str(d.span.line),
                column=str(d.span.column),
            )
            where = f"line {d.span.line}, col {d.span.column}"
            if context.fails(d):
                failure = ET.SubElement(case, "failure", message=d.message, type=d.severity)
                failure.text = f"{where}, {d.message}"
            else:
                ET.SubElement(case, "system-out").text = f"{where}, [{d.severity}] {d.message}"
    ET.indent(top)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(top, encoding="unicode") + "\n"
