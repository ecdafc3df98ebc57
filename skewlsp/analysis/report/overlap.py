"""Consumer loops whose overlap comes from a skewed peer loop in the same module.

A hand-written kernel puts the two halves of an exchange in two functions, one per
core. The pass can skew only the producer's loop: the consumer's loop is demoted
(SKW020) exactly when its peer runs ahead, and that is the overlap the author wants.
Such a demotion is information, not a warning, and says where its overlap comes from.
A peer is a skewed loop of the same module, on the other core, with the same trip.
(A mixed kernel's cores are one loop: :mod:`..skew_cross_core_pipeline.per_core` words
its summary the same way.)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from skewlsp.contract import CONSUMER, CORE_NAMES, LoopReport, Related


def with_overlaps(reports: Sequence[LoopReport]) -> list[LoopReport]:
    """``reports`` with each hand-written consumer loop that has a skewed peer marked."""
    skewed = [r for r in reports if r.verdict == "skewed" and not r.cores and r.core]
    if not skewed:
        return list(reports)
    return [_marked(report, skewed) for report in reports]


def _marked(report: LoopReport, skewed: Sequence[LoopReport]) -> LoopReport:
    if report.code != CONSUMER or report.cores or report.core is None:
        return report
    peer = next((p for p in skewed if p.core != report.core and p.trip == report.trip), None)
    if peer is None or peer.core is None:
        return report
    name = CORE_NAMES[peer.core]
    where = f"the {name}'s skewed loop at line {peer.span.line}"
    return replace(
        report,
        message=f"{report.message} (overlap from the {name}'s skew: {where})",
        overlap=Related(peer.span, f"{where}: this loop's overlap"),
    )
