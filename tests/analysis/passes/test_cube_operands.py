"""The shape of a matmul operand a loop body computes (a tile the cube pops back from
the vector), followed back to the body's loads as ConvertTensorToTileOps shapes each
op."""

from __future__ import annotations

import libcst as cst

from skewlsp.analysis.passes.cube_operands import computed_operand

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
