"""InferTileMemorySpace: the tiles from outside a loop that several cube ops of its body
read through one move.

A tile made before the loop (a hoisted weight or query tile, loaded to Mat) reaches
a matmul through a ``tile.move`` into Left or Right that InferTileMemorySpace puts
right before the first op that needs it, and every later op of the same block that
needs the same tile in the same memory reuses that move
(infer_tile_memory_space_pass.cpp: one move per (tile, memory) and block). When the
first user is in the producer half and a later one in the consumer half, the move is
a tile the lead's half defines and the body reads: the skew pass demotes the loop as
it does for any tile carried across the halves.

Only operands taken as they are count: ``a_trans``/``b_trans`` give the matmul a
fresh transposed view of its own, which is moved on its own.

Models: ``src/ir/transforms/infer_tile_memory_space_pass.cpp`` (the moves it inserts),
as ExpandMixedKernel then splits them.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence

import libcst as cst

from skewlsp.analysis.frontend import dsl
from skewlsp.analysis.frontend.op_registry import CUBE, LAZY, op_leaf
from skewlsp.analysis.passes.body import SharedMove, Stmt
from skewlsp.analysis.source.tree_text import MadeTrees
from skewlsp.analysis.source.walk import calls_in

# The memory each operand of a cube op is moved to, by position and by keyword
# (None: an accumulator, threaded as loop state rather than moved).
_POSITIONS: dict[str, tuple[str | None, ...]] = {
    "matmul": ("Left", "Right"),
    "batch_matmul": ("Left", "Right"),
    "matmul_bias": ("Left", "Right", "Bias"),
    "matmul_acc": (None, "Left", "Right"),
    "batch_matmul_acc": (None, "Left", "Right"),
}
_KEYWORDS = {"lhs": "Left", "rhs": "Right", "bias": "Bias"}
_TRANSPOSED = {"a_trans": "Left", "b_trans": "Right"}


def shared_moves(
    stmts: Sequence[Stmt],
    outside: Mapping[str, str],
    made: MadeTrees | None,
    made_before: Collection[tuple[str, str]] = (),
) -> tuple[SharedMove, ...]:
    """The moves of outside tiles that more than one top-level statement reads.

    A move made inside a nested block lives only there, so a compound statement
    reuses a move made before it but never makes one for the statements after it.
    ``made_before``: moves made before the loop in the blocks around it, which the body
    reuses (defined outside the loop, they carry nothing). ``made``: the trees the
    analysis made (see :func:`operand_moves`).
    """
    defined = {name for stmt in stmts for name in stmt.defs}
    users: dict[tuple[str, str], list[int]] = {}
    for index, stmt in enumerate(stmts):
        for name, memory in operand_moves(stmt.node, made):
            if name in defined or outside.get(name) not in (CUBE, LAZY):
                continue
            if (name, memory) in made_before:
                continue
            key = (name, memory)
            if key in users:
                if users[key][-1] != index:
                    users[key].append(index)
            elif stmt.kind != "compound":
                users[key] = [index]
    return tuple(
        SharedMove(name, memory, tuple(found))
        for (name, memory), found in users.items()
        if len(found) > 1
    )


def operand_moves(node: cst.CSTNode, made: MadeTrees | None) -> Iterator[tuple[str, str]]:
    """(tile name, memory) of every cube-op operand in ``node`` that needs a move
    (``made``: the trees the analysis made, whose text shows most nodes call none)."""
    if made is not None and not _may_call_a_cube_op(node, made):
        return
    for call in calls_in(node):
        for operand, memory, transposed in matrix_operands(call):
            if not transposed and isinstance(operand, cst.Name):
                yield operand.value, memory


def matrix_operands(call: cst.Call) -> Iterator[tuple[cst.BaseExpression, str, bool]]:
    """(operand, memory, read transposed) of each operand a cube op ``call`` takes
    into an L0 memory (Left, Right, Bias); nothing for any other call. One table of
    which argument goes where, for the moves above and the L0 tiles the memory passes
    size."""
    roles = _POSITIONS.get(op_leaf(call) or "")
    if roles is None:
        return
    transposed = {
        memory for keyword, memory in _TRANSPOSED.items() if _is_true(dsl.keyword(call, keyword))
    }
    for position, arg in enumerate(dsl.positional(call)):
        memory = roles[position] if position < len(roles) else None
        if memory:
            yield arg.value, memory, memory in transposed
    for arg in call.args:
        memory = _KEYWORDS.get(arg.keyword.value) if arg.keyword else None
        if memory:
            yield arg.value, memory, memory in transposed


def _may_call_a_cube_op(node: cst.CSTNode, made: MadeTrees) -> bool:
    """False only where the text of a made tree shows that no call in ``node`` is one of
    the cube ops above (an op's name is written out in the call: ``pl.matmul(``).

    The side model asks this of every statement before each loop; walking them all for
    their calls was a twentieth of a cold run over pypto-lib's kernels, and few name a
    matmul. A node of libcst's own tree (no text kept) is walked.
    """
    parts: Sequence[cst.CSTNode] = (node,)
    if type(node) is cst.SimpleStatementLine or type(node) is cst.SimpleStatementSuite:
        parts = node.body
    for part in parts:
        text = made.source(part)
        if text is None or any(op in text for op in _POSITIONS):
            return True
    return False


def _is_true(arg: cst.Arg | None) -> bool:
    return arg is not None and isinstance(arg.value, cst.Name) and arg.value.value == "True"
