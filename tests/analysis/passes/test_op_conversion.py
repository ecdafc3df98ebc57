"""ConvertTensorToTileOps' op conversions: the Vec tiles each statement of an InCore scope
makes, against the tiles pypto e2d0f78ae's InitMemRef listed for the same statements of
pypto-lib qwen3_32b/decode.py's `rmsnorm` scope (shapes and dtypes written as literals)."""

from __future__ import annotations

import libcst as cst

from skewlsp.analysis.frontend.constants import Const
from skewlsp.analysis.passes.convert_tensor_to_tile_ops import Tensor
from skewlsp.analysis.passes.op_conversion import scope_tiles, scope_tiles_at
from skewlsp.analysis.passes.scope_tile_ops import TileOp
from skewlsp.contract import Span

TENSORS = {
    "x": Tensor(cst.parse_expression("[16, 4096]"), "BF16"),
    "gamma": Tensor(cst.parse_expression("[1, 4096]"), "FP32"),
    "out": Tensor(cst.parse_expression("[16, 4096]"), "BF16"),
}


def fold(node: cst.BaseExpression) -> Const | None:
    """Integers only: a name is not known."""
    if isinstance(node, cst.Integer):
        return Const(int(node.value))
    return None


def tiles_of(source: str):
    statements = cst.parse_module(source).body
    return scope_tiles(statements, TENSORS, fold, lambda loop: Span(1, 1, 1, 1))


def test_a_widening_cast_of_a_slice_is_a_load_then_a_wider_tile_the_load_may_not_share():
    # InitMemRef: t__tile [16, 512] BF16 (the load), x_chunk__tile [16, 512] FP32.
    found = tiles_of("chunk = pl.cast(x[:, 0:512], target_type=pl.FP32)\n")
    load, cast = found.ops
    assert load.load and load.shape == ((16, 512), "BF16")
    assert cast == TileOp(
        "chunk", (load.out,), ((16, 512), "FP32"), "chunk (cast)", forbid=(load.out,),
        statement=0,
    )  # fmt: skip


def test_a_row_sum_makes_its_workspace_first_and_a_reshape_is_a_view():
    # InitMemRef: t__tile [16, 512] FP32 (the product), tmp_tile [16, 512] FP32,
    # t__tile [16, 1] FP32, t__tile [1, 16] in the same buffer, partial_sq__tile [1, 16].
    found = tiles_of(
        "s = pl.full([1, 16], dtype=pl.FP32, value=0.0)\n"
        "c = pl.cast(x[:, 0:512], target_type=pl.FP32)\n"
        "s = pl.add(s, pl.reshape(pl.row_sum(pl.mul(c, c)), [1, 16]))\n"
    )
    assert [op.shape for op in found.ops] == [
        ((1, 16), "FP32"),
        ((16, 512), "BF16"),
        ((16, 512), "FP32"),
        ((16, 512), "FP32"),  # the product
        ((16, 512), "FP32"),  # tmp_tile
        ((16, 1), "FP32"),
        None,  # the reshape: a view of the row sums
        ((1, 16), "FP32"),
    ]
    product, workspace, sums, view = found.ops[3:7]
    assert workspace.label == "tmp_tile (row_sum)"
    assert sums.forbid == (product.out, workspace.out)  # row_sum is not in-place safe
    assert view.view_of == sums.out


def test_an_assemble_into_a_tensor_writes_out_and_makes_no_tile():
    found = tiles_of(
        "n = pl.cast(x[:, 0:512], target_type=pl.FP32)\n"
        "out = pl.assemble(out, pl.cast(n, target_type=pl.BF16), [0, 0])\n"
    )
    assert found.ops[-1].out is None and found.ops[-1].reads == (found.ops[-2].out,)


def test_a_loops_statements_are_marked_with_their_loop():
    found = tiles_of(
        "for kb in pl.pipeline(8, stage=4):\n"
        "    c = x[:, 0:512]\n"
        "d = x[:, 0:512]\n"
    )
    assert [op.loop for op in found.ops] == [0, -1]
    assert [loop.pipeline for loop in found.loops] == [True]


def test_a_loop_nested_in_loops_is_read_with_each_loop_around_it():
    # blocks.py: a column loop inside a row loop; the compiler lays its tiles out in both
    # groups (InitMemRef's pipeline_membership "0:0;1:0")
    found = tiles_of(
        "for i in pl.pipeline(4, stage=2):\n"
        "    a = x[0:16, 0:512]\n"
        "    for j in pl.pipeline(2, stage=2):\n"
        "        c = x[0:16, 0:512]\n"
        "    d = x[0:16, 0:512]\n"
    )
    assert [op.loop for op in found.ops] == [0, 1, 0]
    assert [(loop.pipeline, loop.parent) for loop in found.loops] == [(True, -1), (True, 0)]
    deeper = tiles_of(
        "for i in pl.range(4):\n"
        "    for j in pl.range(2):\n"
        "        for k in pl.pipeline(2, stage=2):\n"
        "            c = x[0:16, 0:512]\n"
    )
    assert deeper.unknown is None
    assert [op.loop for op in deeper.ops] == [2]
    assert [(loop.pipeline, loop.parent) for loop in deeper.loops] == [
        (False, -1),
        (False, 0),
        (True, 1),
    ]


def test_an_op_not_modelled_leaves_the_scope_not_known():
    found = tiles_of("c = pl.scatter(x[:, 0:512], x[:, 0:512])\n")
    assert found.unknown == "the op `scatter`"


def test_a_shape_known_only_at_run_time_leaves_the_scope_not_known():
    found = tiles_of("c = x[:, 0:n]\n")
    assert found.unknown is not None and "not static" in found.unknown


def test_recip_and_rsqrt_do_not_run_in_place():
    # unary.cpp registers tile.recip and tile.rsqrt not_inplace_safe.
    found = tiles_of(
        "v = pl.full([16, 1], dtype=pl.FP32, value=1.0)\n"
        "r = pl.recip(v)\n"
        "s = pl.rsqrt(v)\n"
    )
    assert [op.forbid for op in found.ops[1:]] == [("v",), ("v",)]


def test_a_high_precision_rsqrt_makes_its_scratch_tile_first():
    found = tiles_of(
        "v = pl.full([16, 1], dtype=pl.FP32, value=1.0)\n"
        "s = pl.rsqrt(v, high_precision=True)\n"
    )
    _, scratch, result = found.ops
    assert scratch.label == "rsqrt_tmp (rsqrt)" and scratch.shape == ((16, 1), "FP32")
    assert result.reads == ("v", scratch.out)


def test_pl_load_is_a_load_of_its_shapes_and_a_block_index_is_a_scalar():
    found = tiles_of(
        "b = pl.tile.get_block_idx()\n"
        "t = pl.load(x, [b, 0], [8, 256])\n"
    )
    (load,) = found.ops
    assert load.load and load.shape == ((8, 256), "BF16")


def test_a_load_into_another_memory_is_not_modelled():
    found = tiles_of("t = pl.load(x, [0, 0], [8, 256], target_memory=pl.MemorySpace.Mat)\n")
    assert found.unknown == "a `load` into another memory than Vec"


def test_a_cast_of_a_scalar_is_a_scalar_conversion_and_makes_no_tile():
    # pl.cast of a Scalar is an ir.cast expression (pypto/language/op/unified_ops.py), no
    # tile.cast: pypto-lib decode_indexer's paged block id, `pl.cast(pl.read(...), pl.INDEX)`.
    found = tiles_of(
        "blk = pl.cast(pl.read(x, [0, 0]), pl.INDEX)\n"
        "t = pl.load(x, [blk * 8, 0], [8, 256])\n"
        "w = pl.cast(t, target_type=pl.FP32)\n"
    )
    assert found.unknown is None
    assert [op.shape for op in found.ops] == [((8, 256), "BF16"), ((8, 256), "FP32")]


def test_a_narrow_row_sum_s_workspace_is_padded_to_128_columns():
    # op_conversion_registry.cpp pads the tmp_tile's last dim to 128 when it is narrower:
    # pypto-lib deepseek_v4_pro decode_indexer's score_reduce, InitMemRef: the row_sum of
    # a [128, 64] FP32 tile has tmp_tile [128, 128] FP32 (65536 B), then [128, 1].
    found = tiles_of(
        "v = pl.full([128, 64], dtype=pl.FP32, value=1.0)\n"
        "s = pl.row_sum(v)\n"
    )
    assert [op.shape for op in found.ops] == [
        ((128, 64), "FP32"),
        ((128, 128), "FP32"),
        ((128, 1), "FP32"),
    ]


def test_a_row_sum_of_a_4d_tile_reduces_it_as_flattened_to_2d():
    # FlattenTileNdTo2D merges the leading dims: pypto-lib qwen3_32b decode_4d.py:119,
    # InitMemRef (rmsnorm): the row_sum of a [1, 1, 16, 128] FP32 tile has tmp_tile
    # [16, 128] FP32 (8192 B), then [16, 1] FP32 (64 B). A 1-D tile is not modelled.
    found = tiles_of(
        "v = pl.full([1, 1, 16, 128], dtype=pl.FP32, value=1.0)\n"
        "s = pl.row_sum(v)\n"
    )
    one_dim = tiles_of("v = pl.full([128], dtype=pl.FP32, value=1.0)\ns = pl.row_sum(v)\n")
    assert [op.shape for op in found.ops[1:]] == [((16, 128), "FP32"), ((16, 1), "FP32")]
    assert one_dim.unknown == "`row_sum` of a tile of one dim"


def test_a_tensor_an_op_reads_whole_is_loaded_once_at_the_scope_s_entry():
    # ConvertTensorToTileOps' Phase 1: pypto-lib deepseek_v4_pro expert_routed.py:254,
    # InitMemRef (exp_w2_act): `pl.mul(h_tile_scale_dq, w_col_blk)` of the [16, 1] FP32
    # tensor is h_tile_scale_dq__tile [16, 1] FP32, loaded before the scope's first tile
    # (w_col_blk, line 250), and every later read of the tensor reads that tile.
    found = tiles_of(
        "w = pl.full([1, 4096], dtype=pl.FP32, value=1.0)\n"
        "s = pl.mul(gamma, w)\n"
        "t = pl.add(gamma, s)\n"
    )
    entry, made, product, total = found.ops
    assert (entry.out, entry.shape, entry.load) == ("gamma", ((1, 4096), "FP32"), True)
    assert made.out == "w" and product.reads == ("gamma", "w")
    assert total.reads == ("gamma", "s") and len(found.ops) == 4


def test_a_cast_the_910b_converts_natively_is_one_tile_and_another_is_not_modelled():
    # backend_910b_handler.cpp's tcvt table: INT32 -> FP32 is one instruction (the same
    # scope's InitMemRef: score_acc_red [128, 64] INT32, then score_tile_red [128, 64]
    # FP32); BF16 -> FP16 is not, LegalizeTileCast makes it BF16 -> FP32 -> FP16.
    native = tiles_of(
        "i = pl.full([128, 64], dtype=pl.INT32, value=0)\n"
        "f = pl.cast(i, target_type=pl.FP32, mode=\"none\")\n"
    )
    assert [op.shape for op in native.ops] == [((128, 64), "INT32"), ((128, 64), "FP32")]
    assert native.ops[1].forbid == ()  # same width: not a widening cast
    chained = tiles_of("h = pl.cast(x[:, 0:512], target_type=pl.FP16)\n")
    assert chained.unknown == "a cast the backend may legalize in steps"


def test_set_validshape_is_a_view_and_fillpad_a_new_tile_of_its_shape():
    # transform.cpp: tile.set_validshape inherits its input's memory, no data movement;
    # tile.fillpad writes a tile of its input's shape. decode_indexer's score_reduce,
    # InitMemRef: weighted_score_s [1, 128] FP32 (mem_vec_21), its set_validshape t__tile
    # in mem_vec_21 too, the fillpad weighted_score_valid_s [1, 128] FP32 in mem_vec_22.
    found = tiles_of(
        "s = pl.full([1, 128], dtype=pl.FP32, value=0.0)\n"
        "v = pl.fillpad(pl.set_validshape(s, 1, n), pad_value=pl.PadValue.min)\n"
    )
    full, view, padded = found.ops
    assert (view.shape, view.view_of) == (None, "s")
    assert padded.shape == ((1, 128), "FP32") and padded.reads == (view.out,)


SCORES = {
    "keys": Tensor(cst.parse_expression("[1024, 128]"), "INT8"),
    "query": Tensor(cst.parse_expression("[64, 128]"), "INT8"),
    "dequant": Tensor(cst.parse_expression("[1024, 1]"), "FP32"),
    "out": Tensor(cst.parse_expression("[1, 1024]"), "FP32"),
}


def scope_at(header: str, body: str = "    s = x[:, 0:512]\n"):
    node = cst.parse_module(header + body).body[0]
    return scope_tiles_at(node, TENSORS | SCORES, fold, lambda loop: Span(1, 1, 1, 1))


def test_split_mode_none_splits_nothing_and_its_slot_num_is_the_ring_s_depth():
    # The DSL drops SplitMode.NONE from the scope (ast_parser.py, "a single encoding of
    # no split"); slot_num is the cross-core ring's depth (pl.cross_core_slot too).
    found = scope_at(
        "with pl.at(level=pl.Level.CORE_GROUP,"
        " optimizations=[pl.split(pl.SplitMode.NONE, slot_num=3)]):\n"
    )
    assert found.unknown is None and found.slot_num == 3
    assert [op.shape for op in found.ops] == [((16, 512), "BF16")]
    slot = scope_at("for u in pl.spmd(4, optimizations=[pl.cross_core_slot(slot_num=4)]):\n")
    assert slot.unknown is None and slot.slot_num == 4
    assert scope_at("with pl.at(level=pl.Level.CORE_GROUP):\n").slot_num is None


def test_a_split_mode_that_halves_the_vector_tiles_is_still_not_read():
    found = scope_at(
        "with pl.at(level=pl.Level.CORE_GROUP,"
        " optimizations=[pl.split(pl.SplitMode.UP_DOWN, slot_num=2)]):\n"
    )
    assert found.unknown == "a split mode halves the vector tiles (not modelled)"


def test_a_matmul_s_result_read_by_the_vector_is_popped_from_the_ring_and_makes_no_tile():
    # fused_scores.py:24's vector function after InitMemRef: no tile for the key slice
    # or the query (loaded on the cube) nor for the popped INT32 scores (the ring's
    # slot), wide__tile [128, 64] FP32 for the cast; the ring's slot: 32768 B.
    found = tiles_of_all(
        "q = query[:, :]\n"
        "for pb in pl.pipeline(0, 8, stage=2):\n"
        "    k = keys[0:128, :]\n"
        "    raw = pl.matmul(k, q, out_dtype=pl.INT32, b_trans=True)\n"
        "    scale = dequant[0:128, :]\n"
        "    wide = pl.cast(raw, target_type=pl.FP32, mode='none')\n"
        "    out[:, 0:128] = pl.reshape(pl.mul(pl.row_sum(wide), scale), [1, 128])\n"
    )
    assert found.unknown is None
    assert found.popped == (32768,)
    labels = [op.label for op in found.ops]
    assert labels[:2] == ["scale (load)", "wide (cast)"]
    assert found.ops[1].shape == ((128, 64), "FP32") and found.ops[1].reads == ()


def test_a_vector_tile_a_matmul_reads_is_pushed_to_the_cube_and_sizes_the_ring_s_slot():
    # tests/fixtures/memory/models/mem_llm/skewed_scores.py's vector functions after
    # InitMemRef: the tile the cube's matmul reads keeps its Vec buffer up to
    # tile.tpush_to_aic; the ring's slot is the largest tile crossing either way
    # (slot_size=65536 for 8 KB popped and 64 KB pushed in `sent_rows`).
    pushed = tiles_of_all(
        "a = pl.cast(keys[0:128, :], target_type=pl.FP16)\n"
        "raw = pl.matmul(a, query[:, :], out_dtype=pl.FP32, b_trans=True)\n"
        "out[:, 0:64] = pl.matmul(a, query[:, :], out_dtype=pl.FP32, b_trans=True)\n"
    )
    assert pushed.unknown == "the vector tile `a` two matmuls read"
    once = tiles_of_all(
        "a = pl.cast(keys[0:128, :], target_type=pl.FP16)\n"
        "keys[0:128, 0:64] = pl.matmul(a, query[:, :], out_dtype=pl.INT32, b_trans=True)\n"
    )
    assert once.unknown is None
    assert [op.label for op in once.ops] == ["keys (load)", "a (cast)", "a (push to the cube)"]
    assert once.ops[2].reads == ("a",) and once.ops[2].shape is None
    assert (once.popped, once.pushed) == ((), (32768,))


def test_a_matmul_s_result_the_cube_stores_itself_pops_nothing():
    stored = tiles_of_all(
        "raw = pl.matmul(keys[0:128, :], query[:, :], out_dtype=pl.INT32, b_trans=True)\n"
        "out[:, 0:64] = pl.reshape(raw, [1, 64])\n"
    )
    assert stored.unknown == "a view of a tile popped from the cube"
    written = tiles_of_all(
        "raw = pl.matmul(keys[0:128, :], query[:, :], out_dtype=pl.INT32, b_trans=True)\n"
        "keys[0:128, 0:64] = raw\n"
    )
    assert written.unknown is None and written.popped == () and written.ops == ()


def tiles_of_all(source: str):
    statements = cst.parse_module(source).body
    return scope_tiles(statements, TENSORS | SCORES, fold, lambda loop: Span(1, 1, 1, 1))


def test_a_name_that_only_holds_the_word_split_is_no_split_mode():
    # pypto-lib qwen3_14b/decode_fwd.py:617: deps=[out_tids[(n_split_base + 0) * ...]]
    found = scope_at("with pl.at(level=pl.Level.CORE_GROUP, deps=[tids[n_split_base]]):\n")
    assert found.unknown is None
    attrs = scope_at('for u in pl.spmd(4, attrs={"split": pl.SplitMode.LEFT_RIGHT}):\n')
    assert attrs.unknown == "a split mode halves the vector tiles (not modelled)"


def test_arange_makes_a_vec_tile_of_its_shape_in_int32_unless_told():
    # pypto-lib deepseek_v4_pro qkv_proj_rope.py:428, InitMemRef (kv_rms_norm_rope):
    # `pl.arange(0, [1, 64], dtype=pl.INT32)` is t__tile [1, 64] INT32 (256 B), then its
    # cast t__tile [1, 64] FP32; pl.arange is tensor.ci, converted to tile.ci (INT32 by default).
    found = tiles_of(
        "i = pl.arange(0, [1, 64], dtype=pl.INT32)\n"
        "f = pl.cast(i, target_type=pl.FP32)\n"
        "j = pl.arange(0, [1, 32])\n"
    )
    assert [op.shape for op in found.ops] == [
        ((1, 64), "INT32"),
        ((1, 64), "FP32"),
        ((1, 32), "INT32"),
    ]
    assert found.ops[0].reads == () and not found.ops[0].load


def test_gather_by_index_is_a_loop_over_rows_into_an_accumulator_it_makes_first():
    # pypto-lib deepseek_v4_flash_dspark decode_indexer_compressor.py:268, InitMemRef
    # (rmsnorm_rope): `pl.gather(rope_normed, dim=-1, index=rope_swap_idx)` of [16, 64] FP32
    # by [16, 64] INT32 is gather_acc_init [16, 64] FP32 (4096 B), gather_inp_row and
    # gather_idx_row in rope_normed's and the index's buffers, gather_row_tmp [1, 64] INT32,
    # gather_row [1, 64] FP32, and gather_asmbl and the result in gather_acc_init's buffer.
    found = tiles_of(
        "n = pl.full([16, 64], dtype=pl.FP32, value=1.0)\n"
        "i = pl.full([16, 64], dtype=pl.INT32, value=1)\n"
        "s = pl.gather(n, dim=-1, index=i)\n"
    )
    acc, inp_row, idx_row, tmp, row, result = found.ops[2:]
    assert [op.shape for op in found.ops[2:]] == [
        ((16, 64), "FP32"),
        None,
        None,
        ((1, 64), "INT32"),
        ((1, 64), "FP32"),
        None,  # gather_asmbl and the loop's result: one view of the accumulator
    ]
    assert (inp_row.view_of, idx_row.view_of) == ("n", "i")
    assert row.reads == row.forbid == (inp_row.out, idx_row.out, tmp.out)  # not_inplace_safe
    assert result.out == "s" and result.view_of == acc.out
    assert result.reads == (acc.out, row.out)


def test_gather_along_another_dim_or_by_an_unnamed_mask_pattern_is_not_modelled():
    made = "n = pl.full([16, 64], dtype=pl.FP32, value=1.0)\n"
    along_rows = tiles_of(made + "s = pl.gather(n, 0, n)\n")
    by_number = tiles_of(made + "s = pl.gather(n, mask_pattern=1)\n")
    assert along_rows.unknown == "a `gather` not along the last dim by an index"
    assert by_number.unknown == "a `gather` by a mask pattern not written by its name"


def test_a_tile_gather_by_an_index_tile_is_one_tile_of_the_indices_shape_in_the_source_dtype():
    # pypto-lib deepseek_v4_flash_dspark qkv_proj_rope.py:209, InitMemRef (q_rope_prepare):
    # `pl.tile.gather(pl.cast(rows, target_type=pl.FP32), idx, tmp)`, idx and tmp [8, 64]
    # INT32, is t__tmp_v14 [8, 64] FP32 (the cast), then the gathered [8, 64] FP32 tile in a
    # buffer of its own (mem_vec_59); tile_ops/gather.cpp registers tile.gather
    # not_inplace_safe.
    found = tiles_of(
        "r = pl.full([8, 64], dtype=pl.BF16, value=1.0)\n"
        "i = pl.full([8, 64], dtype=pl.INT32, value=1)\n"
        "t = pl.create_tile([8, 64], dtype=pl.INT32, target_memory=pl.MemorySpace.Vec)\n"
        "s = pl.tile.gather(pl.cast(r, target_type=pl.FP32), i, t)\n"
    )
    cast, gathered = found.ops[3:]
    assert (cast.shape, gathered.shape) == (((8, 64), "FP32"), ((8, 64), "FP32"))
    assert gathered.out == "s" and gathered.view_of is None
    assert gathered.reads == gathered.forbid == (cast.out, "i", "t")


def test_a_gather_by_a_mask_pattern_keeps_the_columns_the_pattern_names():
    # pypto-lib deepseek_v4_pro lm_head.py:362, InitMemRef (lm_head_greedy_sample):
    # `pl.gather(top_pair, mask_pattern=pl.tile.MaskPattern.P0101)` of [1, 32] FP32 is
    # top_values [1, 16] FP32 (64 B); tile_ops/gather.cpp: P0001 keeps one column of four,
    # P1111 all, output_dtype of the same width.
    made = "p = pl.full([1, 32], dtype=pl.FP32, value=1.0)\n"
    every_second = tiles_of(made + "v = pl.gather(p, mask_pattern=pl.tile.MaskPattern.P0101)\n")
    every_fourth = tiles_of(made + "v = pl.gather(p, mask_pattern=pl.tile.MaskPattern.P0001)\n")
    all_as_int = tiles_of(
        made + "v = pl.gather(p, mask_pattern=pl.tile.MaskPattern.P1111, output_dtype=pl.INT32)\n"
    )
    kept = every_second.ops[-1]
    assert kept.shape == ((1, 16), "FP32")
    assert kept.reads == kept.forbid == ("p",)
    assert every_fourth.ops[-1].shape == ((1, 8), "FP32")
    assert all_as_int.ops[-1].shape == ((1, 32), "INT32")


def test_col_expand_makes_a_tile_of_its_target_s_shape_not_in_its_column_s_buffer():
    # pypto-lib deepseek_v4_pro hc_head.py:169, InitMemRef (hc_head_pre_fused): the
    # `pl.col_expand(scaled, base)` of [8, 16] FP32 by [1, 16] is a t__tile [8, 16] FP32;
    # broadcast.cpp registers tile.col_expand forbid_output_alias(1).
    found = tiles_of(
        "s = pl.full([8, 16], dtype=pl.FP32, value=1.0)\n"
        "b = pl.full([1, 16], dtype=pl.FP32, value=1.0)\n"
        "e = pl.col_expand(s, b)\n"
    )
    expanded = found.ops[-1]
    assert expanded.shape == ((8, 16), "FP32")
    assert expanded.reads == ("s", "b") and expanded.forbid == ("b",)


def test_a_2d_transpose_makes_its_scratch_of_the_input_s_shape_then_the_swapped_tile():
    # pypto-lib deepseek_v4_pro hc_head.py:174, InitMemRef (hc_head_pre_fused): the
    # `pl.transpose(pre_val, axis1=0, axis2=1)` of [8, 16] FP32 is transpose_tmp [8, 16]
    # FP32 (FlattenTileNdTo2D's pto.ttrans scratch) then t__tile [16, 8] FP32; transform.cpp
    # registers tile.transpose not_inplace_safe.
    found = tiles_of(
        "v = pl.full([8, 16], dtype=pl.FP32, value=1.0)\n"
        "t = pl.transpose(v, axis1=0, axis2=1)\n"
    )
    _, scratch, transposed = found.ops
    assert scratch.label == "transpose_tmp (transpose)" and scratch.shape == ((8, 16), "FP32")
    assert transposed.shape == ((16, 8), "FP32")
    assert transposed.reads == transposed.forbid == ("v", scratch.out)


def test_create_tile_makes_a_vec_tile_a_row_sum_given_it_as_workspace_makes_none_more():
    # pypto-lib deepseek_v4_flash_dspark rmsnorm.py:82/95, InitMemRef (rms_norm): the
    # `pl.create_tile([8, 128], dtype=pl.FP32, target_memory=pl.MemorySpace.Vec)` is
    # row_reduce_tmp [8, 128] FP32 (4096 B); `pl.row_sum(sq, row_reduce_tmp)` of [8, 128]
    # then makes only its [8, 1] FP32 result (no tmp_tile of its own).
    found = tiles_of(
        "w = pl.create_tile([8, 128], dtype=pl.FP32, target_memory=pl.MemorySpace.Vec)\n"
        "v = pl.full([8, 128], dtype=pl.FP32, value=1.0)\n"
        "s = pl.row_sum(v, w)\n"
    )
    assert [op.shape for op in found.ops] == [
        ((8, 128), "FP32"),
        ((8, 128), "FP32"),
        ((8, 1), "FP32"),
    ]
    assert found.ops[-1].reads == found.ops[-1].forbid == ("v", "w")


def test_a_tile_created_in_another_memory_is_not_modelled():
    found = tiles_of("w = pl.create_tile([8, 128], dtype=pl.FP32, target_memory=pl.MemorySpace.Mat)\n")
    assert found.unknown == "a `create_tile` into another memory than Vec"


def test_a_scalar_written_into_a_tensor_makes_no_tile():
    # pypto-lib deepseek_v4_pro gate.py's gate_pre_route scope: `pl.write(x_norm_scale,
    # [zt, 0], pl.cast(0.0, pl.FP32))` beside one `pl.full` tile; InitMemRef listed that
    # tile alone in the outlined function's Vec
    found = tiles_of(
        "pl.write(out, [0, 0], pl.cast(0.0, pl.FP32))\n"
        "f = pl.full([16, 128], dtype=pl.FP32, value=0.0)\n"
    )
    assert found.unknown is None
    assert [op.shape for op in found.ops] == [((16, 128), "FP32")]
    into_tile = tiles_of(
        "f = pl.full([16, 128], dtype=pl.FP32, value=0.0)\npl.write(f, [0, 0], 1.0)\n"
    )
    assert into_tile.unknown == "a `write` into a tile"


def test_a_window_of_a_tile_is_a_view_in_its_buffer():
    # the DSL parser's tile.slice: InitMemRef gives the view its source's MemRef
    # (pypto-lib deepseek_v4_pro decode_sparse_attn.py: `m_oi[0 : H_TILE, 0 : NOPE_DIM]`)
    found = tiles_of("a = x[0:16, 0:512]\nb = a[0:8, 0:256]\nc = pl.add(b, b)\n")
    load, window, add = found.ops
    assert window == TileOp("b", ("a",), None, "b (slice)", view_of="a", statement=1)
    assert add.shape == ((8, 256), "BF16")
    element = tiles_of("a = x[0:16, 0:512]\ns = a[0, 3]\n")
    assert element.unknown == "an element read of the tile `a`"
