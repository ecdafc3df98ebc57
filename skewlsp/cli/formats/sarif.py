"""``--output-format sarif``: SARIF 2.1.0 for GitHub code scanning and other viewers.

One rule per known code (so ``ruleIndex`` is stable), with the explanation as
``fullDescription``, the fix as ``help`` and the rules document as ``helpUri``.
Columns are Unicode code points, which ``columnKind`` says explicitly. URIs are
relative to the current directory (``%SRCROOT%``), as code scanning expects.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from skewlsp import __version__
from skewlsp.analysis.codes import docs_url
from skewlsp.analysis.report import Span
from skewlsp.cli.formats.context import FormatContext
from skewlsp.common.diagnostic import Diagnostic
from skewlsp.common.lint_codes import all_codes

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
LEVELS = {"error": "error", "warning": "warning", "information": "note", "hint": "note"}
INFORMATION_URI = "https://github.com/skewlsp/skewlsp"


def _uri(filename: str) -> str:
    path = Path(filename)
    if path.is_absolute():
        return path.as_uri()
    return path.as_posix()


def _region(span: Span) -> dict[str, int]:
    return {
        "startLine": span.line,
        "startColumn": span.column,
        "endLine": span.end_line,
        "endColumn": max(span.end_column, 1),
    }


def _location(filename: str, span: Span, label: str | None = None) -> dict[str, Any]:
    artifact: dict[str, Any] = {"uri": _uri(filename)}
    if not Path(filename).is_absolute():
        artifact["uriBaseId"] = "%SRCROOT%"
    location: dict[str, Any] = {
        "physicalLocation": {"artifactLocation": artifact, "region": _region(span)}
    }
    if label:
        location["message"] = {"text": label}
    return location


def rules() -> list[dict[str, Any]]:
    result = []
    for code, info in all_codes().items():
        result.append(
            {
                "id": code,
                "name": "".join(w.capitalize() for w in info.title.split() if w.isalnum()),
                "shortDescription": {"text": info.title},
                "fullDescription": {"text": info.explanation},
                "help": {
                    "text": f"{info.explanation}\n\nFix: {info.fix}",
                    "markdown": f"{info.explanation}\n\n```python\n{info.example}\n```\n\n"
                    f"**Fix:** {info.fix}",
                },
                "helpUri": docs_url(code),
                "defaultConfiguration": {"level": LEVELS.get(info.severity, "warning")},
                "properties": {"verdict": info.verdict, "severity": info.severity},
            }
        )
    return result


def result_for(diagnostic: Diagnostic, index: dict[str, int]) -> dict[str, Any]:
    result: dict[str, Any] = {
        "ruleId": diagnostic.code,
        "level": LEVELS.get(diagnostic.severity, "warning"),
        "message": {"text": diagnostic.message},
        "locations": [_location(diagnostic.filename, diagnostic.span)],
    }
    if diagnostic.code in index:
        result["ruleIndex"] = index[diagnostic.code]
    report = diagnostic.report
    if report is not None:
        related = []
        labelled: list[tuple[Span | None, str]] = [
            (report.lead, "lead"),
            (report.offending, "offending"),
        ]
        if diagnostic.related:  # a hint with places of its own (SKW060: the moved tpush, the lead)
            labelled = [(r.span, r.message) for r in diagnostic.related]
        for span, label in labelled:
            if span is not None:
                location = _location(diagnostic.filename, span, label)
                location["id"] = len(related)
                related.append(location)
        if related:
            result["relatedLocations"] = related
        result["properties"] = {
            "kind": diagnostic.kind,
            "verdict": report.verdict,
            "depth": report.depth,
            "requestedDepth": report.requested_depth,
            "trip": report.trip,
            "stage": report.stage,
        }
    return result


def render(diagnostics: Sequence[Diagnostic], context: FormatContext) -> str:
    rule_list = rules()
    index = {rule["id"]: i for i, rule in enumerate(rule_list)}
    log = {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "skewlint",
                        "version": __version__,
                        "semanticVersion": __version__,
                        "informationUri": INFORMATION_URI,
                        "rules": rule_list,
                    }
                },
                "columnKind": "unicodeCodePoints",
                "results": [result_for(d, index) for d in diagnostics],
            }
        ],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"
