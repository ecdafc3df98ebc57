"""What the memory passes did to each pipeline stage group, loop by loop: the pure half
of ``compiler_check.py``'s memory report (no pypto), tested in tests/benchmarks.

LowerPipelineLoops stamps each replicated region's tiles with ``pipeline_membership``
``(group, stage)``: one group per region (the main loop and the tail are two; see
``ReplicateBody`` in ``src/ir/transforms/lower_pipeline_loops_pass.cpp``), and the
skew's clones and AutoTileMatmulL0's K loops are stamped the same way. MemoryReuse
(``memory_reuse_pass.cpp``, ``IdentifyReuseOpportunities``) keeps a group's concurrent
clones apart up to an affordable depth per memory space and says so in a
``PH-MR-001`` perf hint when that depth is below the stages asked for, or warns when a
space fell back to its legacy packing; AllocateMemoryAddr fails the compile when a
space overflows.

``compiler_probe.py`` dumps the tiles after InitMemRef (with their membership, their
source line and the ``for`` statements around them), MemoryReuse (which buffer each
tile shares) and AllocateMemoryAddr (where each buffer sits). From those and the
diagnostics this module makes one :class:`GroupRecord` per (function, group, space):
the stages asked for, the largest tile (the group's slot), the distinct buffers the IR
really gives the group's clones, the hint's numbers, and the user loop it belongs to
(a hint names the function only).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from benchmarks.compiler_depths import finding_loop
from benchmarks.compiler_verdicts import CORES

# "[perf_hint PH-MR-001] MemoryReuse: software pipelining requested depth 2 for pipeline
# group 3 in Right, but only 1 of 2 buffers fit (32768 B per stage, 65536 B free[ after
# N B reserved]) — ... This operand alone needs ... | The operand would fit ... at F:L:C"
HINT = re.compile(
    r"PH-MR-001\].*?requested depth (?P<requested>\d+) for pipeline group (?P<group>\d+) "
    r"in (?P<space>\w+), but only (?P<achieved>\d+) of \d+ buffers fit "
    r"\((?P<slot>\d+) B per stage, (?P<free>\d+) B free(?: after (?P<reserved>\d+) B reserved)?\)"
    r".*? at (?P<file>\S+):(?P<line>\d+):\d+\s*$"
)
SLOT_BOUND = "This operand alone needs"
SKEW_GROUP_BASE = 1 << 20
# "[warning] ... capacity-gated reuse could not fit memory space Vec at any
# double-buffering depth; fell back to the legacy packing[ (which also overflows ...)]."
FALLBACK = re.compile(
    r"could not fit memory space (?P<space>\w+) .*?fell back to the legacy packing"
    r"(?P<overflows> \(which also overflows)?.*? at (?P<file>\S+):(?P<line>\d+):\d+\s*$"
)


@dataclass(frozen=True)
class Hint:
    """One PH-MR-001 perf hint's numbers, as MemoryReuse printed them."""

    requested: int
    achieved: int
    slot: int  # the group's largest tile in the space, aligned
    free: int  # the space's capacity minus its reserved region
    reserved: int
    cause: str  # "slot-bound": the stages alone overflow; "space-pressure": co-residents do


@dataclass(frozen=True)
class Fallback:
    """A space whose capacity-gated packing fit at no depth (the legacy packing ran)."""

    function: str
    space: str
    still_overflows: bool


@dataclass(frozen=True)
class GroupRecord:
    """One pipeline stage group in one memory space of one function.

    ``stages``: the stages of the group with a tile in this space (what MemoryReuse
    counts as the requested depth). ``buffers``: the distinct buffers the group's
    tiles own after MemoryReuse (a view or an in-place result, on its source's buffer
    from InitMemRef on, is not counted). ``depth_seen``: the depth the IR really
    gives (:func:`_depth_seen`). ``hint``: the PH-MR-001 hint for the
    group, if any. ``loop``: ``file:line`` of the user's ``pl.pipeline`` loop the
    group belongs to (None: not found); ``made``: the group is a loop the compiler
    made (AutoTileMatmulL0's K loop at a matmul's line), attributed to the user loop
    around it; ``skew``: the group of a skewed loop's clones (SkewCrossCorePipeline
    numbers its groups from ``1 << 20``, ``kSkewGroupBase`` in
    ``skew_cross_core_pipeline_pass.cpp`` line 336); ``core``: the core the function
    runs on, in skewlint's words ("" for a function of another type).
    """

    entry: str
    function: str
    group: int
    space: str
    stages: int
    slot: int
    buffers: int
    depth_seen: int
    hint: Hint | None
    loop: str | None
    made: bool
    skew: bool = False
    core: str = ""  # "aic" / "aiv": the function's type (skewlint's core names)

    def to_json(self) -> dict[str, Any]:
        """The record as ``--json`` writes it."""
        return asdict(self)


# A user loop: (file, line) -> its last line (from the source's `for` statements).
LoopRanges = Mapping[str, Mapping[int, int]]


def memberships(stamp: str | None) -> list[tuple[int, int]]:
    """``"0:1;2:0"`` -> ``[(0, 1), (2, 0)]``: the (group, stage) pairs of one tile."""
    pairs = []
    for part in (stamp or "").split(";"):
        group, _, stage = part.partition(":")
        if group.strip().isdigit() and stage.strip().isdigit():
            pairs.append((int(group), int(stage)))
    return pairs


def parse_hint(line: str) -> tuple[tuple[str, int], int, str, Hint] | None:
    """A PH-MR-001 line as ((file, function line), group, space, numbers)."""
    found = HINT.search(line)
    if found is None:
        return None
    cause = "slot-bound" if SLOT_BOUND in line else "space-pressure"
    hint = Hint(
        requested=int(found["requested"]),
        achieved=int(found["achieved"]),
        slot=int(found["slot"]),
        free=int(found["free"]),
        reserved=int(found["reserved"] or 0),
        cause=cause,
    )
    return (found["file"], int(found["line"])), int(found["group"]), found["space"], hint


def _function_at(functions: Iterable[Mapping[str, Any]], place: tuple[str, int]) -> list[str]:
    """The functions a diagnostic's span names, in the program's order: several may
    share one (an AIV function and its SPMD wrapper, the copies of an outlined scope)."""
    return [f["name"] for f in functions if (f["file"], f["line"]) == place]


def _innermost_loop(
    positions: list[tuple[str, int]], ranges: LoopRanges
) -> tuple[str, int] | None:
    """The innermost user loop whose lines hold every position (all in one file)."""
    files = {file for file, _ in positions}
    if len(files) != 1:
        return None
    file = files.pop()
    lines = [line for _, line in positions]
    holding = [
        (end - start, start)
        for start, end in ranges.get(file, {}).items()
        if all(start <= line <= end for line in lines)
    ]
    return (file, min(holding)[1]) if holding else None


def _position(tile: Mapping[str, Any], ranges: LoopRanges) -> tuple[str, int] | None:
    """Where a tile sits in the user's source: its own line in a file with loops, else
    the innermost ``for`` around it in one (a helper's tile, inlined at its call)."""
    if tile.get("file") in ranges:
        return tile["file"], tile["line"]
    for file, line in reversed(tile.get("loops") or []):
        if file in ranges:
            return file, line
    return None


def skew_taken(snapshots: Mapping[str, list[Mapping[str, Any]]]) -> set[tuple[str, str, int]]:
    """The pipeline loops SkewCrossCorePipeline rewrote in an entry, by (function, file,
    ``for`` line): a pipeline loop before it, a sequential one after (skewed, or demoted
    on that core). LowerPipelineLoops gives them no group of their own."""

    def pipelines(name: str) -> set[tuple[str, str, int]]:
        loops = snapshots.get(name) or []
        return {(x["function"], x["file"], x["line"]) for x in loops if x["kind"] == "Pipeline"}

    return pipelines("NormalizeReturnOrder") - pipelines("SkewCrossCorePipeline")


def _position_in(
    tile: Mapping[str, Any],
    group: int,
    ranges: LoopRanges,
    taken: set[tuple[str, str, int]] | None = None,
) -> tuple[str, int] | None:
    """Where a tile sits for one of its groups: for the n-th of its LowerPipelineLoops
    groups, the ``for`` line of the n-th pipeline loop around it, innermost first (the
    pass lowers an inner loop before the outer one and appends each group to the tile's
    membership: ``VisitStmt(op->body_)`` before ``PipelineMembershipTagger`` in
    ``lower_pipeline_loops_pass.cpp``), so an outer loop whose body is only an inner one
    is its groups' loop, and a loop the skew rewrote in the tile's function (``taken``:
    :func:`skew_taken`) is not counted; else (a skew's group, a count that does not
    match) its own position."""
    position = _position(tile, ranges)
    if position is None or group >= SKEW_GROUP_BASE:
        return position
    stamps = [g for g, _ in memberships(tile.get("membership"))]
    file, line = position
    skipped = taken or set()
    around = sorted(
        (end - start, start)
        for start, end in ranges.get(file, {}).items()
        if start <= line <= end and (tile.get("function"), file, start) not in skipped
    )
    if any(g >= SKEW_GROUP_BASE for g in stamps) or len(around) != len(stamps):
        return position
    return file, around[stamps.index(group)][1]


def _is_made(tiles: list[Mapping[str, Any]], ranges: LoopRanges, for_lines: LoopRanges) -> bool:
    """A group whose tiles all sit in a loop at a line with no ``for``: a loop the
    compiler made (AutoTileMatmulL0 puts its K loop at the matmul's line)."""
    innermost = [tuple(t["loops"][-1]) for t in tiles if t.get("loops")]
    if len(innermost) != len(tiles) or len(set(innermost)) != 1:
        return False
    file, line = innermost[0]
    return file in ranges and line not in for_lines.get(file, {})


def _views(tiles: Iterable[Mapping[str, Any]]) -> set[tuple[str, str, int]]:
    """The tiles InitMemRef put on a buffer an earlier tile of their function holds."""
    seen: set[tuple[str, str | None]] = set()
    views = set()
    for tile in tiles:
        key = (tile["function"], tile["base"])
        if key in seen:
            views.add((tile["function"], tile["name"], tile["nth"]))
        seen.add(key)
    return views


def _depth_seen(
    tiles: list[tuple[Mapping[str, Any], int, str | None]], group: int, slot: int
) -> int:
    """The depth the IR really gives the group: for each source tile of the group's
    largest size among those owning their buffer (its name, and its stages in the
    other groups it belongs to: the clones an outer replication made), the nearest
    two of its stages that share a buffer are that many apart (every stage apart when
    none share); the fewest over such tiles (0: no such tile is in two stages).

    That is what MemoryReuse's residue rule promises for depth F: clones fewer than F
    stages apart never share. Clones may still hold distinct buffers beyond F when
    their lifetimes overlap in program order (an accumulator kept across the clones).
    """
    owned = [tile["bytes"] for tile, _, base in tiles if base is not None]
    slot = max(owned, default=slot)  # the largest tile with a buffer of its own
    by_source: dict[tuple[Any, ...], dict[int, str | None]] = {}
    for tile, stage, base in tiles:
        if tile["bytes"] != slot or base is None:
            continue
        others = tuple(p for p in memberships(tile.get("membership")) if p[0] != group)
        by_source.setdefault((tile["name"], others), {})[stage] = base
    if len({stage for _, stage, _ in tiles}) == 1:
        return 1
    depths = []
    for bases in by_source.values():
        stages = sorted(bases)
        if len(stages) < 2:
            continue  # a tile of one stage shows nothing of depth
        gaps = [
            later - earlier
            for i, earlier in enumerate(stages)
            for later in stages[i + 1 :]
            if bases[earlier] == bases[later]
        ]
        depths.append(min(gaps) if gaps else len(stages))
    return min(depths, default=0)


def group_records(
    entry: str,
    memory: Mapping[str, Mapping[str, Any]],
    diagnostics: Iterable[str],
    ranges: LoopRanges,
    for_lines: LoopRanges | None = None,
    taken: set[tuple[str, str, int]] | None = None,
) -> list[GroupRecord]:
    """One record per (function, group, space) of an entry's stamped tiles.

    ``memory``: the probe's snapshots (``InitMemRef``, ``MemoryReuse``); ``ranges``:
    each file's user ``pl.pipeline`` loops (``for`` line -> last line); ``for_lines``:
    every ``for`` statement of each file (default: those loops), to tell a loop the
    compiler made from a user's; ``taken``: the loops the skew rewrote
    (:func:`skew_taken`), whose tiles' groups are a loop's around them.
    """
    init = memory.get("InitMemRef", {}).get("tiles", [])
    reused = {
        (t["function"], t["name"], t["nth"]): t["base"]
        for t in memory.get("MemoryReuse", {}).get("tiles", [])
    }
    groups: dict[tuple[str, int, str], list[tuple[Mapping[str, Any], int, str | None]]] = {}
    # A tile on a buffer an earlier tile already had at InitMemRef (a view, an in-place
    # result) shares it by construction, not by MemoryReuse: it says nothing of depth.
    views = _views(init)
    for tile in init:
        base = reused.get((tile["function"], tile["name"], tile["nth"]), tile["base"])
        if (tile["function"], tile["name"], tile["nth"]) in views:
            base = None
        for group, stage in memberships(tile.get("membership")):
            key = (tile["function"], group, tile["space"])
            groups.setdefault(key, []).append((tile, stage, base))
    hints = _hints_by_group(memory, diagnostics, set(groups))
    # A group is one replicated region, in every space: made or not is decided over all
    # of its tiles (a user loop's clones hold the K loops the compiler made in them).
    whole: dict[tuple[str, int], list[Mapping[str, Any]]] = {}
    for (function, group, _), tiles in groups.items():
        whole.setdefault((function, group), []).extend(tile for tile, _, _ in tiles)
    made = {key: _is_made(tiles, ranges, for_lines or ranges) for key, tiles in whole.items()}
    types = {f["name"]: f["type"] for f in memory.get("InitMemRef", {}).get("functions", [])}
    records = []
    for (function, group, space), tiles in sorted(groups.items()):
        slot = max(tile["bytes"] for tile, _, _ in tiles)
        members = [tile for tile, _, _ in tiles]
        found = (_position_in(t, group, ranges, taken) for t in members)
        positions = [p for p in found if p is not None]
        loop = _innermost_loop(positions, ranges) if len(positions) == len(members) else None
        records.append(
            GroupRecord(
                entry=entry,
                function=function,
                group=group,
                space=space,
                stages=len({stage for _, stage, _ in tiles}),
                slot=slot,
                buffers=len({base for _, _, base in tiles if base is not None}),
                depth_seen=_depth_seen(tiles, group, slot),
                hint=hints.get((function, group, space)),
                loop=f"{loop[0]}:{loop[1]}" if loop else None,
                made=made[(function, group)],
                skew=group >= SKEW_GROUP_BASE,
                core=CORES.get(types.get(function, ""), ""),
            )
        )
    return records


def _hints_by_group(
    memory: Mapping[str, Mapping[str, Any]],
    diagnostics: Iterable[str],
    stamped: set[tuple[str, int, str]],
) -> dict[tuple[str, int, str], Hint]:
    """The PH-MR-001 hints by (function, group, space). A hint names its function by
    the function's span, which copies of one function share; MemoryReuse runs over the
    functions in the program's order, so the n-th hint for a (span, group, space) is
    the n-th function there with that group in that space (``stamped``)."""
    functions = memory.get("InitMemRef", {}).get("functions", [])
    found: dict[tuple[str, int, str], Hint] = {}
    for line in diagnostics:
        parsed = parse_hint(line)
        if parsed is None:
            continue
        place, group, space, hint = parsed
        for name in _function_at(functions, place):
            key = (name, group, space)
            if key in stamped and key not in found:
                found[key] = hint
                break
    return found


def fallbacks(
    memory: Mapping[str, Mapping[str, Any]], diagnostics: Iterable[str]
) -> list[Fallback]:
    """The legacy-packing warnings of an entry, by function and space."""
    functions = memory.get("InitMemRef", {}).get("functions", [])
    found = []
    for line in diagnostics:
        hit = FALLBACK.search(line)
        if hit is None:
            continue
        named = _function_at(functions, (hit["file"], int(hit["line"])))
        found.append(Fallback(named[0] if named else "?", hit["space"], bool(hit["overflows"])))
    return found


def space_footprints(memory: Mapping[str, Mapping[str, Any]]) -> dict[tuple[str, str], int]:
    """Each (function, space)'s high-water mark after AllocateMemoryAddr: the end of
    its last buffer (the address a tile got plus its bytes)."""
    ends: dict[tuple[str, str], int] = {}
    for tile in memory.get("AllocateMemoryAddr", {}).get("tiles", []):
        if tile.get("offset") is None:
            continue
        key = (tile["function"], tile["space"])
        ends[key] = max(ends.get(key, 0), tile["offset"] + tile["bytes"])
    return ends


# "ValueError: Vec buffer usage (212992 bytes) exceeds platform limit (188416 bytes)"
USAGE = re.compile(
    r"(?P<space>\w+) buffer usage \((?P<used>\d+) bytes\) exceeds platform limit "
    r"\((?P<limit>\d+) bytes\)"
)


def over_capacity(memory: Mapping[str, Mapping[str, Any]], error: str) -> list[dict[str, Any]]:
    """The functions an AllocateMemoryAddr stop (``error``) is about: those whose buffers
    after MemoryReuse (each counted once, at its largest extent) exceed the limit the
    error names in its space, each with the source lines of its tiles there (InitMemRef's):
    the error names neither, and a program of many outlined functions hides which one
    overflows."""
    hit = USAGE.search(error)
    if hit is None:
        return []
    space, limit = hit["space"], int(hit["limit"])
    ends: dict[str, dict[str, int]] = {}
    for tile in memory.get("MemoryReuse", {}).get("tiles", []):
        if tile["space"] == space:
            buffers = ends.setdefault(tile["function"], {})
            end = (tile.get("offset") or 0) + tile["bytes"]
            buffers[tile["base"]] = max(buffers.get(tile["base"], 0), end)
    found = []
    for function, buffers in sorted(ends.items()):
        used = sum(buffers.values())
        if used <= limit:
            continue
        lines = {
            f"{str(t['file']).rsplit('/', 1)[-1]}:{t['line']}"
            for t in memory.get("InitMemRef", {}).get("tiles", [])
            if t["function"] == function and t["space"] == space and t.get("file")
        }
        found.append({"function": function, "bytes": used, "lines": sorted(lines)})
    return found


def over_words(over: list[Mapping[str, Any]]) -> str:
    """`` (over: `wide` 262144 B, tiles at vector.py:26, vector.py:27)``: what
    :func:`over_capacity` found, for a line of the check's output ("" when nothing)."""
    if not over:
        return ""
    shown = [
        f"`{one['function']}` {one['bytes']} B, tiles at {', '.join(one['lines'])}"
        for one in over[:2]
    ]
    more = f"; and {len(over) - 2} more" if len(over) > 2 else ""
    return f" (over: {'; '.join(shown)}{more})"


def sizes(memory: Mapping[str, Mapping[str, Any]]) -> list[tuple[tuple[int, ...], str, str, int]]:
    """Each tile InitMemRef gave a buffer of its own, with a static shape: (shape,
    dtype, space, the bytes the compiler gave it). A view (a tile on a buffer an
    earlier tile of its function holds) is left out: its size is its source's."""
    found = []
    seen: set[tuple[str, str | None]] = set()
    for tile in memory.get("InitMemRef", {}).get("tiles", []):
        key = (tile["function"], tile["base"])
        shape = tile.get("shape")
        if key not in seen and shape and None not in shape:
            found.append((tuple(shape), tile["dtype"], tile["space"], tile["bytes"]))
        seen.add(key)
    return found


@dataclass(frozen=True)
class Predictions:
    """skewlint's memory codes against the compiler: the PH-MR-001 hints in user loops,
    those an SKW080 at the loop predicts (same space, requested and achieved depth), the
    entries AllocateMemoryAddr stopped, those an SKW081 predicts (same file, same space),
    the legacy-packing warnings, those an SKW082 predicts (same entry, same space),
    every SKW08x with no such counterpart (a false positive), and the SKW08x findings in
    files the compiler could not load or (SKW080) at loops no entry it compiled holds (not
    compared); ``masked``: the SKW081 of a space in an entry AllocateMemoryAddr stopped at
    another space first (it raises at the first space over its limit: not compared)."""

    hints: int
    predicted: int
    overflows: int
    predicted_overflows: int
    wrong: tuple[str, ...]
    unchecked: int = 0  # findings at loops the compiler did not compile
    fallbacks: int = 0  # the legacy-packing warnings
    predicted_fallbacks: int = 0
    missed: tuple[str, ...] = ()  # each hint, stop and warning no finding predicts
    masked: int = 0  # overflows claimed behind the compile's stop at another space

    def line(self) -> str:
        """The harness' summary line."""
        unchecked = f"; {self.unchecked} at loops not compiled" if self.unchecked else ""
        if self.masked:
            unchecked += f"; {self.masked} overflows behind another space's stop"
        return (
            f"memory: {self.hints} hints, {self.predicted} predicted, {len(self.wrong)} "
            f"predicted wrongly; {self.overflows} overflows, {self.predicted_overflows} "
            f"predicted; {self.fallbacks} fallbacks, {self.predicted_fallbacks} "
            f"predicted{unchecked}"
        )


CODE_CAUSE = {
    "SKW080": ("slot-bound", "space-pressure"),
    "SKW081": ("overflow",),
    "SKW082": ("overflow", "legacy"),  # a space packed the legacy way, overflowing or not
}


def _claims(item: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The finding's own space record, where its JSON names it (``record``); else the
    per-space records of its loop whose cause is the finding's."""
    if item.get("record"):
        return [item["record"]]
    causes = CODE_CAUSE[item["code"]]
    every = list(item.get("memory") or [])
    for core in item.get("cores") or []:
        every += core.get("memory") or []
    return [found for found in every if found["cause"] in causes]


def _entries(item: Mapping[str, Any]) -> set[str]:
    """The entries a finding's loop is compiled in: its function, or the caller of the
    inline helper copy it is about (``Kernel.main`` names the entry ``main``)."""
    names = {item.get("function") or ""}
    caller = (item.get("instance") or {}).get("caller")
    if caller:
        names.add(caller)
    return {name.rsplit(".", 1)[-1] for name in names}


def _same_stops(errors: list[Mapping[str, Any]], stopped: set[int]) -> set[int]:
    """The stops of other entries of a file that are one a finding predicts: the same
    error on the same outlined functions, bytes and tiles (``over``). A host entry
    (``l3_prefill_fwd``) compiles the kernels it calls (``prefill_fwd``), and stops where
    they do; skewlint names the kernel."""
    seen = [(errors[n]["file"], errors[n]["error"], errors[n].get("over")) for n in stopped]
    return {
        n
        for n, e in enumerate(errors)
        if e.get("over") and (e["file"], e["error"], e.get("over")) in seen
    }


def memory_predictions(
    findings: Iterable[Mapping[str, Any]], report: Mapping[str, list[Any]]
) -> Predictions:
    """``findings``: skewlint's JSON items (``filename`` absolute); ``report``:
    ``compiler_check.memory_report``'s (its groups' ``loop`` and errors' ``file``
    absolute, as the probe names them)."""
    hinted = [g for g in report["groups"] if g["hint"] and not g["made"] and g["loop"]]
    not_loaded = set(report.get("not_loaded") or ())
    compiled_loops = {g["loop"] for g in report["groups"] if g["loop"]}
    # the entries that compile each loop (a builder's kernel is an entry of the name the
    # module binds it to, which a finding does not name)
    compiling: dict[str, set[str]] = {}
    for g in report["groups"]:
        if g["loop"]:
            compiling.setdefault(g["loop"], set()).add(g["entry"])
    predicted: set[int] = set()
    stopped: set[int] = set()
    fell: set[int] = set()  # the legacy-packing warnings an SKW082 predicts
    wrong = []
    unchecked = masked = 0
    for item in findings:
        if item["code"] not in CODE_CAUSE:
            continue
        # (a scope without a pipeline loop: its report's line, the scope's header)
        where = finding_loop(item)
        if item["filename"] in not_loaded:
            unchecked += 1  # (the compiler could not load the file: nothing to compare)
            continue
        if item["code"] == "SKW080" and where not in compiled_loops:
            unchecked += 1  # (no entry compiled the loop through MemoryReuse)
            continue
        entries = _entries(item) | compiling.get(where, set())
        for claim in _claims(item):
            if item["code"] == "SKW080":
                hits = [
                    n
                    for n, g in enumerate(hinted)
                    if g["loop"] == where
                    and g["space"] == claim["space"]
                    and (g["hint"]["requested"], g["hint"]["achieved"])
                    == (claim["requested"], claim["achieved"])
                ]
                predicted.update(hits)
            elif item["code"] == "SKW081":
                hits = [
                    n
                    for n, e in enumerate(report["errors"])
                    if e["file"] == item["filename"]
                    and e["entry"] in entries
                    and f"{claim['space']} buffer usage" in e["error"]
                ]
                stopped.update(hits)
                if not hits and _stopped_first(report["errors"], item, entries):
                    masked += 1
                    continue
            else:
                hits = [
                    n
                    for n, f in enumerate(report["fallbacks"])
                    if f["file"] == item["filename"]
                    and f["entry"] in entries
                    and f["space"] == claim["space"]
                ]
                fell.update(hits)
            if not hits:
                wrong.append(f"{where}: {item['code']} {claim['space']} has no counterpart")
    stopped |= _same_stops(report["errors"], stopped)
    counts = len(hinted), len(predicted), len(report["errors"]), len(stopped)
    missed = [
        f"{g['loop']}: PH-MR-001 {g['space']} {g['hint']['requested']} -> "
        f"{g['hint']['achieved']} ({g['hint'].get('cause') or 'hint'})"
        for n, g in enumerate(hinted)
        if n not in predicted
    ]
    missed += [
        f"{e['file']}: {e['entry']}: {e['error']}{over_words(e.get('over') or [])}"
        for n, e in enumerate(report["errors"])
        if n not in stopped
    ]
    missed += [
        f"{f['file']}: {f['entry']}: legacy packing in {f['space']}"
        for n, f in enumerate(report["fallbacks"])
        if n not in fell
    ]
    return Predictions(
        *counts, tuple(wrong), unchecked, len(report["fallbacks"]), len(fell), tuple(missed),
        masked,
    )  # fmt: skip


def _stopped_first(
    errors: list[Mapping[str, Any]], item: Mapping[str, Any], entries: set[str]
) -> bool:
    """Whether AllocateMemoryAddr stopped an entry of ``item``'s loop (``entries``) at
    some space's overflow (then a later space's is never placed, nor said)."""
    return any(
        e["file"] == item["filename"] and e["entry"] in entries and "buffer usage" in e["error"]
        for e in errors
    )
