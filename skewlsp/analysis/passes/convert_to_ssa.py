"""ConvertToSSA: each read of a body bound to the definition it sees.

The skew pass follows SSA edges: a statement's backward slice is the statements whose
values it reads, and a read before any definition in the body is the previous
iteration's value (loop-carried, an iter_arg). The source has no SSA form, so this
re-creates the edges on the statement list (``Stmt.deps``, ``Stmt.carried_reads``); a
pass that rewrites the list (ExpandMixedKernel's split into two cores) binds them again.
Which names a statement defines and reads is the frontend's (``frontend.names``).

Models: ``src/ir/transforms/convert_to_ssa_pass.cpp`` (pass doc 04).
"""

from __future__ import annotations

from collections.abc import Sequence

from skewlsp.analysis.passes.body import Stmt


def resolve(stmts: list[Stmt], iter_names: Sequence[str]) -> None:
    """Bind each read to the statement whose definition it sees, as SSA conversion would.

    A read of a name that the body (re)defines, before any definition in the
    body, sees the value from the previous iteration: loop-carried state.
    """
    defined_somewhere = set(iter_names)
    for stmt in stmts:
        defined_somewhere.update(stmt.defs)
    current: dict[str, int] = {}
    for index, stmt in enumerate(stmts):
        deps: dict[str, int] = {}
        carried: list[str] = []
        for name in stmt.reads:
            if name in current:
                deps.setdefault(name, current[name])
            elif name in defined_somewhere and name not in carried:
                carried.append(name)
        stmt.deps = deps
        stmt.carried_reads = tuple(carried)
        for name in stmt.defs:
            current[name] = index
