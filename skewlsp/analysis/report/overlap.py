"""Consumer loops whose overlap comes from a skewed peer loop in the same module.

A hand-written kernel puts the two halves of an exchange in two functions, one per
core. The pass can skew only the producer's loop: the consumer's loop is demoted
(SKW020) exactly when its peer runs ahead, and that is the overlap the author wants.
Such a demotion is information, not a warning, and says where its overlap comes from.
A peer is a skewed loop of the same module, on the other core, with the same trip.

A consumer whose body reads the tile its first message receives (the carried value is
the lead's own: a tpush defines nothing, so that lead is the tpop) in a module with no
loop at all on the other core has its producer in another file: no edit here gives it
an overlap, so it is information too (``producer_elsewhere``). It stays a warning when
this module holds a loop on the other core that is not its skewed peer (that loop, a
trip that differs, is an edit here), or when the carried value is one this core computes
(an address, a tile it loads: recompute it, load it in each half).
The step records the peer and nothing else (an :class:`Overlap`, on the driver's record of
the loop): the loop's report, and its message's words for it, are put together from that
record in :mod:`.finish`.
(A mixed kernel's cores are one loop: :mod:`..skew_cross_core_pipeline.per_core` words
its summary the same way.)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from skewlsp.contract import CONSUMER, CORE_NAMES, Core, LoopReport, Related


@dataclass(frozen=True)
class Overlap:
    """What the overlap step found of one loop: where its overlap comes from (``peer``, the
    skewed loop on the other core, on ``peer_core``), or that its producer is in another
    file (``producer_elsewhere``); neither for any other loop."""

    peer: Related | None = None
    peer_core: Core | None = None
    producer_elsewhere: bool = False


NO_OVERLAP = Overlap()


def overlaps(reports: Sequence[LoopReport]) -> list[Overlap]:
    """Per loop of ``reports`` (a module's, as the walks leave them): each hand-written
    consumer loop's skewed peer, :data:`NO_OVERLAP` for a loop that has none."""
    skewed = [r for r in reports if r.verdict == "skewed" and not r.cores and r.core]
    cores: set[Core] = {r.core for r in reports if not r.cores and r.core is not None}
    return [_overlap(report, skewed, cores) for report in reports]


def _overlap(report: LoopReport, skewed: Sequence[LoopReport], cores: set[Core]) -> Overlap:
    if report.code != CONSUMER or report.cores or report.core is None:
        return NO_OVERLAP
    peer = next((p for p in skewed if p.core != report.core and p.trip == report.trip), None)
    if peer is None or peer.core is None:
        received = report.offending is not None and report.offending == report.lead
        alone = cores == {report.core}  # no loop of this module on the other core
        return Overlap(producer_elsewhere=True) if received and alone else NO_OVERLAP
    where = peer_loop(peer.core, peer.span.line)
    return Overlap(Related(peer.span, f"{where}: this loop's overlap"), peer.core)


def peer_loop(core: Core, line: int) -> str:
    """How messages name a consumer's peer: the skewed loop of ``core`` at ``line``."""
    return f"the {CORE_NAMES[core]}'s skewed loop at line {line}"
