"""``--statistics``: how many diagnostics per code and per verdict, instead of the listing.

Codes the run only counts (SKW010 unless selected, see ``Selection.summarised``)
are counted here too, marked as not listed, since counting is what they get.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence

from skewlsp.common.diagnostic import Diagnostic
from skewlsp.contract import CODES

NOT_LISTED = "(counted, not listed)"


def count(
    diagnostics: Sequence[Diagnostic], summarised: Sequence[str] = ()
) -> tuple[Counter[str], Counter[str]]:
    """(count per code, count per verdict of loop diagnostics), counted codes included."""
    known = CODES
    codes = Counter(d.code for d in diagnostics)
    codes.update(summarised)
    verdicts = Counter(d.verdict for d in diagnostics if d.kind == "loop" and d.verdict)
    verdicts.update(known[code].verdict for code in summarised if code in known)
    return codes, verdicts


def _ordered(counts: Counter[str]) -> list[tuple[str, int]]:
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


def render_text(diagnostics: Sequence[Diagnostic], summarised: Sequence[str] = ()) -> str:
    codes, verdicts = count(diagnostics, summarised)
    known = CODES
    severities = {d.code: d.severity for d in diagnostics}
    hidden = set(summarised) - set(severities)
    width = max((len(str(n)) for n in codes.values()), default=1)
    lines = []
    for code, n in _ordered(codes):
        title = known[code].title if code in known else ""
        severity = severities.get(code) or (known[code].severity if code in known else "")
        note = f" {NOT_LISTED}" if code in hidden else ""
        lines.append(f"{n:>{width}}\t{code}\t[{severity}]\t{title}{note}")
    if verdicts:
        lines.append("")
        lines.append("loops by verdict:")
        width = max(len(str(n)) for n in verdicts.values())
        for verdict, n in _ordered(verdicts):
            lines.append(f"{n:>{width}}\t{verdict}")
    return "\n".join(lines) + ("\n" if lines else "")


def render_json(diagnostics: Sequence[Diagnostic], summarised: Sequence[str] = ()) -> str:
    codes, verdicts = count(diagnostics, summarised)
    known = CODES
    listed = {d.code for d in diagnostics}
    data = {
        "codes": [
            {
                "code": code,
                "count": n,
                "title": known[code].title if code in known else "",
                "listed": code in listed,
            }
            for code, n in _ordered(codes)
        ],
        "verdicts": dict(sorted(verdicts.items())),
    }
    return json.dumps(data, indent=2) + "\n"
