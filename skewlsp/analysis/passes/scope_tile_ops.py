"""What ConvertTensorToTileOps' model (:mod:`.op_conversion`) hands the memory passes: an
InCore scope's Vec tile statements (:class:`TileOp`), its loops (:class:`ScopeLoop`), or
why they are not known (:class:`ScopeTiles`). Apart from the walk that makes them, so a
reader of the tiles needs none of the conversion."""

from __future__ import annotations

from dataclasses import dataclass

from skewlsp.contract import Span


@dataclass(frozen=True)
class TileShape:
    """A tile's static extents and dtype, as InitMemRef sizes its buffer."""

    extents: tuple[int, ...]
    dtype: str


@dataclass(frozen=True)
class TileOp:
    """One tile statement as the pass leaves it: the value it defines (``out``: the name
    bound, or ``%n`` for a flattened operand; None: it writes a tile out and defines
    none), the values it reads, the new tile's shape and dtype (InitMemRef sizes it;
    None for a view: it holds ``view_of``'s buffer), whether it is a ``tile.load``, its
    label for messages, and the loop it is in (an index into :attr:`ScopeTiles.loops`;
    -1 outside the loops). ``forbid``: the values whose buffer the op's output must not
    take (``forbid_output_alias`` and ``not_inplace_safe`` in the op registry,
    ``src/ir/op/tile_ops/*.cpp``; a widening ``tile.cast``: MemoryReuse's
    ForbidAliasCollector). ``statement``: which top-level statement of its block's body
    the op comes from (-1: outside the scope's statements; a skewed loop's halves are
    told by it)."""

    out: str | None
    reads: tuple[str, ...]
    shape: tuple[tuple[int, ...], str] | None
    label: str
    view_of: str | None = None
    load: bool = False
    loop: int = -1
    forbid: tuple[str, ...] = ()
    statement: int = -1


@dataclass(frozen=True)
class ScopeLoop:
    """A loop of the scope: where it is (a pipeline loop's report has this span),
    whether it is a ``pl.pipeline`` (else a sequential loop, run as written), and the
    block of the scope it is nested in (-1: none).

    A ``branch`` is one branch of an ``if`` the compiler keeps, listed with the loops
    because it is a block of its own: run at most once, in program order, its tiles
    its own (none is read after it), and where it sits in a pipeline loop's body,
    reordered apart from that body (CanonicalizeIOOrder reorders each statement list
    on its own: the ``if`` is one statement of the body)."""

    span: Span | None  # (None: a branch, which no report is matched by)
    pipeline: bool
    parent: int = -1
    branch: bool = False


@dataclass(frozen=True)
class ScopeTiles:
    """An InCore scope's Vec tile statements in program order (a loop's body's together,
    marked with their loop), its loops, or why they are not known (``unknown``).
    ``popped``: the bytes of each tile the vector pops from the cube (the cross-core
    ring's slots); ``pushed``: those of each tile it pushes to the cube (a matmul reads
    it: the ring's other direction, whose slots are as large); ``slot_num``: the ring's
    depth the scope asks for (``slot_num=`` of ``pl.split`` or ``pl.cross_core_slot``;
    None: not written)."""

    ops: tuple[TileOp, ...] = ()
    loops: tuple[ScopeLoop, ...] = ()
    unknown: str | None = None
    popped: tuple[int, ...] = ()
    pushed: tuple[int, ...] = ()
    sent: tuple[str, ...] = ()  # the names of the tiles pushed, in program order
    slot_num: int | None = None
    halved: bool = False  # a split mode: SplitVectorKernel halves each vector tile

    def enclosing_loop(self, number: int) -> int:
        """The loop (not a branch) that block ``number`` is nested in (-1: none)."""
        at = self.loops[number].parent
        while at >= 0 and self.loops[at].branch:
            at = self.loops[at].parent
        return at
