"""The blocks of an InCore scope as the Vec tile model walks them: its loops, and the
`if` statements Simplify folds (the branch that runs) or keeps (a block per branch, whose
tiles are not read after the `if`)."""

from __future__ import annotations

from tests.analysis.passes.test_op_conversion import tiles_of


def test_an_if_the_compiler_keeps_makes_each_branch_a_block_of_its_own():
    # hc_post_prefill (pypto-lib deepseek_v4_pro/hc_post.py): a row loop's body under
    # `if t < active_tokens:`, a test known at run time only
    found = tiles_of(
        "for i in pl.pipeline(4, stage=2):\n"
        "    if i < n:\n"
        "        a = x[0:16, 0:512]\n"
        "        out[0:16, 0:512] = a\n"
        "    else:\n"
        "        b = x[0:16, 0:512]\n"
        "        out[0:16, 0:512] = b\n"
    )
    assert found.unknown is None
    assert [op.loop for op in found.ops] == [1, 1, 2, 2]
    blocks = [(loop.pipeline, loop.parent, loop.branch) for loop in found.loops]
    assert blocks == [(True, -1, False), (False, 0, True), (False, 0, True)]


def test_an_if_simplify_proves_is_the_branch_that_runs_walked_in_place():
    # Fold A: a constant test, or one the loop's range decides (i < 8 for i in 0..3)
    found = tiles_of("if 2 > 3:\n    c = x[:, 0:512]\nelse:\n    d = x[0:16, 0:512]\n")
    assert [(op.out, op.loop) for op in found.ops] == [("d", -1)]
    assert found.loops == ()
    ranged = tiles_of("for i in pl.range(4):\n    if i < 8:\n        c = x[0:16, 0:512]\n")
    assert [op.loop for op in ranged.ops] == [0]
    assert len(ranged.loops) == 1


def test_a_tile_a_branch_binds_and_the_code_after_the_if_reads_is_not_known():
    # after the `if`, `c` is ConvertToSSA's phi of the branch's tile and of nothing
    found = tiles_of("if n > 0:\n    c = x[0:16, 0:512]\nd = pl.add(c, c)\n")
    assert found.unknown == "the tile `c`, bound in a branch of an `if`, is read after it"
    again = tiles_of("if n > 0:\n    c = x[0:16, 0:512]\nc = x[0:16, 0:512]\nd = pl.add(c, c)\n")
    assert again.unknown is None  # (bound again after the `if`: a value of its own)


def test_a_tile_of_before_an_if_bound_again_in_its_branch_is_not_known():
    found = tiles_of("c = x[0:16, 0:512]\nif n > 0:\n    c = pl.add(c, c)\nout[0:16, 0:512] = c\n")
    assert found.unknown == (
        "the tile `c` is bound again in a branch of an `if` (after it, one value or the other)"
    )


def test_a_branch_between_two_loops_is_a_block_between_them():
    # hc_post_prefill: the row loop's `if`, then the column loop inside it
    found = tiles_of(
        "for i in pl.pipeline(4, stage=2):\n"
        "    if i < n:\n"
        "        for j in pl.pipeline(4, stage=4):\n"
        "            c = x[0:16, 0:512]\n"
    )
    assert [(loop.parent, loop.branch) for loop in found.loops] == [(-1, False), (0, True), (1, False)]
    assert [op.loop for op in found.ops] == [2]
    deeper = tiles_of(
        "for i in pl.range(4):\n"
        "    if i < n:\n"
        "        for j in pl.range(2):\n"
        "            for k in pl.pipeline(2, stage=2):\n"
        "                c = x[0:16, 0:512]\n"
    )
    assert deeper.unknown is None
    assert [(loop.parent, loop.branch) for loop in deeper.loops] == [
        (-1, False),
        (0, True),
        (1, False),
        (2, False),
    ]
    assert [op.loop for op in deeper.ops] == [3]
