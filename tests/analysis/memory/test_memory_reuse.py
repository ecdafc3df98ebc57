"""MemoryReuse's pipeline-stage guard on the tiles of the kernels in
tests/fixtures/memory/models/mem_llm.

Each case's tiles are the function's tiles as pypto e2d0f78ae had them after InitMemRef
(benchmarks/compiler_probe.py's dump: spaces, bytes, ``pipeline_membership``, program
order; CanonicalizeIOOrder has moved every clone's load ahead of the clones' compute).
Every expected number (hint, depth, footprint, which tiles share) is what the compiler
printed for that kernel (its PH-MR-001 hint or warning, its MemRefs after MemoryReuse,
AllocateMemoryAddr's addresses or its error), under the default (pypto) planner on the
Ascend910B.
"""

from __future__ import annotations

from skewlsp.analysis.memory.allocate_memory_addr import allocate_memory_addr
from skewlsp.analysis.memory.memory_reuse import (
    DepthHint,
    LegacyFallback,
    ReuseResult,
    ReuseTile,
    buffers_depth,
    ir_depths,
    memory_reuse,
)

KB = 1024


def slots(result: ReuseResult, tiles: list[ReuseTile]) -> dict[str, list[int]]:
    return {
        space: [max(tiles[i].bytes for i in members) for members in buffers]
        for space, buffers in result.buffers.items()
    }


def used(result: ReuseResult, tiles: list[ReuseTile]) -> dict[str, int]:
    return dict(allocate_memory_addr(slots(result, tiles)).used)


def loads_then_compute(
    stages: int, load: int, steps: list[int], widened: bool, resident: int = 0
) -> list[ReuseTile]:
    """A vector loop's tiles: ``resident`` bytes live across it (0: none), the clones'
    loads (``load`` bytes each) first, then each clone's compute tiles (``steps``:
    their bytes, each the next one's input). A widening cast may not write over the
    load it reads (MemoryReuse's no-alias guard)."""
    tiles: list[ReuseTile] = []
    first = 1 if resident else 0
    compute = first + stages
    width = len(steps) + 1  # each clone: its steps and its store
    end = compute + stages * width
    if resident:
        tiles.append(ReuseTile("Vec", resident, (0, end - 1)))
    for k in range(stages):
        tiles.append(ReuseTile("Vec", load, (first + k, compute + k * width), ((0, k),), True))
    for k in range(stages):
        at = compute + k * width
        for n, size in enumerate(steps):
            forbid = frozenset({first + k}) if widened and n == 0 else frozenset()
            tiles.append(ReuseTile("Vec", size, (at + n, at + n + 1), ((0, k),), forbid=forbid))
    return tiles


def test_two_stages_that_fit_keep_their_depth_and_no_hint():
    # vector.py two_stages_fit: a 32 KB load per stage, the sum written over it.
    tiles = loads_then_compute(2, 32 * KB, [32 * KB], widened=False)
    result = memory_reuse(tiles)
    assert result.achieved[("Vec", 0)] == 2
    assert result.hints == ()
    assert used(result, tiles) == {"Vec": 65536}


def test_co_resident_tiles_shed_depth_and_the_hint_says_space_pressure():
    # helpers.py scaled_rows (vector.py beside_a_resident_row): a 32 KB row live across
    # four stages of a 16 KB load widened to 32 KB. The compiler: "only 2 of 4 buffers
    # fit (32768 B per stage, 188416 B free) ... The operand would fit depth 4 on its
    # own"; Vec used to 163840; the widened rows of stages 0 and 2 in one buffer
    # (mem_vec_8), of stages 1 and 3 in another (mem_vec_10).
    tiles = loads_then_compute(4, 16 * KB, [32 * KB, 32 * KB], widened=True, resident=32 * KB)
    result = memory_reuse(tiles)
    assert result.hints == (DepthHint(0, "Vec", 4, 2, 32768, 188416, 0, "space-pressure"),)
    assert used(result, tiles) == {"Vec": 163840}
    widened = [5, 7, 9, 11]  # the casts of stages 0-3
    buffers = [result.buffer_of(i) for i in widened]
    assert buffers[0] == buffers[2] != buffers[1] == buffers[3]
    # the IR: each 32 KB tile shares its buffer with its copy two stages on, as the hint says
    assert buffers_depth(result, tiles, "Vec", 0) == 2


def test_a_stage_too_large_for_the_requested_depth_is_slot_bound():
    # vector.py four_widened_stages: 24 KB loads widened to 48 KB, four stages. The
    # compiler: "only 1 of 4 buffers fit (49152 B per stage, 188416 B free) ... This
    # operand alone needs 196608 B for depth 4; shrink the per-stage tile to <= 47104
    # B"; Vec used to 147456: the four widened rows in one buffer, the loads in four.
    tiles = loads_then_compute(4, 24 * KB, [48 * KB], widened=True)
    result = memory_reuse(tiles)
    (hint,) = result.hints
    assert hint == DepthHint(0, "Vec", 4, 1, 49152, 188416, 0, "slot-bound")
    assert hint.shrink_to == 47104
    assert used(result, tiles) == {"Vec": 147456}
    assert len({result.buffer_of(i) for i in range(4, 8)}) == 1
    assert len(result.buffers["Vec"]) == 5
    # the IR: the four widened rows (the slot) in one buffer: stages 1 apart share it
    assert buffers_depth(result, tiles, "Vec", 0) == 1


def right_operands() -> list[ReuseTile]:
    """cube.py wide_right_operand's L0B tiles: AutoTileMatmulL0 halves a K of 256 into
    a stage-2 loop (group 0) inside each of the user loop's two clones (group 1); each
    K loop moves both halves into Right before its two matmuls."""
    half = 32 * KB
    return [
        ReuseTile("Right", half, (0, 2), ((0, 0), (1, 0))),
        ReuseTile("Right", half, (1, 3), ((0, 1), (1, 0))),
        ReuseTile("Right", half, (4, 6), ((0, 0), (1, 1))),
        ReuseTile("Right", half, (5, 7), ((0, 1), (1, 1))),
    ]


def test_two_groups_over_one_space_both_lose_a_level_lowest_group_first():
    # The compiler: a PH-MR-001 hint for group 0 and for group 1 in Right, "only 1 of 2
    # buffers fit (32768 B per stage, 65536 B free)", space-pressure; Right used to
    # 65536: tiles 0 and 2 in mem_right_9, 1 and 3 in mem_right_11.
    tiles = right_operands()
    result = memory_reuse(tiles)
    assert result.hints == (
        DepthHint(0, "Right", 2, 1, 32768, 65536, 0, "space-pressure"),
        DepthHint(1, "Right", 2, 1, 32768, 65536, 0, "space-pressure"),
    )
    assert used(result, tiles) == {"Right": 65536}
    assert result.buffers["Right"] == ((0, 2), (1, 3))
    # the IR: the user loop's clones (group 1) share both buffers, as its hint says; the K
    # loop's halves (group 0), live together, stay in two buffers: 2 apart, not its hint's 1
    assert buffers_depth(result, tiles, "Right", 1) == 1
    assert buffers_depth(result, tiles, "Right", 0) == 2
    # both depths are said where they differ: the K loop's alone
    assert ir_depths(result, tiles) == {("Right", 0): 2}


def row_block_tiles() -> list[ReuseTile]:
    """blocks.py row_sums_then_columns' Vec tiles: a row loop (group 1, stage=2) of a
    48 KB row load and its row sum (a 48 KB workspace, a 64 B sum), a column loop
    (group 0, stage=2) inside it, copied into each row clone: a 32 KB column load and
    the ``row_expand_add`` of it. CanonicalizeIOOrder issues both row clones' loads
    first, then each clone's compute, the column loop's loads ahead of its compute."""
    row, column, vec = 48 * KB, 32 * KB, "Vec"
    tiles = [
        ReuseTile(vec, row, (0, 3), ((1, 0),), load=True),  # a, stage 0: mem_vec_3
        ReuseTile(vec, row, (1, 12), ((1, 1),), load=True),  # a, stage 1: mem_vec_4
        ReuseTile(vec, row, (2, 3), ((1, 0),)),  # tmp_tile, stage 0: mem_vec_5
        ReuseTile(vec, 64, (3, 10), ((1, 0),), forbid=frozenset({0, 2})),  # s: mem_vec_6
    ]
    for stage, (at, sum_tile) in enumerate(((4, 3), (13, 9))):
        for clone in range(2):
            member = ((0, clone), (1, stage))
            tiles.append(ReuseTile(vec, column, (at + clone, at + 2 + 2 * clone), member, True))
        for clone in range(2):
            member = ((0, clone), (1, stage))
            live = (at + 2 + 2 * clone, at + 3 + 2 * clone)
            tiles.append(ReuseTile(vec, column, live, member, forbid=frozenset({sum_tile})))
        if stage == 0:
            tiles.append(ReuseTile(vec, row, (11, 12), ((1, 1),)))  # tmp_tile, stage 1
            tiles.append(ReuseTile(vec, 64, (12, 19), ((1, 1),), forbid=frozenset({1, 8})))
    return tiles


def test_a_depth_the_guard_sheds_can_still_be_kept_by_the_tiles_lifetimes():
    # blocks.py row_sums_then_columns. The compiler: PH-MR-001 "requested depth 2 for
    # pipeline group 1 in Vec, but only 1 of 2 buffers fit (49152 B per stage, 188416 B
    # free)", space-pressure; none for the column loop (group 0). Its MemRefs after
    # MemoryReuse: a of stage 0 mem_vec_3, of stage 1 mem_vec_4; tmp_tile of stage 0
    # mem_vec_5, of stage 1 mem_vec_3: each 48 KB tile of the row loop's two stages in a
    # buffer of its own, as at depth 2 (the second row's load is live while the first
    # computes), though stage 1's workspace takes stage 0's row buffer.
    tiles = row_block_tiles()
    result = memory_reuse(tiles)
    assert result.hints == (DepthHint(1, "Vec", 2, 1, 49152, 188416, 0, "space-pressure"),)
    assert [result.buffer_of(n) for n in (0, 1, 2, 8)] == [
        ("Vec", 0),
        ("Vec", 1),
        ("Vec", 2),
        ("Vec", 0),
    ]
    assert buffers_depth(result, tiles, "Vec", 1) == 2
    assert buffers_depth(result, tiles, "Vec", 0) == 2
    assert ir_depths(result, tiles) == {("Vec", 1): 2}  # (the column loop has no hint)


def test_a_space_that_fits_at_no_depth_falls_back_to_the_legacy_packing():
    # vector.py four_stages_of_wide_rows: four 64 KB loads live together. The compiler
    # warns "capacity-gated reuse could not fit memory space Vec at any double-buffering
    # depth; fell back to the legacy packing (which also overflows ...)", gives no hint,
    # and AllocateMemoryAddr stops: "Vec buffer usage (262144 bytes) exceeds platform
    # limit (188416 bytes)".
    tiles = loads_then_compute(4, 64 * KB, [64 * KB], widened=False)
    result = memory_reuse(tiles)
    assert result.fallbacks == (LegacyFallback("Vec", still_overflows=True, warned=True),)
    assert result.hints == ()
    (overflow,) = allocate_memory_addr(slots(result, tiles)).overflows
    assert overflow.message == "Vec buffer usage (262144 bytes) exceeds platform limit (188416 bytes)"


def test_a_space_without_pipeline_groups_that_overflows_is_warned_about_too():
    # vector.py three_wide_rows_at_once: three 64 KB rows live together, no pipeline.
    # The compiler warns as above and stops: "Vec buffer usage (196608 bytes) ...".
    row = 64 * KB
    tiles = [
        ReuseTile("Vec", row, (0, 3), load=True),
        ReuseTile("Vec", row, (1, 3), load=True),
        ReuseTile("Vec", row, (2, 4), load=True),
        ReuseTile("Vec", row, (3, 4)),
        ReuseTile("Vec", row, (4, 5)),
    ]
    result = memory_reuse(tiles)
    assert result.fallbacks == (LegacyFallback("Vec", still_overflows=True, warned=True),)
    (overflow,) = allocate_memory_addr(slots(result, tiles)).overflows
    assert (overflow.used, overflow.limit) == (196608, 188416)
