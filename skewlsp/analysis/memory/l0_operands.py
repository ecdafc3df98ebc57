"""The L0 tiles of a pipeline loop's matmuls, for the memory passes (issue #41).

InferTileMemorySpace (``infer_tile_memory_space_pass.cpp``) moves each matrix operand
of a cube op from Mat into Left (L0A) or Right (L0B); in a loop LowerPipelineLoops
replicates, each clone's move is a tile of the loop's stage group in that space, and
MemoryReuse sizes the group's slot there by its largest one (``PH-MR-001``: 138 of
pypto-lib's 160 hints are in Right, 17 in Left).

How large that tile is depends on AutoTileMatmulL0 (``auto_tile_matmul_l0_pass.cpp``),
which runs before it: ``ChooseL0Tile`` (``utils/l0_tile_chooser.cpp``) scores every
legal ``(m, n, k)`` by a cost model, first with both operands double-buffered (each in
half of its L0 space), then, when that tiles the matmul, pinning one operand whole in
all of its space (A- or B-stationary) or double-buffering L0C, and adopts another
regime only on a strictly lower cost. When the choice is the whole ``[M, N, K]`` the
pass leaves the matmul alone and the L0 tile is the whole operand; otherwise it
rewrites the matmul into loops of its own whose L0 tiles are slices. The pass also
declines some matmuls outright (a dynamic or non-Mat operand, a sub-byte type, a K that
is not a multiple of 16, ...). So the whole operand is only the most the L0 tile can
be: without the chooser's cost model there is no lower bound, and a slot-bound claim
(the group's slot must be at least so large) cannot be made from it.

Measured on the saved compiler records of pypto-lib (InitMemRef's tiles, each counted
once per stage group it is stamped with): in user loops' groups, 380 Left/Right tiles
are whole operands and 316 are AutoTileMatmulL0's slices (2,596 more slices are in the
loops the pass makes). All 12 slot-bound Right hints of user loops are whole operands.
The four 64 KB ones are INT8 ``[256, 256]`` weights: the chooser (called through pypto's
binding with the 910B's L0 sizes and the binding's default cost parameters) returns the
whole ``(128, 256, 256)``, B-stationary, so the pass keeps the matmul and the weights
fill L0B; a BF16 ``[128, 256]`` right operand of the same 64 KB is sliced in two
(tests/fixtures/memory: ``cube.py``'s ``right_operand_filling_l0b`` against
``int8.py``). Predicting which needs the cost model.

What this module gives is therefore the extraction only: each matrix operand of the
body's top-level cube ops, its L0 space, and its upper bound (the bytes of the body's
load it is, as LowerPipelineToSlots sizes it; a transposed read is a view of the same
bytes). None where the operand is not a sized load of the body.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst

from skewlsp.analysis.frontend.names import body_statements
from skewlsp.analysis.lower_pipeline.loop_facts import SlotLoad
from skewlsp.analysis.passes.infer_tile_memory_space import matrix_operands
from skewlsp.analysis.source.walk import walk

L0_OPERAND_SPACES = frozenset({"Left", "Right"})


@dataclass(frozen=True)
class L0Operand:
    """A matrix operand of a cube op in the loop's body, moved into ``space`` (Left or
    Right). ``at_most``: the bytes of the whole operand, the largest its L0 tile can be
    (AutoTileMatmulL0 may move a slice of it instead); None: not a sized load of the
    body."""

    name: str
    space: str
    at_most: int | None


def l0_operands(loop: cst.For, loads: Sequence[SlotLoad]) -> tuple[L0Operand, ...]:
    """The L0 operands of the cube ops in ``loop``'s top-level statements, in program
    order; ``loads``: the body's loads (:func:`~skewlsp.analysis.lower_pipeline.
    slot_loads.slot_loads`), which size them."""
    sized = {load.name: load.size for load in loads if load.space == "Mat"}
    found: list[L0Operand] = []
    for stmt in body_statements(loop.body):
        if isinstance(stmt, cst.BaseCompoundStatement):
            continue
        for node in walk(stmt):
            if type(node) is not cst.Call:
                continue
            for operand, space, _ in matrix_operands(node):
                if space not in L0_OPERAND_SPACES:
                    continue
                name = operand.value if isinstance(operand, cst.Name) else None
                if name is None:
                    continue
                found.append(L0Operand(name, space, sized.get(name)))
    return tuple(found)
