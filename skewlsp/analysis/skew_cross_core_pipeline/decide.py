"""The decision procedure of SkewCrossCorePipeline, in the compiler's order.

Order matters because several reasons can hold at once and the compiler
reports the first it meets: stage=1, step, bounds, trip, then the split of the
body (degenerate, loop-carried reads, consumer dependence, multi-round-trip,
genuine carries). Each step below names the check it mirrors.

Models: ``src/ir/transforms/skew_cross_core_pipeline_pass.cpp`` (the decision).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TypedDict

from skewlsp.analysis.frontend.constants import Const, Dynamic, Folded, Opaque, Rejected, Symbolic
from skewlsp.analysis.frontend.values import CallSiteValue
from skewlsp.analysis.passes.body import SharedMove, Stmt, fits_int64, trip_count
from skewlsp.analysis.skew_cross_core_pipeline.depth import effective_depth, requested_depth
from skewlsp.contract import Verdict


@dataclass(frozen=True)
class LoopHeader:
    """The folded ``pl.pipeline(...)`` call; ``errors`` are what the DSL parser refuses."""

    stage: Folded | None
    start: Folded
    stop: Folded
    step: Folded
    iter_names: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()


@dataclass
class Decision:
    """The pass's decision for one loop (or one core's copy).

    ``reason`` is the specific part ("trip 3 < 2 x depth 2"); :attr:`message` puts the
    verdict's headline in front of it, in one place, so adapters and per-core summaries
    take the reason as data instead of cutting a message apart.
    """

    verdict: Verdict
    code: str
    reason: str
    stage: int | None = None
    requested_depth: int | None = None
    depth: int | None = None
    trip: int | None = None
    start: int | None = None
    stop: int | None = None
    step: int | None = None
    dynamic_symbol: str | None = None
    lead: int | None = None
    offending: int | None = None
    produce: tuple[int, ...] = ()
    consume: tuple[int, ...] = ()
    recompute: tuple[int, ...] = ()
    pushes: int = 0
    pops: int = 0
    carried: tuple[str, ...] = ()
    notes: list[str] = field(default_factory=list)
    summary: str | None = None  # a mixed loop's one-line summary of both cores, when set

    @property
    def headline(self) -> str:
        if self.code == "SKW002":
            return f"loop skewed at depth {self.depth}, below the requested {self.requested_depth}"
        return _HEADLINES[self.verdict]

    @property
    def message(self) -> str:
        return self.summary if self.summary is not None else f"{self.headline}: {self.reason}"


_HEADLINES = {
    "skewed": "loop skewed",
    "demoted": "loop not skewed",
    "left": "loop left as a pipeline loop",
    "error": "invalid pl.pipeline loop",
    "unknown": "verdict unknown",
}


def _const(value: Folded | None) -> int | None:
    return value.value if isinstance(value, Const) else None


class _Known(TypedDict, total=False):
    """The facts of a loop a Decision carries, gathered as the pass goes."""

    pushes: int
    pops: int
    start: int | None
    stop: int | None
    step: int | None
    trip: int
    stage: int
    requested_depth: int
    lead: int
    produce: tuple[int, ...]
    consume: tuple[int, ...]
    depth: int
    recompute: tuple[int, ...]


def decide(
    header: LoopHeader, stmts: Sequence[Stmt], shared_moves: Sequence[SharedMove] = ()
) -> Decision:
    """The pass's decision; ``shared_moves`` are the implicit moves of outside tiles that
    several statements read (the mixed-kernel model finds them, see
    ``passes.infer_tile_memory_space``)."""
    pushes = [k for k, s in enumerate(stmts) if s.kind == "push"]
    pops = [k for k, s in enumerate(stmts) if s.kind == "pop"]
    base: _Known = {
        "pushes": len(pushes),
        "pops": len(pops),
        "start": _const(header.start),
        "stop": _const(header.stop),
        "step": _const(header.step),
    }
    if header.errors:
        return Decision("error", "SKW040", header.errors[0], **base)
    first, last, step_value = base["start"], base["stop"], base["step"]
    if first is not None and last is not None and step_value is not None:
        # The compiler knows the trip of every loop with constant bounds, whatever it
        # decides (a step-0 loop has trip 0).
        base["trip"] = trip_count(first, last, step_value)
    stage = header.stage
    if isinstance(stage, Opaque):
        if pushes and pops:
            return Decision(
                "unknown",
                "SKW050",
                stage.reason
                if isinstance(stage, CallSiteValue)
                else f"stage depends on {stage.symbol}, computed when the module loads",
                dynamic_symbol=stage.symbol,
                **base,
            )
        return Decision(
            "left",
            "SKW010",
            _left_reason(pushes, pops),
            dynamic_symbol=stage.symbol,
            **base,
        )
    assert isinstance(stage, Const)
    base["stage"] = stage.value
    cross_core = bool(pushes) and bool(pops)
    if not cross_core:  # (what makes a bound a run-time value: the lowering quotes it)
        symbol = next(
            (b.symbol for b in (header.start, header.stop) if isinstance(b, Dynamic)), None
        )
        return Decision(
            "left", "SKW010", _left_reason(pushes, pops), dynamic_symbol=symbol, **base
        )
    if stage.value == 1:
        return Decision(
            "demoted",
            "SKW024",
            "stage=1 on a cross-core loop (runs sequentially)",
            **base,
        )
    step = header.step
    if isinstance(step, Opaque):
        return _unknown(step, "step", base, None)
    if not isinstance(step, Const):
        symbol = step.symbol if isinstance(step, Dynamic) else None
        reason = step.reason if isinstance(step, (Dynamic, Rejected)) else ""
        return Decision(
            "error",
            "SKW040",
            f"step must be a compile-time integer constant ({reason})",
            dynamic_symbol=symbol,
            **base,
        )
    if step.value == 0:
        return Decision("error", "SKW040", "step cannot be zero", **base)
    requested = requested_depth(stage.value)
    base["requested_depth"] = requested
    for which, bound in (("start", header.start), ("stop", header.stop)):
        if isinstance(bound, Opaque):
            body = _split(
                stmts,
                pushes,
                pops,
                stage.value,
                requested,
                2 * requested,
                base.copy(),
                shared_moves,
            )
            return _unknown(bound, which, base, body)
        if not isinstance(bound, Const):
            symbol = bound.symbol if isinstance(bound, Dynamic) else which
            what = (
                "a symbolic dimension (pl.dynamic)"
                if isinstance(bound, Symbolic)
                else "not a compile-time constant"
            )
            return Decision(
                "demoted",
                "SKW022",
                f"dynamic bounds: {which} depends on `{symbol}`, which is {what}",
                dynamic_symbol=symbol,
                **base,
            )
    start, stop = _const(header.start), _const(header.stop)
    assert start is not None and stop is not None
    trip = base["trip"]
    if trip < 2:
        return Decision(
            "demoted", "SKW023", f"trip {trip} < 2 (nothing to overlap)", **base
        )
    return _split(stmts, pushes, pops, stage.value, requested, trip, base, shared_moves)


def _unknown(value: Opaque, which: str, base: _Known, body: Decision | None) -> Decision:
    """A conditional verdict: what the body decides, once the unseen trip is known."""
    prefix = f"{which} depends on `{value.symbol}`, computed when the module loads"
    if isinstance(value, CallSiteValue):
        prefix = f"{which} depends on the call site: {value.reason}"
    if body is None:
        condition = "the step must be a nonzero integer"
    elif body.verdict == "skewed":
        depth = base.get("requested_depth")
        condition = (
            f"if the trip is at least 2 the loop skews, at the largest depth d <= {depth} "
            "with trip % d == 0 and trip >= 2*d"
        )
    else:
        condition = f"if the trip is at least 2 the loop is demoted ({body.code}: {body.reason})"
    return Decision(
        "unknown",
        "SKW050",
        f"{prefix}; {condition}",
        dynamic_symbol=value.symbol,
        **base,
    )


def _left_reason(pushes: list[int], pops: list[int]) -> str:
    if pushes and not pops:
        why = "tpush without tpop (one-directional)"
    elif pops and not pushes:
        why = "tpop without tpush (one-directional)"
    else:
        why = "no top-level tpush/tpop"
    return f"not cross-core ({why})"  # (what the lowering passes then do: analysis/lower_pipeline)


def _split(
    stmts: Sequence[Stmt],
    pushes: list[int],
    pops: list[int],
    stage: int,
    requested: int,
    trip: int,
    base: _Known,
    shared_moves: Sequence[SharedMove] = (),
) -> Decision:
    lead = min(pushes + pops)
    base["lead"] = lead
    produce = _backward_slice(stmts, lead)
    consume = [k for k in range(len(stmts)) if k not in produce]
    base["produce"] = tuple(sorted(produce))
    base["consume"] = tuple(consume)
    if len(produce) == len(stmts):
        return Decision(
            "demoted",
            "SKW027",
            "degenerate split: the lead's slice is the whole body",
            **base,
        )
    for k in sorted(produce):
        if stmts[k].carried_reads:
            name = stmts[k].carried_reads[0]
            return Decision(
                "demoted",
                "SKW025",
                f"producer half reads loop-carried `{name}`",
                offending=k,
                carried=(name,),
                **base,
            )
    for k in sorted(produce):
        outside = [dep for dep in stmts[k].deps.values() if dep not in produce]
        if outside:
            return Decision(
                "demoted",
                "SKW026",
                "producer half depends on a value of the consumer half",
                offending=k,
                **base,
            )
    carried = _carried(stmts, produce, consume)
    if len(pushes) != 1 or len(pops) != 1:
        return Decision(
            "demoted",
            "SKW021",
            f"multi-round-trip: {len(pushes)} tpush and {len(pops)} tpop "
            "per iteration",
            offending=max(pushes + pops) if len(pushes) + len(pops) > 2 else None,
            **base,
        )
    recompute: set[int] = set()
    # In the moves' order: two moves before one statement are cited as the first (a set
    # here made the message depend on string hashing, so differ from run to run).
    moved = {
        (move.name, move.users[0]): order
        for order, move in enumerate(shared_moves)
        if any(k in produce for k in move.users) and any(k not in produce for k in move.users)
    }
    # A move sits right before its first user, ahead of that statement's own defs.
    carried = sorted(
        [*carried, *moved],
        key=lambda item: (
            (item[1], -1, moved[item])
            if item in moved
            else (item[1], stmts[item[1]].defs.index(item[0]), 0)
        ),
    )
    for name, k in carried:
        chain = None if (name, k) in moved else _recomputable(stmts, k)
        if chain is None:
            return Decision(
                "demoted",
                "SKW020",
                f"consumer role: `{_shown(name)}` from the lead half "
                "feeds the body",
                offending=k,
                carried=(name,),
                **base,
            )
        recompute.update(chain)
    depth = effective_depth(trip, requested)
    base["depth"] = depth
    base["recompute"] = tuple(sorted(recompute))
    base["consume"] = tuple(sorted(set(consume) | recompute))
    names = tuple(name for name, _ in carried)
    if depth == requested:
        return Decision(
            "skewed",
            "SKW001",
            f"producer runs {depth} iteration{'s' if depth > 1 else ''} ahead "
            f"(trip {trip}, stage {stage})",
            carried=names,
            **base,
        )
    return Decision(
        "skewed",
        "SKW002",
        _depth_blocker(trip, requested),
        carried=names,
        **base,
    )


def _shown(name: str) -> str:
    return "nested call result" if name.startswith("%") else name


def _depth_blocker(trip: int, requested: int) -> str:
    if trip < 2 * requested:
        return f"trip {trip} < 2 x depth {requested}"
    return f"trip {trip} is not a multiple of {requested}"


def _backward_slice(stmts: Sequence[Stmt], lead: int) -> set[int]:
    produce: set[int] = set()
    work = [lead]
    while work:
        k = work.pop()
        if k in produce:
            continue
        produce.add(k)
        work.extend(stmts[k].deps.values())
    return produce


def _carried(
    stmts: Sequence[Stmt], produce: set[int], consume: Sequence[int]
) -> list[tuple[str, int]]:
    """Values defined by the producer half and read by the consumer half, in def order."""
    seen: dict[tuple[str, int], None] = {}
    for c in consume:
        for name, k in stmts[c].deps.items():
            if k in produce:
                seen.setdefault((name, k), None)
    return sorted(seen, key=lambda item: (item[1], stmts[item[1]].defs.index(item[0])))


def _recomputable(stmts: Sequence[Stmt], k: int) -> list[int] | None:
    """The in-loop chain of a recomputable address scalar, or None if it is a genuine carry."""
    chain: list[int] = []
    seen: set[int] = set()
    work = [k]
    while work:
        index = work.pop()
        if index in seen:
            continue
        seen.add(index)
        stmt = stmts[index]
        if not stmt.scalar_arith:
            return None
        chain.append(index)
        work.extend(stmt.deps.values())
    return chain


def check_int64(header: LoopHeader) -> str | None:
    for which, value in (("start", header.start), ("stop", header.stop), ("step", header.step)):
        if isinstance(value, Const) and not fits_int64(value.value):
            return f"{which} {value.value} does not fit in a 64-bit integer"
    return None
