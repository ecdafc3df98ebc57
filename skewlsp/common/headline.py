"""A finding's headline: the one short line a linter prints and an editor underlines.

A loop's ``message`` says everything (each core's verdict and why, the lowering's
numbers, the values a copy was built with, every call of an inline helper): the JSON
output, the hover and ``skewlint explain``-style details keep it. A line of
``--output-format concise`` (or the head of ``full``) follows ruff's habit instead: what
happens, in plain words, with the compiler's term in parentheses, one code, short enough
to read in a terminal. It is built here from the report's typed fields (never by cutting
the message), so the CLI and the server say the same thing.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePath

from skewlsp.common.wording import plural
from skewlsp.contract import (
    CODES,
    CORE_NAMES,
    DEPTH_REDUCED,
    FIFO_REORDER,
    LEGACY_FALLBACK,
    CoreResult,
    Finding,
    LoopReport,
    Lowering,
    SpaceBuffers,
    helper_loop_at_call,
)

# The values a copy was built with stay in the headline of a loop built once up to this
# length (``blocks = 1`` tells why this call's verdict is what it is); longer ones
# (``p0 = p0_i32, final_ti0 = ...``), and those of a loop built several times, are in the
# details only.
SHORT_VALUES = 30
# The ``if`` a moved tpush sits under stays in SKW060's headline up to this length.
SHORT_GUARD = 30
# A terminal line of ``--output-format concise`` (location, code, ruff's ``[*]``, headline)
# stays within this many characters where the headline has a shorter form: without the
# call a copy is at (:func:`without_call`; the details always name it).
CONCISE_WIDTH = 160


def headline(report: LoopReport, copies: Sequence[LoopReport] = ()) -> str:
    """``called from `f` (line 40) and 1 more: cube: runs 1 iteration ahead, not 2 (skewed
    at depth 1, trip 2)``: where the copy is, then what the compiler does. ``copies``:
    every copy of a loop Python builds several times (``report`` the strictest)."""
    if report.instance is not None and not report.cores and report.lowering is None:
        # A one-core (or not compiled) copy's own text is short: the call goes in front
        # as for any copy; a module-level ``for``'s copy is named by its values alone.
        if report.own_message is None or not report.instance.caller:
            return report.message
        return f"{_where(report, copies)}: {report.own_message}"
    what = _what(report)
    where = _where(report, copies)
    return f"{where}: {what}" if where else what


def without_call(report: LoopReport) -> str | None:
    """The headline without the call a copy is at, for a terminal line it would make too
    long (the calls, and each copy's verdict, are in the details); None: the headline
    names no call."""
    if report.instance is None:
        return None
    if not report.cores and report.lowering is None:
        own = report.own_message if report.instance.caller else None
        return f"{_which_loop(report)}{own}" if own is not None else None
    return f"{_which_loop(report)}{_what(report)}"


def _which_loop(report: LoopReport) -> str:
    """``gate line 180: ``: the imported helper's loop a copy reported at its call
    is, in a short line (a call splices in each of the helper's loops); "" elsewhere."""
    loop = helper_loop_at_call(report)
    return f"`{loop.name}` line {loop.line}: " if loop is not None else ""


def hint_headline(hint: Finding, report: LoopReport) -> str | None:
    """A hint's short line, when its message is long: SKW060 says which tpush the skew
    moves behind how many produces (the block it sits in and the peer's view are in the
    message); None: the message is the headline."""
    if hint.code in (DEPTH_REDUCED, LEGACY_FALLBACK):
        return _memory_headline(hint, report)
    if hint.code != FIFO_REORDER:
        return None
    places = {r.span for r in hint.related}
    hazard = next((h for h in report.hazards if h.moved in places), None)
    if hazard is None:
        return None
    later = plural(hazard.after_produces, "later produce")
    guard = hazard.guard or ""
    under = f" (under `{guard}`)" if guard.startswith("if ") and len(guard) <= SHORT_GUARD else ""
    return (
        f"the {CORE_NAMES.get(hazard.direction, hazard.direction)} core gets tiles out of "
        f"order: the tpush at line {hazard.moved.line}{under} now follows {later} (FIFO "
        f"reordered by the skew at depth {hazard.depth})"
    )


def hint_terse(hint: Finding, report: LoopReport) -> str | None:
    """A memory finding's line for a terminal its headline would take over
    :data:`CONCISE_WIDTH`: the space, depths and cause (the core and the bytes are in the
    details); None: the hint has no shorter form."""
    found = hint.buffers
    if found is None or hint.code not in (DEPTH_REDUCED, LEGACY_FALLBACK):
        return None
    if hint.code == LEGACY_FALLBACK:
        return f"MemoryReuse fits {found.space} at no depth: it falls back to legacy packing"
    lane = " of the second lane" if found.lane == 2 else ""
    return (
        f"{_which_loop(report)}PH-MR-001: only {found.achieved} of {found.requested} "
        f"{_copies(found)} buffers fit in {found.space}{lane} ({found.cause})"
    )


def _copies(found: SpaceBuffers) -> str:
    """What the buffers are kept apart for: the main loop's stages, or the remainder's
    copies after it."""
    return "remainder copies'" if found.remainder else "stage"


def _memory_headline(hint: Finding, report: LoopReport) -> str | None:
    """A memory finding's numbers (its space record), after the call of the copy it is
    about, if any (an inline helper's copies may fit differently): the message also names
    what takes the space and what would fit."""
    found = hint.buffers
    if found is None:
        return None
    on = _core_of(found, report) + ("'s second lane" if found.lane == 2 else "")
    if hint.code == LEGACY_FALLBACK:
        what = (
            f"MemoryReuse fits {found.space}{on} at no depth: it falls back to its legacy "
            "packing"
        )
    else:
        what = (
            f"PH-MR-001: only {found.achieved} of {found.requested} {_copies(found)} "
            f"buffers fit in {found.space}{on} ({found.cause}, {found.stage_bytes} B per "
            f"{'copy' if found.remainder else 'stage'})"
        )
    caller = report.instance.caller if report.instance is not None else None
    return f"{_where(report, ())}: {what}" if caller else what


def _core_of(found: SpaceBuffers, report: LoopReport) -> str:
    """`` on the AIV core``: the core copy whose memory holds ``found`` (else the one with a
    record of its space: a legacy fallback beside an overflow); "" for a loop of one core."""
    for matches in (
        lambda core: found in core.memory,
        lambda core: any(m.space == found.space for m in core.memory),
    ):
        core = next((core for core in report.cores if matches(core)), None)
        if core is not None:
            return f" on the {core.core.upper()} core"
    return ""


def _where(report: LoopReport, copies: Sequence[LoopReport]) -> str:
    """The call (no argument values: the details list them), and how many others."""
    instance = report.instance
    if instance is None:
        return ""
    loop = helper_loop_at_call(report)
    if loop is not None:  # (a copy at its call: which loop)
        return f"the loop of `{loop.name}` from `{loop.module}` (its line {loop.line}) inlined here"
    if not instance.caller:
        values = ", ".join(f"{name} = {value}" for name, value in instance.shown_bindings)
        return f"with {values}" if values else ""
    where = f"called from `{instance.caller}`"
    if instance.call_path is not None:
        where += f" in {PurePath(instance.call_path).name}"
    if instance.call is not None:
        where += f" (line {instance.call.line})"
    values = ", ".join(f"{name} = {value}" for name, value in instance.shown_bindings)
    if values and len(values) <= SHORT_VALUES and len(copies) <= 1:
        where += f" with {values}"
    others = len(copies) - 1
    if others > 0:
        where += f" and {others} more"
    return where


def _what(report: LoopReport) -> str:
    if report.lowering is not None and report.verdict in ("left", "error"):
        return lowered(report.lowering, report.loop_var, report.trip)
    if not report.cores:
        return report.message
    core = _finding_core(report)
    text = _core_words(core, report)
    if len(report.cores) == 1:
        return text
    peer = next(c for c in report.cores if c is not core)
    if final_code(peer) == final_code(core):
        return f"both cores: {text}"
    return f"{CORE_NAMES[core.core]}: {text}"  # (the other core's verdict: in the details)


def _finding_core(report: LoopReport) -> CoreResult:
    """The core whose verdict the finding's code is (the first core if none is)."""
    return next((c for c in report.cores if final_code(c) == report.code), report.cores[0])


def final_code(core: CoreResult) -> str:
    """The code that says what finally happens to this core's copy: the lowering's when the
    skew pass left it and the lowering passes rewrite it (SKW014, not SKW010)."""
    return core.lowering.code if core.lowering is not None else core.code


def _core_words(core: CoreResult, report: LoopReport) -> str:
    if core.verdict == "skewed":
        return skewed_words(core.depth, core.requested_depth, core.trip)
    if core.verdict == "demoted":
        return f"not skewed: {core.reason}"
    if core.lowering is not None:
        return lowered(core.lowering, report.loop_var, report.trip)
    return core.reason


def skewed_words(depth: int | None, requested: int | None, trip: int | None) -> str:
    """``runs 1 iteration ahead, not 2 (skewed at depth 1, trip 2)``."""
    ahead = f"runs {plural(depth or 0, 'iteration')} ahead"
    if requested is not None and requested != depth:
        return f"{ahead}, not {requested} (skewed at depth {depth}, trip {trip})"
    return f"{ahead} (skewed at depth {depth})"


def lowered(lowering: Lowering, loop_var: str, trip: int | None) -> str:
    """What LowerPipelineToSlots / LowerPipelineLoops make of a loop, in a few words."""
    if lowering.verdict == "rotated":
        var = loop_var or "i"
        return (
            f"loads take turns in {lowering.stage} buffers "
            f"(rotated: slot {var} % {lowering.stage})"
        )
    if lowering.verdict == "empty":
        return "the loop never runs (trip 0): nothing to copy"
    if lowering.verdict == "untouched":
        return f"left as written (stage={lowering.stage}: nothing to copy)"
    if lowering.verdict != "replicated":
        return lowering.reason
    text = _replicated(lowering, trip, lowering.declined is not None)
    if lowering.nested > 1:
        text += f"; {plural(lowering.copies, 'copy', 'copies')} of the body in all"
    return text


def _replicated(lowering: Lowering, trip: int | None, declined: bool) -> str:
    """``declined``: LowerPipelineToSlots declined the loop (memory_planner=PTOAS): why is
    in the details."""
    stage = lowering.stage or 0
    if lowering.main_trip == 0 and trip is not None:
        runs = "once" if trip == 1 else f"{trip} times"
        copies = plural(trip, "copy", "copies")
        return f"stage={stage} but the loop runs {runs}: {copies}, no main loop"
    term = "replicated, no slots" if declined else "replicated"
    text = f"{stage} copies per iteration ({term})"
    if lowering.main_trip is not None:
        text += f", {plural(lowering.main_trip, 'iteration')}"
    elif lowering.branches:
        text += ", remainder at run time"
    elif lowering.main_stop is None:
        text += ", main loop length unknown statically"
    if lowering.tail and lowering.main_trip:
        text += f", then {plural(lowering.tail, 'more copy', 'more copies')}"
    return text


def preview_header(report: LoopReport) -> list[str]:
    """The comment lines every preview starts with (``skewlint preview``, ``--preview``, the
    editor's preview document): the verdict and code, why, and what the rewrite changes, so
    a preview that differs from the source in one line says so before its many lines."""
    code = CODES.get(report.code)
    title = f": {code.title}" if code is not None else ""
    lines = [
        f"# {report.verdict} ({report.code}{title})",
        f"# why: {headline(report)}",
        f"# what changes: {_change(report)}",
    ]
    label = report.instance.label if report.instance is not None else ""
    if label and label not in lines[1]:  # the values the headline leaves out
        lines.append(f"# this copy: {label}")
    return lines


def _change(report: LoopReport) -> str:
    stage = f", stage={report.stage}" if report.stage is not None else ""
    if report.verdict == "demoted":
        return (
            f"only the header: `pl.pipeline` becomes `pl.range`{stage.replace(', ', ' (no ')}"
            f"{')' if stage else ''}; the body is as written, its iterations run one after "
            "another"
        )
    if report.verdict == "skewed":
        depth = report.depth or 0
        return (
            f"the producer half runs {plural(depth, 'iteration')} ahead of the consumer half: "
            f"a prologue of {plural(depth, 'produce')}, a steady loop, an epilogue of "
            f"{plural(depth, 'consume')}"
        )
    if report.lowering is not None:
        return lowered(report.lowering, report.loop_var, report.trip)
    return "nothing"
