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
on a folded value (a load's extents, a tile's shape) is worked out for each copy whose
folding asks questions that get other answers (:meth:`LoopLoads._replayed`). What the
kept facts save: benchmarks/README.md, "Cache layers".

Apart from :mod:`.loop_decision` because that module is the per-loop pass list; this is
what one step of it reads of the function around the loop.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable, Mapping, Sequence
from dataclasses import replace
from typing import TypeVar

import libcst as cst

from skewlsp.analysis.frontend.asked import Asked, Made, replayed
from skewlsp.analysis.frontend.constants import Folder
from skewlsp.analysis.frontend.names import body_statements
from skewlsp.analysis.frontend.state import AnalysisState
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
from skewlsp.contract import LoopReport, Span

# A function of the walk: its identity, whether its body is InCore, the caller of the
# inline helper's copy decided (None: not a copy).
_FunctionKey = tuple[int, bool, str | None]
# ... and an outlined scope of it (its line) in one copy the walk decides apart.
_ScopeKey = tuple[int, bool, str | None, int, Hashable]
_T = TypeVar("_T")


class LoopLoads:
    """The loads, matmuls and scope tiles of the loops of one unit's walk.

    ``surroundings`` and ``cube_scopes`` keep, for the walk, what its loops of one
    function share (looked up before the analysis's kept facts: no key is built for
    them); the cube scope is folded as the first loop of the scope asking for it folds.
    What a pass makes of a loop or scope under a folding is kept with the questions the
    folding asked (:meth:`_replayed`).
    """

    def __init__(self, state: AnalysisState) -> None:
        self.state = state
        self.surroundings: dict[_FunctionKey, dict[int, LoopSurroundings]] = {}
        self.cube_scopes: dict[_ScopeKey, CubeScope] = {}
        self.mat_scopes: dict[_ScopeKey, ScopeMat] = {}

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
        copy: Hashable = (),
    ) -> LoopFacts:
        """``facts`` with the body's loads as LowerPipelineToSlots sees them (the tensors
        in scope, ConvertTensorToTileOps', read off the function holding the loop, the
        inline helpers it calls and the callers pl.jit types its bare tensors from:
        ``helpers``, the module's functions' texts; the extern kernels it calls:
        ``function_text``, the text of a function the module defines or imports).
        ``where``: that function (None: none), whether its body is already InCore, and
        the caller of the helper copy decided (None: not a copy); ``copy``: which copy of
        the walk's (a module-level ``for``'s, a builder's call's: their bound values fold
        the scope's extents apart) the loop is decided in."""
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
        # (read again by each pass below; what each asks noted, see ``_replayed``)
        asked = Asked(ctx.resolve, span_of)
        fold = KeptFold(Folder(asked.resolve, ctx.made).fold, self.state.calls_in, asked)
        inputs = (around.scope, around.tensors)  # (what else each pass below reads)
        # 15 AutoTileMatmulL0: the matmuls it tiles, of the body and of the scope (read
        # once per scope, and only for a loop holding one)
        matmuls = self.state.syntactic_fact(
            (body_matmuls, loop), lambda: body_matmuls(loop, self.state.calls_in), of=(loop,)
        )
        scope = CubeScope(around.scope)
        if matmuls.sites or matmuls.unknown:
            kept = self.cube_scopes.get((*key, around.scope, copy))
            scope = kept or cube_scope(around, fold, self._uses)
            self.cube_scopes[(*key, around.scope, copy)] = scope
        facts = replace(facts, matmuls=matmuls, scope_matmuls=scope)
        skewed = facts.skew is not None or facts.vector_skew is not None
        if not lowered and (not skewed or not matmuls.sites):
            return facts
        body = body_statements(loop.body)
        loads = self._replayed(
            slot_loads, loop, inputs, asked,
            lambda: slot_loads(loop, around.tensors, fold, self._uses(body, around.tensors)),
        )  # fmt: skip
        # 10 ConvertTensorToTileOps' Vec tiles of the whole scope, folded as this loop's
        # extents are (a helper's copies at two calls fold them apart)
        # (a function's own body is a scope only when the function is an InCore one)
        opened_by = around.opened_by if around.scope or function_incore else None
        vec = Folder(asked.resolve, ctx.made).fold  # (one of its own: not a load's)
        tiles = self._replayed(
            scope_tiles_at, opened_by, inputs, asked,
            lambda: scope_tiles_at(opened_by, around.tensors, vec, asked.span_of, self._cube_only),
        )  # fmt: skip
        span = span_of(loop)
        at = next((n for n, found in enumerate(tiles.loops) if found.span == span), -1)
        facts = replace(
            facts, slot_loads=loads, slot_scope=around.scope, scope_tiles=tiles, scope_loop=at
        )
        mat = None
        if matmuls.sites:  # (the scope's Mat loads)
            mat = self.mat_scopes.get((*key, around.scope, copy))
            mat = mat or self._replayed(
                scope_mat, opened_by, inputs, asked,
                lambda: scope_mat(opened_by, around.tensors, fold, asked.span_of, self._uses),
            )  # fmt: skip
            self.mat_scopes[(*key, around.scope, copy)] = mat
        if not lowered and facts.skew is None:
            # the vector copy the skew runs ahead, in its scope's Vec tiles; the cube's
            # copy it demotes, in its scope's Mat tiles
            return replace(facts, scope_mat=mat)
        if not lowered and facts.skew is not None:
            # a skewed cube copy's matmuls read the body's loads in every clone; the
            # vector copy the skew demotes runs in the scope's tiles as written
            opened = around.opened_by
            scope_of = (opened, fold) if opened is not None else None
            made = computed_loads(loop, matmuls, loads, scope_of, around.tensors)
            return replace(facts, skew=replace(facts.skew, computed=made), scope_mat=mat)
        operands = None
        if matmuls.sites:  # (15's operands, for the L0 tiles)
            operands = body_operands(
                loop, matmuls, around.tensors, fold, loads, opened_by, self._uses
            )
        return replace(facts, matmul_operands=operands, scope_mat=mat)

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

    def _replayed(
        self,
        made_by: Callable[..., _T],
        node: cst.CSTNode | None,
        inputs: tuple[object, ...],
        asked: Asked,
        make: Callable[[], _T],
    ) -> _T:
        """What ``make()`` (a call of ``made_by`` reading the loop or scope ``node``, the
        tensors and other ``inputs``, and asking its questions through ``asked``) gives,
        made again only when no folding of ``node`` with the same inputs asked questions
        that get the same answers now (:func:`~skewlsp.analysis.frontend.asked.replayed`).

        ``node`` is read again for each copy of a loop (each ``pl.unroll`` copy, an inline
        helper's copy at each call), each build the module is decided again under, and
        each file of a batch holding the same kernel text; the results are kept with the
        analysis's syntactic facts, with a tree made for a unit text across analyses (its
        spans are among the questions). What it saves (a cold serial lint of pypto-lib:
        26.91 -> 26.52 G instructions, -1.5%; the body's loads 147 of 584 times, the Vec
        tiles of a scope 231 of 569, its Mat loads 36 of 241): benchmarks/README.md,
        "Cache layers". The cube scope's matmuls and loads (``cube_scope``) are not kept
        so: 68 of 258 used again saved 0.2%."""
        if node is None:
            return make()
        kept: list[Made[_T]] = self.state.syntactic_fact((replayed, made_by, node), list, (node,))
        return replayed(kept, inputs, asked, make)
