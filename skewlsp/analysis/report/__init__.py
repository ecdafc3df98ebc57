"""From decisions to :class:`skewlsp.contract.LoopReport`: positions, findings, advice,
and the guarantee that every ``pl.pipeline`` loop gets a report."""
