"""What the lowering and memory passes read of one loop's body, worked out where the
walk decides the loop: the loads LowerPipelineToSlots (27) will see, as
ConvertTensorToTileOps (10) makes them; the matmuls AutoTileMatmulL0 (15) tiles, of the
body and of the scope around it; and the Vec tiles of that scope, for the function
stage (:mod:`.function_stage`).

A loop is decided once per copy the analysis makes of it (each ``pl.unroll`` copy, an
inline helper's copy at each call, the module decided again under another build:
``driver.variants``). What is read off the trees alone is the same in every copy, so it
is made once per function, scope or loop and kept in the analysis's ``syntactic``
facts (:meth:`~skewlsp.analysis.frontend.state.AnalysisState.syntactic_fact`): the
tensors in scope at each loop of a function, the matmuls of a body and of a scope, how
a body uses its names and which names of a scope only its matmuls read; the matmuls of
a body, how a block uses its names and the scope's cube-only names read nothing but
the nodes, so those of a tree made for a unit text are kept with the tree,
across analyses (an imported helper's, walked in each module calling it). What depends
on a folded value (a load's extents, a tile's shape) is worked out for each copy. What
the kept facts save: benchmarks/README.md, "Cache layers".

Apart from :mod:`.loop_decision` because that module is the per-loop pass list; this is
what one step of it reads of the function around the loop.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace

import libcst as cst

from skewlsp.analysis.frontend.constants import Folder
from skewlsp.analysis.frontend.names import body_statements
from skewlsp.analysis.frontend.state import AnalysisState
from skewlsp.analysis.frontend.values import PYTHON_ONLY, Folded
from skewlsp.analysis.lower_pipeline.loop_facts import CubeScope, LoopFacts
from skewlsp.analysis.lower_pipeline.slot_loads import (
    BodyUses,
    KeptFold,
    body_uses,
    computed_loads,
    slot_loads,
)
from skewlsp.analysis.memory.l0_tiles import body_operands, cube_scope
from skewlsp.analysis.memory.mat_tiles import ScopeMat, scope_mat
from skewlsp.analysis.passes.auto_tile_matmul_l0 import body_matmuls
from skewlsp.analysis.passes.body import BodyContext
from skewlsp.analysis.passes.convert_tensor_to_tile_ops import (
    LoopSurroundings,
    Tensor,
    surroundings,
)
from skewlsp.analysis.passes.cube_side import cube_only
from skewlsp.analysis.passes.inline_functions.splice import declared_returns
from skewlsp.analysis.passes.jit_return_type import extern_outs
from skewlsp.analysis.passes.jit_tensor_params import bare_param_tensors
from skewlsp.analysis.passes.op_conversion import scope_tiles_at
from skewlsp.analysis.passes.scope_tile_ops import ScopeTiles
from skewlsp.contract import LoopReport, Span

# A function of the walk: its identity, whether its body is InCore, the caller of the
# inline helper's copy decided (None: not a copy).
_FunctionKey = tuple[int, bool, str | None]


class LoopLoads:
    """The loads, matmuls and scope tiles of the loops of one unit's walk.

    ``surroundings`` and ``cube_scopes`` keep, for the walk, what its loops of one
    function share (looked up before the analysis's kept facts: no key is built for
    them); the cube scope is folded as the first loop of the scope asking for it folds.
    ``scope_tiles`` keeps each scope's Vec tiles as each folding of it gave them (the
    spans in them are this walk's: it is not kept longer).
    """

    def __init__(self, state: AnalysisState) -> None:
        self.state = state
        self.surroundings: dict[_FunctionKey, dict[int, LoopSurroundings]] = {}
        self.cube_scopes: dict[tuple[int, bool, str | None, int], CubeScope] = {}
        self.mat_scopes: dict[tuple[int, bool, str | None, int], ScopeMat] = {}
        # Per statement opening a scope: its Vec tiles as each folding of it gave them.
        self.scope_tiles: dict[cst.CSTNode | None, list[_FoldedTiles]] = {}

    def of_loop(
        self,
        facts: LoopFacts,
        report: LoopReport,
        loop: cst.For,
        ctx: BodyContext,
        where: tuple[cst.FunctionDef | None, bool, str | None],
        helpers: Mapping[str, str],
        span_of: Callable[[cst.CSTNode], Span],
        function_text: Callable[[str], str | None] | None = None,
    ) -> LoopFacts:
        """``facts`` with the body's loads as LowerPipelineToSlots sees them (the tensors
        in scope, ConvertTensorToTileOps', read off the function holding the loop, the
        inline helpers it calls and the callers pl.jit types its bare tensors from:
        ``helpers``, the module's functions' texts; the extern kernels it calls:
        ``function_text``, the text of a function the module defines or imports).
        ``where``: that function (None: none), whether its body is already InCore, and
        the caller of the helper copy decided (None: not a copy)."""
        fn, function_incore, caller = where
        lowered = report.verdict == "left" or any(c.verdict == "left" for c in report.cores)
        if fn is None:
            return facts
        key = (id(fn), function_incore, caller)
        loops = self.surroundings.get(key)
        if loops is None:
            loops = self.surroundings[key] = self._surroundings(fn, key, helpers, function_text)
        around = loops.get(id(loop))
        if around is None:
            return facts
        if not around.tile_ops:  # a Spmd function at tensor level: no loads, no tile matmuls
            return replace(facts, slot_loads=(), slot_scope=around.scope) if lowered else facts
        fold = KeptFold(ctx.fold, self.state.calls_in)  # (read again by each pass below)
        # 15 AutoTileMatmulL0: the matmuls it tiles, of the body and of the scope (read
        # once per scope, and only for a loop holding one)
        matmuls = self.state.syntactic_fact(
            (body_matmuls, loop), lambda: body_matmuls(loop, self.state.calls_in), of=(loop,)
        )
        scope = CubeScope(around.scope)
        if matmuls.sites or matmuls.unknown:
            kept = self.cube_scopes.get((*key, around.scope))
            scope = kept or cube_scope(around, fold, self._uses)
            self.cube_scopes[(*key, around.scope)] = scope
        facts = replace(facts, matmuls=matmuls, scope_matmuls=scope)
        if not lowered and (facts.skew is None or not matmuls.sites):
            return facts
        uses = self._uses(body_statements(loop.body), around.tensors)
        loads = slot_loads(loop, around.tensors, fold, uses)
        if not lowered and facts.skew is not None:
            # a skewed cube copy's matmuls read the body's loads in every clone
            opened = around.opened_by
            scope_of = (opened, fold) if opened is not None else None
            made = computed_loads(loop, matmuls, loads, scope_of, around.tensors)
            skew = replace(facts.skew, computed=made)
            return replace(facts, slot_loads=loads, slot_scope=around.scope, skew=skew)
        # 10 ConvertTensorToTileOps' Vec tiles of the whole scope, folded as this loop's
        # extents are (a helper's copies at two calls fold them apart)
        # (a function's own body is a scope only when the function is an InCore one)
        opened_by = around.opened_by if around.scope or function_incore else None
        tiles = self._scope_tiles(opened_by, around, ctx, span_of)
        span = span_of(loop)
        at = next((n for n, found in enumerate(tiles.loops) if found.span == span), -1)
        operands = mat = None
        if matmuls.sites:  # (15's operands, for the L0 tiles; the scope's Mat loads)
            operands = body_operands(
                loop, matmuls, around.tensors, fold, loads, opened_by, self._uses
            )
            mat = self.mat_scopes.get((*key, around.scope))
            mat = mat or scope_mat(opened_by, around.tensors, fold, span_of, self._uses)
            self.mat_scopes[(*key, around.scope)] = mat
        return replace(
            facts,
            slot_loads=loads,
            slot_scope=around.scope,
            scope_tiles=tiles,
            scope_loop=at,
            matmul_operands=operands,
            scope_mat=mat,
        )

    def _uses(self, statements: Sequence[cst.CSTNode], tensors: Collection[str]) -> BodyUses:
        """How ``statements`` use their names (:func:`body_uses`), made once for the
        analysis and the module decided again under other builds: read off the tree and
        the names of the tensors in scope alone, it is asked again by every copy, build
        and walk of a scope (a body's, a scope's blocks', a matmul's statements')."""
        block = tuple(statements)
        return self.state.syntactic_fact(
            (body_uses, block, frozenset(tensors)),
            lambda: body_uses(statements, tensors, self.state.calls_in),
            block,
        )

    def _cube_only(self, statements: Sequence[cst.CSTNode]) -> frozenset[str]:
        """The names of a scope's statements only its matmuls read (:func:`cube_only`),
        read off the tree once: a scope is converted again for each folding of it (each
        copy, build, and each analysis walking an imported helper), and this count of
        every name of the scope was a large part of each conversion. What it saves: a cold
        serial lint of pypto-lib counts 311 scopes for it, not 462, and takes 1.3% fewer
        instructions (benchmarks/README.md, "Cache layers")."""
        block = tuple(statements)
        return self.state.syntactic_fact((cube_only, block), lambda: cube_only(block), block)

    def _surroundings(
        self,
        fn: cst.FunctionDef,
        key: _FunctionKey,
        helpers: Mapping[str, str],
        function_text: Callable[[str], str | None] | None,
    ) -> dict[int, LoopSurroundings]:
        """The tensors in scope at each loop of ``fn`` (its InCore-ness and the caller of
        the copy: ``key``), with the tensors an inline helper's or an extern kernel's call
        returns and those pl.jit gives its bare parameters."""
        returns, fact = declared_returns(helpers), self.state.syntactic_fact
        outs = extern_outs(function_text) if function_text is not None else None
        _, function_incore, caller = key

        def given() -> Mapping[str, Tensor]:
            return bare_param_tensors(fn, helpers, caller, returns, fact, outs=outs)

        return fact(
            (surroundings, fn, key[1:], frozenset(helpers.items())),
            lambda: surroundings(fn, function_incore, self.state.made, returns, given(), outs),
        )

    def _scope_tiles(
        self,
        opened_by: cst.CSTNode | None,
        around: LoopSurroundings,
        ctx: BodyContext,
        span_of: Callable[[cst.CSTNode], Span],
    ) -> ScopeTiles:
        """:func:`.op_conversion.scope_tiles_at` of the scope ``opened_by`` opens, folded
        as this loop's extents are, made again only when the folding would differ.

        A folding is decided by the answers its names get: when the names an earlier
        loop's folding of the scope asked (the scope's other loops, a helper's copy at
        another call) get the same answers again, asked in the same order, the folding
        would go the same way and give the same tiles (and charge the build with the
        same reads, since every name asked again is one it asks)."""
        kept = self.scope_tiles.setdefault(opened_by, [])
        for folded in kept:
            if folded.tensors == around.tensors and all(
                _same(ctx.resolve(name), answer) for name, answer in folded.asked
            ):
                return folded.tiles
        asked: list[tuple[str, Folded | None]] = []

        def resolve(name: str) -> Folded | None:
            found = ctx.resolve(name)
            asked.append((name, found))
            return found

        fold = Folder(resolve, ctx.made).fold
        tiles = scope_tiles_at(opened_by, around.tensors, fold, span_of, self._cube_only)
        kept.append(_FoldedTiles(tuple(asked), around.tensors, tiles))
        return tiles


@dataclass(frozen=True)
class _FoldedTiles:
    """A scope's tiles as one folding gave them: the names it asked, in order, with their
    answers, and the tensors in scope it read."""

    asked: tuple[tuple[str, Folded | None], ...]
    tensors: Mapping[str, Tensor]
    tiles: ScopeTiles


def _same(found: Folded | None, answer: Folded | None) -> bool:
    """Whether a name's answer folds as an earlier one did: a number or a reason by
    equality; a value only Python builds (a config record, a table) only when it is the
    same object (a record's equality leaves out the module its fields are folded in)."""
    if type(found) is not type(answer):
        return False
    if isinstance(found, PYTHON_ONLY):
        return found is answer
    return found == answer
