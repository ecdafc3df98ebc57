"""Hover markdown for SKW060: what the peer core receives on a reordered FIFO, and in which order.

Pure: a :class:`FifoHazard` (already decided by the analysis, with the first
messages of both orders) in, markdown out. The lead wires it into the hover;
nothing here re-derives the schedule.
"""

from __future__ import annotations

from collections.abc import Sequence

from skewlsp.common.wording import plural
from skewlsp.contract import FifoHazard, FifoMessage, LoopReport

_PEERS = {"aiv": "vector core (AIV)", "aic": "cube core (AIC)"}
SHOWN = 12  # messages per row at most; the hazard may hold more


def _row(messages: Sequence[FifoMessage], total: int, limit: int) -> str:
    """``qt(0) **rt(0)** qt(1) …``: the moved statement's messages in bold."""
    shown = list(messages[:limit])
    parts = [f"**{m.label}({m.index})**" if m.moved else f"{m.label}({m.index})" for m in shown]
    if total > len(shown):
        parts.append("…")
    return " ".join(parts)


def _limit(hazard: FifoHazard) -> int:
    """Enough messages to see the first moved one land after the skew (at least ``SHOWN``)."""
    first = next((p for p, m in enumerate(hazard.skewed_order) if m.moved), 0)
    return max(SHOWN, first + 2)


def hazard_markdown(hazard: FifoHazard) -> str:
    """One reordered FIFO: the peer, the moved tpush, and the first messages before and after."""
    peer = _PEERS.get(hazard.direction, hazard.direction)
    where = f" under `{hazard.guard}`" if hazard.guard else ""
    n = hazard.after_produces
    limit = _limit(hazard)
    lines = [
        f"**SKW060: the skew reorders the FIFO to the {peer}.** The tpush at line "
        f"{hazard.moved.line}{where} is issued after the next {plural(n, 'produce')} "
        f"(lead at line {hazard.lead.line}, depth {hazard.depth}), "
        "so the peer receives tiles in another order than the source says. Its messages "
        "are in bold.",
        "",
        f"- source order: {_row(hazard.source_order, hazard.messages, limit)}",
        f"- after the skew: {_row(hazard.skewed_order, hazard.messages, limit)}",
    ]
    return "\n".join(lines)


def fifo_hover(report: LoopReport) -> str | None:
    """The hover section for every FIFO the loop's skew reorders; None when there is none."""
    if not report.hazards:
        return None
    return "\n\n".join(hazard_markdown(h) for h in report.hazards)
