"""Nested op calls that run on the other core, made statements of their own.

The DSL parser gives every nested call a variable of its own (SSA): in
``p = pl.cast(pl.exp(pl.matmul(q, w)), ...)`` the matmul's result is a tile of its
own, made on the cube, and the exp that reads it runs on the vector. ExpandMixedKernel
then sends that tile across like any named one. The mixed-kernel model splits bodies
statement by statement, so such a call is lifted out first into ``_matmul1 = ...``,
and the statement around it reads ``_matmul1``. Only calls whose core differs from the
op around them are lifted: a nested call on the same core crosses nothing.

Models: ``src/ir/transforms/flatten_call_expr_pass.cpp`` (for the nested calls that
cross cores; the others change nothing the skew pass sees).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TypeVar

import libcst as cst

from skewlsp.analysis.frontend import op_registry
from skewlsp.analysis.frontend.names import reads_of, small_statement_effects
from skewlsp.analysis.frontend.op_registry import CUBE, VECTOR, op_leaf
from skewlsp.analysis.passes.body import Stmt
from skewlsp.analysis.source.tree_text import MadeTrees

# Ops that run where their data is (views, moves, loads, stores, GM tensors) or make
# scalars: no core of their own to differ from the op around them.
_NO_CORE_OF_THEIR_OWN = (
    op_registry.INHERIT_OPS
    | op_registry.LOAD_OPS
    | op_registry.STORE_OPS
    | op_registry.GM_OPS
    | op_registry.CUBE_SOURCES
    | op_registry.MOVE_OPS
    | op_registry.TO_VECTOR_OPS
    | op_registry.TO_CUBE_OPS
    | op_registry.VECTOR_SCALAR_OPS
    | op_registry.SCALAR_FROM_TILE_OPS
    | frozenset({"dim", "get_block_idx", "get_block_num", "const"})
)


def flatten_crossing_calls(stmts: Sequence[Stmt], made: MadeTrees | None) -> list[Stmt]:
    """``stmts`` with every nested call that runs on the other core lifted out before
    the statement holding it (innermost first, as they are evaluated). ``made``: the
    trees the analysis made, told how to give the code of what is rebuilt from theirs."""
    taken = {name for stmt in stmts for name in (*stmt.defs, *stmt.reads)}
    out: list[Stmt] = []
    for stmt in stmts:
        value = getattr(stmt.node, "value", None)
        if stmt.kind != "plain" or not isinstance(value, cst.Call):
            out.append(stmt)
            continue
        lifted: list[cst.Call] = []
        _find(value, _core(value), lifted)
        if not lifted:
            out.append(stmt)
            continue
        temps: dict[int, str] = {}
        for call in lifted:
            temp = _fresh(f"_{op_leaf(call)}", taken)
            computed = _replaced(call, temps, made)
            temps[id(call)] = temp
            assign = cst.Assign([cst.AssignTarget(cst.Name(temp))], computed)
            out.append(
                Stmt(
                    assign,
                    "plain",
                    (temp,),
                    tuple(reads_of(computed)),
                    origin=stmt.origin,
                    bindings=stmt.bindings,
                    anchor=stmt.located,
                )
            )
        node = _replaced(stmt.node, temps, made)
        defs, reads = small_statement_effects(node)  # type: ignore[arg-type]  # a small one
        out.append(
            replace(
                stmt,
                node=node,
                defs=tuple(dict.fromkeys(defs)),
                reads=tuple(reads),
                anchor=stmt.located,
            )
        )
    return out


def _core(call: cst.Call) -> str | None:
    """The core an op call runs on by its kind alone: the cube for the matmul family,
    the vector for any other op of ``pl`` that computes; None where its data decides."""
    leaf = op_leaf(call)
    if leaf is None or leaf in _NO_CORE_OF_THEIR_OWN:
        return None
    return CUBE if leaf in op_registry.CUBE_OPS else VECTOR


def _find(call: cst.Call, around: str | None, lifted: list[cst.Call]) -> None:
    """The calls in ``call``'s arguments on the other core than ``around`` (the nearest
    op around them with a core), in evaluation order."""
    for arg in call.args:
        inner = arg.value
        if type(inner) is not cst.Call:
            continue
        own = _core(inner)
        _find(inner, own or around, lifted)
        if own is not None and around is not None and own != around:
            lifted.append(inner)


def _fresh(stem: str, taken: set[str]) -> str:
    number = 1
    while f"{stem}{number}" in taken:
        number += 1
    name = f"{stem}{number}"
    taken.add(name)
    return name


_Node = TypeVar("_Node", bound=cst.CSTNode)


class _Lift(cst.CSTTransformer):
    def __init__(self, temps: dict[int, str]) -> None:
        super().__init__()
        self.temps = temps
        self.rebuilt: list[tuple[cst.CSTNode, cst.CSTNode]] = []  # (made, original)

    def on_leave(  # type: ignore[override]  # a lifted call becomes a Name, not a Call
        self, original_node: cst.CSTNode, updated_node: cst.CSTNode
    ) -> cst.CSTNode:
        temp = self.temps.get(id(original_node))
        if temp is not None:
            return cst.Name(temp)
        if updated_node is not original_node:
            self.rebuilt.append((updated_node, original_node))
        return updated_node


def _replaced(node: _Node, temps: dict[int, str], made: MadeTrees | None) -> _Node:
    """``node`` with the calls already lifted read as their variables."""
    if not temps:
        return node
    lift = _Lift(temps)
    rebuilt_node = node.visit(lift)
    assert not isinstance(rebuilt_node, (cst.RemovalSentinel, cst.FlattenSentinel))  # never made
    if made is not None:
        for rebuilt, original in lift.rebuilt:  # their code: the original's, calls as names
            made.note_replaced(rebuilt, original, temps)
    return rebuilt_node
