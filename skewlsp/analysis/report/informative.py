"""Which of a copy's bindings explain its verdict: the names a message should quote.

A loop decided once per call of an inline helper (or per iteration of a module-level
``for``, per call of a builder) is labelled with the values it was decided with. Most of
a helper's parameters never reach the loop's verdict: quoting them all ("with
cache_ready_dep = cache_ready_dep, active_rows = active_rows, ...") hides the one that
does. A binding is worth quoting when its name can change a bound, a stage or a branch
of the loop, and its value is not just its own name spelled again.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import libcst as cst

from skewlsp.analysis.frontend.names import reads_of
from skewlsp.analysis.source.walk import LEAVES, children, walk


class DecisiveNames:
    """The names that can decide each loop of one unit walk, worked out once per loop: an
    inline helper's loop is decided again at every call, with the same names deciding it
    (walking the helper's unit for each call was half of a cold lint of pypto-lib)."""

    def __init__(self) -> None:
        self._by_loop: dict[int, tuple[cst.For, frozenset[str]]] = {}
        self._around: dict[int, tuple[cst.CSTNode, _Around]] = {}  # by id, kept alive

    def informative(
        self,
        bindings: Sequence[tuple[str, str]],
        loop: cst.For | None,
        around: cst.CSTNode | None,
    ) -> tuple[str, ...] | None:
        """The names of ``bindings`` a message about ``loop`` should show (None: all of
        them, when the loop is not known). ``around`` is the code the loop sits in (its
        unit), whose assignments carry a binding's value into the loop's header or
        conditions."""
        if loop is None:
            return None
        if not any(value != name for name, value in bindings):
            return ()
        found = self._by_loop.get(id(loop))
        if found is None:  # (the entry keeps the loop alive, so its id stays its own)
            found = self._by_loop[id(loop)] = (loop, self._decisive_names(loop, around))
        decisive = found[1]
        return tuple(name for name, value in bindings if name in decisive and value != name)

    def _decisive_names(self, loop: cst.For, around: cst.CSTNode | None) -> frozenset[str]:
        """Names read by the loop's header and by the conditions and inner loop headers in
        its body and around it, closed over the assignments in ``around`` that define them."""
        names = set(reads_of(loop.iter))
        for node in walk(loop.body):
            names.update(reads_of(_control_expression(node)))
        if around is not None:
            kept = self._around.get(id(around))
            if kept is None:
                kept = self._around[id(around)] = (around, _Around.of(around))
            for node in kept[1].enclosing.get(id(loop), ()):
                names.update(reads_of(_control_expression(node)))
            _close_over_assignments(names, kept[1].assignments)
        return frozenset(names)


@dataclass(frozen=True)
class _Around:
    """What the loops of one unit share, found in one walk of it: the statements around
    each loop (outermost first, by the loop's id) and the unit's assignments (a search
    of the unit per loop was a tenth of re-deciding a helper after an edit; a walk for
    each (the first one entering every leaf too) cost 6% of a serial cold lint's
    instructions on pypto-lib's qwen3_14b)."""

    enclosing: dict[int, tuple[cst.CSTNode, ...]]
    assignments: list[tuple[set[str], list[str]]]

    @staticmethod
    def of(around: cst.CSTNode) -> _Around:
        """For each ``for`` in ``around`` (by id): the nodes whose body holds it, outermost
        first (``around`` included); and (names defined, names read) of every plain
        assignment in it."""
        enclosing: dict[int, tuple[cst.CSTNode, ...]] = {}
        assignments: list[tuple[set[str], list[str]]] = []
        leaves = LEAVES
        pending: list[tuple[cst.CSTNode, tuple[cst.CSTNode, ...]]] = [(around, ())]
        while pending:  # (a stack, not recursion: a deep tree must not overflow it)
            node, path = pending.pop()
            kind = type(node)  # (exact types: an ABC's failed isinstance is slow)
            if kind in leaves:
                continue
            if kind is cst.For:
                enclosing[id(node)] = path
            elif type(node) is cst.Assign:
                targets = {n for t in node.targets for n in _target_names(t.target)}
                assignments.append((targets, reads_of(node.value)))
            elif (
                type(node) is cst.AnnAssign or type(node) is cst.AugAssign
            ) and node.value is not None:
                assignments.append((set(_target_names(node.target)), reads_of(node.value)))
            inner = (*path, node)
            pending.extend((child, inner) for child in children(node))
        return _Around(enclosing, assignments)


def _control_expression(node: cst.CSTNode) -> cst.CSTNode | None:
    """The part of a statement that picks a branch or sets a trip count."""
    if type(node) is cst.If or type(node) is cst.While or type(node) is cst.IfExp:
        return node.test
    if type(node) is cst.For:
        return node.iter
    return None


def _target_names(target: cst.BaseExpression) -> Iterable[str]:
    if isinstance(target, cst.Name):
        yield target.value
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from _target_names(element.value)


def _close_over_assignments(names: set[str], assignments: list[tuple[set[str], list[str]]]) -> None:
    """Add the names read by assignments to names already in the set, until none is new."""
    grown = True
    while grown:
        grown = False
        for defined, read in assignments:
            if defined & names and not names.issuperset(read):
                names.update(read)
                grown = True
