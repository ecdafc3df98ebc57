"""A loop's report, put together once from the driver's record of it after the last stage.

The units' walks leave each loop decided and lowered (its report as
:func:`.assemble.loop_report` and :func:`.assemble.with_lowered` put it together). The
stages across loops then each hand on a record of what they found, never a report they
edited: the overlap step an :class:`~.overlap.Overlap`, the memory passes (read off
the function stage's core functions) a :class:`~.memory.MemorySaid`, together a
:class:`Said`; deciding the module again under the other builds (``driver.variants``)
an :class:`~.variants.Assumed`. :func:`finished_report` is the one place those reach the
loop's report, and the one place the overlap's words join its message.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

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
    if overlap is NO_OVERLAP and memory is None and assumed is NOT_ASSUMED:
        return walked
    message, cores = walked.message, walked.cores
    own, buffers, hints = walked.memory, walked.buffers, walked.hints
    if overlap.peer is not None and overlap.peer_core is not None:
        where = peer_loop(overlap.peer_core, overlap.peer.span.line)
        message = f"{message} (overlap from the {CORE_NAMES[overlap.peer_core]}'s skew: {where})"
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
        message=message,
        overlap=overlap.peer,
        producer_elsewhere=overlap.producer_elsewhere,
        cores=cores,
        memory=own,
        buffers=buffers,
        hints=hints,
        assumes=assumed.assumes,
        variants=assumed.variants,
    )
