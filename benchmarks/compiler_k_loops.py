"""The K loops AutoTileMatmulL0 makes, their PH-MR-001 depth and the IR's, against what
skewlint states: the pure half of ``compiler_check.py``'s K-loop line (no pypto), tested
in tests/benchmarks.

MemoryReuse's guard sheds a K loop's stages like any stage group's, and its hint says so;
but the guard only forbids sharing below its depth (``memory_reuse_pass.cpp``: F feeds
``pipeline_blocks`` in ``can_share``), and the two slices of a K loop, extracted ahead of
their matmuls, are live together: the IR keeps them in buffers of their own, deeper than
the hint (issue #41: "say both when they differ"). skewlint states such a K loop on its
loop's record of the space (``memory[].k_loops``: the hint's ``requested``,
``achieved``, ``stage_bytes`` and the IR's ``ir_depth``), and this compares those with
the compiler's hinted K-loop groups (``compiler_memory.GroupRecord`` with ``made``, as
``memory_report`` writes it): each group whose IR is deeper than its hint should be
stated at its loop, core and space with its numbers and the IR's depth (``depth_seen``).
A K loop outside the pipeline loops belongs to no loop's record (skewlint names it, both
depths, only in the messages of the loops beside it): counted, not compared.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from benchmarks.compiler_depths import memory_records


@dataclass(frozen=True)
class StatedKLoop:
    """One K loop skewlint states at both depths: its loop (``file:line``), core ("" when
    the finding names none), space, matmul, and the hint's numbers and the IR's depth."""

    loop: str
    core: str
    space: str
    matmul: str
    requested: int
    achieved: int
    stage_bytes: int
    ir_depth: int

    def text(self) -> str:
        core = f" {self.core}" if self.core else ""
        return (
            f"{self.loop}{core} {self.space} `{self.matmul}`: skewlint {self.achieved} of "
            f"{self.requested}, the IR's {self.ir_depth}"
        )


def _group_text(group: Mapping[str, Any]) -> str:
    hint = group["hint"]
    return (
        f"compiler {hint['achieved']} of {hint['requested']}, the IR's {group['depth_seen']} "
        f"[{group['entry']}/{group['function']} group {group['group']}]"
    )


@dataclass(frozen=True)
class KLoops:
    """The compiler's hinted K-loop groups (``groups``: in user loops; ``outside``: how
    many more sit outside the pipeline loops) against skewlint's statements."""

    groups: tuple[Mapping[str, Any], ...]
    outside: int
    stated: tuple[StatedKLoop, ...]

    def _deeper(self) -> list[Mapping[str, Any]]:
        return [g for g in self.groups if g["depth_seen"] > g["hint"]["achieved"]]

    def _matches(self, group: Mapping[str, Any]) -> list[StatedKLoop]:
        """skewlint's statements of the group's loop, space and numbers (a statement
        with no core: on any core)."""
        hint = group["hint"]
        return [
            s
            for s in self.stated
            if (s.loop, s.space) == (group["loop"], group["space"])
            and s.core in ("", group["core"])
            and (s.requested, s.achieved, s.stage_bytes)
            == (hint["requested"], hint["achieved"], group["slot"])
        ]

    def _wrong(self) -> list[StatedKLoop]:
        """Statements no compiled group of their loop, space and numbers bears out (the
        IR's depth differs, or no such group is hinted there); a loop the compiler did
        not compile is not compared."""
        compiled = {g["loop"] for g in self.groups}
        right = {s for g in self.groups for s in self._matches(g) if s.ir_depth == g["depth_seen"]}
        return [s for s in self.stated if s.loop in compiled and s not in right]

    def _unstated(self) -> list[Mapping[str, Any]]:
        return [
            g
            for g in self._deeper()
            if not any(s.ir_depth == g["depth_seen"] for s in self._matches(g))
        ]

    def line(self) -> str:
        """``K loops: N hinted groups in user loops ..., the IR deeper in M; ...``."""
        deeper = self._deeper()
        said = len(deeper) - len(self._unstated())
        return (
            f"K loops: {len(self.groups)} hinted groups in user loops ({self.outside} more "
            "outside the pipeline loops: named in messages only, not compared), the IR "
            f"deeper in {len(deeper)}; skewlint states the IR's depth in {said}, wrongly "
            f"in {len(self._wrong())}, not at all in {len(self._unstated())}"
        )

    def listed(self) -> list[str]:
        """What is not borne out (``--verbose``): wrong statements, and deeper groups
        skewlint does not state."""
        wrong = []
        for said in self._wrong():
            theirs = [
                g
                for g in self.groups
                if (g["loop"], g["space"]) == (said.loop, said.space)
                and said.core in ("", g["core"])
            ]
            compiler = "; ".join(map(_group_text, theirs)) or "no hinted K loop"
            wrong.append(f"wrong: {said.text()}; {compiler}")
        unstated = [
            f"not stated: {g['loop']} {g['core']} {g['space']}: {_group_text(g)}"
            for g in self._unstated()
        ]
        return wrong + unstated


def stated_k_loops(findings: Iterable[Mapping[str, Any]]) -> list[StatedKLoop]:
    """The distinct K loops skewlint's loop findings state at both depths (``filename``
    absolute), read off their memory records (:func:`compiler_depths.memory_records`)."""
    found: dict[StatedKLoop, None] = {}
    for loop, core, rec in memory_records(findings):
        for k in rec.get("k_loops") or []:
            b = k["buffers"]
            said = StatedKLoop(
                loop,
                core,
                rec["space"],
                k["matmul"],
                b["requested"],
                b["achieved"],
                b["stage_bytes"],
                b["ir_depth"],
            )
            found[said] = None
    return list(found)


def compare_k_loops(
    findings: Iterable[Mapping[str, Any]], groups: Iterable[Mapping[str, Any]]
) -> KLoops:
    """``findings``: skewlint's JSON items (``filename`` absolute); ``groups``:
    ``compiler_check.memory_report``'s (``loop`` absolute, ``core`` from the function's
    type)."""
    hinted = [g for g in groups if g["made"] and g["hint"]]
    inside = tuple(g for g in hinted if g["loop"])
    return KLoops(inside, len(hinted) - len(inside), tuple(stated_k_loops(findings)))
