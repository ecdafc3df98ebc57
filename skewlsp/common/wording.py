"""Words the CLI and the server print the same way: counts (``1 iteration``, ``2
iterations``) and the build a verdict holds for."""

from __future__ import annotations

from skewlsp.contract import KLoopBuffers, LoopReport, SpaceBuffers


def plural(count: int, word: str, many: str | None = None) -> str:
    """``1 iteration``, ``2 iterations``, ``1 push``, ``3 pushes``: never ``iteration(s)``."""
    if count == 1:
        return f"{count} {word}"
    if many is None:
        many = word + ("es" if word.endswith(("s", "sh", "ch", "x")) else "s")
    return f"{count} {many}"


def assumed_lines(report: LoopReport) -> list[str]:
    """What a verdict one build decides says about the build: the value it assumed
    (``assuming `DEEPSEEK_V4_VARIANT` unset: `pro```) and the loop under each other value
    that changes it (``with DEEPSEEK_V4_VARIANT=flash: SKW002 ...``). Empty for a verdict
    no assumed value decides."""
    if not report.assumes:
        return []
    lines = ["; ".join(a.text for a in report.assumes)]
    for v in report.variants:  # (a variant without a code: a scope with no overflow there)
        lines.append(f"with {v.label}: " + " ".join(part for part in (v.code, v.message) if part))
    return lines


def buffers_text(found: SpaceBuffers) -> str:
    """One memory space of a replicated loop: the buffers MemoryReuse gives its loads, as
    far as skewlsp sees (``Vec: at most 2 of 3 buffers per load, 65536 B per stage,
    slot-bound``); exactly, where every tile of the function in the space is known. Then
    each K loop of the loop whose two depths differ, the guard's and the IR's."""
    return _space_text(found) + "".join(_k_loop_text(k) for k in found.k_loops)


def _k_loop_text(k_loop: KLoopBuffers) -> str:
    """``; its K loop for `matmul(a, b)`: 1 of 2 stages kept apart (...); the IR ...``."""
    found = k_loop.buffers
    which = "the remainder of its K loop" if k_loop.remainder else "its K loop"
    return (
        f"; {which} for `{k_loop.matmul}`: {found.achieved} of {found.requested} stages kept "
        f"apart ({found.stage_bytes} B per stage, {found.cause}){_ir_depth(found)}"
    )


def _space_text(found: SpaceBuffers) -> str:
    """:func:`buffers_text` of the space alone (a second lane's: ``Vec (second lane):``;
    the remainder's: ``Right (remainder):``)."""
    label = f"{found.space} (second lane)" if found.lane == 2 else found.space
    if found.remainder:
        label = f"{label} (remainder)"
    asked = f"{found.stage_bytes} B per stage"
    if not found.requested and found.cause in ("overflow", "legacy"):
        return _unstaged_text(label, found)
    if not found.stage_bytes:  # (a slot not known: the reason says why)
        return f"{label}: {found.requested} buffers per stage asked: {found.reason}"
    if found.cause == "overflow":
        what = found.reason or f"the loads of {found.requested} stages overflow"
        return f"{label}: {what} it ({asked}): the compile stops"
    if found.cause == "legacy":
        return (
            f"{label}: no depth fits ({asked}): MemoryReuse falls back to its legacy "
            "packing"
        )
    if found.achieved == found.requested and found.cause is None:
        return (
            f"{label}: all {found.requested} buffers per load kept ({asked}; every "
            f"{found.space} tile of the function packed)"
        )
    if found.achieved is not None and found.cause is None:
        return f"{label}: {found.achieved} of {found.requested} buffers kept apart ({asked})"
    if found.cause == "space-pressure":
        return (
            f"{label}: {found.achieved} of {found.requested} buffers per load "
            f"({asked}, space-pressure: the function's other tiles take the space)"
            f"{_ir_depth(found)}"
        )
    if found.achieved is not None:
        return (
            f"{label}: at most {found.achieved} of {found.requested} buffers per load "
            f"({asked}, {found.cause}){_ir_depth(found)}"
        )
    why = f": {found.reason}" if found.reason else ""
    return f"{label}: {found.requested} buffers per load asked ({asked}){why}"


def _unstaged_text(label: str, found: SpaceBuffers) -> str:
    """A copy that asks for no stage buffers (the vector copy a skew demotes runs as a
    sequential loop), whose function's tiles MemoryReuse fits at no depth."""
    if found.cause == "overflow":
        what = found.reason or "the function's tiles overflow"
        return f"{label}: no stage buffers of its own; {what} it: the compile stops"
    return (
        f"{label}: no stage buffers of its own; MemoryReuse fits the function's tiles at "
        "no depth and falls back to its legacy packing"
    )


def _ir_depth(found: SpaceBuffers) -> str:
    """The depth the IR's buffers show, where it exceeds MemoryReuse's (both are said)."""
    if found.ir_depth is None:
        return ""
    return (
        f"; the IR still keeps each stage's largest tiles in buffers of their own, "
        f"{found.ir_depth} stages apart"
    )


def memory_lines(report: LoopReport) -> list[str]:
    """``memory: ...`` (``memory (aiv): ...`` per core copy): what MemoryReuse and
    AllocateMemoryAddr give the loop's loads, for the ``full`` format and the hover."""
    lines: list[str] = []
    if report.scope_only:
        return lines  # (a scope without a loop: its message says the space and bytes)
    if report.memory:
        lines.append("memory: " + "; ".join(buffers_text(found) for found in report.memory))
    for core in report.cores:
        if core.memory:
            lines.append(
                f"memory ({core.core}): " + "; ".join(buffers_text(f) for f in core.memory)
            )
    return lines
