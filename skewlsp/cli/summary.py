"""The summary that closes the text formats (``concise``, ``full``).

"Found N diagnostics (...)" or "No diagnostics in N files", then one line per code
the run only counts (SKW010 unless selected), saying how to list them.
"""

from __future__ import annotations

from collections.abc import Sequence

from skewlsp.common.diagnostic import Diagnostic
from skewlsp.common.wording import plural

# What a summarised code counts: (one, many).
SUMMARISED_NOUNS = {"SKW010": ("loop left as a pipeline loop", "loops left as pipeline loops")}
# The severities counted in the summary, in the plural ("information" has none).
SEVERITY_PLURALS = {"information": "information"}


def summary(diagnostics: Sequence[Diagnostic], files: int, summarised: Sequence[str]) -> str:
    """The closing lines of the text formats: what was found, then what was only counted."""
    if not diagnostics:
        text = f"No diagnostics in {plural(files, 'file')}.\n"
    else:
        counts: dict[str, int] = {}
        for d in diagnostics:
            counts[d.severity] = counts.get(d.severity, 0) + 1
        order = ("error", "warning", "information", "hint")
        parts = ", ".join(
            plural(counts[s], s, SEVERITY_PLURALS.get(s)) for s in order if s in counts
        )
        text = f"Found {plural(len(diagnostics), 'diagnostic')} ({parts}).\n"
    hidden: dict[str, int] = {}
    for code in summarised:
        hidden[code] = hidden.get(code, 0) + 1
    for code, n in sorted(hidden.items()):
        one, many = SUMMARISED_NOUNS.get(code, (f"{code} diagnostic", f"{code} diagnostics"))
        text += (
            f"{plural(n, one, many)} ({code}, not shown; "
            f"`--extend-select {code}` lists {'it' if n == 1 else 'them'}).\n"
        )
    return text
