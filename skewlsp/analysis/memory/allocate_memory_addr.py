"""AllocateMemoryAddr (pass doc 34, ``src/ir/transforms/allocate_memory_addr_pass.cpp``):
where each buffer sits, and the overflow that fails the compile.

Per memory space (DDR is not placed), the buffers MemoryReuse left are laid one after
the other from the end of the space's reserved region (``system.reserve_buffer``),
each sized by its largest member, and the next one starts at the first aligned address
after it (``AllocateMemoryAddresses``, lines 333-470, with ``SpaceFootprint`` of
``include/pypto/ir/transforms/utils/memory_footprint.h``: the same walk MemoryReuse
measures its packing by). The buffers are taken in the order of their names, which
moves addresses but not the end of the last one: every start is aligned, so each
buffer adds its own size rounded up. When that end passes the space's capacity the
pass stops the compile: "<space> buffer usage (<N> bytes) exceeds platform limit (<C>
bytes)" (lines 459-466).

Pure functions of one core function's buffers, for the function-level stage.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from skewlsp.analysis.lower_pipeline.chip import DEFAULT_CHIP, Chip


def footprint(slots: Sequence[int], chip: Chip = DEFAULT_CHIP, reserved: int = 0) -> int:
    """Where a space's last buffer ends: its buffers of ``slots`` bytes laid from
    ``reserved`` on, each starting aligned."""
    end = reserved
    for slot in slots:
        end = chip.align(end + slot)
    return end


@dataclass(frozen=True)
class SpaceOverflow:
    """A space whose buffers end past its capacity: the compile stops here."""

    space: str
    used: int
    limit: int

    @property
    def message(self) -> str:
        """The compiler's own words for it (without the reserved-region note)."""
        return (
            f"{self.space} buffer usage ({self.used} bytes) exceeds platform limit "
            f"({self.limit} bytes)"
        )


@dataclass(frozen=True)
class Allocation:
    """Each space's buffers' start addresses (in the order given) and its footprint."""

    addresses: Mapping[str, tuple[int, ...]]
    used: Mapping[str, int]
    overflows: tuple[SpaceOverflow, ...]


def allocate_memory_addr(
    slots: Mapping[str, Sequence[int]],
    chip: Chip = DEFAULT_CHIP,
    reserved: Mapping[str, int] | None = None,
) -> Allocation:
    """Place one function's buffers (``slots``: per space, each buffer's bytes) and say
    which spaces overflow. A space the chip does not know (capacity 0) is placed but
    never checked, as in the compiler."""
    held = reserved or {}
    addresses: dict[str, tuple[int, ...]] = {}
    used: dict[str, int] = {}
    overflows = []
    for space in sorted(slots):
        if space == "DDR":
            continue
        start = held.get(space, 0)
        placed = []
        for slot in slots[space]:
            placed.append(start)
            start = chip.align(start + slot)
        addresses[space] = tuple(placed)
        used[space] = start
        limit = chip.capacity(space)
        if limit and start > limit:
            overflows.append(SpaceOverflow(space, start, limit))
    return Allocation(addresses, used, tuple(overflows))
