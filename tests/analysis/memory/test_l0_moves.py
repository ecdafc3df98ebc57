"""Which whole operands two matmuls read through one move into Left or Right: per
block, as InferTileMemorySpace caches its moves (the kept dumps of pypto-lib:
decode_indexer_compressor.py's two matmuls of a branch read one ``x_tile_Left``; gate.py's
two branches each move ``gd_x`` again)."""

from __future__ import annotations

from skewlsp.analysis.memory.l0_moves import ONE_MOVE, shared_moves
from skewlsp.analysis.passes.body import MatmulSite, SiteBlock

BODY, THEN, ELSE = (), ((1, 0),), ((1, 1),)
KV = MatmulSite("matmul", "x", "wkv", "FP32")
SCORE = MatmulSite("matmul", "x", "wgate", "FP32")


def test_the_second_matmul_of_a_block_reads_the_first_one_s_move_of_their_operand():
    blocks = (SiteBlock(THEN, (1, 1)), SiteBlock(THEN, (1, 1)))
    assert shared_moves((KV, SCORE), (True, True), blocks) == ((None, None), (0, None))


def test_each_branch_of_an_if_moves_the_operand_again():
    blocks = (SiteBlock(THEN, (1, 1)), SiteBlock(ELSE, (1, 1)))
    assert shared_moves((KV, KV), (True, True), blocks) == ((None, None), (None, None))


def test_the_block_after_a_branch_moves_it_again():
    blocks = (SiteBlock(THEN, (1, 1)), SiteBlock(BODY, (1, 1)))
    assert shared_moves((KV, SCORE), (True, True), blocks) == ((None, None), (None, None))


def test_a_name_bound_again_between_them_is_another_tile_moved_again():
    blocks = (SiteBlock(BODY, (1, 1)), SiteBlock(BODY, (2, 1)))
    assert shared_moves((KV, SCORE), (True, True), blocks) == ((None, None), (None, None))


def test_a_matmul_tiled_in_k_extracts_its_slices_and_moves_nothing():
    blocks = (SiteBlock(BODY, (1, 1)), SiteBlock(BODY, (1, 1)), SiteBlock(BODY, (1, 1)))
    shares = shared_moves((KV, SCORE, SCORE), (True, False, True), blocks)
    assert shares == ((None, None), (None, None), (0, None))


def test_a_matmul_reading_the_move_of_an_enclosing_block_is_not_known():
    blocks = (SiteBlock(BODY, (1, 1)), SiteBlock(THEN, (1, 1)))
    assert shared_moves((KV, SCORE), (True, True), blocks) == ONE_MOVE


def test_one_block_s_matmuls_reading_a_slice_written_in_each_call_are_not_known():
    sliced = (MatmulSite("matmul", "q[...]", "wkv"), MatmulSite("matmul", "q[...]", "wgate"))
    blocks = (SiteBlock(BODY, (0, 1)), SiteBlock(BODY, (0, 1)))
    assert shared_moves(sliced, (True, True), blocks) == ONE_MOVE


def test_one_block_s_matmuls_reading_one_operand_transposed_are_not_known():
    transposed = MatmulSite("matmul", "x", "wgate", "FP32", (True, False))
    blocks = (SiteBlock(BODY, (1, 1)), SiteBlock(BODY, (1, 1)))
    assert shared_moves((KV, transposed), (True, True), blocks) == ONE_MOVE


def test_one_tile_read_as_left_by_one_and_as_right_by_another_is_moved_into_each():
    as_right = MatmulSite("matmul", "wgate", "x", "FP32")
    blocks = (SiteBlock(BODY, (1, 1)), SiteBlock(BODY, (1, 1)))
    assert shared_moves((KV, as_right), (True, True), blocks) == ((None, None), (None, None))


def test_where_the_blocks_are_not_told_two_readers_of_one_name_are_not_known():
    assert shared_moves((KV, KV), (True, True), None) == ONE_MOVE
