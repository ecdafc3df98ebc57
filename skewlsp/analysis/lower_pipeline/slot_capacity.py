"""How many bytes LowerPipelineToSlots pins for a loop's slots, and whether they fit.

Models the capacity gate of ``src/ir/transforms/lower_pipeline_to_slots_pass.cpp``
(``SlotsFitOnChip``, with ``StaticPhysicalAllocationBytes`` of
``include/pypto/ir/transforms/utils/l0c_footprint.h`` for a slot's size and the chip's
memories of ``src/backend/common/soc.cpp``). A rotated loop pins ``stage`` slots per
load, and the compiler never gives those bytes back: they are charged against one
function's running total per memory space, so a loop may be declined because the loops
rotated before it in the same function (an outlined scope, one core) used the room.

The chip is the one ``compile()`` targets when none is given, the Ascend910B
(:data:`.chip.DEFAULT_CHIP`, the table the memory passes read too). The gate knows the
spaces a slot is pinned in: Vec (184 KB, the usable part of the 192 KB UB), Mat (512 KB)
and Acc (128 KB).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from skewlsp.analysis.lower_pipeline.chip import DEFAULT_CHIP

# Storage bits of an element (``GetStorageBitWidth``): 4-bit types are packed, every other
# type takes whole bytes (a BOOL one).
DTYPE_BITS: Mapping[str, int] = {
    "BOOL": 8,
    "FP4": 4,
    "HF4": 4,
    "INT4": 4,
    "UINT4": 4,
    "FP8E4M3FN": 8,
    "FP8E5M2": 8,
    "FP8E8M0": 8,
    "HF8": 8,
    "INT8": 8,
    "UINT8": 8,
    "BF16": 16,
    "FP16": 16,
    "INT16": 16,
    "UINT16": 16,
    "FP32": 32,
    "INT32": 32,
    "UINT32": 32,
    "INT64": 64,
    "UINT64": 64,
    "INDEX": 64,
}

CAPACITY: Mapping[str, int] = {
    space: DEFAULT_CHIP.capacity(space) for space in ("Vec", "Mat", "Acc")
}


def slot_bytes(
    extents: Sequence[int], dtype: str, space: str, acc_rows: int | None = None
) -> int | None:
    """One slot's bytes for a tile of ``extents`` (None: not a size the compiler can pin).

    In Acc the rows (the second-last extent) are rounded up to the accumulator's row
    group (``acc_rows``; by default the 910B's: 32 rows for INT32, 16 for the other
    types). InitMemRef sizes every tile so too (``memory.init_memref``)."""
    bits = DTYPE_BITS.get(dtype)
    if bits is None or not extents or any(e <= 0 for e in extents):
        return None
    if space == "Acc":
        if len(extents) < 2:
            return None
        group = acc_rows if acc_rows is not None else (32 if dtype == "INT32" else 16)
        rows = -(-extents[-2] // group) * group
        elements = rows * extents[-1]
        for extent in extents[:-2]:
            elements *= extent
        return elements * ((bits + 7) // 8)
    elements = 1
    for extent in extents:
        elements *= extent
    return -(-(elements * bits) // 8)


def overflow(
    regions: Mapping[str, int], committed: Mapping[str, int]
) -> tuple[str, int, int] | None:
    """The first space whose new ``regions`` do not fit beside what is ``committed``:
    (space, bytes asked, bytes already pinned). A space with no known capacity is not
    gated, as in the compiler."""
    for space, asked in regions.items():
        capacity = CAPACITY.get(space)
        if capacity is None:
            continue
        pinned = committed.get(space, 0)
        if pinned >= capacity or asked > capacity - pinned:
            return space, asked, pinned
    return None


def describe_overflow(space: str, asked: int, pinned: int, stage: int) -> str:
    """Why the capacity gate declines, in the author's units."""
    room = CAPACITY[space]
    before = f" beside {_kb(pinned)} pinned by loops rotated before it" if pinned else ""
    return (
        f"its {stage} slots per load need {_kb(asked)} of {space}{before}, more than the "
        f"{_kb(room)} the chip has"
    )


def _kb(count: int) -> str:
    return f"{count // 1024} KB" if count % 1024 == 0 else f"{count} bytes"
