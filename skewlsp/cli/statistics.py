"""``--statistics``: how many diagnostics per code and per verdict, instead of the listing."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence

from skewlsp.common.diagnostic import Diagnostic
from skewlsp.common.lint_codes import all_codes


def count(diagnostics: Sequence[Diagnostic]) -> tuple[Counter[str], Counter[str]]:
    """(count per code, count per verdict of loop diagnostics)."""
    codes = Counter(d.code for d in diagnostics)
    verdicts = Counter(d.verdict for d in diagnostics if d.kind == "loop" and d.verdict)
    return codes, verdicts


def render_text(diagnostics: Sequence[Diagnostic]) -> str:
    codes, verdicts = count(diagnostics)
    known = all_codes()
    severities = {d.code: d.severity for d in diagnostics}
    width = max((len(str(n)) for n in codes.values()), default=1)
    lines = []
    for code, n in sorted(codes.items(), key=lambda item: (-item[1], item[0])):
        title = known[code].title if code in known else ""
        lines.append(f"{n:>{width}}\t{code}\t[{severities[code]}]\t{title}")
    if verdicts:
        lines.append("")
        lines.append("loops by verdict:")
        width = max(len(str(n)) for n in verdicts.values())
        for verdict, n in sorted(verdicts.items(), key=lambda item: (-item[1], item[0])):
            lines.append(f"{n:>{width}}\t{verdict}")
    return "\n".join(lines) + ("\n" if lines else "")


def render_json(diagnostics: Sequence[Diagnostic]) -> str:
    codes, verdicts = count(diagnostics)
    known = all_codes()
    data = {
        "codes": [
            {"code": code, "count": n, "title": known[code].title if code in known else ""}
            for code, n in sorted(codes.items(), key=lambda item: (-item[1], item[0]))
        ],
        "verdicts": dict(sorted(verdicts.items())),
    }
    return json.dumps(data, indent=2) + "\n"
