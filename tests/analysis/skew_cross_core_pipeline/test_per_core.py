"""Mixed cube+vector loops: the compiler creates the messages, each core gets its own verdict."""

from __future__ import annotations

import textwrap

import libcst as cst

from skewlsp.analysis.skew_cross_core_pipeline.per_core import statement_halves
from skewlsp.contract import LoopReport
from tests.kernels import ATTENTION, ATTENTION_STORES, only_loop


def cores(report: LoopReport) -> dict[str, tuple[str, str, int | None]]:
    return {c.core: (c.verdict, c.code, c.depth) for c in report.cores}


def test_attention_with_trip_two_skews_the_cube_at_depth_one_and_demotes_the_vector() -> None:
    report = only_loop(ATTENTION.format(heads=64, tail=ATTENTION_STORES))
    assert cores(report) == {"aic": ("skewed", "SKW002", 1), "aiv": ("demoted", "SKW020", None)}
    assert (report.verdict, report.depth, report.trip) == ("skewed", 1, 2)
    assert report.message.startswith("cube: skewed at depth 1 (requested 2")
    # The vector's demotion is the overlap the author wants: the message says so.
    assert "vector: consumer of the cube's skewed loop (overlap from the cube's skew)" in (
        report.message
    )


def test_a_trip_that_blocks_the_depth_comes_with_a_computed_fix() -> None:
    report = only_loop(ATTENTION.format(heads=64, tail=ATTENTION_STORES))
    assert report.fix_hint == "a trip of 4 would give depth 2: e.g. halve QK_M_TILE"


def test_attention_with_trip_four_reaches_depth_two_on_the_cube() -> None:
    report = only_loop(ATTENTION.format(heads=128, tail=ATTENTION_STORES))
    assert cores(report)["aic"] == ("skewed", "SKW001", 2)
    assert cores(report)["aiv"][0] == "demoted"


def test_the_vector_copy_runs_twice_under_dual_aiv_dispatch() -> None:
    report = only_loop(ATTENTION.format(heads=64, tail=ATTENTION_STORES))
    vector = next(c for c in report.cores if c.core == "aiv")
    assert vector.copies == 2


def test_vector_reading_the_pv_result_makes_both_cores_multi_round_trip() -> None:
    tail = (
        ATTENTION_STORES
        + "            rescaled = pl.mul(oi, 0.5)\n            out_oi[h0 : h0 + QK_M_TILE, 0:HEAD_DIM] = rescaled\n"
    )
    report = only_loop(ATTENTION.format(heads=64, tail=tail))
    assert cores(report) == {"aic": ("demoted", "SKW021", None), "aiv": ("demoted", "SKW021", None)}


def test_one_directional_cube_to_vector_epilogue_is_left_on_both_cores() -> None:
    source = """\
import pypto.language as pl


@pl.jit
def proj(x: pl.Tensor[[256, 64], pl.BF16], w: pl.Tensor[[64, 64], pl.BF16], y: pl.Tensor[[256, 64], pl.FP32]):
    with pl.at(level=pl.Level.CORE_GROUP):
        for t in pl.pipeline(8, stage=2):
            acc = pl.matmul(x[t * 32 : t * 32 + 32, 0:64], w[0:64, 0:64], out_dtype=pl.FP32)
            act = pl.exp(acc)
            y[t * 32 : t * 32 + 32, 0:64] = act
"""
    report = only_loop(source)
    assert cores(report) == {"aic": ("left", "SKW010", None), "aiv": ("left", "SKW010", None)}
    assert report.verdict == "left"


def test_pure_cube_k_loop_is_left_on_the_cube_only() -> None:
    source = """\
import pypto.language as pl


@pl.jit
def matmul_k(x: pl.Tensor[[64, 512], pl.BF16], w: pl.Tensor[[512, 64], pl.BF16], y: pl.Tensor[[64, 64], pl.FP32]):
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = pl.matmul(x[0:64, 0:64], w[0:64, 0:64], out_dtype=pl.FP32)
        for k in pl.pipeline(1, 8, stage=2):
            acc = pl.matmul_acc(acc, x[0:64, k * 64 : k * 64 + 64], w[k * 64 : k * 64 + 64, 0:64])
        y[0:64, 0:64] = acc
"""
    report = only_loop(source)
    assert cores(report) == {"aic": ("left", "SKW010", None)}


def test_pure_vector_rmsnorm_is_left_on_the_vector_only() -> None:
    source = textwrap.dedent("""\
    import pypto.language as pl


    @pl.jit
    def rmsnorm(x: pl.Tensor[[256, 64], pl.FP32], y: pl.Tensor[[256, 64], pl.FP32]):
        with pl.at(level=pl.Level.CORE_GROUP):
            for r in pl.pipeline(0, 256, 32, stage=2):
                rows = x[r : r + 32, 0:64]
                sq = pl.mul(rows, rows)
                ms = pl.row_sum(sq)
                inv = pl.rsqrt(ms)
                y[r : r + 32, 0:64] = pl.row_expand_mul(rows, inv)
    """)
    assert cores(only_loop(source)) == {"aiv": ("left", "SKW010", None)}


def test_crossing_under_a_runtime_if_leaves_the_loop_on_both_cores() -> None:
    source = ATTENTION.format(heads=64, tail=ATTENTION_STORES).replace(
        "            raw = pl.matmul",
        "            if h0 < pl.read(out_mi, [0, 0]):\n                pass\n            raw = pl.matmul",
    )
    body_under_if = ATTENTION.format(heads=64, tail="").split(
        "for hb in pl.pipeline(H // QK_M_TILE, stage=2):\n"
    )
    guarded = (
        body_under_if[0]
        + "for hb in pl.pipeline(H // QK_M_TILE, stage=2):\n            flag = pl.read(out_mi, [0, 0])\n            if flag > 0:\n"
        + textwrap.indent(body_under_if[1], "    ")
    )
    assert only_loop(source).cores  # still mixed at top level
    report = only_loop(guarded)
    assert {c.verdict for c in report.cores} == {"left"}


def test_hand_written_messages_are_not_split_again() -> None:
    source = """\
import pypto.language as pl


@pl.program
class K:
    @pl.function
    def main(self, q: pl.Tensor[[64, 64], pl.FP32], out: pl.Tensor[[64, 64], pl.FP32]):
        for i in pl.pipeline(0, 4, 1, stage=2):
            a = pl.tile.load(q, [i * 16, 0], [16, 64])
            s = pl.tile.matmul(a, a)
            pl.tile.tpush_to_aiv(s, split=0)
            e = pl.tile.tpop_from_aiv(split=0)
            pl.tile.store(e, [i * 16, 0], out)
"""
    report = only_loop(source)
    assert report.cores == () and report.code == "SKW001"


def test_an_opaque_function_without_an_incore_scope_is_not_split() -> None:
    source = '''\
import pypto.language as pl


@pl.program
class K:
    @pl.function
    def main(self, x: pl.Tensor[[256, 64], pl.BF16], w: pl.Tensor[[64, 64], pl.BF16], y: pl.Tensor[[256, 64], pl.FP32]):
        for t in pl.pipeline(8, stage=2):
            acc = pl.matmul(x[t * 32 : t * 32 + 32, 0:64], w[0:64, 0:64], out_dtype=pl.FP32)
            p = pl.exp(acc)
            q = pl.matmul(p, w[0:64, 0:64], out_dtype=pl.FP32)
            y[t * 32 : t * 32 + 32, 0:64] = q
'''
    report = only_loop(source)
    assert (report.code, report.cores) == ("SKW011", ())
    incore = source.replace("@pl.function\n", "@pl.function(type=pl.FunctionType.InCore)\n")
    assert {c.core: c.verdict for c in only_loop(incore).cores} == {"aic": "skewed", "aiv": "demoted"}


def test_a_matmul_result_rebound_by_a_vector_op_still_crosses_to_the_vector_core() -> None:
    tail = ATTENTION_STORES
    source = ATTENTION.format(heads=128, tail=tail).replace(
        "            scaled = pl.mul(raw, 0.125)\n            mi = pl.row_max(scaled)\n"
        "            ex = pl.exp(pl.row_expand_sub(scaled, mi))\n",
        "            raw = pl.mul(raw, 0.125)\n            mi = pl.row_max(raw)\n"
        "            ex = pl.exp(pl.row_expand_sub(raw, mi))\n",
    )
    assert "raw = pl.mul(raw, 0.125)" in source
    report = only_loop(source)
    assert cores(report) == {"aic": ("skewed", "SKW001", 2), "aiv": ("demoted", "SKW020", None)}


def test_config_object_fields_and_properties_fold_like_python_would() -> None:
    source = '''\
import pypto.language as pl
from dataclasses import dataclass


@dataclass(frozen=True)
class Dims:
    heads: int
    tile: int = 32

    @property
    def blocks(self) -> int:
        return self.heads // self.tile


M = Dims(heads=128)
BLOCKS = M.blocks


@pl.jit
def k(x: pl.Tensor[[256, 64], pl.FP32], y: pl.Tensor[[256, 64], pl.FP32]):
    with pl.at(level=pl.Level.CORE_GROUP):
        for b in pl.pipeline(BLOCKS, stage=2):
            t = x[b * 32 : b * 32 + 32, 0:64]
            y[b * 32 : b * 32 + 32, 0:64] = pl.exp(t)
'''
    report = only_loop(source)
    assert (report.code, report.stop) == ("SKW011", 4)


def test_moe_expert_gate_activation_down_projection_skews_the_cube_and_hints_stage_three() -> None:
    source = '''\
import pypto.language as pl

TOKENS = 128
TILE = 32


@pl.jit
def expert(x: pl.Tensor[[128, 64], pl.BF16], w_gate: pl.Tensor[[64, 64], pl.BF16],
           w_down: pl.Tensor[[64, 64], pl.BF16], y: pl.Tensor[[128, 64], pl.FP32]):
    with pl.spmd(1, name_hint="expert"):
        blk = pl.tile.get_block_idx()
        gate_w = w_gate[0:64, 0:64]
        down_w = w_down[0:64, 0:64]
        for t in pl.pipeline(TOKENS // TILE, stage=3):
            row = blk * TOKENS + t * TILE
            xt = x[row : row + TILE, 0:64]
            gate = pl.matmul(xt, gate_w, out_dtype=pl.FP32)
            act = pl.mul(gate, pl.recip(pl.add(pl.exp(pl.neg(gate)), 1.0)))
            act_bf16 = pl.cast(act, target_type=pl.BF16, mode="rint")
            out = pl.matmul(act_bf16, down_w, out_dtype=pl.FP32)
            y[row : row + TILE, 0:64] = out
'''
    report = only_loop(source)
    assert cores(report) == {"aic": ("skewed", "SKW001", 2), "aiv": ("demoted", "SKW020", None)}
    assert [hint.code for hint in report.hints] == ["SKW030"]


def test_gm_slices_used_only_inside_a_branch_are_loaded_by_the_core_that_uses_them() -> None:
    source = '''\
import pypto.language as pl


@pl.jit
def gate(x: pl.Tensor[[64, 512], pl.BF16], w: pl.Tensor[[64, 512], pl.BF16], y: pl.Tensor[[64, 64], pl.FP32]):
    for blk in pl.spmd(4, name_hint="gate"):
        acc = pl.create_tensor([64, 64], dtype=pl.FP32)
        for kb in pl.pipeline(0, 8, stage=2):
            k0 = kb * 64
            xs = x[0:64, k0 : k0 + 64]
            ws = w[0:64, k0 : k0 + 64]
            if k0 == 0:
                acc = pl.matmul(xs, ws, out_dtype=pl.FP32, b_trans=True)
            else:
                acc = pl.matmul_acc(acc, xs, ws, b_trans=True)
        y[0:64, 0:64] = acc
'''
    assert cores(only_loop(source)) == {"aic": ("left", "SKW010", None)}


def test_each_cores_body_shows_its_statements_as_written() -> None:
    report = only_loop(ATTENTION.format(heads=64, tail=ATTENTION_STORES))
    cube = next(c for c in report.cores if c.core == "aic")
    assert "raw = pl.matmul(q_tile, qk_kv, b_trans=True, out_dtype=pl.FP32)" in cube.body


def test_output_tensor_parameters_live_in_gm_like_any_tensor() -> None:
    # pl.Out / pl.InOut only say which way the data goes: the parameter is still a tensor in
    # GM, so a cube store to it that the vector loads back is fenced like any other.
    from skewlsp.analysis.frontend.op_registry import GM, VECTOR
    from skewlsp.analysis.passes.expand_mixed_kernel.core_sides import param_sides

    fn = cst.parse_statement(
        "def k(a: pl.Tensor[[4], pl.FP32], o: pl.Out[pl.Tensor[[4], pl.FP32]],\n"
        "      w: pl.InOut[pl.Tensor[[4], pl.FP32]], t: pl.Tile[[4], pl.FP32],\n"
        "      n: pl.Scalar[pl.INT32], u: pl.Out[int]):\n"
        "    pass\n"
    )
    assert param_sides(fn) == {"a": GM, "o": GM, "w": GM, "t": VECTOR}


def test_each_statement_of_a_skewed_body_is_in_the_half_its_copy_s_statements_are() -> None:
    # The cube copy's statements stand at source nodes (an implicit push at the statement
    # it follows); a statement with none of them, or with one of each half, is in none.
    body = cst.parse_module(
        textwrap.dedent(
            """\
            xi = x[0:16, :]
            s = pl.matmul(xi, w)
            a = pl.exp(s)
            o = pl.matmul(p, v)
            """
        )
    ).body
    rows, scores, vector, out = body
    scores_call = scores.body[0].value  # type: ignore[attr-defined]
    located = ((rows, True), (scores_call, True), (out, False), (out, False))
    assert statement_halves(body, located) == (True, True, None, False)
    assert statement_halves(body, ((rows, True), (rows, False))) == (None, None, None, None)
