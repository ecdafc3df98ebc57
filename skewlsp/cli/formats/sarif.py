"""``--output-format sarif``: SARIF 2.1.0 for GitHub code scanning and other viewers.

One rule per known code (so ``ruleIndex`` is stable), with the explanation as
``fullDescription`` and the fix as ``help``. A SARIF log is read on another
machine (code scanning), where the rules page installed with skewlsp is not: a
rule gets a ``helpUri`` only from a configured ``docs-url``, and the tool no
``informationUri`` (skewlsp has no public page to name).
Columns are Unicode code points, which ``columnKind`` says explicitly. URIs are
relative to the repository root (``uriBaseId: %SRCROOT%``), and
``originalUriBaseIds`` gives that root as an absolute ``file:`` URI, so results
resolve to the same files from whichever directory skewlint ran; a file outside
the root gets its absolute ``file:`` URI.
"""

from __future__ import annotations

import json
import urllib.parse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from skewlsp import __version__
from skewlsp.cli.formats.context import FormatContext
from skewlsp.common.diagnostic import Diagnostic
from skewlsp.common.fixes import applies
from skewlsp.common.rules_page import docs_url
from skewlsp.contract import CODES, Span

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
LEVELS = {"error": "error", "warning": "warning", "information": "note", "hint": "note"}


SRCROOT = "%SRCROOT%"


def artifact_location(filename: str, context: FormatContext) -> dict[str, str]:
    """``{uri, uriBaseId}`` relative to the root, or an absolute ``file:`` URI outside it."""
    relative = context.repo_path(filename)
    if relative is None:
        return {"uri": context.absolute(filename).as_uri()}
    return {"uri": urllib.parse.quote(relative), "uriBaseId": SRCROOT}


def _region(span: Span) -> dict[str, int]:
    return {
        "startLine": span.line,
        "startColumn": span.column,
        "endLine": span.end_line,
        "endColumn": max(span.end_column, 1),
    }


def _location(
    filename: str, span: Span, context: FormatContext, label: str | None = None
) -> dict[str, Any]:
    location: dict[str, Any] = {
        "physicalLocation": {
            "artifactLocation": artifact_location(filename, context),
            "region": _region(span),
        }
    }
    if label:
        location["message"] = {"text": label}
    return location


def rules(docs: str | None = None) -> list[dict[str, Any]]:
    """One rule per code; ``helpUri`` only when ``docs`` (a ``docs-url`` template) is set."""
    result = []
    for code, info in CODES.items():
        rule: dict[str, Any] = {
            "id": code,
            "name": "".join(w.capitalize() for w in info.title.split() if w.isalnum()),
            "shortDescription": {"text": info.title},
            "fullDescription": {"text": info.explanation},
            "help": {
                "text": f"{info.explanation}\n\nFix: {info.fix}",
                "markdown": f"{info.explanation}\n\n```python\n{info.example}\n```\n\n"
                f"**Fix:** {info.fix}",
            },
            "defaultConfiguration": {"level": LEVELS.get(info.severity, "warning")},
            "properties": {"verdict": info.verdict, "severity": info.severity},
        }
        if docs:
            rule["helpUri"] = docs_url(code, docs)
        result.append(rule)
    return result


def result_for(
    diagnostic: Diagnostic, index: dict[str, int], context: FormatContext
) -> dict[str, Any]:
    result: dict[str, Any] = {
        "ruleId": diagnostic.code,
        "level": LEVELS.get(diagnostic.severity, "warning"),
        "message": {"text": diagnostic.message},
        "locations": [_location(diagnostic.filename, diagnostic.span, context)],
    }
    if diagnostic.code in index:
        result["ruleIndex"] = index[diagnostic.code]
    if applies(diagnostic, context.unsafe_fixes) and diagnostic.fix is not None:
        # Only a fix --fix applies (unsafe ones with --unsafe-fixes); advice has no edit.
        fix = diagnostic.fix
        result["fixes"] = [
            {
                "description": {"text": f"{diagnostic.code}: write `{fix.text}`"},
                "artifactChanges": [
                    {
                        "artifactLocation": artifact_location(diagnostic.filename, context),
                        "replacements": [
                            {
                                "deletedRegion": _region(fix.span),
                                "insertedContent": {"text": fix.text},
                            }
                        ],
                    }
                ],
            }
        ]
    report = diagnostic.report
    if report is not None:
        related: list[dict[str, Any]] = []
        labelled: list[tuple[Span | None, str]] = [
            (report.lead, "lead"),
            (report.offending, "offending"),
        ]
        if diagnostic.related:  # a hint with places of its own (SKW060: the moved tpush, the lead)
            labelled = [(r.span, r.message) for r in diagnostic.related]
        for span, label in labelled:
            if span is not None:
                location = _location(diagnostic.filename, span, context, label)
                location["id"] = len(related)
                related.append(location)
        if related:
            result["relatedLocations"] = related
        result["properties"] = {"kind": diagnostic.kind, "verdict": report.verdict}
        if not report.scope_only:  # (a scope without a loop claims no loop property)
            result["properties"] |= {
                "depth": report.depth,
                "requestedDepth": report.requested_depth,
                "trip": report.trip,
                "stage": report.stage,
            }
    return result


def _directory_uri(directory: Path) -> str:
    """A base URI must end with a slash, or relative URIs would replace its last segment."""
    uri = directory.as_uri()
    return uri if uri.endswith("/") else uri + "/"


def render(diagnostics: Sequence[Diagnostic], context: FormatContext) -> str:
    rule_list = rules(context.docs_url)
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
                        "rules": rule_list,
                    }
                },
                "originalUriBaseIds": {SRCROOT: {"uri": _directory_uri(context.root_dir)}},
                "columnKind": "unicodeCodePoints",
                "results": [result_for(d, index, context) for d in diagnostics],
            }
        ],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"
