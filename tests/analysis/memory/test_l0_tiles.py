"""The Left and Right tiles of a cube function's matmuls, packed by MemoryReuse, against
what pypto e2d0f78ae did to tests/fixtures/memory/models/mem_llm/projection.py's
``k_split`` (the same shapes as pypto-lib's qwen3_32b decode ``q_proj``)."""

from __future__ import annotations

from dataclasses import replace

from skewlsp.analysis.lower_pipeline.loop_facts import CubeScope, LoopFacts, SkewClones, SlotLoad
from skewlsp.analysis.memory.l0_tiles import L0Tiles, l0_tiles
from skewlsp.analysis.memory.memory_reuse import memory_reuse
from skewlsp.analysis.passes.body import BodyMatmuls, MatmulSite, SiteBlock
from skewlsp.contract import Lowering

A = SlotLoad("a", "Mat", 4096, extents=(16, 128), dtype="BF16")
B = SlotLoad("b", "Mat", 65536, extents=(128, 256), dtype="BF16")
SITES = (MatmulSite("matmul", "a", "b", "FP32"), MatmulSite("matmul_acc", "a", "b"))
REPLICATED = Lowering("replicated", "SKW011", "", stage=2, main_trip=4)


def facts(sites: tuple[MatmulSite, ...] = SITES, cube_ops: int = 2) -> LoopFacts:
    return LoopFacts(
        slot_loads=(A, B),
        matmuls=BodyMatmuls(sites),
        scope_matmuls=CubeScope(1, cube_ops),
    )


def test_each_matmul_becomes_a_k_loop_of_two_slices_and_all_three_groups_shed_to_one_in_right():
    tiles = l0_tiles([(facts(), REPLICATED)], 1)
    assert isinstance(tiles, L0Tiles)
    # ChooseL0Tile: (16, 256, 64) of (16, 256, 128): K loops of two [16, 64] / [64, 256]
    assert [t.tile for t in tiles.tilings[0]] == [(16, 256, 64), (16, 256, 64)]
    assert [g.kind for g in tiles.groups] == ["k-main", "k-main", "main"]
    reuse = memory_reuse(tiles.tiles)
    # the compiler: groups 0, 1, 2 "requested 2 achieved 1 ... space-pressure" in Right
    right = sorted((h.group, h.requested, h.achieved, h.slot, h.cause) for h in reuse.hints)
    assert right == [(g, 2, 1, 32768, "space-pressure") for g in (0, 1, 2)]
    assert [reuse.achieved[("Left", g)] for g in (0, 1, 2)] == [2, 2, 2]


def test_a_matmul_neither_the_loops_nor_the_scope_s_statements_show_is_not_known():
    assert l0_tiles([(facts(cube_ops=3), REPLICATED)], 1) == (
        "a matmul of the function is not seen where the compiler meets it"
    )


def test_a_scope_without_matmuls_has_no_l0_tiles():
    assert l0_tiles([(facts((), cube_ops=0), REPLICATED)], 1) is None


def test_an_operand_that_is_no_load_of_the_body_is_not_known():
    site = (MatmulSite("matmul", "a", "c"),)
    assert l0_tiles([(facts(site, cube_ops=1), REPLICATED)], 1) == (
        "the operand `c` of `matmul` is not a load of static shape"
    )


# attention.py:24 (tests/fixtures/memory/models/mem_llm), skewed at depth 2 on the cube:
# `s = matmul(q[...], kv, b_trans=True)` in the producer half, `matmul(p, kv)` (p popped
# back from the vector) in the consumer half.
Q = SlotLoad("q[...]", "Mat", 8192, extents=(32, 128), dtype="BF16")
KV = SlotLoad("kv", "Mat", 65536, extents=(256, 128), dtype="BF16")
P = SlotLoad("p", "Mat", extents=(32, 256), dtype="BF16")
SKEWED = LoopFacts(
    slot_loads=(KV, Q, KV),
    matmuls=BodyMatmuls(
        (
            MatmulSite("matmul", "q[...]", "kv", "FP32", (False, True)),
            MatmulSite("matmul", "p", "kv", "FP32"),
        )
    ),
    scope_matmuls=CubeScope(1, 2),
    skew=SkewClones(2, (True, False), (P,)),
)


def test_a_skewed_loop_s_clones_carry_the_skew_s_group_and_each_clone_s_k_loop_its_own():
    tiles = l0_tiles([(SKEWED, None)], 1)
    assert isinstance(tiles, L0Tiles)
    # the compiler's InitMemRef (space, bytes, pipeline_membership), its skew group
    # 1 << 20 written 8 here (numbered after the 8 K loops' groups, as 1 << 20 is):
    # prologue producers (K loops 0, 1), steady producers (2, 3), steady consumers
    # (4, 5), epilogue consumers (6, 7); s's slices [32, 64] / [64, 256], t's
    # [32, 128] / [128, 128]
    expected = []
    for k_group in range(8):
        left, right = (4096, 32768) if k_group < 4 else (8192, 32768)
        for clone in range(2):
            member = ((8, k_group % 2), (k_group, clone))
            expected += [("Left", left, member), ("Right", right, member)]
    found = [(t.space, t.bytes, tuple(sorted(t.membership, reverse=True))) for t in tiles.tiles]
    assert sorted(found) == sorted(expected)
    assert [g.kind for g in tiles.groups] == ["k-main"] * 8 + ["skew"]


def test_a_skewed_loop_s_clones_get_one_of_two_buffers_in_right_as_in_the_compiler():
    tiles = l0_tiles([(SKEWED, None)], 1)
    assert isinstance(tiles, L0Tiles)
    reuse = memory_reuse(tiles.tiles)
    # the compiler: PH-MR-001 for groups 0..7 and 1 << 20, Right, 1 of 2, 32768 B,
    # space-pressure; none in Left
    right = sorted((h.group, h.space, h.achieved, h.slot, h.cause) for h in reuse.hints)
    assert right == [(g, "Right", 1, 32768, "space-pressure") for g in range(9)]


def test_a_skewed_loop_whose_popped_operand_has_no_known_shape_is_not_known():
    unknown = LoopFacts(
        slot_loads=SKEWED.slot_loads,
        matmuls=SKEWED.matmuls,
        scope_matmuls=SKEWED.scope_matmuls,
        skew=SkewClones(2, (True, False)),
    )
    assert l0_tiles([(unknown, None)], 1) == (
        "the operand `p` of `matmul` is not a load of static shape"
    )


# pypto-lib deepseek_v4_pro/decode_indexer_compressor.py:123 (kv_score_proj), as the
# kept dumps hold it: `if k0 == 0:` two matmuls reading one `x_tile` [16, 512] BF16
# (and `wkv_tile`, `wgate_tile` [32, 512] read transposed), `else:` two matmul_acc alike.
X = SlotLoad("x_tile", "Mat", 16384, extents=(16, 512), dtype="BF16")
WKV = SlotLoad("wkv_tile", "Mat", 32768, extents=(32, 512), dtype="BF16")
WGATE = SlotLoad("wgate_tile", "Mat", 32768, extents=(32, 512), dtype="BF16")
THEN, ELSE = ((1, 0),), ((1, 1),)  # the branches of the body's `if` (its statement 1)
TWO_PER_BRANCH = LoopFacts(
    slot_loads=(X, WKV, WGATE),
    matmuls=BodyMatmuls(
        (
            MatmulSite("matmul", "x_tile", "wkv_tile", "FP32", (False, True)),
            MatmulSite("matmul", "x_tile", "wgate_tile", "FP32", (False, True)),
            MatmulSite("matmul_acc", "x_tile", "wkv_tile", None, (False, True)),
            MatmulSite("matmul_acc", "x_tile", "wgate_tile", None, (False, True)),
        ),
        blocks=(
            SiteBlock(THEN, (1, 1)),
            SiteBlock(THEN, (1, 1)),
            SiteBlock(ELSE, (1, 1)),
            SiteBlock(ELSE, (1, 1)),
        ),
    ),
    scope_matmuls=CubeScope(1, 4),
)
SEVEN = Lowering("replicated", "SKW011", "", stage=2, main_trip=7)


def test_two_matmuls_of_a_branch_read_one_move_of_their_shared_operand_into_left():
    tiles = l0_tiles([(TWO_PER_BRANCH, SEVEN)], 1)
    assert isinstance(tiles, L0Tiles)
    # the compiler's InitMemRef, per clone: per branch one `x_tile_Left` [16, 512]
    # (16384 B) and a `_t_Right` [512, 32] (32768 B) per matmul
    found = [(t.space, t.bytes, t.membership) for t in tiles.tiles]
    expected = []
    for clone in range(2):
        branch = [("Left", 16384), ("Right", 32768), ("Right", 32768)]
        expected += [(space, size, ((0, clone),)) for space, size in branch * 2]
    assert found == expected


def test_the_shared_left_tile_lives_across_both_matmuls_as_memory_reuse_packed_it():
    tiles = l0_tiles([(TWO_PER_BRANCH, SEVEN)], 1)
    assert isinstance(tiles, L0Tiles)
    reuse = memory_reuse(tiles.tiles)
    # the compiler's MemoryReuse: a clone's two Left tiles in one buffer (mem_left_13,
    # mem_left_23), its four Right tiles in one (mem_right_14, mem_right_24); no hint
    assert reuse.buffers["Left"] == ((0, 3), (6, 9))
    assert reuse.buffers["Right"] == ((1, 2, 4, 5), (7, 8, 10, 11))
    assert (reuse.achieved[("Left", 0)], reuse.achieved[("Right", 0)]) == (2, 2)
    assert reuse.hints == ()


def test_a_matmul_reading_the_move_of_an_enclosing_block_is_not_known():
    sites = TWO_PER_BRANCH.matmuls.sites[:2] if TWO_PER_BRANCH.matmuls else ()
    nested = replace(
        TWO_PER_BRANCH,
        matmuls=BodyMatmuls(sites, blocks=(SiteBlock((), (1, 1)), SiteBlock(THEN, (1, 1)))),
        scope_matmuls=CubeScope(1, 2),
    )
    assert l0_tiles([(nested, SEVEN)], 1) == (
        "two matmuls read one operand whole, through one move: not modelled"
    )


def test_one_block_s_matmuls_reading_one_operand_transposed_are_not_known():
    sites = (
        MatmulSite("matmul", "wkv_tile", "x_tile", "FP32", (False, True)),
        MatmulSite("matmul", "wgate_tile", "x_tile", "FP32", (False, True)),
    )
    transposed = replace(
        TWO_PER_BRANCH,
        matmuls=BodyMatmuls(sites, blocks=(SiteBlock((), (1, 1)), SiteBlock((), (1, 1)))),
        scope_matmuls=CubeScope(1, 2),
    )
    assert l0_tiles([(transposed, SEVEN)], 1) == (
        "two matmuls read one operand whole, through one move: not modelled"
    )
