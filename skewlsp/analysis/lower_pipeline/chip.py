"""The on-chip memories of each backend pypto compiles for: capacity and alignment.

Upstream (pypto e2d0f78ae):

- capacities and per-memory alignment: ``src/backend/common/soc.cpp``,
  ``Create910BSoC`` (lines 119-139) and ``Create950SoC`` (lines 161-183). The Vec
  figure is the part of the UB the compiler lets tiles use (184 KB of 192 KB on the
  910B, 240 KB of 248 KB on the 950): the top of the UB is kept back for PTO-ISA;
- where a buffer may start: ``DefaultMemoryAllocatorPolicy`` in
  ``include/pypto/ir/memory_allocator_policy.h`` (lines 82-94), the policy every
  backend returns (``Backend::CreateMemoryAllocatorPolicy``,
  ``src/backend/common/backend.cpp`` line 412): 32-byte addresses in every on-chip
  space, DDR not placed at all. The per-memory alignment of the SoC table is not what
  places buffers; it is kept here as the table says it;
- an accumulator's rows in L0C (Acc) are rounded up to a row group:
  ``GetL0cMAlignment`` (``include/pypto/backend/910B/backend_910b_handler.h`` lines
  84-86: 32 rows for INT32 on the 910B; ``include/pypto/backend/common/backend_handler.h``
  line 427: 16 otherwise).

``compile()`` targets the Ascend910B when no backend is given
(``python/pypto/ir/compile.py`` line 108), so it comes first and is the default. Memory spaces
are named as pypto's ``MemorySpace`` enum names them (Vec is the UB, Mat L1, Left
L0A, Right L0B, Acc L0C).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from skewlsp.analysis.passes.l0_tile_chooser import L0TileConfig

KB = 1024


@dataclass(frozen=True)
class Memory:
    """One on-chip memory of a core: bytes tiles may use, and the SoC's alignment."""

    capacity: int
    alignment: int


# Bytes per element of the dtypes a matmul's operands may have.
DTYPE_BYTES = MappingProxyType({"INT8": 1, "UINT8": 1, "BF16": 2, "FP16": 2, "FP32": 4})
L0_FRACTAL = 16  # a matmul's dimensions in L0 come in 16s (GetL0FractalAlignment, GetMinL0TileDim)


@dataclass(frozen=True)
class Chip:
    """A backend's memories by space, how buffers are placed in them, and L0C's rows."""

    name: str
    memories: Mapping[str, Memory]
    address_alignment: int = 32
    int32_acc_rows: int = 16  # the row group of an INT32 accumulator in Acc
    acc_rows: int = 16  # ... and of every other accumulator type

    def capacity(self, space: str) -> int:
        """Bytes a space holds; 0 for a space the chip does not have (DDR, or a space of
        another chip), which the memory passes treat as a capacity they do not know."""
        memory = self.memories.get(space)
        return memory.capacity if memory is not None else 0

    def align(self, address: int) -> int:
        """The first address a buffer may start at, at or after ``address``."""
        step = self.address_alignment
        return -(-address // step) * step

    def acc_row_group(self, dtype: str) -> int:
        """How many rows an accumulator of ``dtype`` is rounded up to in Acc."""
        return self.int32_acc_rows if dtype == "INT32" else self.acc_rows

    def l0_tile_config(
        self, mnk: tuple[int, int, int], operands: tuple[str, str], acc: str, **options: Any
    ) -> L0TileConfig:
        """ChooseL0Tile's inputs for a matmul of ``mnk`` whose operands have the dtypes
        ``operands`` and whose accumulator is ``acc``, on this chip: its L0 capacities and
        Acc's row group, as AutoTileMatmulL0 fills them in from the backend; ``options``:
        the fields each of its two callers sets its own way."""
        m, n, k = mnk
        return L0TileConfig(
            M=m, N=n, K=k,
            l0a_bytes=self.capacity("Left"), l0b_bytes=self.capacity("Right"),
            l0c_bytes=self.capacity("Acc"),
            bytes_a=DTYPE_BYTES[operands[0]], bytes_b=DTYPE_BYTES[operands[1]], bytes_c=4,
            l0c_align_m=self.acc_row_group(acc), allow_k_boundary=True, **options,
        )  # fmt: skip


ASCEND_910B = Chip(
    name="Ascend910B",
    memories=MappingProxyType(
        {
            "Vec": Memory(184 * KB, 128),
            "Mat": Memory(512 * KB, 128),
            "Left": Memory(64 * KB, 64),
            "Right": Memory(64 * KB, 64),
            "Acc": Memory(128 * KB, 128),
            "Bias": Memory(1 * KB, 64),
        }
    ),
    int32_acc_rows=32,
)

ASCEND_950 = Chip(
    name="Ascend950",
    memories=MappingProxyType(
        {
            "Vec": Memory(240 * KB, 128),
            "Mat": Memory(512 * KB, 128),
            "Left": Memory(64 * KB, 64),
            "Right": Memory(64 * KB, 64),
            "Acc": Memory(256 * KB, 128),
            "Bias": Memory(4 * KB, 64),
            "LeftScale": Memory(4 * KB, 32),
            "RightScale": Memory(4 * KB, 32),
        }
    ),
)

CHIPS: Mapping[str, Chip] = MappingProxyType(
    {chip.name: chip for chip in (ASCEND_910B, ASCEND_950)}
)
DEFAULT_CHIP = ASCEND_910B
