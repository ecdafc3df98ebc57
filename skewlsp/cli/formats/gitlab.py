"""``--output-format gitlab``: a GitLab Code Quality report (a JSON array), as ruff writes it.

Paths are relative to the project directory (``$CI_PROJECT_DIR`` in GitLab CI, else
the repository root); each issue's ``fingerprint`` is stable across runs (code, path,
message and the how-many-th identical issue in that file), so GitLab can tell new
issues from old ones in a merge request.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from skewlsp.cli.formats.context import FormatContext
from skewlsp.cli.formats.json_text import array
from skewlsp.common.diagnostic import Diagnostic

SEVERITIES = {"error": "critical", "warning": "major", "information": "minor", "hint": "info"}


def render(diagnostics: Sequence[Diagnostic], context: FormatContext) -> str:
    seen: dict[tuple[str, str, str], int] = {}
    issues: list[dict[str, Any]] = []
    for d in diagnostics:
        path = context.report_path(d.filename)
        identity = (d.code, path, d.message)
        occurrence = seen[identity] = seen.get(identity, -1) + 1
        digest = hashlib.sha256("\0".join((*identity, str(occurrence))).encode("utf-8"))
        issues.append(
            {
                "check_name": d.code,
                "description": f"{d.code}: {d.message}",
                "fingerprint": digest.hexdigest()[:32],
                "severity": SEVERITIES.get(d.severity, "major"),
                "location": {
                    "path": path,
                    "positions": {
                        "begin": {"line": d.span.line, "column": d.span.column},
                        "end": {"line": d.span.end_line, "column": d.span.end_column},
                    },
                },
            }
        )
    return array(issues)
