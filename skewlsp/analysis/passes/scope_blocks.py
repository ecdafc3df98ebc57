"""The blocks of an InCore scope as the Vec tile model (:mod:`.op_conversion`) walks
them: its loops, and the ``if`` statements the compiler keeps or folds.

- A ``pl.pipeline`` or ``pl.range`` loop is a block of the scope (:class:`ScopeLoop`),
  its variable bound to ``[start, stop)`` when its bounds are constant (as Simplify
  binds it), nested in the scope's other loops to any depth.
- An ``if`` whose test Simplify proves (Fold A, ``simplify_pass.cpp``:
  :func:`.simplify.evaluate_condition`) is the branch that runs, walked in place; any
  other keeps each branch as a block of its own, in program order (MemoryReuse's
  LifetimeAnalyzer numbers the then branch's statements before the else branch's,
  ``memory_reuse_pass.cpp``).
- A tile bound in a branch is another value after the ``if`` (ConvertToSSA makes a phi
  of it, which MemoryReuse retargets onto the branches' buffers): reading it after the
  ``if``, or binding again in a branch a tile bound before it (a phi with the value from
  before, a loop-carried one too), leaves the scope not known.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import libcst as cst

from skewlsp.analysis.frontend import dsl
from skewlsp.analysis.frontend.constants import Const, Folded
from skewlsp.analysis.frontend.names import binding_of, body_statements, reads_of
from skewlsp.analysis.frontend.values import Interval
from skewlsp.analysis.passes.convert_tensor_to_tile_ops import Extent, Fold
from skewlsp.analysis.passes.scope_tile_ops import ScopeLoop
from skewlsp.analysis.passes.simplify import evaluate_condition
from skewlsp.contract import Span


class NotModelled(Exception):
    """A statement whose tiles this model does not know."""


def static_extents(extents: Sequence[Extent] | None, what: str | None) -> tuple[int, ...]:
    """``extents`` as numbers, or :class:`NotModelled` naming ``what`` is not static."""
    if extents is None or any(e.value is None for e in extents):
        raise NotModelled(f"a shape of {what} not static")
    return tuple(e.value for e in extents if e.value is not None)


@dataclass(kw_only=True)
class ScopeBlocks:
    """The walk's place: the scope's blocks met so far (``loops``), the one it is in
    (``loop``), the values of the loops' variables, and the names bound in the branch
    being walked (``bound``) or in a branch left (``poisoned``, the tiles among them).
    A subclass reads each simple statement (:meth:`small`) and says which names are
    tiles (:meth:`is_tile`)."""

    fold: Fold
    span_of: Callable[[cst.For], Span]
    loops: list[ScopeLoop] = field(default_factory=list)
    loop: int = -1
    statement: int = -1  # the top-level statement of the block's list being walked
    bound: set[str] | None = None  # the names the branch being walked binds (None: none)
    poisoned: set[str] = field(default_factory=set)  # tiles bound in a branch, after it
    ranges: dict[str, Interval] = field(default_factory=dict)  # the loops' variables

    def small(self, small: cst.BaseSmallStatement) -> None:
        raise NotImplementedError

    def is_tile(self, name: str) -> bool:
        raise NotImplementedError

    def binds(self, small: cst.BaseSmallStatement) -> None:
        """Note what ``small`` binds, after checking it reads no tile a branch left."""
        bound, value, _ = binding_of(small)
        if type(bound) is not cst.Name:
            self._check_reads(small)
            return
        self._check_reads(value)
        self.poisoned.discard(bound.value)
        if self.bound is not None:
            if self.is_tile(bound.value) and bound.value not in self.bound:
                raise NotModelled(
                    f"the tile `{bound.value}` is bound again in a branch of an `if` (after "
                    "it, one value or the other)"
                )
            self.bound.add(bound.value)

    def block(self, statements: Sequence[cst.CSTNode], top: bool = True) -> None:
        """Walk ``statements`` (``top``: a block's own list, each statement of which its
        ops are told by; else the branch Simplify keeps of an ``if``, in the ``if``'s)."""
        around = self.statement
        for index, stmt in enumerate(statements):
            self.statement = index if top else around
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    self.small(small)
            elif isinstance(stmt, cst.For):
                self.enter(stmt)
            elif isinstance(stmt, cst.If):
                self.branches(stmt)
            else:
                raise NotModelled(f"a `{type(stmt).__name__}` statement")
        self.statement = around

    def enter(self, loop: cst.For) -> None:
        kind = dsl.dotted(loop.iter.func) if isinstance(loop.iter, cst.Call) else None
        leaf = kind[-1] if kind else None
        if leaf not in ("pipeline", "range"):
            raise NotModelled("a loop that is not `pl.pipeline` or `pl.range`")
        self._check_reads(loop.iter)
        parent = self.loop
        self.loops.append(ScopeLoop(self.span_of(loop), leaf == "pipeline", parent))
        self.loop = len(self.loops) - 1
        var = loop.target.value if isinstance(loop.target, cst.Name) else None
        trip = self._range(loop.iter) if var is not None else None
        if var is not None and trip is not None:
            self.ranges[var] = trip
        self.block(body_statements(loop.body))
        if var is not None:
            self.ranges.pop(var, None)
        self.loop = parent

    def _range(self, call: cst.BaseExpression) -> Interval | None:
        """The values a loop's variable takes (``[start, stop)``, constant bounds: what
        Simplify binds it to), or None."""
        args = dsl.positional(call) if isinstance(call, cst.Call) else []
        if not 1 <= len(args) <= 3:
            return None
        bounds = [self.fold(arg.value) for arg in args[:2]]
        start, stop = (Const(0), bounds[0]) if len(bounds) == 1 else (bounds[0], bounds[1])
        if isinstance(start, Const) and isinstance(stop, Const) and stop.value > start.value:
            return Interval(start.value, stop.value - 1)
        return None

    def branches(self, stmt: cst.If) -> None:
        """An ``if``: the branch Simplify keeps when its test is known at compile time
        (Fold A, ``simplify_pass.cpp``), else each branch as a block of its own, in
        program order (MemoryReuse's LifetimeAnalyzer orders the then branch's
        statements before the else branch's). A tile a branch binds is another value
        after the ``if`` (ConvertToSSA's phi): reading it after, or binding a tile of
        before again in a branch, leaves the scope not known."""
        if any(self.is_tile(read) for read in reads_of(stmt.test)):
            raise NotModelled("an `if` whose test reads a tile")
        self._check_reads(stmt.test)
        known = evaluate_condition(stmt.test, self.ranges, self._lookup)
        if known:
            self.block(body_statements(stmt.body), top=False)
            return
        if known is not None:
            if isinstance(stmt.orelse, cst.If):
                self.branches(stmt.orelse)
            elif stmt.orelse is not None:
                self.block(body_statements(stmt.orelse.body), top=False)
            return
        self._branch(body_statements(stmt.body))
        if isinstance(stmt.orelse, cst.If):
            self.branches(stmt.orelse)
        elif stmt.orelse is not None:
            self._branch(body_statements(stmt.orelse.body))

    def _branch(self, statements: Sequence[cst.CSTNode]) -> None:
        outer = self.bound
        parent, self.bound = self.loop, set()
        self.loops.append(ScopeLoop(None, False, parent, branch=True))
        self.loop = len(self.loops) - 1
        self.block(statements)
        self.loop = parent
        bound, self.bound = self.bound, outer
        self.poisoned |= {name for name in bound if self.is_tile(name)}
        if outer is not None:
            outer |= bound

    def _lookup(self, name: str) -> Folded | None:
        return self.fold(cst.Name(name))

    def _check_reads(self, node: cst.CSTNode | None) -> None:
        if not self.poisoned:
            return
        read = next((name for name in reads_of(node) if name in self.poisoned), None)
        if read is not None:
            raise NotModelled(f"the tile `{read}`, bound in a branch of an `if`, is read after it")

