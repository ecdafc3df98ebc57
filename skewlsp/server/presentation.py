"""The words and pictures the editor shows: hover markdown, lens titles, inlay labels.

Pure functions of a :class:`LoopReport` so they are tested without a client and
the wording lives in one place, in the CLI's words. The hover is compact: the
verdict line, for a skewed loop a prologue / steady / epilogue table of the
iterations each half produces and consumes (per core for a split loop), then
the details. Sections are built by small functions so more can be added (e.g.
FIFO order) without reshaping the rest.
"""

from __future__ import annotations

from collections.abc import Sequence

from skewlsp.common.fixes import fix_label
from skewlsp.common.pipeline import loop_fix
from skewlsp.common.wording import assumed_lines, memory_lines, plural
from skewlsp.contract import CODES, CORE_TITLES, FIFO_REORDER, LoopReport
from skewlsp.server.fifo_hover import fifo_hover

STALE_NOTE = "as of the last version that parsed"


def schedule_counts(report: LoopReport) -> tuple[int, int, int] | None:
    """(prologue, steady iterations, epilogue) of a skewed loop: D, trip/D - 1, D."""
    depth, trip = report.depth, report.trip
    if report.verdict != "skewed" or not depth or not trip or trip % depth:
        return None
    return depth, trip // depth - 1, depth


def schedule_text(report: LoopReport) -> str | None:
    """``prologue 2, steady 3 x 2, epilogue 2`` (steady: iterations x produces per iteration)."""
    counts = schedule_counts(report)
    if counts is None:
        return None
    prologue, steady, epilogue = counts
    return f"prologue {prologue}, steady {steady} x {report.depth}, epilogue {epilogue}"


def _indices(first: int, last: int) -> str:
    """Iteration indices ``first..last`` (inclusive) in a few characters; ``—`` for none."""
    if last < first:
        return "—"
    if last == first:
        return str(first)
    if last == first + 1:
        return f"{first} {last}"
    return f"{first}..{last}"


def timeline(report: LoopReport) -> str | None:
    """The skew as a small table: prologue, steady and epilogue columns, one row for what
    each half of the loop produces and one for what it consumes (iteration indices).

    The producer half runs D iterations ahead: the prologue produces 0..D-1, the steady
    loop produces D..trip-1 while it consumes 0..trip-D-1, the epilogue consumes the
    last D. For a loop split across cores, the rows name the core that is skewed, and
    each other core's copy gets one row saying how it runs.
    """
    counts = schedule_counts(report)
    if counts is None or report.depth is None or report.trip is None:
        return None
    depth, trip = report.depth, report.trip
    prologue, steady, _ = counts
    skewed = next((core for core in report.cores if core.verdict == "skewed"), None)
    owner = f"{CORE_TITLES[skewed.core]} " if skewed is not None else ""
    header = ["", "prologue", f"steady ({steady} x {depth})", "epilogue"]
    rows = [
        header,
        [f"{owner}produce", _indices(0, prologue - 1), _indices(depth, trip - 1), "—"],
        [f"{owner}consume", "—", _indices(0, trip - depth - 1), _indices(trip - depth, trip - 1)],
    ]
    widths = [max(len(row[column]) for row in rows) for column in range(len(header))]
    text = [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]
    for core in report.cores:
        if core is skewed:
            continue
        runs = "in order" if core.verdict != "skewed" else f"skewed, depth {core.depth}"
        copies = f", {plural(core.copies, 'copy', 'copies')}" if core.copies > 1 else ""
        text.append(
            f"{CORE_TITLES[core.core]}: {core.verdict} ({core.code}), "
            f"iterations {_indices(0, trip - 1)} {runs}{copies}"
        )
    return "\n".join(text)


def _title(code: str) -> str:
    known = CODES.get(code)
    return known.title if known else code


def _fix(report: LoopReport) -> str | None:
    """What would make a demoted loop skew: the code's fix plus this loop's specifics."""
    code = CODES.get(report.code)
    if code is None:
        return None
    parts = [code.fix]
    if report.dynamic_symbol:
        parts.append(f"Here the bound depends on `{report.dynamic_symbol}`.")
    if report.offending is not None:
        parts.append(f"The statement at line {report.offending.line} is the cause.")
    if report.code == "SKW021" and report.pushes is not None and report.pops is not None:
        parts.append(
            f"This body has {plural(report.pushes, 'push')} and {plural(report.pops, 'pop')} "
            "per iteration."
        )
    if report.code == "SKW023" and report.trip is not None:
        parts.append(f"This loop runs {plural(report.trip, 'time')}.")
    return " ".join(parts)


def _facts(report: LoopReport) -> str:
    """stage, depths, trip and messages on one line, in the CLI's words."""
    facts: list[str] = []
    if report.stage is not None:
        facts.append(f"stage {report.stage}")
    if report.requested_depth is not None:
        facts.append(f"requested depth {report.requested_depth}")
    if report.verdict == "skewed" and report.depth is not None:
        facts.append(f"effective depth {report.depth}")
    elif report.verdict == "demoted":
        facts.append("effective depth none (sequential)")
    if report.trip is not None:
        bounds = ""
        if report.start is not None and report.stop is not None:
            bounds = f" (`{report.start}` to `{report.stop}` step `{report.step or 1}`)"
        facts.append(f"trip {report.trip}{bounds}")
    if report.pushes is not None and report.pops is not None and report.verdict != "left":
        facts.append(f"{plural(report.pushes, 'push')}, {plural(report.pops, 'pop')} per iteration")
    return " · ".join(facts)


def _core_lines(report: LoopReport) -> list[str]:
    """One line per core of a split loop: its verdict, and the messages the compiler adds
    to its copy (whole statements: they are short and the user never wrote them)."""
    out: list[str] = []
    for core in report.cores:
        depth = (
            f", depth {core.depth}" if core.depth and not core.reason.startswith("depth") else ""
        )
        copies = f" (x{core.copies}: dual AIV dispatch)" if core.copies > 1 else ""
        added = [line[2:] for line in core.body if line.startswith("+ ")]
        adds = (" Compiler adds " + ", ".join(f"`{line}`" for line in added) + ".") if added else ""
        out.append(
            f"- {CORE_TITLES[core.core]}: {core.verdict} `{core.code}`{depth}{copies} — "
            f"{core.reason}.{adds}"
        )
    return out


def hover_markdown(
    report: LoopReport,
    *,
    severity: str | None = None,
    hints: Sequence[tuple[str, str, str]] | None = None,
    stale: bool = False,
) -> str:
    """Hover text for a loop, compact: the verdict line (as the CLI prints it), the schedule
    of a skewed loop, then the details, labelled with the CLI's words (``fix:``, ``help:``).

    ``severity`` is the configured one (default: the code's); ``hints`` the shown
    (code, severity, message) of the loop's hints (default: all, default severities);
    ``stale``: the file does not parse now and this is the last version that did.
    """
    shown = severity or _default_severity(report.code)
    head = f"**{report.verdict}** `{report.code}` [{shown}] {report.message}"
    lines = [head]
    if stale:
        lines += ["", f"*({STALE_NOTE}: the file has a syntax error now)*"]
    facts = _facts(report)
    if facts:
        lines += ["", facts]
    table = timeline(report)
    if table:
        lines += ["", "```text", table, "```"]
    cores = _core_lines(report)
    if cores:
        lines += ["", *cores]
    memory = memory_lines(report)
    if memory:  # the buffers MemoryReuse gives the loads, per memory space
        lines += ["", *(f"- {line}" for line in memory)]
    assumed = assumed_lines(report)
    if assumed:  # the build this verdict holds for, and the loop under the others
        lines += ["", *(f"- {line}" for line in assumed)]
    if report.fix_hint:
        label = fix_label(loop_fix(report).get("applicability"))
        lines += ["", f"**{label}:** {report.fix_hint}"]
    if report.verdict in ("demoted", "error", "unknown") or report.code == "SKW002":
        fix = _fix(report)
        if fix:
            lines += ["", f"**help:** {fix}"]
    if hints is None:
        hints = [(h.code, _default_severity(h.code), h.message) for h in report.hints]
    fifo = fifo_hover(report)
    for code, level, message in hints:
        if code == FIFO_REORDER and fifo is not None:
            lines += ["", f"`{code}` [{level}] {fifo}"]  # what the peer receives, in order
            fifo = None
            continue
        if code != FIFO_REORDER:
            lines += ["", f"`{code}` [{level}] {message}"]
    return "\n".join(lines).strip() + "\n"


def join_hovers(parts: Sequence[str]) -> str:
    """Several copies of one loop (one per iteration or caller) in one hover, ruled apart."""
    return "\n---\n\n".join(parts)


def _default_severity(code: str) -> str:
    known = CODES.get(code)
    return known.severity if known else "warning"




def lens_title(report: LoopReport, *, previewable: bool = True) -> str:
    """One line above the loop.

    E.g. ``skewed · depth 2 · prologue 2, steady 3 x 2, epilogue 2 · Preview``.
    """
    parts: list[str] = [report.verdict]
    if report.instance is not None:
        parts.insert(0, report.instance.label)
    if report.verdict == "skewed":
        parts.append(f"depth {report.depth}")
        schedule = schedule_text(report)
        if schedule:
            parts.append(schedule)
    else:
        parts.append(f"{report.code}: {_title(report.code)}")
    if previewable:
        parts.append("Preview")
    return " · ".join(parts)


def inlay_label(report: LoopReport) -> str:
    """Short label after ``stage=``: ``depth 2``, ``demoted``, ``left``, ``error``, ``unknown``."""
    label = f"depth {report.depth}" if report.verdict == "skewed" else report.verdict
    if report.instance is not None and report.instance.shown_bindings:
        values = ", ".join(f"{name}={value}" for name, value in report.instance.shown_bindings)
        label = f"{values}: {label}"
    return label


def explain_markdown(code: str) -> str | None:
    """The long explanation of a code (analysis or lint-only), or ``None`` if unknown."""
    known = CODES.get(code.strip().upper())
    if known is None:
        return None
    verdict = f" · verdict `{known.verdict}`" if known.verdict not in ("-", "") else ""
    return (
        f"# {known.code}: {known.title}\n\n"
        f"Default severity `{known.severity}`{verdict}\n\n"
        f"{known.explanation}\n\n"
        f"```python\n{known.example}\n```\n\n"
        f"**Fix:** {known.fix}\n"
    )
