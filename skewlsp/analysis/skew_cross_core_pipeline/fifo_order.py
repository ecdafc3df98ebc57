"""FIFO-order hazards of a skewed loop (SKW060): decided from the schedule itself.

The pass counts top-level messages only (SKEW_RULES 3.1, 6 "What the pass does
not see"): a ``tpush`` nested in an ``if`` Simplify cannot prove, or in an
inner loop that is not collapsed, does not stop a skew. The statement holding
it lands in the consumer half and, after the rewrite, is issued after later
iterations' produces: the peer's in-order FIFO receives tiles in another order
than the source says. The compiler's verifier does not model FIFO order.

For each FIFO this core sends on (to AIV, to AIC) we list the messages —
(iteration, statement) pairs, one per sending statement and iteration — in
source order and in the order of the skewed schedule of SKEW_RULES 4.1
(prologue ``produce(0..D-1)``; steady groups ``produce(k..k+D-1)`` then
``consume(k-D..k-1)``; epilogue ``consume(t-D..t-1)``) and compare them. A
statement's own messages stay contiguous in both (it is cloned whole), so a
statement is the unit. Pops are never listed: a core's own receive order is
not what the peer sees, and the brief of SKW060 is about what the peer
receives.

The body is the one the analysis decided (``Decision`` and its statement
list, per core for a mixed loop): guards Simplify folds from the loop bounds
are already gone or inlined there, so nothing is re-derived here.

Window. The comparison runs over the first ``w = min(t, 3D)`` iterations,
which is exact: restricting the trip-``t`` schedule to iterations below ``w``
gives the trip-``w`` schedule (a multiple of D, at least 2D), and any pair of
messages the skew swaps has a shifted copy inside the first 2D iterations
(the steady groups repeat every D iterations; a consumer message of iteration
i is overtaken by a producer message of iteration i+1 iff one is overtaken in
iteration 0 by iteration 1). The steady-state counts are read from the first
steady group, the epilogue counts from the window's epilogue (both shift
invariant).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice

import libcst as cst

from skewlsp.analysis.frontend import dsl
from skewlsp.analysis.frontend.constants import code_of
from skewlsp.analysis.passes.body import Stmt
from skewlsp.analysis.skew_cross_core_pipeline.decide import Decision
from skewlsp.analysis.source.tree_text import MadeTrees
from skewlsp.analysis.source.walk import children
from skewlsp.contract import CORE_NAMES, FifoHazard, FifoMessage, Finding, Related, Span

DIRECTIONS = ("aiv", "aic")
CORE_TITLES = {"aiv": "AIV", "aic": "AIC"}
# Past this many messages in the window the counts come from the schedule's closed form.
MAX_WINDOW_MESSAGES = 50_000
SHOWN_MESSAGES = 12  # messages kept per order for a hover (more when the first move is later)
MAX_SHOWN_MESSAGES = 48
_GUARD_WIDTH = 60


@dataclass(frozen=True)
class Sender:
    """A statement that sends on one FIFO: its index and its first tpush in that direction."""

    index: int
    call: cst.CSTNode
    guard: str | None


@dataclass(frozen=True)
class MovedSend:
    """A consumer-half statement whose messages the skew moves behind later produces.

    ``steady`` / ``epilogue``: for the consume clone ``j`` of a steady group /
    of the epilogue, how many messages on this FIFO that the source sends after
    the moved one are issued before it. ``after_produces`` is the smallest
    steady count: each moved message outside the epilogue comes after at least
    that many later produces.
    """

    direction: str
    sender: Sender
    lead: Sender
    steady: tuple[int, ...]
    epilogue: tuple[int, ...]

    @property
    def after_produces(self) -> int:
        return min(self.steady)


@dataclass(frozen=True)
class FifoOrder:
    """One FIFO's senders and its messages (iteration, statement index) over the window."""

    direction: str
    senders: tuple[Sender, ...]
    source: tuple[tuple[int, int], ...]
    skewed: tuple[tuple[int, int], ...]


# -- who sends what ----------------------------------------------------------------------------


def _direction(call: cst.Call) -> str | None:
    name = dsl.op_name(call)
    if not name or dsl.message_kind(call) != "push":
        return None
    return name[-1].rsplit("_", 1)[-1]


def _pushes_in(node: cst.CSTNode) -> list[tuple[cst.Call, str, bool]]:
    """Every tpush call under ``node`` in source order: (call, direction, in an else branch).

    Iterative: a statement may nest as deep as the analysis accepts.
    """
    found: list[tuple[cst.Call, str, bool]] = []
    stack: list[tuple[cst.CSTNode, bool]] = [(node, False)]
    while stack:
        current, in_else = stack.pop()
        if isinstance(current, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        if isinstance(current, cst.Call):
            direction = _direction(current)
            if direction is not None:
                found.append((current, direction, in_else))
        below = [
            (child, in_else or (current is node and isinstance(child, (cst.Else, cst.If))))
            for child in children(current)
        ]
        stack.extend(reversed(below))
    return found


def _header(node: cst.CSTNode, made: MadeTrees | None) -> str | None:
    """``if mode > 2`` / ``for j in pl.range(2)``: the block a nested tpush sits in."""
    if isinstance(node, cst.If):
        text = f"if {code_of(node.test, made)}"
    elif isinstance(node, cst.For):
        text = f"for {code_of(node.target, made)} in {code_of(node.iter, made)}"
    elif isinstance(node, cst.While):
        text = f"while {code_of(node.test, made)}"
    elif isinstance(node, cst.With):
        text = "with " + ", ".join(code_of(item.item, made) for item in node.items)
    elif isinstance(node, cst.Try):
        text = "try"
    else:
        return None
    text = " ".join(text.split())
    return text if len(text) <= _GUARD_WIDTH else text[: _GUARD_WIDTH - 1] + "…"


def _push_call(stmt: Stmt) -> cst.CSTNode | None:
    node = stmt.node
    if isinstance(node, cst.Call):
        return node
    value = getattr(node, "value", None)
    return value if isinstance(value, cst.Call) else None


def senders(stmts: Sequence[Stmt], made: MadeTrees | None) -> dict[str, tuple[Sender, ...]]:
    """Per FIFO, the statements that send on it, in body order.

    A top-level push statement sends once per iteration; a compound statement
    (an ``if`` the compiler cannot prove, an inner loop it does not collapse, a
    demoted or spliced inner pipeline) sends whatever tpushes it holds. ``made``: the
    trees the analysis made (None: the statements are of libcst's parse, as a
    rewrite's are), which the guards' code is cut from.
    """
    found: dict[str, list[Sender]] = {d: [] for d in DIRECTIONS}
    for index, stmt in enumerate(stmts):
        if stmt.kind == "push":
            call = _push_call(stmt)
            direction = _direction(call) if isinstance(call, cst.Call) else None
            if direction in found:
                found[direction].append(Sender(index, stmt.located, None))
        elif stmt.kind == "compound":
            seen: set[str] = set()
            header = _header(stmt.node, made)
            for call, direction, in_else in _pushes_in(stmt.node):
                if direction in found and direction not in seen:
                    seen.add(direction)
                    guard = f"else of `{header}`" if in_else and header else header
                    found[direction].append(Sender(index, call, guard))
    return {d: tuple(s) for d, s in found.items()}


# -- the two orders ------------------------------------------------------------------------------


def source_order(indices: Sequence[int], trip: int) -> Iterator[tuple[int, int]]:
    """Iteration by iteration, the statements in body order (lazily: trips can be huge)."""
    for i in range(trip):
        for k in indices:
            yield (i, k)


def skewed_order(
    indices: Sequence[int], produce: Sequence[int], consume: Sequence[int], depth: int, trip: int
) -> Iterator[tuple[int, int]]:
    """The same messages in the order of the skewed schedule (SKEW_RULES 4.1), lazily."""
    produced = [k for k in sorted(produce) if k in indices]
    consumed = [k for k in sorted(consume) if k in indices and k not in produced]
    for i in range(depth):  # prologue
        for k in produced:
            yield (i, k)
    for group in range(depth, trip, depth):  # steady loop, one group per iteration
        for j in range(depth):
            for k in produced:
                yield (group + j, k)
        for j in range(depth):
            for k in consumed:
                yield (group - depth + j, k)
    for j in range(depth):  # epilogue
        for k in consumed:
            yield (trip - depth + j, k)


def _window(decision: Decision) -> int:
    assert decision.depth and decision.trip
    return min(decision.trip, 3 * decision.depth)


def fifo_orders(
    decision: Decision, stmts: Sequence[Stmt], made: MadeTrees | None
) -> list[FifoOrder]:
    """Both orders, over the window, of every FIFO this core sends on (skewed loops only;
    ``made`` as for :func:`senders`)."""
    if decision.verdict != "skewed" or not decision.depth or not decision.trip:
        return []
    window = _window(decision)
    orders: list[FifoOrder] = []
    for direction, found in senders(stmts, made).items():
        if not found:
            continue
        indices = [s.index for s in found]
        if window * len(indices) > MAX_WINDOW_MESSAGES:
            orders.append(FifoOrder(direction, found, (), ()))
            continue
        orders.append(
            FifoOrder(
                direction,
                found,
                tuple(source_order(indices, window)),
                tuple(
                    skewed_order(
                        indices, decision.produce, decision.consume, decision.depth, window
                    )
                ),
            )
        )
    return orders


def _overtaken(
    order: FifoOrder, source_position: dict[tuple[int, int], int], message: tuple[int, int]
) -> int:
    """Messages the source sends after ``message`` that the skewed schedule sends before it."""
    mine = source_position[message]
    count = 0
    for other in order.skewed:
        if other == message:
            return count
        if source_position[other] > mine:
            count += 1
    raise ValueError(f"message {message} is missing from the skewed order")


def moved_sends(
    decision: Decision, stmts: Sequence[Stmt], made: MadeTrees | None
) -> list[MovedSend]:
    """Every consumer-half statement whose messages the skew reorders, per FIFO (``made``
    as for :func:`senders`)."""
    moved: list[MovedSend] = []
    produce = set(decision.produce)
    for order in fifo_orders(decision, stmts, made):
        leads = [s for s in order.senders if s.index in produce]
        if not leads:
            continue
        if not order.source:  # a window too large to list: the schedule's closed form
            moved += _closed_form(decision, order, leads[0])
            continue
        if order.source == order.skewed:
            continue
        depth = decision.depth
        assert depth
        window = len(order.source) // len(order.senders)
        positions = {m: p for p, m in enumerate(order.source)}
        for sender in order.senders:
            if sender.index in produce:
                continue
            steady = tuple(_overtaken(order, positions, (j, sender.index)) for j in range(depth))
            epilogue = tuple(
                _overtaken(order, positions, (window - depth + j, sender.index))
                for j in range(depth)
            )
            if any(steady) or any(epilogue):
                moved.append(MovedSend(order.direction, sender, leads[0], steady, epilogue))
    return moved


def _closed_form(decision: Decision, order: FifoOrder, lead: Sender) -> list[MovedSend]:
    """The counts the window would give, for depths too large to list message by message.

    Consume clone j of a steady group runs after the produces of its own
    iteration's next 2D-1-j iterations (those of the group before it included),
    the epilogue clone j after the remaining D-1-j; a producer statement later
    in the body than the moved one overtakes it in its own iteration too.
    """
    depth = decision.depth
    assert depth
    produce = set(decision.produce)
    producers = [s.index for s in order.senders if s.index in produce]
    moved: list[MovedSend] = []
    for sender in order.senders:
        if sender.index in produce:
            continue
        own = sum(1 for k in producers if k > sender.index)
        steady = tuple(own + (2 * depth - 1 - j) * len(producers) for j in range(depth))
        epilogue = tuple(own + (depth - 1 - j) * len(producers) for j in range(depth))
        moved.append(MovedSend(order.direction, sender, lead, steady, epilogue))
    return moved


# -- the report's view -----------------------------------------------------------------------------


def hazards(
    decision: Decision,
    stmts: Sequence[Stmt],
    span_of: Callable[[cst.CSTNode], Span],
    made: MadeTrees | None,
) -> tuple[FifoHazard, ...]:
    """The structured SKW060 hazards of a loop (empty unless it is skewed and reorders a
    FIFO; ``made`` as for :func:`senders`)."""
    if decision.verdict != "skewed":
        return ()
    moved = moved_sends(decision, stmts, made)
    if not moved:
        return ()
    orders = {o.direction: o for o in fifo_orders(decision, stmts, made)}
    labels: dict[int, str] = {}
    result: list[FifoHazard] = []
    for move in moved:
        order = orders[move.direction]
        for sender in order.senders:
            labels.setdefault(sender.index, _label(stmts[sender.index], sender, span_of))
        source, skewed = _shown(decision, order, move.sender.index, labels)
        result.append(
            FifoHazard(
                direction=move.direction,
                moved=span_of(move.sender.call),
                lead=span_of(move.lead.call),
                guard=move.sender.guard,
                after_produces=move.after_produces,
                depth=decision.depth or 0,
                source_order=source,
                skewed_order=skewed,
                messages=(decision.trip or 0) * len(order.senders),
            )
        )
    return tuple(result)


def _label(stmt: Stmt, sender: Sender, span_of: Callable[[cst.CSTNode], Span]) -> str:
    """The pushed value's name when it is a plain name, else the tpush's line."""
    call = sender.call if isinstance(sender.call, cst.Call) else _push_call(stmt)
    if isinstance(call, cst.Call):
        args = dsl.positional(call)
        if args and isinstance(args[0].value, cst.Name):
            return args[0].value.value
    return f"line {span_of(sender.call).line}"


def _shown(
    decision: Decision, order: FifoOrder, moved: int, labels: dict[int, str]
) -> tuple[tuple[FifoMessage, ...], tuple[FifoMessage, ...]]:
    """The first messages of both orders: enough to see the first moved message land."""
    start, step = decision.start or 0, decision.step or 1
    depth, trip = decision.depth or 1, decision.trip or 0
    indices = [s.index for s in order.senders]
    # The whole trip's orders, lazily: the window is exact for deciding, but its tail
    # (the window's own epilogue) is not a prefix of the real schedule.
    skewed = tuple(
        islice(
            skewed_order(indices, decision.produce, decision.consume, depth, trip),
            MAX_SHOWN_MESSAGES,
        )
    )
    first = next((p for p, (_, k) in enumerate(skewed) if k == moved), 0)
    count = min(max(SHOWN_MESSAGES, first + 3), MAX_SHOWN_MESSAGES)
    source = tuple(islice(source_order(indices, trip), count))
    skewed = skewed[:count]

    def message(item: tuple[int, int]) -> FifoMessage:
        iteration, k = item
        return FifoMessage(labels[k], start + iteration * step, k == moved)

    return tuple(map(message, source[:count])), tuple(map(message, skewed[:count]))




def describe(hazard: FifoHazard) -> str:
    """The SKW060 message: which FIFO, which tpush, and how far it moves."""
    fifo = CORE_TITLES.get(hazard.direction, hazard.direction)
    where = ""
    if hazard.guard:
        where = (
            f" (under `{hazard.guard}`)"
            if hazard.guard.startswith("if ")
            else f" (in `{hazard.guard}`)"
            if not hazard.guard.startswith("else of")
            else f" (in the {hazard.guard})"
        )
    n = hazard.after_produces
    peer = CORE_NAMES.get(hazard.direction, hazard.direction)
    return (
        f"skewing reorders the FIFO to {fifo}: the tpush at line {hazard.moved.line}{where} is "
        f"issued after the next {n} produce{'s' if n != 1 else ''} (lead at line "
        f"{hazard.lead.line}, depth {hazard.depth}); the {peer} core receives tiles in another "
        "order than the source says"
    )


def finding(hazard: FifoHazard, at: Span) -> Finding:
    """SKW060 on the loop, pointing at the moved tpush and at the lead."""
    return Finding(
        "SKW060",
        describe(hazard),
        at,
        (
            Related(hazard.moved, "this tpush is issued after later iterations' produces"),
            Related(hazard.lead, "the lead: the producer half runs ahead from here"),
        ),
    )
