"""ExpandMixedKernel's split of an InCore scope's values (``expand_mixed_kernel_pass.cpp``),
as the Vec model (:mod:`.op_conversion`) needs it before it walks the scope: which names
only the cube's matmuls read, and which values are data movement that goes where its
readers run."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import libcst as cst

from skewlsp.analysis.frontend import dsl
from skewlsp.analysis.frontend.op_registry import op_leaf
from skewlsp.analysis.passes.op_tables import MATMUL_OPS
from skewlsp.analysis.source.walk import nodes_of


def moved(value: cst.BaseExpression) -> bool:
    """A slice of a tensor (``t[...]``, ``pl.load``, ``pl.slice``): data movement, which
    ExpandMixedKernel puts where its readers run."""
    if type(value) is cst.Subscript:
        return True
    return type(value) is cst.Call and op_leaf(value) in ("load", "slice")


# The nodes :func:`cube_only` counts, found by ``nodes_of`` in one loop: ``walk`` yielded
# 182,000 nodes here on a cold lint of pypto-lib (two thirds of all it yielded), one
# generator step and one ``children`` call each.
_COUNTED = frozenset({cst.Name, cst.AssignTarget, cst.Call})


def cube_only(statements: Sequence[cst.CSTNode]) -> frozenset[str]:
    """The names of ``statements`` that only matmuls read (each of their reads a
    matmul's operand): ExpandMixedKernel puts them on the cube."""
    seen: Counter[str] = Counter()
    cube: Counter[str] = Counter()
    for stmt in statements:
        for node in nodes_of(stmt, _COUNTED):
            if type(node) is cst.Name:
                seen[node.value] += 1
            elif type(node) is cst.AssignTarget and type(node.target) is cst.Name:
                seen[node.target.value] -= 1  # (bound, not read)
            elif type(node) is cst.Call and op_leaf(node) in MATMUL_OPS:
                for arg in dsl.positional(node):
                    if type(arg.value) is cst.Name:
                        cube[arg.value.value] += 1
    return frozenset(name for name, reads in cube.items() if seen[name] == reads)
