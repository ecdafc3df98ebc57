"""The summary that closes the text formats (``concise``, ``full``).

"Found N diagnostics (...)" or "No diagnostics in N files", then what the run only
counts (the loops the skew pass leaves, unless selected), saying how to list them.
"""

from __future__ import annotations

from collections.abc import Sequence

from skewlsp.common.diagnostic import Diagnostic
from skewlsp.common.fixes import fix_counts
from skewlsp.common.wording import plural

# What each summarised code of the loops the skew pass left counts: all counted in one line.
LEFT_LOOP_WORDS = {
    "SKW011": "replicated",
    "SKW012": "with a remainder",
    "SKW013": "with a run-time remainder",
    "SKW015": "rotated through slots",
    "SKW016": "declined by LowerPipelineToSlots",
    "SKW017": "never run",
    "SKW010": "stage=1 or unknown",
}
# The severities counted in the summary, in the plural ("information" has none).
SEVERITY_PLURALS = {"information": "information"}


def summary(
    diagnostics: Sequence[Diagnostic],
    files: int,
    summarised: Sequence[str],
    unsafe_fixes: bool = False,
) -> str:
    """The closing lines of the text formats: what was found, what ``--fix`` would fix
    (as ruff words it), then what was only counted."""
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
    text += fixable_line(diagnostics, unsafe_fixes)
    hidden: dict[str, int] = {}
    for code in summarised:
        hidden[code] = hidden.get(code, 0) + 1
    return text + _left_loops(hidden) + "".join(
        f"{plural(n, f'{code} diagnostic')} ({code}, not shown; "
        f"`--extend-select {code}` lists {'it' if n == 1 else 'them'}).\n"
        for code, n in sorted(hidden.items())
        if code not in LEFT_LOOP_WORDS
    )


def _left_loops(hidden: dict[str, int]) -> str:
    """One line for the loops the lowering passes take: how many, and what becomes of them."""
    counted = [(code, hidden[code]) for code in LEFT_LOOP_WORDS if code in hidden]
    if not counted:
        return ""
    total = sum(n for _, n in counted)
    parts = ", ".join(f"{n} {LEFT_LOOP_WORDS[code]} ({code})" for code, n in counted)
    left = "loop left as a pipeline loop" if total == 1 else "loops left as pipeline loops"
    return (
        f"{total} {left}, not shown: {parts}; "
        f"`--extend-select SKW01` lists {'it' if total == 1 else 'them'}.\n"
    )


def fixable_line(diagnostics: Sequence[Diagnostic], unsafe_fixes: bool) -> str:
    """``[*] 2 fixable with the `--fix` option.``, or ``No fixes available (1 hidden fix
    can be enabled with the `--unsafe-fixes` option).``: ruff's lines ("" when neither)."""
    fixable, hidden, _ = fix_counts(diagnostics, unsafe_fixes)
    more = (
        f" ({plural(hidden, 'hidden fix', 'hidden fixes')} can be enabled with the "
        "`--unsafe-fixes` option)"
        if hidden
        else ""
    )
    if fixable:
        return f"[*] {fixable} fixable with the `--fix` option{more}.\n"
    return f"No fixes available{more}.\n" if hidden else ""
