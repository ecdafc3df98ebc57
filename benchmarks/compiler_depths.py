"""Every depth skewlint states as known against the compiler's stage groups: the pure half
of ``compiler_check.py``'s depth line (no pypto), tested in tests/benchmarks.

The PH-MR-001 comparison (``compiler_memory.memory_predictions``) sees only the depths
MemoryReuse reduced. A depth skewlint states as full is a claim too: that MemoryReuse
keeps every stage apart, with no hint. So each known per-space record of a loop's
finding (``memory``: ``space, stage_bytes, requested, achieved``, on the loop, its cores
and its copies) is compared with the compiler's records of that loop's main stage group
in that space on that core (``compiler_memory.GroupRecord`` as ``memory_report`` writes
it: the group with the most stages in its function, the main loop's clones; a remainder's
group has fewer): the depth MemoryReuse asked for and keeps (the hint's, else every
stage), the slot, and the distinct buffers the IR really gives (``depth_seen``), which
may exceed what MemoryReuse promises (issue #41: "say both when they differ"): that is
compared with the IR's depth skewlint states beside MemoryReuse's (``ir_depth``), or with
``achieved`` where it states none (it then claims the IR shows the guard's depth).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Stated:
    """One known depth skewlint states: a loop (``file:line``), a core ("" when the
    finding names none), a space, and its numbers (``achieved`` None: not stated;
    ``ir_depth``: the IR's depth where skewlint says it beside MemoryReuse's, None where
    it says none, the IR's being then ``achieved``)."""

    loop: str
    core: str
    space: str
    requested: int
    achieved: int | None
    stage_bytes: int
    ir_depth: int | None = None
    lanes: int = 1  # 2: the vector copy runs on both lanes
    second_lane: bool = False  # the record of the second lane's copy of the loop
    # of the copies Python builds with bound values (a module-level ``for``, a builder's
    # calls: ``builds`` of them), one before the last: where the name it binds is bound
    # again (a ``for``), the compile of the module's entries sees only the last copy
    earlier_build: bool = False
    builds: int = 0


@dataclass(frozen=True)
class Kept:
    """What the compiler gave one stage group: the depth MemoryReuse asked for and keeps
    (the PH-MR-001 hint's, else every stage), its slot, and the IR's depth (0: not
    measured)."""

    requested: int
    achieved: int
    slot: int
    depth_seen: int
    where: str  # entry/function, group
    first_half: bool = True  # among the first half of its function's groups of the loop

    def __str__(self) -> str:
        return f"{self.achieved} of {self.requested}, {self.slot} B per stage [{self.where}]"


@dataclass(frozen=True)
class DepthCheck:
    """One stated depth against the compiler's groups of its loop, core and space.

    ``status``: "agree" (every group the compiler compiled there keeps the stated depth
    with the stated slot; with several statements for one key, a group that does),
    "differ", "unmatched" (the loop has stage groups, none on that core in that space),
    "not compiled" (no entry compiled holds a stage group of the loop), "earlier build"
    (one of the first three, of a copy built before the last where the compile holds the
    loop in fewer entries than Python builds copies of it: a module-level ``for`` binds
    one name again, and the module keeps its last copy), or "no depth"
    (``achieved`` None: the loads overflow the space at any depth, an SKW081 the
    overflow count compares; the compiler's groups are kept to be shown). ``ir``: the IR's
    depth against the stated one: "equal", "more", "fewer", "unmeasured"."""

    stated: Stated
    status: str
    ir: str
    compiler: tuple[Kept, ...]
    own_entries: bool = False  # compared with the groups of the entries its copies are in

    def to_json(self) -> dict[str, Any]:
        """The check as ``--json`` writes it."""
        return asdict(self)

    def text(self) -> str:
        """``file:line aiv Vec: skewlint 2 of 2, 512 B per stage; compiler ...``."""
        said = self.stated
        kept = "no depth" if said.achieved is None else said.achieved
        ir = f" (the IR's depth {said.ir_depth})" if said.ir_depth is not None else ""
        ours = f"{kept} of {said.requested}{ir}, {said.stage_bytes} B per stage"
        theirs = "; ".join(map(str, self.compiler)) or "no stage group"
        seen = ", ".join(str(k.depth_seen) for k in self.compiler)
        core = f" {said.core}" if said.core else ""
        return (
            f"{said.loop}{core} {said.space}: skewlint {ours}; compiler {theirs}; "
            f"the IR's depth {seen or '-'}"
        )


@dataclass(frozen=True)
class Depths:
    """Every check, and the harness' summary line."""

    checks: tuple[DepthCheck, ...]

    def line(self) -> str:
        """``depths: N stated known, A agree ...``."""
        status = Counter(c.status for c in self.checks)
        ir = Counter(c.ir for c in self.checks if c.compiler and c.stated.achieved)
        own = sum(c.own_entries for c in self.checks)
        return (
            f"depths: {len(self.checks)} stated known ({own} against the groups of the "
            f"entries their copies are compiled in), {status['agree']} agree with "
            f"MemoryReuse (hint or full), {status['differ']} differ, {status['unmatched']} "
            f"match no compiler group of their loop, {status['not compiled']} at loops "
            f"not compiled, {status['earlier build']} of copies a module-level for builds "
            f"before the one compiled, {status['no depth']} with no depth (the loads overflow the "
            f"space: compared as overflows); the IR's buffers equal in {ir['equal']}, "
            f"more in {ir['more']}, fewer in {ir['fewer']}, not measured in "
            f"{ir['unmeasured']}"
        )

    def listed(self) -> list[str]:
        """The checks that are not plain agreement (``--verbose``): what differs, what has
        no group, and where the IR's buffers are not the stated depth."""
        return [
            f"{c.status}{f' (IR {c.ir})' if c.ir in ('more', 'fewer') else ''}: {c.text()}"
            for c in self.checks
            if c.status != "agree" or c.ir not in ("equal", "unmeasured")
        ]


def finding_loop(item: Mapping[str, Any]) -> str:
    """``file:line`` of the loop a finding is about (``filename`` absolute): its own, or,
    for an imported helper's copy listed at its call (``instance.helper_loop``), the
    helper's loop in the module the import names, looked for where Python would find it
    from the caller's file: in its folder, then the folders above (a script's folder is
    on the path; a package climbs from there)."""
    helper = (item.get("instance") or {}).get("helper_loop")
    if helper:
        parts = helper["module"].split(".")
        for folder in Path(item["filename"]).parents:
            for candidate in (folder.joinpath(*parts).with_suffix(".py"),
                              folder.joinpath(*parts, "__init__.py")):  # fmt: skip
                if candidate.is_file():
                    return f"{candidate}:{helper['line']}"
    return f"{item['filename']}:{(item.get('loop') or item)['line']}"


def memory_records(
    findings: Iterable[Mapping[str, Any]],
) -> Iterator[tuple[str, str, Mapping[str, Any]]]:
    """(loop, core, record) for every memory record of skewlint's loop findings
    (``filename`` absolute; ``loop`` its ``file:line``; ``core`` "" for the loop's own):
    each copy's (a loop Python builds more than once; ``copies`` holds the headline's
    too), else the finding's own, on each core or on the loop. Each record carries the
    function it is compiled in (``entry``: the caller of a helper's copy, else the
    finding's function; a jit kernel's entry has its name)."""
    for item in findings:
        if item.get("kind") != "loop" or not item.get("loop"):
            continue
        loop = finding_loop(item)
        units = item.get("copies") or [item]
        built = [n for n, unit in enumerate(units) if _built_by_a_for(unit)]
        for number, unit in enumerate(units):
            caller = (unit.get("instance") or {}).get("caller")
            entry = (caller or item.get("function") or "").rsplit(".", 1)[-1]
            earlier = number in built[:-1]
            places = [("", unit.get("memory") or [], 1)]
            places += [
                (c["core"], c.get("memory") or [], c.get("copies", 1))
                for c in unit.get("cores") or []
            ]
            for core, records, lanes in places:
                for rec in records:
                    yield loop, core, {
                        **rec, "lanes": lanes, "entry": entry, "earlier": earlier,
                        "builds": len(built), "file": item["filename"],
                    }  # fmt: skip


def _built_by_a_for(unit: Mapping[str, Any]) -> bool:
    """Whether a copy is one a module-level ``for`` builds (bound values, no caller)."""
    instance = unit.get("instance") or {}
    return bool(instance.get("bindings")) and not instance.get("caller")


def stated_depths(findings: Iterable[Mapping[str, Any]]) -> list[Stated]:
    """The distinct known records of skewlint's loop findings (:func:`memory_records`)."""
    return list(stated_entries(findings))


def stated_entries(findings: Iterable[Mapping[str, Any]]) -> dict[Stated, set[tuple[str, str]]]:
    """The distinct known records of skewlint's loop findings, each with the functions
    its copies are compiled in, by the file the finding is in (:func:`memory_records`:
    the file, the function); a remainder's record is not
    among them (it is made only with its PH-MR-001, which the memory line compares), nor
    a copy's that asks for no stages (the vector copy a skew demotes: its fallback and
    overflow are the memory line's)."""
    found: dict[Stated, set[tuple[str, str]]] = {}
    for loop, core, rec in memory_records(findings):
        if rec.get("known") and not rec.get("remainder") and rec["requested"]:
            said = Stated(
                loop,
                core,
                rec["space"],
                rec["requested"],
                rec.get("achieved"),
                rec["stage_bytes"],
                rec.get("ir_depth"),
                rec.get("lanes", 1),
                rec.get("lane") == 2,
                bool(rec.get("earlier")),
                rec.get("builds", 0),
            )
            found.setdefault(said, set()).add((rec["file"], rec["entry"]))
    return found


def compiled_entries(entries: set[tuple[str, str]], compiled: Mapping[str, set[str]]) -> set[str]:
    """The entries ``entries`` (file, function) are compiled in: the function, where the
    compile of its file has it as an entry; else (an inline helper calling the copy's
    helper: ``moe`` splices ``gate``) every entry compiled from that file, which splice
    it in."""
    found: set[str] = set()
    for file, entry in entries:
        in_file = compiled.get(file, set())
        found |= {entry} if entry in in_file else in_file
    return found


def main_groups(groups: Iterable[Mapping[str, Any]]) -> dict[tuple[str, str, str], list[Kept]]:
    """The compiler's main stage group of each user loop, by (loop, core, space), one per
    function that holds it: in each function the loop's groups with the most stages (a
    remainder's group has fewer; a loop the compiler made is not the user's), each
    marked whether it is in the first half of them by number (a vector function
    dispatched on both lanes holds the loop once per lane, the first lane's first)."""
    by_function: dict[tuple[str, str, str, str, str], list[Mapping[str, Any]]] = {}
    for g in groups:
        if g["loop"] is None or g["made"]:
            continue
        key = (g["loop"], g.get("core", ""), g["space"], g["entry"], g["function"])
        by_function.setdefault(key, []).append(g)
    found: dict[tuple[str, str, str], list[Kept]] = {}
    for (loop, core, space, entry, function), held in sorted(by_function.items()):
        most = max(g["stages"] for g in held)
        main = sorted((g for g in held if g["stages"] == most), key=lambda g: g["group"])
        for order, g in enumerate(main):
            hint = g["hint"]
            requested = hint["requested"] if hint else g["stages"]
            achieved = hint["achieved"] if hint else g["stages"]
            where = f"{entry}/{function} group {g['group']}"
            first = order < max(len(main) // 2, 1)
            kept = Kept(requested, achieved, g["slot"], g["depth_seen"], where, first)
            found.setdefault((loop, core, space), []).append(kept)
    return found


def _earlier_build(said: Stated, mine: list[Kept]) -> bool:
    """Whether a stated copy is one the compile does not see: built before the last of
    its loop's copies, and the compile holds the loop in fewer entries than there are
    copies (a module-level ``for`` binds one name again; a builder's calls, each bound to
    its own name, are each an entry)."""
    return said.earlier_build and len({k.where.split("/")[0] for k in mine}) < said.builds


def _same(said: Stated, kept: Kept) -> bool:
    return (said.requested, said.achieved, said.stage_bytes) == (
        kept.requested,
        kept.achieved,
        kept.slot,
    )


def _ir(said: Stated, kept: list[Kept]) -> str:
    """The IR's depth (``depth_seen``) against the one stated for it (``ir_depth`` where
    skewlint says one beside MemoryReuse's, else ``achieved``), over the groups."""
    seen = [k.depth_seen for k in kept if k.depth_seen]
    if not seen or said.achieved is None:
        return "unmeasured"
    stated = said.ir_depth if said.ir_depth is not None else said.achieved
    if any(depth > stated for depth in seen):
        return "more"
    if any(depth < stated for depth in seen):
        return "fewer"
    return "equal"


def compare_depths(
    findings: Iterable[Mapping[str, Any]], groups: Iterable[Mapping[str, Any]]
) -> Depths:
    """``findings``: skewlint's JSON items (``filename`` absolute); ``groups``:
    ``compiler_check.memory_report``'s (``loop`` absolute, ``core`` from the function's
    type). A statement without a core is compared with the loop's groups on any core."""
    groups = list(groups)
    kept = main_groups(groups)
    compiled = {g["loop"] for g in groups if g["loop"]}
    by_file: dict[str, set[str]] = {}
    for g in groups:
        by_file.setdefault(g["file"], set()).add(g["entry"])
    stated = {
        said: compiled_entries(entries, by_file)
        for said, entries in stated_entries(findings).items()
    }
    per_key = Counter((s.loop, s.core, s.space) for s in stated)
    checks = []
    for said, entries in stated.items():
        if said.core:
            mine = kept.get((said.loop, said.core, said.space), [])
            if said.lanes == 2:  # (the second lane's groups, numbered after the first's)
                mine = [k for k in mine if k.first_half != said.second_lane]
        else:
            mine = [
                k
                for (loop, _, space), ks in kept.items()
                for k in ks
                if (loop, space) == (said.loop, said.space)
            ]
        # (the groups of the entries the statement's copies are compiled in, where the
        # compile names them: a helper's copies at two callers may keep other depths)
        own = [k for k in mine if k.where.split("/")[0] in entries]
        mine = own or mine
        by_entry = bool(own)
        if said.achieved is None:  # an overflow at any depth: the memory line's SKW081
            checks.append(DepthCheck(said, "no depth", "unmeasured", tuple(mine), by_entry))
            continue
        if not mine:
            status = "unmatched" if said.loop in compiled else "not compiled"
            status = "earlier build" if _earlier_build(said, mine) else status
            checks.append(DepthCheck(said, status, "unmeasured", ()))
            continue
        alone = per_key[(said.loop, said.core, said.space)] == 1
        agree = all(_same(said, k) for k in mine) if alone else any(_same(said, k) for k in mine)
        status = "agree" if agree else "earlier build" if _earlier_build(said, mine) else "differ"
        # (several copies' records at one key: the IR of the groups that keep this one's)
        matched = [k for k in mine if _same(said, k)] if not alone else mine
        ir = _ir(said, matched or mine) if status != "earlier build" else "unmeasured"
        checks.append(DepthCheck(said, status, ir, tuple(mine), by_entry))
    return Depths(tuple(checks))
