"""``--output-format full`` (default): the remark, the loop's source with the lead and the
offending statement marked, the schedule of a skewed loop, and what would make it skew.

Modelled on rustc/ruff snippets so a reader can act without opening the file.
"""

from __future__ import annotations

from collections.abc import Sequence

from skewlsp.cli.formats.context import SEVERITY_STYLE, FormatContext
from skewlsp.common.diagnostic import Diagnostic
from skewlsp.common.fixes import fix_label
from skewlsp.common.headline import final_code, headline
from skewlsp.common.wording import assumed_lines, memory_lines, plural
from skewlsp.contract import CODES, SYNTAX_ERROR, CoreResult, LoopReport, Span, order_text

FULL_LOOP_LINES = 12  # loops up to this long are shown whole; longer ones are elided


def schedule_summary(report: LoopReport) -> str | None:
    """``prologue D, steady (trip/D-1) x D, epilogue D`` for a skewed loop."""
    if report.verdict != "skewed" or not report.depth or report.trip is None:
        return None
    depth, trip = report.depth, report.trip
    steady = trip // depth - 1
    return (
        f"schedule: prologue {depth}, steady {steady} x {depth} "
        f"({plural(steady, 'iteration')} of {plural(depth, 'produce')} + "
        f"{plural(depth, 'consume')}), epilogue {depth}"
    )


def core_line(core: CoreResult) -> str:
    """One core's copy of a split loop: its verdict, why, and what the lowering makes of it,
    under the code that says what finally happens to it (the lowering's for a copy the skew
    pass left: one code per finding, as the headline has)."""
    copies = f" (x{core.copies}: dual AIV dispatch)" if core.copies > 1 else ""
    lowered = f"; {core.lowering.reason}" if core.lowering is not None else ""
    return f"{core.core}: {core.verdict} ({final_code(core)}) {core.reason}{copies}{lowered}"


def copy_lines(copy: LoopReport) -> list[str]:
    """One copy of a loop Python builds several times: a line per core (the finding's own
    cores are one copy's, the strictest), named as its message names the copy; a copy not
    split by core gets one line with its own verdict."""
    named = copy.instance.label if copy.instance is not None else ""
    label = f"{named}: " if named else ""
    if copy.cores:
        return [label + core_line(core) for core in copy.cores]
    depth = f" depth {copy.depth}" if copy.depth is not None else ""
    lowered = f"; {copy.lowering.reason}" if copy.lowering is not None else ""
    return [f"{label}{copy.verdict} ({copy.code}){depth}{lowered}"]


def detail_lines(report: LoopReport) -> list[str]:
    """What the headline leaves out of a loop built once: the values this copy was built
    with, and, for a loop not split by core, the whole message (each core of a split loop
    has a line of its own)."""
    lines = []
    instance = report.instance
    if instance is not None and instance.caller and instance.label not in headline(report):
        lines.append(f"values: {instance.label}")
    if not report.cores and report.message != headline(report):
        lines.append(f"why: {report.message}")
    return lines


def _hint(diagnostic: Diagnostic) -> str | None:
    if diagnostic.code == "SKW001":
        return None
    known = CODES.get(diagnostic.code)
    return known.fix if known else None


def _marks(diagnostic: Diagnostic) -> dict[int, list[tuple[Span, str]]]:
    report = diagnostic.report
    marks: dict[int, list[tuple[Span, str]]] = {}
    if report is None:
        return marks
    labelled: list[tuple[Span | None, str]]
    if diagnostic.kind == "hint":
        labelled = [(diagnostic.span, diagnostic.code)]
        labelled += [(r.span, r.message) for r in diagnostic.related]
    elif diagnostic.code == SYNTAX_ERROR:
        labelled = [(diagnostic.span, "syntax error")]
    elif report.scope_only:  # a scope without a loop: its header, marked with its code
        labelled = [(diagnostic.span, diagnostic.code)]
    else:
        labelled = [(report.lead, "lead"), (report.offending, "offending")]
    for span, label in labelled:
        if span is None:
            continue
        row = marks.setdefault(span.line, [])
        same = [i for i, (other, _) in enumerate(row) if other == span]
        if same:  # the lead is often the offending statement too: one caret line
            row[same[0]] = (span, f"{row[same[0]][1]}, {label}")
        else:
            row.append((span, label))
    return marks


def _shown_lines(diagnostic: Diagnostic, marks: dict[int, list[tuple[Span, str]]]) -> list[int]:
    numbers = [n for n, _ in diagnostic.snippet]
    if not numbers:
        return []
    report = diagnostic.report
    if diagnostic.kind == "hint":
        return [n for n in numbers if n in marks or n == numbers[0]]
    if len(numbers) <= FULL_LOOP_LINES or report is None:
        return numbers
    keep = set(range(report.span.line, report.call_span.end_line + 2))
    for line in marks:
        keep.update((line - 1, line, line + 1))
    keep.add(numbers[-1])
    return [n for n in numbers if n in keep]


def snippet(diagnostic: Diagnostic, context: FormatContext) -> list[str]:
    marks = _marks(diagnostic)
    lines = dict(diagnostic.snippet)
    shown = _shown_lines(diagnostic, marks)
    if not shown:
        return []
    width = len(str(shown[-1]))
    gutter = context.style(" " * width + " |", "blue")
    out = [gutter]
    previous: int | None = None
    for number in shown:
        if previous is not None and number != previous + 1:
            out.append(context.style(" " * width + " ...", "blue"))
        text = lines[number].rstrip()
        out.append(context.style(f"{number:>{width}} |", "blue") + f" {text}")
        for span, label in marks.get(number, []):
            start = span.column - 1
            end = span.end_column - 1 if span.end_line == span.line else len(text)
            caret = "^" * max(1, end - start)
            red = "offending" in label or label == "syntax error"
            colour = ("bold", "red") if red else ("bold", "yellow")
            out.append(f"{gutter} {' ' * start}{context.style(f'{caret} {label}', *colour)}")
        previous = number
    out.append(gutter)
    return out


def render_one(
    diagnostic: Diagnostic, context: FormatContext, helped: set[str] | None = None
) -> str:
    """One finding. ``helped``: the codes whose help a run has printed already (it is
    added to): a code's help is the same for every finding, so a run says it once, at the
    first; None: always print it."""
    if helped is None:
        helped = set()
    severity = diagnostic.severity
    head = (
        context.style(
            f"{diagnostic.filename}:{diagnostic.span.line}:{diagnostic.span.column}:", "bold"
        )
        + " "
        + context.style(f"{diagnostic.code} [{severity}]", *SEVERITY_STYLE.get(severity, ()))
        + f" {diagnostic.headline}"
    )
    out = [head, *snippet(diagnostic, context)]
    notes: list[str] = []
    report = diagnostic.report
    if report is not None and diagnostic.kind == "loop":
        summary = schedule_summary(report)
        if summary:
            notes.append(summary)
        if diagnostic.copies:
            notes.extend(line for copy in diagnostic.copies for line in copy_lines(copy))
        else:
            notes.extend(detail_lines(report))
            notes.extend(core_line(core) for core in report.cores)
        notes.extend(memory_lines(report))
        if report.fix_hint:
            notes.append(f"{fix_label(diagnostic.applicability)}: {report.fix_hint}")
        notes.extend(assumed_lines(report))
    if diagnostic.kind == "hint" and diagnostic.headline != diagnostic.message:
        notes.append(f"why: {diagnostic.message}")
    if report is not None and diagnostic.code == "SKW060":
        for hazard in report.hazards:
            if hazard.moved in {r.span for r in diagnostic.related}:
                fifo, total = f"FIFO to {hazard.direction.upper()}", hazard.messages
                notes.append(f"{fifo}, source order: {order_text(hazard.source_order, total)}")
                notes.append(f"{fifo}, after the skew: {order_text(hazard.skewed_order, total)}")
    hint = _hint(diagnostic)
    if hint and diagnostic.code not in helped:
        helped.add(diagnostic.code)
        notes.append(f"help: {hint}")
    if diagnostic.preview is not None:
        notes.append("preview:\n" + diagnostic.preview.rstrip())
    elif diagnostic.preview_error is not None:
        notes.append(f"preview: {diagnostic.preview_error}")
    out.extend(context.style("  = ", "blue") + note for note in notes)
    return "\n".join(out) + "\n"


def render(diagnostics: Sequence[Diagnostic], context: FormatContext) -> str:
    helped: set[str] = set()
    return "\n".join(render_one(d, context, helped) for d in diagnostics)
