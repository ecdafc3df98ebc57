"""The buffer assignment as comments above a lowered loop: which buffer each copy's
loads use (issue #41).

A replicated loop's copies each ask for a buffer per load; whether they get one is
MemoryReuse's decision, and where it sits AllocateMemoryAddr's
(:class:`~skewlsp.contract.BufferAssignment`, per core copy). The preview shows it next
to the copies it is about, named as the lowered loop names them (``copy 1``, ``remainder
copy 0``), so a reader sees which copies share storage: copies of one stage group in one
buffer serialize. Where the memory passes did not model the loop, one line says why.
Comments only: the preview stays read-only and runs as the original does.
"""

from __future__ import annotations

from collections.abc import Sequence

from skewlsp.contract import CORE_TITLES, BufferAssignment, LoadBuffer, LoopReport

HEADING = "MemoryReuse, AllocateMemoryAddr"


def buffer_comments(report: LoopReport) -> list[str]:
    """The comment lines above ``report``'s lowered loop: each core copy's assignment
    (the loop's own when it is not split by core); none when the passes never saw it."""
    if report.cores:
        found = [(f" on the {CORE_TITLES[c.core]} core", c.buffers) for c in report.cores]
    else:
        found = [("", report.buffers)]
    lines: list[str] = []
    for on, buffers in found:
        if buffers is not None:
            lines += _assignment(on, buffers)
    return lines


def _assignment(on: str, buffers: BufferAssignment) -> list[str]:
    if buffers.why is not None:
        return [f"# buffers of the loads{on}: not modelled ({buffers.why})"]
    if not buffers.loads:
        return []
    lines = [f"# buffers of the loads{on} ({HEADING}):"]
    copies: dict[tuple[str, int], list[LoadBuffer]] = {}
    for load in buffers.loads:
        copies.setdefault((load.region, load.copy), []).append(load)
    for (region, copy), loads in copies.items():
        placed = ", ".join(_load(load) for load in loads)
        lines.append(f"#   {_copy_name(region)} {copy}: {placed}")
    lines += _shared(buffers.loads)
    if all(load.offset is None for load in buffers.loads):
        stopped = sorted({load.space for load in buffers.loads})
        lines.append(
            f"#   no offsets: the loads overflow {' and '.join(stopped)} and "
            "AllocateMemoryAddr stops the compile"
        )
    else:
        lines.append(
            "#   offsets as the loads alone take the space; the function's other tiles (not "
            "modelled) move them"
        )
    return lines


def _load(load: LoadBuffer) -> str:
    at = f" at offset {load.offset}" if load.offset is not None else ""
    return f"{load.load} in {load.space} buffer {load.buffer} ({load.bytes} B{at})"


def _copy_name(region: str, many: bool = False) -> str:
    name = "copy" if region == "main" else "remainder copy"
    return name.replace("copy", "copies") if many else name


def _shared(loads: Sequence[LoadBuffer]) -> list[str]:
    """``copies 0 and 2 share Vec buffer 0``: the copies of one stage group (one region)
    MemoryReuse put in one buffer, which therefore run one after the other."""
    users: dict[tuple[str, str, int], list[int]] = {}
    for load in loads:
        found = users.setdefault((load.region, load.space, load.buffer), [])
        if load.copy not in found:
            found.append(load.copy)
    lines = []
    for (region, space, buffer), copies in users.items():
        if len(copies) < 2:
            continue
        named = ", ".join(map(str, copies[:-1])) + f" and {copies[-1]}"
        lines.append(
            f"#   {_copy_name(region, many=True)} {named} share {space} buffer {buffer}: "
            "their stages serialize"
        )
    return lines
