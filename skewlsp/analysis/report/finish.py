"""A loop's report, put together once from the driver's record of it after the last stage.

The units' walks leave each loop decided (its report as :func:`.assemble.loop_report` put
it together, which copy it is: its ``instance``; its message what the skew pass said of
it) and lowered: the lowering passes hand on their own record beside it, a
:class:`~skewlsp.analysis.lower_pipeline.lowering.Lowered`. The stages across loops then
each hand on a record of what they found, never a report they edited: the overlap step
an :class:`~.overlap.Overlap`, the memory passes (read off the function stage's core
functions) a :class:`~.memory.MemorySaid`, together a :class:`Said`; deciding the module
again under the other builds (``driver.variants``) an :class:`~.variants.Assumed`.
:func:`finished_report` is the one place those reach the loop's report, and
:func:`message` the one place its message is composed: the copy's label, the skew pass's
words, the lowering's, the overlap's.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from skewlsp.analysis.lower_pipeline.lowering import Lowered
from skewlsp.analysis.report.copies import labelled
from skewlsp.analysis.report.memory import MemorySaid
from skewlsp.analysis.report.overlap import NO_OVERLAP, Overlap, peer_loop
from skewlsp.analysis.report.variants import NOT_ASSUMED, Assumed
from skewlsp.contract import CORE_NAMES, CoreResult, LoopReport


@dataclass(frozen=True)
class Said:
    """What the stages across loops found of one loop: its overlap (the overlap step's),
    and what the memory passes give it (None: the loop is in no core function)."""

    overlap: Overlap = NO_OVERLAP
    memory: MemorySaid | None = None


NOTHING_SAID = Said()


def finished_report(
    walked: LoopReport,
    said: Said,
    assumed: Assumed = NOT_ASSUMED,
    *,
    lowered: Lowered | None = None,
) -> LoopReport:
    """The loop's report: ``walked`` (as its unit's walk left it) with what the lowering
    passes decided of it (``lowered``), what the stages across loops found of it
    (``said``) and what other builds make of it (``assumed``).

    The lowering's record gives the loop its verdict and code (an error when the
    lowering passes reject it), each core copy's lowering, and the smaller stage they
    checked as its fix line (with the edit that writes it, where the report shows the
    stage's value: not at the call of a helper in another file)."""
    overlap, memory = said.overlap, said.memory
    own_words = _own_words(walked, overlap, lowered)
    composed = message(walked, overlap, lowered)
    if (
        composed == walked.message
        and lowered is None
        and said == NOTHING_SAID
        and assumed is NOT_ASSUMED
    ):
        return walked
    cores, own, buffers, hints = walked.cores, walked.memory, walked.buffers, walked.hints
    verdict, code, lowering = walked.verdict, walked.code, walked.lowering
    fix_hint, stage_fix = walked.fix_hint, walked.stage_fix
    if lowered is not None:
        cores = _lowered_cores(cores, lowered)
        verdict, code = lowered.verdict_of(verdict), lowered.code_of(code)
        lowering = lowered.lowering if lowered.lowering is not None else lowering
        if lowered.lowering is not None and lowered.smaller_stage is not None:
            fix_hint, fix = lowered.smaller_stage
            stage_fix = fix if walked.stage_value is not None else None
    if memory is not None:
        if cores:
            cores = tuple(
                replace(core, memory=copy.spaces or core.memory, buffers=copy.buffers)
                for core, copy in zip(cores, memory.copies, strict=True)
            )
        else:
            own, buffers = memory.copies[0].spaces, memory.copies[0].buffers
        hints = (*hints, *memory.hints)
    return replace(
        walked,
        verdict=verdict,
        code=code,
        lowering=lowering,
        fix_hint=fix_hint,
        stage_fix=stage_fix,
        message=composed,
        own_message=own_words if composed != own_words else None,
        overlap=overlap.peer,
        producer_elsewhere=overlap.producer_elsewhere,
        cores=cores,
        memory=own,
        buffers=buffers,
        hints=hints,
        assumes=assumed.assumes,
        variants=assumed.variants,
    )


def _lowered_cores(cores: tuple[CoreResult, ...], lowered: Lowered) -> tuple[CoreResult, ...]:
    """The skew pass's core results with each copy's lowering (when the lowering passes
    lowered the split loop's copies), the cube copy written once per output tile of a
    split-K loop (AutoTileMatmulL0, before the skew pass: ``CoreResult.copies``)."""
    if not lowered.cores:
        return cores
    return tuple(
        replace(core, lowering=lowering, copies=core.copies * _tiles(core, lowered))
        for core, lowering in zip(cores, lowered.cores, strict=True)
    )


def _tiles(core: CoreResult, lowered: Lowered) -> int:
    """The copies of the loop AutoTileMatmulL0 writes into ``core``'s function."""
    return lowered.tiles if core.core == "aic" else 1


def message(
    walked: LoopReport, overlap: Overlap = NO_OVERLAP, lowered: Lowered | None = None
) -> str:
    """A loop's message, composed once from what each stage said: the copy's label (a copy
    reported at its loop), the passes' own words (``walked.message``: the skew pass's,
    or for a copy at its call, the helper's loop named), what the lowering passes do to
    it (``lowered``), and where its overlap comes from."""
    said = _own_words(walked, overlap, lowered)
    if labelled(walked) and walked.instance is not None:
        return f"{walked.instance.label}: {said}"
    return said


def _own_words(walked: LoopReport, overlap: Overlap, lowered: Lowered | None) -> str:
    """The message without a copy's label: what a headline puts after the call it names
    its own way (``LoopReport.own_message``)."""
    said = walked.message
    if lowered is not None and lowered.lowering is not None:
        said = f"{said}; {lowered.lowering.reason}"
    if overlap.peer is not None and overlap.peer_core is not None:
        where = peer_loop(overlap.peer_core, overlap.peer.span.line)
        said = f"{said} (overlap from the {CORE_NAMES[overlap.peer_core]}'s skew: {where})"
    return said
