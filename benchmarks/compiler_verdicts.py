"""What the compiler did to each loop, and what skewlint said of it: the reading half of
``compiler_check.py``'s loop comparison (no pypto, no subprocess; ``compiler_compare``
compares the two), tested in tests/benchmarks.

Both sides are brought to one vocabulary, a :class:`Claim` per loop and core: a shape
("skewed depth 2", "demoted", "replicated", "rotated", ...) and, where both sides know
it, a detail ("main 4, tail 1"). skewlint's claims come from its JSON (the record, its
``cores`` and its ``copies``); the compiler's from the loop records
``compiler_probe.py`` dumps after NormalizeReturnOrder (what SkewCrossCorePipeline
sees), SkewCrossCorePipeline, LowerPipelineToSlots and LowerPipelineLoops, read the way
the passes' docs (``docs/en/dev/passes/26-28``) say they rewrite a loop:

- skewed at depth D: the loop at the ``for`` line becomes a Sequential loop stepping
  ``D * step`` from ``start + D * step`` (prologue and epilogue are statements);
- demoted: a Sequential loop with the original bounds;
- left: still ``ForKind.Pipeline``; then rotated (LowerPipelineToSlots: Sequential,
  bounds kept), or replicated (LowerPipelineLoops: a main loop of ``stage=1`` stepping
  ``stage * step``; the remainder, trip % stage copies, is straight-line code), or
  emptied (trip 0: a Sequential loop).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

SKEW, SLOTS, LOWER = "SkewCrossCorePipeline", "LowerPipelineToSlots", "LowerPipelineLoops"
BEFORE_SKEW = "NormalizeReturnOrder"
# pypto's function types -> skewlint's core names ("" for a function neither AIC nor AIV).
CORES = {"AIC": "aic", "AIV": "aiv"}
# Replicated, with numbers skewlint does not know: SKW016 in a further copy (no lowering
# record), or a bound computed when the module loads.
WILDCARD = "replicated*"


@dataclass(frozen=True)
class Claim:
    """One outcome for one loop on one core, in words both sides can produce.

    ``copies``: how many copies of the loop the core's function holds (the dual AIV
    dispatch writes the vector body twice; skewlint's ``cores[].copies``); None where
    skewlint does not say: a loop it reports without cores, or one Python builds more
    than once (several copies may then land in one function).
    """

    shape: str
    detail: str | None = None
    copies: int | None = 1
    # Under memory-planner=ptoas, a loop whose slots skewlint cannot size (a load's dtype
    # or shape it cannot see): LowerPipelineToSlots rotates it or declines it, and then
    # LowerPipelineLoops replicates it as ``shape`` says: either outcome matches.
    or_rotated: bool = False

    def matches(self, other: Claim) -> bool:
        """Same shape (SKW016's wildcard takes any replication; an open claim, either of
        its two), same detail when both know it, same number of copies."""
        for one, two in ((self, other), (other, self)):
            if one.or_rotated:
                rotated = Claim("rotated", None, one.copies)
                fallback = Claim(one.shape, one.detail, one.copies)
                return rotated.matches(two) or fallback.matches(two)
        shapes = {self.shape, other.shape}
        if WILDCARD in shapes:
            rest = shapes - {WILDCARD}
            same = not rest or next(iter(rest)).startswith(("replicated", "copies only"))
        else:
            same = self.shape == other.shape or (
                "error" in shapes and any(s.startswith("error") for s in shapes - {"error"})
            )
        details = {self.detail, other.detail} - {None}
        counts = {self.copies, other.copies} - {None}
        return same and len(details) <= 1 and len(counts) <= 1

    def times(self, copies: int | None) -> Claim:
        """The same outcome for a loop its function holds ``copies`` times."""
        return Claim(self.shape, self.detail, copies, self.or_rotated)

    def __str__(self) -> str:
        text = f"{self.shape} ({self.detail})" if self.detail else self.shape
        text = f"rotated or {text}" if self.or_rotated else text
        return f"{text} x{self.copies}" if self.copies and self.copies > 1 else text


@dataclass(frozen=True)
class IrLoop:
    """A ``ForStmt`` as the probe dumps it (bounds are None unless integer constants)."""

    function: str
    function_type: str
    file: str
    line: int
    kind: str
    stages: int | None = None
    start: int | None = None
    stop: int | None = None
    step: int | None = None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> IrLoop:
        names = ("function", "function_type", "file", "line", "kind")
        bounds = ("stages", "start", "stop", "step")
        return cls(**{name: data[name] for name in names}, **{b: data.get(b) for b in bounds})

    @property
    def trip(self) -> int | None:
        """Iterations, from constant bounds (None: a bound known only at run time)."""
        if None in (self.start, self.stop, self.step) or self.step == 0:
            return None
        assert self.start is not None and self.stop is not None and self.step is not None
        return max(0, -(-(self.stop - self.start) // self.step))


@dataclass(frozen=True)
class Observation:
    """The compiler's outcome for the loop at ``file:line`` in one function of one entry."""

    file: str
    line: int
    core: str
    claim: Claim
    where: str  # "entry/function", for the report


@dataclass
class EntryResult:
    """One compiled program or jit entry: its snapshots and how its pipeline ended."""

    name: str
    snapshots: dict[str, list[IrLoop]]
    error: str | None = None
    failed_in: str | None = None
    rejected: str | None = None  # the IR verifier's objection (the snapshots are unverified)
    diagnostics: list[str] = field(default_factory=list)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> EntryResult:
        snapshots = {
            name: [IrLoop.from_json(loop) for loop in loops]
            for name, loops in data.get("snapshots", {}).items()
        }
        return cls(
            name=data["entry"],
            snapshots=snapshots,
            error=data.get("error"),
            failed_in=data.get("failed_in"),
            rejected=data.get("rejected"),
            diagnostics=list(data.get("diagnostics", [])),
        )


def _by_place(loops: Iterable[IrLoop]) -> dict[tuple[str, int], list[IrLoop]]:
    """The loops of a snapshot by (function, ``for`` line), in program order."""
    places: dict[tuple[str, int], list[IrLoop]] = {}
    for loop in loops:
        places.setdefault((loop.function, loop.line), []).append(loop)
    return places


def _bounds(loop: IrLoop) -> tuple[int | None, int | None, int | None]:
    return (loop.start, loop.stop, loop.step)


def skew_claim(before: IrLoop, after: IrLoop | None) -> Claim | None:
    """What SkewCrossCorePipeline made of ``before``; None: left for the lowering passes.

    ``after`` is the loop at the same place after the pass (the pass turns one loop into
    one loop, with statements around it).
    """
    if after is None:
        return Claim("unrecognised", "no loop left at this line")
    if after.kind == "Pipeline":
        return None
    if _bounds(after) == _bounds(before):
        return Claim("demoted")
    if None not in (after.start, after.step, before.start, before.step) and before.step:
        assert after.step is not None and before.step is not None and before.start is not None
        depth, rest = divmod(after.step, before.step)
        if rest == 0 and depth >= 1 and after.start == before.start + depth * before.step:
            return Claim(f"skewed depth {depth}")
    return Claim("unrecognised", f"{after.kind} {after.start}..{after.stop} step {after.step}")


def main_loops(before: IrLoop, after: Iterable[IrLoop]) -> list[IrLoop]:
    """The loops LowerPipelineLoops may have made the main loop of ``before``: marked
    ``stage=1``, stepping ``stage * step`` from ``before``'s start."""
    stage = before.stages or 1
    return [
        loop
        for loop in after
        if loop.kind == "Pipeline"
        and loop.stages == 1
        and before.step is not None
        and loop.step == stage * before.step
        and (before.start is None or loop.start == before.start)
    ]


def lowering_claim(before: IrLoop, after: list[IrLoop]) -> Claim:
    """What LowerPipelineLoops made of a loop the skew and slot passes left; ``after``
    holds the loops at its line after the pass (copies of an enclosing pipeline too)."""
    stage = before.stages or 1
    trip = before.trip
    if stage <= 1:
        return Claim("untouched")
    if trip == 0:
        emptied = any(
            loop.kind != "Pipeline" and _bounds(loop) == _bounds(before) for loop in after
        )
        return Claim("empty") if emptied else Claim("unrecognised", "a loop of trip 0 kept")
    mains = main_loops(before, after)
    if not mains:
        if trip is not None and trip < stage:
            return Claim("copies only", f"{trip} copies")
        return Claim("unrecognised", "no main loop at this line")
    main = mains[0]
    if main.trip is None or trip is None:
        return Claim("replicated at run time")
    tail = trip - main.trip * stage
    if main.trip == 0:
        return Claim("copies only", f"{tail} copies")
    if tail == 0:
        return Claim("replicated", f"main {main.trip}")
    return Claim("replicated+tail", f"main {main.trip}, tail {tail}")


def _left_claim(entry: EntryResult, before: IrLoop, slotted: IrLoop | None) -> Claim | None:
    """Rotated, replicated, emptied or rejected: the lowering of a loop the skew left.

    ``slotted``: the same loop after LowerPipelineToSlots (Sequential with its bounds
    kept when it was rotated)."""
    staged = (before.stages or 1) > 1
    if staged and slotted is not None and slotted.kind != "Pipeline":
        # A demotion with the bounds kept: the loads took slots (a skew would change them).
        return (
            Claim("rotated")
            if _bounds(slotted) == _bounds(before)
            else Claim(
                "unrecognised",
                f"{slotted.kind} {slotted.start}..{slotted.stop} step {slotted.step}",
            )
        )
    if LOWER in entry.snapshots:
        after = _by_place(entry.snapshots[LOWER]).get((before.function, before.line), [])
        return lowering_claim(before, after)
    if entry.failed_in in (SLOTS, LOWER) and (before.stages or 1) > 1:
        return Claim(f"error: {entry.failed_in}", entry.error)
    return None


def _cloned_claim(entry: EntryResult, befores: list[IrLoop], skewed: list[IrLoop]) -> Claim | None:
    """The claim for a loop the skew pass copied: an inner loop in the producer half of
    a skewed outer loop is written into its prologue and steady loop too. Every copy
    must have been decided alike (the copies of one source loop share its bounds).

    Left clones are lowered one by one: LowerPipelineToSlots charges each clone's slots
    to the function's running total, so it may rotate the first clones and decline the
    rest. The loop is rotated when any clone is (skewlint's headline for such a loop;
    how many rotate is in its reason, not compared); else its lowering is the first's."""
    first = befores[0]
    decided = {skew_claim(first, after) for after in skewed}
    if any(_bounds(before) != _bounds(first) for before in befores) or len(decided) != 1:
        return Claim("unrecognised", f"{len(befores)} loops became {len(skewed)}")
    claim = decided.pop()
    if claim is not None:
        return claim
    slotted = _by_place(entry.snapshots.get(SLOTS, [])).get((first.function, first.line), [])
    for slot in slotted if len(slotted) == len(skewed) else []:
        if _left_claim(entry, first, slot) == Claim("rotated"):
            return Claim("rotated")
    return _left_claim(entry, first, None)


def _claims(entry: EntryResult, befores: list[IrLoop]) -> list[Claim | None]:
    """One claim per copy of a loop in one function (None: nothing known)."""
    if SKEW not in entry.snapshots:
        failed = Claim(f"error: {SKEW}", entry.error) if entry.failed_in == SKEW else None
        return [failed] * len(befores)
    place = (befores[0].function, befores[0].line)
    skewed = _by_place(entry.snapshots[SKEW]).get(place, [])
    slotted = _by_place(entry.snapshots.get(SLOTS, [])).get(place, [])
    if len(skewed) != len(befores):
        return [_cloned_claim(entry, befores, skewed)] * len(befores)
    claims = []
    for index, before in enumerate(befores):
        claim = skew_claim(before, skewed[index])
        if claim is None:
            slot = slotted[index] if len(slotted) == len(befores) else None
            claim = _left_claim(entry, before, slot)
        claims.append(claim)
    return claims


def observations(entry: EntryResult) -> list[Observation]:
    """The compiler's outcome for every pipeline loop SkewCrossCorePipeline saw.

    A function may hold a loop more than once (the dual AIV dispatch writes the vector
    body twice; an inline helper spliced twice): each copy is decided on its own, and
    identical outcomes are counted (``Claim.copies``).
    """
    pipelines = [loop for loop in entry.snapshots.get(BEFORE_SKEW, []) if loop.kind == "Pipeline"]
    found = []
    for (function, line), befores in _by_place(pipelines).items():
        counted = Counter(c for c in _claims(entry, befores) if c is not None)
        first = befores[0]
        for claim, copies in counted.items():
            core = CORES.get(first.function_type, "")
            where = f"{entry.name}/{function}"
            found.append(Observation(first.file, line, core, claim.times(copies), where))
    return found


# skewlint's codes -> shapes (the lowering codes read their record's numbers when it has them).
CODE_SHAPES = {
    "SKW010": "untouched",
    "SKW011": "replicated",
    "SKW012": "replicated+tail",
    "SKW013": "replicated at run time",
    "SKW014": "copies only",
    "SKW015": "rotated",
    "SKW016": WILDCARD,
    "SKW017": "empty",
    "SKW040": "error",
    "SKW041": f"error: {LOWER}",
    "SKW050": "unknown",
    "SKW070": "not compiled",
}


def _replication_claim(lowering: Mapping[str, Any]) -> Claim:
    """SKW011-SKW014 and SKW016 from the numbers skewlint printed."""
    main, tail = lowering.get("main_trip"), lowering.get("tail") or 0
    if main is None and not lowering.get("branches"):
        # A bound Python computes when the module loads (argv, the environment): a
        # constant to the compiler, which skewlint cannot see. Any replication matches.
        return Claim(WILDCARD)
    if main is None:
        return Claim("replicated at run time")
    if main == 0:
        return Claim("copies only", f"{tail} copies")
    if tail:
        return Claim("replicated+tail", f"main {main}, tail {tail}")
    return Claim("replicated", f"main {main}")


def code_claim(
    verdict: str | None,
    code: str,
    depth: int | None,
    lowering: Mapping[str, Any] | None,
    planner: str = "pypto",
) -> Claim:
    """One skewlint verdict (a record, a core or a copy) as a claim (``planner``: the
    ``memory-planner`` skewlint ran with)."""
    if verdict == "skewed":
        return Claim(f"skewed depth {depth}")
    if verdict == "demoted":
        return Claim("demoted")
    if lowering is not None:
        code = lowering.get("code", code)
        if lowering.get("verdict") == "replicated":
            claim = _replication_claim(lowering)
            return _open(claim) if is_open(lowering, planner) else claim
    return Claim(CODE_SHAPES.get(code, f"unknown code {code}"))


def is_open(lowering: Mapping[str, Any] | None, planner: str) -> bool:
    """Whether skewlint leaves LowerPipelineToSlots' verdict open: under ptoas the pass
    decides every replicated loop it meets, and a replicated lowering says why it
    declined (``declined``) unless skewlint could not size its slots (the lowering's
    contract, ``skewlsp.contract.Lowering``)."""
    return (
        planner == "ptoas"
        and lowering is not None
        and lowering.get("verdict") == "replicated"
        and lowering.get("declined") is None
    )


def _open(claim: Claim) -> Claim:
    return replace(claim, or_rotated=True)


def skewlint_claims(
    record: Mapping[str, Any], built_once: bool = True, planner: str = "pypto"
) -> dict[str, list[Claim]]:
    """skewlint's claims for one loop, by core ("" when it names no core).

    ``cores`` are the first copy's; every other copy (``copies``: an inline helper's
    callers, a program built per value) adds its headline claim to the core whose code
    is the record's headline code. How many copies of the loop a core's function holds
    is claimed only for a loop built once (several copies may land in one function):
    not ``built_once`` when the loop sits in a ``pl.unroll`` loop, whose copies
    UnrollLoops writes into one function (a core's ``copies`` counts its lanes only; a
    lowering's ``second_lane``, the dual AIV dispatch's second lane lowered otherwise, is
    a claim of its own, one copy each). ``planner``: the ``memory-planner`` skewlint ran
    with (a loop it leaves open under ptoas claims either outcome, :func:`is_open`).
    """
    claims: dict[str, list[Claim]] = {}
    instances = record.get("copies") or []
    for core in record.get("cores") or []:
        lowering = core.get("lowering")
        claim = code_claim(core["verdict"], core["code"], core.get("depth"), lowering, planner)
        copies = None if instances or not built_once else core.get("copies") or 1
        second = (lowering or {}).get("second_lane")
        if second is not None:  # the dual AIV dispatch's lanes, lowered apart
            lane = None if copies is None else 1
            other = code_claim(core["verdict"], second["code"], core.get("depth"), second, planner)
            claims.setdefault(core["core"], []).extend([claim.times(lane), other.times(lane)])
            continue
        claims.setdefault(core["core"], []).append(claim.times(copies))
    if not claims:
        lowering = record.get("lowering")
        claim = code_claim(record["verdict"], record["code"], record["depth"], lowering, planner)
        claims[""] = [claim.times(None)]
    headline = next(
        (c["core"] for c in record.get("cores") or [] if _core_code(c) == record["code"]),
        next(iter(claims)),
    )
    for copy in instances:
        claim = code_claim(copy["verdict"], copy["code"], copy.get("depth"), None).times(None)
        if is_open(copy.get("lowering"), planner):  # (its numbers are not compared)
            claim = _open(claim)
        if claim not in claims[headline]:
            claims[headline].append(claim)
    return claims


def _core_code(core: Mapping[str, Any]) -> str:
    lowering = core.get("lowering")
    return lowering["code"] if lowering else core["code"]
