"""The words and pictures the editor shows: hover markdown, lens titles, inlay labels.

Pure functions of a :class:`LoopReport` so they are tested without a client and
the wording lives in one place. The schedule and the two-core timeline make the
skew visible: which iteration the producer core issues while the consumer core
processes which.
"""

from __future__ import annotations

from skewlsp.analysis import CODES, LoopReport
from skewlsp.common.lint_codes import all_codes

MAX_TIMELINE_BLOCKS = 6  # longer schedules show their head, an ellipsis and their tail


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


def timeline(report: LoopReport) -> str | None:
    """Two rows, one per core, one block per D iterations; ``.`` is a core waiting.

    Block k: the producer issues iterations kD..kD+D-1 while the consumer
    processes the block before it, so the producer is always D ahead.
    """
    counts = schedule_counts(report)
    if counts is None or report.depth is None or report.trip is None:
        return None
    depth, trip = report.depth, report.trip
    blocks = trip // depth + 1
    width = len(str(trip - 1))

    def cells(first: int | None) -> str:
        if first is None:
            return " ".join(".".rjust(width) for _ in range(depth))
        return " ".join(str(first + k).rjust(width) for k in range(depth))

    def column(block: int) -> tuple[str, str]:
        produced = block * depth if block < blocks - 1 else None
        consumed = (block - 1) * depth if block >= 1 else None
        return cells(produced), cells(consumed)

    indices: list[int | None] = list(range(blocks))
    if blocks > MAX_TIMELINE_BLOCKS:
        indices = [0, 1, 2, None, blocks - 2, blocks - 1]
    producer: list[str] = []
    consumer: list[str] = []
    for index in indices:
        if index is None:
            gap = "…".center(len(cells(0)))
            producer.append(gap)
            consumer.append(gap)
            continue
        top, bottom = column(index)
        producer.append(top)
        consumer.append(bottom)
    return "producer: " + " | ".join(producer) + "\nconsumer: " + " | ".join(consumer)


def verdict_words(report: LoopReport) -> str:
    """The verdict in one plain sentence."""
    if report.verdict == "skewed":
        if report.requested_depth and report.depth and report.depth < report.requested_depth:
            return (
                f"Skewed, but below the requested depth: the producer half runs {report.depth} "
                f"iteration(s) ahead instead of {report.requested_depth}."
            )
        return (
            f"Skewed: the producer half runs {report.depth} iterations ahead of the consumer half."
        )
    if report.verdict == "demoted":
        return "Not skewed (demoted): the compiler runs this loop sequentially."
    if report.verdict == "left":
        return "Left alone by the skew pass: LowerPipelineLoops pipelines it (not cross-core)."
    if report.verdict == "error":
        return "The compiler will reject this loop."
    return "Unknown: the verdict depends on a value skewlsp cannot see."


def _title(code: str) -> str:
    known = all_codes().get(code)
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
            f"This body has {report.pushes} push(es) and {report.pops} pop(s) per iteration."
        )
    if report.code == "SKW023" and report.trip is not None:
        parts.append(f"This loop runs {report.trip} time(s).")
    return " ".join(parts)


def hover_markdown(report: LoopReport) -> str:
    """Hover text for a loop: verdict, reason, depths, trip, stage, schedule, timeline, fix."""
    lines = [f"**{report.verdict}** `{report.code}` — {_title(report.code)}", ""]
    lines += [verdict_words(report), "", report.message, ""]
    facts: list[str] = []
    if report.stage is not None:
        facts.append(f"- stage: `{report.stage}`")
    if report.requested_depth is not None:
        facts.append(f"- requested depth: {report.requested_depth}")
    if report.verdict == "skewed" and report.depth is not None:
        facts.append(f"- effective depth: {report.depth}")
    elif report.verdict == "demoted":
        facts.append("- effective depth: none (sequential)")
    if report.trip is not None:
        bounds = ""
        if report.start is not None and report.stop is not None:
            bounds = f" (`{report.start}` to `{report.stop}` step `{report.step or 1}`)"
        facts.append(f"- trip: {report.trip}{bounds}")
    if report.pushes is not None and report.pops is not None and report.verdict != "left":
        facts.append(f"- messages per iteration: {report.pushes} push, {report.pops} pop")
    for core in report.cores:
        depth = (
            f", depth {core.depth}" if core.depth and not core.reason.startswith("depth") else ""
        )
        copies = f" (x{core.copies}, dual AIV dispatch)" if core.copies > 1 else ""
        name = _CORE_NAMES[core.core]
        facts.append(f"- {name}: {core.verdict} `{core.code}`{depth}{copies} — {core.reason}")
    lines += facts
    halves = core_table(report)
    if halves:
        lines += ["", halves]
    schedule = schedule_text(report)
    if schedule:
        lines += ["", f"Schedule: {schedule}.", "", "```text", timeline(report) or "", "```"]
    if report.fix_hint:
        lines += ["", f"**Deeper skew:** {report.fix_hint}."]
    if report.verdict in ("demoted", "error", "unknown") or report.code == "SKW002":
        fix = _fix(report)
        if fix:
            label = "To make it skew" if report.verdict == "demoted" else "Fix"
            lines += ["", f"**{label}:** {fix}"]
    for hint in report.hints:
        lines += ["", f"`{hint.code}`: {hint.message}"]
    return "\n".join(lines).strip() + "\n"


_CORE_NAMES = {"aic": "cube (AIC)", "aiv": "vector (AIV)"}


def core_table(report: LoopReport) -> str | None:
    """The two cores' copies of the body side by side; the compiler's messages in bold.

    Kernel authors never wrote those tpush/tpop lines, so seeing where they land in
    each core's copy is what explains the two verdicts.
    """
    cores = [core for core in report.cores if core.body]
    if len(cores) < 2:
        return None
    header = "| " + " | ".join(_CORE_NAMES[c.core] for c in cores) + " |"
    rule = "|" + "---|" * len(cores)
    rows = []
    for index in range(max(len(c.body) for c in cores)):
        cells = []
        for core in cores:
            line = core.body[index] if index < len(core.body) else ""
            line = line.replace("|", "\\|")
            if line.startswith("+ "):
                cells.append(f"**`{line[2:]}`** (compiler)")
            else:
                cells.append(f"`{line}`" if line else "")
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join([header, rule, *rows])


def lens_title(report: LoopReport, *, previewable: bool = True) -> str:
    """One line above the loop.

    E.g. ``skewed · depth 2 · prologue 2, steady 3 x 2, epilogue 2 · Preview``.
    """
    parts: list[str] = [report.verdict]
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
    if report.verdict == "skewed":
        return f"depth {report.depth}"
    return report.verdict


def explain_markdown(code: str) -> str | None:
    """The long explanation of a code (analysis or lint-only), or ``None`` if unknown."""
    known = all_codes().get(code.strip().upper())
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
