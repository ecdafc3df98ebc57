"""The shape of a matmul operand a loop body computes (a tile the cube pops back from
the vector), followed back to the body's loads as ConvertTensorToTileOps shapes each
op."""

from __future__ import annotations

import libcst as cst

from skewlsp.analysis.frontend.constants import Const
from skewlsp.analysis.passes.convert_tensor_to_tile_ops import Tensor
from skewlsp.analysis.passes.cube_operands import block_operand, computed_operand, on_chip_operand
from skewlsp.analysis.source.walk import walk

LOADS = {"q[...]": ((32, 128), "BF16"), "kv": ((256, 128), "BF16")}


def body(source: str) -> cst.BaseSuite:
    loop = cst.parse_module(source).body[0]
    assert isinstance(loop, cst.For)
    return loop.body


def test_a_cast_of_an_exp_of_a_score_matmul_is_m_by_n_in_the_cast_s_type():
    # attention.py: the compiler's `p` popped on the cube is [32, 256] BF16
    suite = body(
        "for h in pl.pipeline(4, stage=2):\n"
        "    s = pl.matmul(q[h:h+32, :], kv, b_trans=True, out_dtype=pl.FP32)\n"
        "    p = pl.cast(pl.exp(s), target_type=pl.BF16, mode='rint')\n"
    )
    assert computed_operand(suite, "p", LOADS) == ((32, 256), "BF16")


def test_element_wise_ops_keep_their_first_tile_operand_s_shape():
    suite = body(
        "for h in pl.pipeline(4, stage=2):\n"
        "    s = pl.matmul(q[h:h+32, :], kv, b_trans=True)\n"
        "    m = pl.mul(s, 0.5)\n"
        "    e = pl.exp(pl.row_expand_sub(m, pl.row_max(m)))\n"
    )
    assert computed_operand(suite, "e", LOADS) == ((32, 256), "FP32")


def test_a_name_bound_twice_or_an_op_not_listed_is_not_known():
    twice = body(
        "for h in pl.pipeline(4, stage=2):\n"
        "    s = pl.matmul(q[h:h+32, :], kv, b_trans=True)\n"
        "    s = pl.exp(s)\n"
    )
    assert computed_operand(twice, "s", LOADS) is None
    other = body("for h in pl.pipeline(4, stage=2):\n    r = pl.row_sum(kv)\n")
    assert computed_operand(other, "r", LOADS) is None


def fold_int(node: cst.BaseExpression) -> Const | None:
    return Const(int(node.value)) if isinstance(node, cst.Integer) else None


def scope_and_loop(source: str) -> tuple[cst.Module, cst.For]:
    module = cst.parse_module(source)
    loops = [n for n in walk(module) if isinstance(n, cst.For)]
    (loop,) = [n for n in loops if "pipeline" in module.code_for_node(n.iter)]
    return module, loop


def test_an_l1_accumulator_filled_by_gathers_before_the_loop_has_its_created_shape():
    # pypto-lib deepseek_v4_pro decode_sparse_attn.py qk_pv_aic: the compiler's
    # qk_kv tile is [512, 128] BF16 in Mat
    module, loop = scope_and_loop(
        "kv = pl.create_l1([512, 128], pl.BF16)\n"
        "for r in pl.range(512):\n"
        "    kv = pl.gather_row(kv, pool, [r, 0], [r, 0], [1, 128])\n"
        "for h in pl.pipeline(4, stage=2):\n"
        "    s = pl.matmul(q, kv, b_trans=True)\n"
    )
    assert on_chip_operand(module, loop, "kv", fold_int, {}) == ((512, 128), "BF16")


def test_a_slice_of_a_tensor_before_the_loop_is_the_tile_it_loads_and_a_rebinding_is_not_known():
    tensors = {"pool": Tensor(cst.parse_expression("[4096, 128]"), "BF16")}
    module, loop = scope_and_loop(
        "kv = pool[0:512, 0:128]\n"
        "for h in pl.pipeline(4, stage=2):\n"
        "    s = pl.matmul(q, kv, b_trans=True)\n"
    )
    assert on_chip_operand(module, loop, "kv", fold_int, tensors) == ((512, 128), "BF16")
    module, loop = scope_and_loop(
        "kv = pool[0:512, 0:128]\n"
        "kv = pl.exp(kv)\n"
        "for h in pl.pipeline(4, stage=2):\n"
        "    s = pl.matmul(q, kv, b_trans=True)\n"
    )
    assert on_chip_operand(module, loop, "kv", fold_int, tensors) is None


def test_a_pl_slice_call_of_a_tensor_before_the_loop_is_the_tile_of_its_shape():
    # masked.py: the compiler loads `k_tile` as a [128, 128] BF16 tile in Mat
    tensors = {"k": Tensor(cst.parse_expression("[128, 128]"), "BF16")}
    module, loop = scope_and_loop(
        "k_tile = pl.slice(k, [128, 64], [0, 0])\n"
        "for h in pl.pipeline(4, stage=2):\n"
        "    s = pl.matmul(q, k_tile, b_trans=True)\n"
    )
    assert on_chip_operand(module, loop, "k_tile", fold_int, tensors) == ((128, 64), "BF16")
    assert on_chip_operand(module, loop, "k_tile", fold_int, {}) is None  # no tensor `k`


MASKED = (
    "k_tile = pl.slice(k, [128, 128], [0, 0])\n"
    "for dd in pl.pipeline(8, stage=3):\n"
    "    if dd < live:\n"
    "        raw = pl.matmul(q_rows, k_tile, b_trans=True, out_dtype=pl.FP32)\n"
    "        scores = pl.fillpad(pl.set_validshape(pl.mul(raw, 0.125), 16, n), pad_value=m)\n"
    "        weights = pl.cast(pl.exp(scores), target_type=pl.BF16)\n"
    "        out = pl.matmul(weights, v_tile, out_dtype=pl.FP32)\n"
    "        w = pl.exp(scores)\n"
)


def _branch(loop: cst.For) -> list[cst.CSTNode]:
    (branch,) = loop.body.body
    assert isinstance(branch, cst.If)
    return list(branch.body.body)


def test_an_operand_a_branch_computes_is_followed_back_to_its_loads_and_the_tiles_before():
    # masked.py: the compiler's `weights` popped into Left is [16, 128] BF16 (fillpad and
    # set_validshape keep the tile's shape, change only its valid region and pad)
    tensors = {"k": Tensor(cst.parse_expression("[128, 128]"), "BF16")}
    module, loop = scope_and_loop(MASKED)
    loads = {"q_rows": ((16, 128), "BF16")}
    block = _branch(loop)
    found = block_operand(loop, block, 3, "weights", loads, module, fold_int, tensors)
    assert found == ((16, 128), "BF16")
    assert block_operand(loop, block, 0, "k_tile", loads, module, fold_int, tensors) == (
        (128, 128),
        "BF16",
    )


def test_an_operand_bound_after_the_matmul_or_made_by_no_one_seen_is_not_known():
    tensors = {"k": Tensor(cst.parse_expression("[128, 128]"), "BF16")}
    module, loop = scope_and_loop(MASKED)
    loads = {"q_rows": ((16, 128), "BF16")}
    block = _branch(loop)
    assert block_operand(loop, block, 3, "w", loads, module, fold_int, tensors) is None
    assert block_operand(loop, block, 3, "v_tile", loads, module, fold_int, tensors) is None
    assert block_operand(loop, block, 3, "weights", loads, None, fold_int, tensors) is None
