"""A loop's report, put together once from the driver's record of it after the last stage.

The units' walks leave each loop decided and lowered (its report as
:func:`.assemble.loop_report` and :func:`.assemble.with_lowered` put it together, which
copy it is: its ``instance``); its message is still what the skew pass said of it. The
stages across loops then each hand on a record of what they found, never a report they
edited: the overlap step an :class:`~.overlap.Overlap`, the memory passes (read off
the function stage's core functions) a :class:`~.memory.MemorySaid`, together a
:class:`Said`; deciding the module again under the other builds (``driver.variants``)
an :class:`~.variants.Assumed`. :func:`finished_report` is the one place those reach the
loop's report, and :func:`message` the one place its message is composed: the copy's
label, the skew pass's words, the lowering's, the overlap's.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from skewlsp.analysis.report.copies import labelled
from skewlsp.analysis.report.memory import MemorySaid
from skewlsp.analysis.report.overlap import NO_OVERLAP, Overlap, peer_loop
from skewlsp.analysis.report.variants import NOT_ASSUMED, Assumed
from skewlsp.contract import CORE_NAMES, LoopReport


@dataclass(frozen=True)
class Said:
    """What the stages across loops found of one loop: its overlap (the overlap step's),
    and what the memory passes give it (None: the loop is in no core function)."""

    overlap: Overlap = NO_OVERLAP
    memory: MemorySaid | None = None


NOTHING_SAID = Said()


def finished_report(
    walked: LoopReport, said: Said, assumed: Assumed = NOT_ASSUMED
) -> LoopReport:
    """The loop's report: ``walked`` (as its unit's walk left it) with what the stages
    across loops found of it (``said``) and what other builds make of it (``assumed``)."""
    overlap, memory = said.overlap, said.memory
    own_words = _own_words(walked, overlap)
    composed = message(walked, overlap)
    if composed == walked.message and said == NOTHING_SAID and assumed is NOT_ASSUMED:
        return walked
    cores, own, buffers, hints = walked.cores, walked.memory, walked.buffers, walked.hints
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


def message(walked: LoopReport, overlap: Overlap = NO_OVERLAP) -> str:
    """A loop's message, composed once from what each stage said: the copy's label (a copy
    reported at its loop), the passes' own words (``walked.message``: the skew pass's,
    or for a copy at its call, the helper's loop named), what the lowering passes do to
    it, and where its overlap comes from."""
    said = _own_words(walked, overlap)
    if labelled(walked) and walked.instance is not None:
        return f"{walked.instance.label}: {said}"
    return said


def _own_words(walked: LoopReport, overlap: Overlap) -> str:
    """The message without a copy's label: what a headline puts after the call it names
    its own way (``LoopReport.own_message``)."""
    said = walked.message
    if walked.lowering is not None:
        said = f"{said}; {walked.lowering.reason}"
    if overlap.peer is not None and overlap.peer_core is not None:
        where = peer_loop(overlap.peer_core, overlap.peer.span.line)
        said = f"{said} (overlap from the {CORE_NAMES[overlap.peer_core]}'s skew: {where})"
    return said
