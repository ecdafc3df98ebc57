"""AutoTileMatmulL0's canonical split-K rewrite (``auto_tile_matmul_l0_pass.cpp``,
``MatchCanonicalSplitKAcc`` and ``TryFoldCanonicalSplitKAcc``; pass doc 15, "M/N
tiling"): the form of a pipeline loop it writes out once per output tile.

Why it matters to the loops: the pass runs before SkewCrossCorePipeline, so when it
tiles the output of such a loop the function holds the whole loop once per ``[m, n]``
tile, each copy with its right operand narrowed to ``[K, n]`` (and its left to
``[m, K]``), and each is lowered on its own. Which tile it picks is
:mod:`.l0_tile_chooser`'s, as the lowering configures it (``lower_pipeline.split_k``):
the planner decides whether L0C may be double-buffered, and so the tile.

The form, as the pass matches it on three consecutive statements of one block::

    acc = pl.create_tensor([M, N], ...)          # tile.create, read only by the loop
    for kb in pl.pipeline(...):                  # carrying ``acc`` alone
        <scalar assignments, and the two operand loads ``a`` and ``b``>
        if ...:
            acc = pl.matmul(a, b, ...)
        else:
            acc = pl.matmul_acc(acc, a, b)       # (either branch first)
    out = pl.assemble(out, acc, [...])           # one tile.store of the result

Read here off the source: the statements, the names, the calls. Whether ``a`` and ``b``
are static full loads into Mat is the loads' (``LoopFacts.slot_loads``). Not matched,
and so not modelled as cloned: operands read transposed (their Mat layout, which sets the
boxing the chooser is given, is not modelled).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst

from skewlsp.analysis.frontend import dsl
from skewlsp.analysis.frontend.names import body_statements, compound_suites, reads_of
from skewlsp.analysis.frontend.op_registry import op_leaf
from skewlsp.analysis.source.walk import children, walk

_CREATES = frozenset({"create_tensor", "create", "create_tile"})


@dataclass(frozen=True)
class SplitKLoop:
    """A loop in the canonical split-K form: its accumulator, the two operand loads its
    matmuls read (by name), and the matmul's ``out_dtype`` (None: not written)."""

    acc: str
    lhs: str
    rhs: str
    out_dtype: str | None


def canonical_split_k(loop: cst.For, block: Sequence[cst.CSTNode]) -> SplitKLoop | None:
    """``loop`` in the canonical form, ``block`` being the statements holding it; None
    when it is not (the pass leaves such a loop to its ordinary, per-matmul tiling)."""
    at = next((n for n, stmt in enumerate(block) if stmt is loop), None)
    if at is None or at == 0 or at + 1 >= len(block):
        return None
    acc = _created(block[at - 1])
    if acc is None or not _stores(block[at + 1], acc):
        return None
    if any(acc in reads_of(stmt) for stmt in block[at + 2 :]):
        return None  # the result read again: the pass's read count refuses it
    body = body_statements(loop.body)
    if len(body) < 3 or not isinstance(body[-1], cst.If):
        return None
    pair = _branches(body[-1], acc)
    if pair is None:
        return None
    plain, accumulating = pair
    operands = [_name(arg.value) for arg in dsl.positional(plain)]
    again = [_name(arg.value) for arg in dsl.positional(accumulating)]
    if len(operands) != 2 or None in operands or again != [acc, *operands]:
        return None
    lhs, rhs = operands
    assert lhs is not None and rhs is not None
    if lhs == rhs or any(dsl.keyword(plain, k) for k in ("a_trans", "b_trans")):
        return None
    if not _only_scalars_besides(body[:-1], {lhs, rhs}):
        return None
    out = dsl.keyword(plain, "out_dtype")
    path = dsl.dotted(out.value) if out is not None else None
    return SplitKLoop(acc, lhs, rhs, path[-1] if path else None)


def split_k_loop(loop: cst.For, around: cst.CSTNode) -> SplitKLoop | None:
    """:func:`canonical_split_k` of ``loop``, found in the block of ``around`` (the
    function holding it) whose statement it is; None: not found, or not the form.
    (Looked for only from a loop whose last statement is an ``if``: few are.)"""
    body = body_statements(loop.body)
    if not body or not isinstance(body[-1], cst.If):
        return None
    block = _block_holding(loop, around)
    return canonical_split_k(loop, block) if block is not None else None


def _block_holding(loop: cst.For, around: cst.CSTNode) -> Sequence[cst.CSTNode] | None:
    """The block of ``around`` whose statement ``loop`` is (None: none is). Looked for
    through statements only: an expression or a simple statement holds no block, and a
    function's expressions are most of its nodes."""
    stack = [around]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.BaseCompoundStatement) and node is not loop:
            for suite in compound_suites(node):
                block = body_statements(suite)
                if any(stmt is loop for stmt in block):
                    return block
        stack.extend(
            child
            for child in children(node)
            if type(child) is not cst.SimpleStatementLine
            and not isinstance(child, cst.BaseExpression)
        )
    return None


def _single_assign(stmt: cst.CSTNode) -> tuple[str, cst.BaseExpression] | None:
    """(name, value) of a statement ``name = value`` (one target, one statement)."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    node = stmt.body[0]
    if (
        isinstance(node, cst.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0].target, cst.Name)
    ):
        return node.targets[0].target.value, node.value
    return None


def _created(stmt: cst.CSTNode) -> str | None:
    found = _single_assign(stmt)
    if found is None or not isinstance(found[1], cst.Call) or op_leaf(found[1]) not in _CREATES:
        return None
    return found[0]


def _stores(stmt: cst.CSTNode, acc: str) -> bool:
    """Whether ``stmt`` is one store of ``acc`` into a tensor: ``t = pl.assemble(t, acc,
    offsets)``, ``pl.store(acc, ...)``, or ``t[...] = acc``."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return False
    node = stmt.body[0]
    value = node.value if isinstance(node, cst.Assign | cst.Expr) else None
    if (
        isinstance(node, cst.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0].target, cst.Subscript)
    ):
        return _name(node.value) == acc
    if not isinstance(value, cst.Call) or reads_of(value).count(acc) != 1:
        return False
    args = dsl.positional(value)
    leaf = op_leaf(value)
    if leaf == "assemble":
        return len(args) >= 2 and _name(args[1].value) == acc
    return leaf == "store" and bool(args) and _name(args[0].value) == acc


def _branches(test: cst.If, acc: str) -> tuple[cst.Call, cst.Call] | None:
    """The ``matmul`` and ``matmul_acc`` calls of an ``if``/``else`` each of whose
    branches is the one statement ``acc = <that call>``."""
    orelse = test.orelse
    if not isinstance(orelse, cst.Else):
        return None
    calls: dict[str, cst.Call] = {}
    for suite in (test.body, orelse.body):
        stmts = body_statements(suite)
        found = _single_assign(stmts[0]) if len(stmts) == 1 else None
        if found is None or found[0] != acc or not isinstance(found[1], cst.Call):
            return None
        leaf = op_leaf(found[1])
        if leaf not in ("matmul", "matmul_acc") or leaf in calls:
            return None
        calls[leaf] = found[1]
    return calls["matmul"], calls["matmul_acc"]


def _only_scalars_besides(stmts: Sequence[cst.CSTNode], operands: set[str]) -> bool:
    """Whether every statement is an assignment, the two operands' bindings aside
    computing a scalar with no call (the pass refuses to copy any other tile work)."""
    bound = set()
    for stmt in stmts:
        found = _single_assign(stmt)
        if found is None:
            return False
        name, value = found
        bound.add(name)
        if name in operands:
            continue
        if any(type(node) is cst.Call for node in walk(value)):
            return False
    return operands <= bound


def _name(node: cst.BaseExpression) -> str | None:
    return node.value if isinstance(node, cst.Name) else None
