"""The loads LowerPipelineToSlots finds in a block (``lower_pipeline.slot_loads``), as
the passes that read one loop's loads again and again share its folding."""

from __future__ import annotations

import libcst as cst

from skewlsp.analysis.frontend.asked import Asked
from skewlsp.analysis.frontend.constants import Const, Folded, Folder
from skewlsp.analysis.lower_pipeline.slot_loads import KeptFold, statement_loads
from skewlsp.analysis.passes.convert_tensor_to_tile_ops import Tensor
from skewlsp.contract import Span

BODY = """\
x = a[k:k + ROWS, 0:256]
y = pl.matmul(x, w)
z = pl.add(a[k:k + ROWS, 0:256], x)
"""
TENSORS = {
    "a": Tensor(cst.parse_expression("[1024, COLS]"), "FP16"),
    "w": Tensor(cst.parse_expression("[256, 256]"), "FP16"),
}


def _lookup(name: str) -> Folded | None:
    return Const({"ROWS": 64, "COLS": 256}[name]) if name in ("ROWS", "COLS") else None


def test_a_loop_s_folding_folds_each_expression_once_for_every_block_read() -> None:
    statements = cst.parse_module(BODY).body
    asked: list[cst.BaseExpression] = []

    def fold(node: cst.BaseExpression) -> Folded:
        asked.append(node)
        return Folder(_lookup, None).fold(node)

    kept = KeptFold(fold)
    whole = statement_loads(statements, TENSORS, kept)
    # the block up to the matmul, read again as its operands are (``memory.l0_tiles``)
    through = statement_loads(statements[:2], TENSORS, kept)
    assert statement_loads(statements, TENSORS, kept) == whole
    # x: [64, 256] FP16 (the slice); w: the whole [256, 256] the matmul takes; the
    # slice the add takes, a load of its own
    assert [(load.name, load.space, load.extents) for load in whole] == [
        ("x", "Mat", (64, 256)),
        ("w", "Mat", (256, 256)),
        ("a[...]", "Vec", (64, 256)),
    ]
    assert through == whole[:2]
    assert asked  # (the folding was asked)
    assert len({id(node) for node in asked}) == len(asked)  # none of it twice



def test_a_block_read_again_notes_the_questions_of_its_folding_again() -> None:
    statements = cst.parse_module(BODY).body
    asked = Asked(_lookup, lambda node: Span(1, 1, 1, 1))
    kept = KeptFold(Folder(asked.resolve, None).fold, asked=asked)
    statement_loads(statements[:1], TENSORS, kept)
    first = list(asked.trail)
    # x's slice folds k and ROWS, and a's shape COLS
    assert sorted({name for name, _ in first}) == ["COLS", "ROWS", "k"]
    # the same statement read again by another pass (its loads kept, nothing folded
    # again): its questions are noted again, as that pass's
    statement_loads(statements[:1], TENSORS, kept)
    assert asked.trail == first + first
