"""Which casts of a matmul result the cube does as it writes the result back."""

from __future__ import annotations

import libcst as cst
import pytest

from skewlsp.analysis.frontend.names import small_statement_effects
from skewlsp.analysis.passes.auto_tile_matmul_l0 import body_matmuls, cube_casts
from skewlsp.analysis.passes.body import BodyMatmuls, MatmulSite, SiteBlock, Stmt


def body(*lines: str) -> list[Stmt]:
    stmts = []
    for line in lines:
        small = cst.parse_statement(line + "\n").body[0]
        defs, reads = small_statement_effects(small)
        stmts.append(Stmt(small, "plain", tuple(defs), tuple(reads)))
    return stmts


def folded(stmts: list[Stmt]) -> list[str]:
    """The targets of the folded casts, in order."""
    ids = cube_casts(stmts).named
    return [
        s.node.targets[0].target.value  # type: ignore[attr-defined]
        for s in stmts
        if id(getattr(s.node, "value", None)) in ids
    ]


CHAIN = "h = pl.matmul(q, w, out_dtype=pl.FP32)"


@pytest.mark.parametrize(
    "cast",
    [
        'hb = pl.cast(h, target_type=pl.BF16, mode="rint")',
        "hb = pl.cast(h, pl.FP16, 1)",
    ],
)
def test_a_rint_narrowing_of_a_matmul_result_read_only_by_matmuls_is_the_cubes(cast: str) -> None:
    stmts = body(CHAIN, cast, "o = pl.matmul(hb, w)", "a = pl.matmul_acc(a, q, hb)")
    assert folded(stmts) == ["hb"]


@pytest.mark.parametrize(
    ("cast", "why"),
    [
        ("hb = pl.cast(h, target_type=pl.BF16)", "the default rounding is not the FIXPIPE's"),
        ('hb = pl.cast(h, target_type=pl.BF16, mode="round")', "nor is round-half-away"),
        ('hb = pl.cast(h, target_type=pl.FP32, mode="rint")', "no narrowing"),
        ('hb = pl.cast(e, target_type=pl.BF16, mode="rint")', "not a matmul result"),
    ],
)
def test_other_casts_stay_vector_ops(cast: str, why: str) -> None:
    stmts = body(CHAIN, "e = pl.exp(h)", cast, "o = pl.matmul(hb, w)")
    assert folded(stmts) == [], why


@pytest.mark.parametrize(
    "reader",
    [
        "y = pl.exp(pl.cast(hb, target_type=pl.FP32))",  # an element-wise read
        "a = pl.matmul_acc(hb, q, w)",  # the accumulator is not a matrix operand
        "out[r0, 0] = hb",  # a store
    ],
)
def test_one_read_that_is_not_a_matrix_operand_keeps_the_cast_on_the_vector(reader: str) -> None:
    stmts = body(CHAIN, 'hb = pl.cast(h, target_type=pl.BF16, mode="rint")', "o = pl.matmul(hb, w)", reader)
    assert folded(stmts) == []


def test_an_integer_matmul_result_is_not_folded() -> None:
    stmts = body(
        "h = pl.matmul(q, w, out_dtype=pl.INT32)",
        'hb = pl.cast(h, target_type=pl.BF16, mode="rint")',
        "o = pl.matmul(hb, w)",
    )
    assert folded(stmts) == []


def test_an_unread_cast_is_not_folded() -> None:
    assert folded(body(CHAIN, 'hb = pl.cast(h, target_type=pl.BF16, mode="rint")')) == []


def test_a_cast_written_as_a_matmul_operand_folds_where_the_walk_meets_the_matmul() -> None:
    casts = cube_casts(body(CHAIN))
    assert casts.accumulators == {"h"}
    on_h = cst.parse_expression('pl.matmul(pl.cast(h, target_type=pl.BF16, mode="rint"), w)')
    on_a_matmul = cst.parse_expression(
        'pl.matmul(pl.cast(pl.matmul(q, w), target_type=pl.BF16, mode="rint"), w)'
    )
    rounded = cst.parse_expression("pl.matmul(pl.cast(h, target_type=pl.BF16), w)")
    accumulated = cst.parse_expression(
        'pl.matmul_acc(pl.cast(h, target_type=pl.BF16, mode="rint"), q, w)'
    )
    assert casts.operand_casts(on_h) == [on_h.args[0].value]  # type: ignore[attr-defined]
    assert casts.operand_casts(on_a_matmul) == [on_a_matmul.args[0].value]  # type: ignore[attr-defined]
    assert casts.operand_casts(rounded) == []
    assert casts.operand_casts(accumulated) == []  # the accumulator is not a matrix operand


def loop_of(text: str) -> cst.For:
    node = cst.parse_statement(text)
    assert isinstance(node, cst.For)
    return node


def test_the_matmuls_of_a_body_and_of_its_branches_in_program_order():
    found = body_matmuls(
        loop_of(
            "for kb in pl.pipeline(4, stage=2):\n"
            "    a = x[:, kb : kb + 128]\n"
            "    if kb == 0:\n"
            "        acc = pl.matmul(a, w[kb : kb + 128, :], b_trans=True, out_dtype=pl.FP32)\n"
            "    else:\n"
            "        acc = pl.matmul_acc(acc, a, pl.slice(w, [128, 256], [kb, 0]))\n"
        )
    )
    assert found == BodyMatmuls(
        (
            MatmulSite("matmul", "a", "w[...]", "FP32", (False, True)),
            MatmulSite("matmul_acc", "a", "w[...]"),
        ),
        # each in a branch of the `if` (statement 1), reading the one binding of `a`
        blocks=(SiteBlock(((1, 0),), (1, 0)), SiteBlock(((1, 1),), (1, 0))),
    )


def test_two_matmuls_of_one_block_read_one_binding_until_it_is_bound_again():
    found = body_matmuls(
        loop_of(
            "for kb in pl.pipeline(4, stage=2):\n"
            "    x = xs[kb, :, :]\n"
            "    kv = pl.matmul(x, wkv, out_dtype=pl.FP32)\n"
            "    score = pl.matmul(x, wgate, out_dtype=pl.FP32)\n"
            "    x = pl.cast(kv, target_type=pl.BF16, mode=\"rint\")\n"
            "    out = pl.matmul(x, wkv, out_dtype=pl.FP32)\n"
        )
    )
    assert found.blocks == (
        SiteBlock((), (1, 0)),
        SiteBlock((), (1, 0)),
        SiteBlock((), (2, 0)),
    )


def test_each_matmul_s_place_is_its_block_and_its_statement_there():
    """Where the operands are looked for: the statements before the matmul in its block."""
    loop = loop_of(
        "for kb in pl.pipeline(4, stage=2):\n"
        "    a = x[:, kb : kb + 128]\n"
        "    if kb == 0:\n"
        "        acc = pl.matmul(a, w[kb : kb + 128, :])\n"
        "    else:\n"
        "        b = pl.add(a, a)\n"
        "        acc = pl.matmul_acc(acc, b, w[kb : kb + 128, :])\n"
        "    y = pl.matmul(a, w[0:128, :])\n"
    )
    found = body_matmuls(loop)
    body = loop.body.body
    branch, other = body[1], body[1].orelse  # type: ignore[attr-defined]
    assert [(list(block), at) for block, at in found.places] == [
        (list(branch.body.body), 0),
        (list(other.body.body), 1),
        (list(body), 2),
    ]


def test_a_body_whose_matmuls_are_not_told_has_no_places():
    found = body_matmuls(
        loop_of(
            "for kb in pl.pipeline(4, stage=2):\n"
            "    acc = pl.matmul(a, b)\n"
            "    c = pl.matmul(pl.add(a, a), b)\n"
        )
    )
    assert found.unknown is not None
    assert found.places == ()


def test_a_matmul_in_a_nested_loop_is_not_modelled():
    found = body_matmuls(
        loop_of(
            "for kb in pl.pipeline(4, stage=2):\n"
            "    for j in pl.range(2):\n"
            "        acc = pl.matmul(a, b)\n"
        )
    )
    assert found == BodyMatmuls((), "a matmul in a nested loop or block is not modelled")


SCOPE_WITH_A_TAIL = """\
with pl.at(level=pl.Level.CORE_GROUP):
    acc = pl.matmul(a0, b0, out_dtype=pl.FP32)
    for kb in pl.pipeline(1, 8, stage=2):
        acc = pl.matmul_acc(acc, a, b)
    if TAIL != 0:
        tail = pl.matmul(a0, t0, out_dtype=pl.FP32)
        for kb in pl.pipeline(1, 8, stage=2):
            tail = pl.matmul_acc(tail, a, t)
"""


def test_the_scope_s_matmuls_skip_a_branch_simplify_removes() -> None:
    from skewlsp.analysis.passes.auto_tile_matmul_l0 import scope_matmuls

    scope = cst.parse_module(SCOPE_WITH_A_TAIL).body[0]
    everything = scope_matmuls(scope)
    assert (everything.cube_ops, everything.pipeline_loops, len(everything.sites)) == (4, 2, 2)
    removed = scope_matmuls(scope, kept=lambda branch: [])  # `if TAIL != 0`: TAIL is 0
    assert (removed.cube_ops, removed.pipeline_loops, len(removed.sites)) == (2, 1, 1)
    assert removed.sites[0][1].op == "matmul"
