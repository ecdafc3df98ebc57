"""The passes on one ``pl.pipeline`` loop, where the walk of its unit met it.

:meth:`LoopDecisions._decide_loop` is the per-loop pass list, in the order of pypto's
``python/pypto/ir/pass_manager.py``: the header as the DSL parser folds it
(``passes.header``), the body as UnrollLoops and Simplify leave it (one walk:
``passes.loop_body``), ConvertToSSA's edges, then for a loop in an InCore scope the
passes that split it per core and the skew pass on each copy (:mod:`.core_passes`),
else the skew pass on the body as it is; the report is assembled from what they left
(``report.assemble``). A loop under ``pl.unroll`` is decided once per copy UnrollLoops
makes of it.

The compiler runs the split before the skew pass; so does this: the skew pass's
decision on the unsplit body is made only when no split replaces it (a loop outside an
InCore scope, or one whose split sends nothing across), as it was only ever read then.

Apart from the walk (:mod:`.unit_walk`) because the walk is about where loops are and
what surrounds them; this is about what one loop becomes. :class:`LoopDecisions` holds
the state both read: the walk subclasses it.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import libcst as cst

from skewlsp.analysis.driver.core_passes import (
    OutlinedFunction,
    SplitInputs,
    kept_split,
    split_and_skew,
    split_inputs,
)
from skewlsp.analysis.driver.loop_loads import LoopLoads
from skewlsp.analysis.driver.walk_facts import WalkFacts
from skewlsp.analysis.frontend import dsl
from skewlsp.analysis.frontend.constants import Assigned, Const
from skewlsp.analysis.frontend.dsl_checks import BodyChecks, check_body
from skewlsp.analysis.frontend.names import body_statements, reads_of
from skewlsp.analysis.frontend.scope import EnclosingLoop, FunctionScope
from skewlsp.analysis.frontend.source_index import Unit
from skewlsp.analysis.frontend.state import AnalysisState
from skewlsp.analysis.frontend.values import Interval, Opaque
from skewlsp.analysis.lower_pipeline.loop_facts import NO_FACTS, LoopFacts, SkewClones
from skewlsp.analysis.lower_pipeline.lowering import Lowered
from skewlsp.analysis.memory.core_function import CoreFunction
from skewlsp.analysis.passes.body import Body, BodyContext, InnerSkew, Splicer, Stmt
from skewlsp.analysis.passes.convert_to_ssa import resolve
from skewlsp.analysis.passes.expand_mixed_kernel.core_sides import (
    OutsideSides,
    param_sides,
    scope_multiplies,
)
from skewlsp.analysis.passes.header import bounds_of, fold_bound, loop_target, stage_of
from skewlsp.analysis.passes.infer_tile_memory_space import operand_moves
from skewlsp.analysis.passes.inline_functions.splice import helper_splicer
from skewlsp.analysis.passes.loop_body import normalise
from skewlsp.analysis.passes.lower_auto_vector_split import opens_lane_regions
from skewlsp.analysis.passes.outline_incore_scopes import OutlinedScope, outlined_scope
from skewlsp.analysis.passes.split_k_grid import split_k_loop
from skewlsp.analysis.passes.split_vector_kernel import any_split, dual_aiv_dispatch
from skewlsp.analysis.report.advice import StageAdvice, bounds_read, depth_advice
from skewlsp.analysis.report.assemble import loop_report
from skewlsp.analysis.report.coverage import unanalysed
from skewlsp.analysis.report.finish import NOTHING_SAID, Said
from skewlsp.analysis.skew_cross_core_pipeline import per_core
from skewlsp.analysis.skew_cross_core_pipeline.decide import (
    Decision,
    LoopHeader,
    check_int64,
    decide,
)
from skewlsp.analysis.source.positions import LoopPositions
from skewlsp.analysis.source.walk import walk
from skewlsp.contract import Applicability, Edit, Instance, LoopReport, Span, StageFix

MAX_PREVIEW_COPIES = 16  # pl.unroll copies of one loop rewritten one by one for its preview


@dataclass
class LoopModel:
    """One loop's record as the passes fill it in: its report as its unit's passes leave
    it, what only the lowering passes read of it (``facts``) and what they decided of it
    (``lowered``), what the stages across loops found (``functions``, ``said``), and the
    internals a rewrite needs (the normalised body and its split). After the stages
    across loops the driver puts its report together from it (``report.finish``)."""

    report: LoopReport
    node: cst.For | None = None
    unit: Unit | None = None
    module: cst.Module | None = None
    stmts: list[Stmt] = field(default_factory=list)
    decision: Decision | None = None
    iter_names: tuple[str, ...] = ()
    yield_node: cst.CSTNode | None = None
    # Under pl.unroll: each copy's own model, keyed by the unrolled values
    # (``(("g", 1),)``), first copy first. Empty for a loop outside any unroll.
    copies: list[tuple[tuple[tuple[str, int], ...], LoopModel]] = field(default_factory=list)
    # Skewed inner pipelines spliced into this body (the parent is classified after them).
    inner: list[LoopModel] = field(default_factory=list)
    # What only the lowering passes read of the loop (kept with its report by a cache),
    # and what they decided of it (None: not lowered), their record: the passes after
    # them read it, and the report is put together with it once (``report.finish``).
    facts: LoopFacts = NO_FACTS
    lowered: Lowered | None = None
    # The core functions the loop is in, one per core copy, shared by the function's
    # loops (the function stage's, after every loop of the module is lowered).
    functions: tuple[CoreFunction, ...] = ()
    # What the stages across loops found of it (its overlap, what the memory passes give
    # it), and its report as its unit's walk left it once ``report`` is put together.
    said: Said = NOTHING_SAID
    walked: LoopReport | None = None


@dataclass(frozen=True)
class _Parsed:
    """One loop as the DSL parser reads it (before any pass): its header folded, the
    checks of its body, and the ranges of the loop variables its body sees."""

    call: cst.Call
    loop_var: str
    iter_names: tuple[str, ...]
    stage_span: Span | None
    stage_value: Span | None
    header: LoopHeader  # its errors: the parser's and the body checks'
    header_ctx: BodyContext  # what the bounds were folded with
    checks: BodyChecks
    ranges: dict[str, Interval]
    inner_enclosing: list[EnclosingLoop]  # the loops around the body, this one included


class LoopDecisions:
    """The loops of one unit decided so far, and the walk's position they are decided at.

    The walk (:class:`.unit_walk.UnitWalk`) sets ``module``, ``positions`` and ``syntax``
    (what every walk of the tree finds the same: :mod:`.walk_facts`) before the first
    loop, and keeps ``functions``, ``incore``, ``function_incore`` and
    ``call_headers`` current as it goes. ``state`` is the analysis's: its made trees are
    what the stages quote code from.
    """

    module: cst.Module
    positions: LoopPositions
    syntax: WalkFacts

    def __init__(
        self, unit: Unit, path: str | None, aliases: dsl.Aliases, state: AnalysisState
    ) -> None:
        self.unit = unit
        self.path = path
        self.aliases = aliases
        self.state = state
        self.made = state.made
        self.models: dict[int, LoopModel] = {}
        self.inner: dict[int, InnerSkew | None] = {}
        self.loop_stack: list[cst.For] = []
        self.functions: list[cst.FunctionDef] = []
        self.incore: list[bool] = []
        self.function_incore: list[bool] = []  # per function being walked: its body is InCore
        self.call_headers: tuple[cst.CSTNode, ...] = ()  # scope headers around a helper call
        self.call_caller: str | None = None  # the function making that call
        self.dual_aiv: dict[int, bool] = {}  # per function: no pl.split, so two AIV lanes
        # Per function and whether its body is InCore (a helper's call sites differ only
        # there): the sides are syntactic, so one walk serves every copy decided apart.
        self.outside: dict[tuple[int, bool], OutsideSides] = {}
        self.deciding_copy = 0  # >0 while a pl.unroll copy other than the first is decided
        # The copy the walk decides apart (a module-level ``for``'s iteration, a builder's
        # call, an inline helper's call: its identity and the helper), handed to each
        # loop's report as it is put together (:meth:`_copy_of`); None outside one.
        self.copy: tuple[Instance, str] | None = None
        self.loads = LoopLoads(state)  # what the lowering and memory passes read of each

    @property
    def _function_incore(self) -> bool:
        """Whether the body of the function being walked already runs in an InCore scope."""
        return bool(self.function_incore) and self.function_incore[-1]

    @property
    def _incore(self) -> bool:
        return bool(self.incore) and self.incore[-1]

    def _span(self, node: cst.CSTNode) -> Span:
        """Where ``node`` is: it belongs to the loop being decided (or is that loop)."""
        return self.positions.span(node, self.loop_stack[-1])

    def _decide(
        self, loop: cst.For, scope: FunctionScope, enclosing: list[EnclosingLoop], fn: str
    ) -> InnerSkew | None:
        if id(loop) in self.models:
            return self.inner.get(id(loop))
        self.loop_stack.append(loop)
        try:
            return self._decide_loop(loop, scope, enclosing, fn)
        finally:
            self.loop_stack.pop()

    def _copy_of(self, loop: cst.For | None) -> tuple[Instance | None, str]:
        """Which copy the walk is deciding ``loop`` in (None outside a copy decided apart,
        and for a pl.unroll copy other than the first: UnrollLoops' copies are not the
        walk's), with the names of its bindings a message about ``loop`` quotes; and the
        inline helper whose call it is ("" for another copy)."""
        if self.copy is None or self.deciding_copy:
            return None, ""
        instance, helper = self.copy
        shown = self.syntax.decisive.informative(instance.bindings, loop, self.module)
        return replace(instance, shown=shown), helper

    def _stage_advice(
        self,
        loop: cst.For,
        scope: FunctionScope,
        parsed: _Parsed,
        header: LoopHeader,
        stmts: Sequence[Stmt],
        decision: Decision,
    ) -> StageAdvice | None:
        """What a ``stage=`` fix needs, for a loop whose stage may buy nothing (SKW002, or
        a stage above the trip: SKW014 once lowered): what the bounds read (a fix bakes it
        in) and where the stage's value is; for SKW002 its advice. None for another loop."""
        stage, trip = decision.stage, decision.trip
        above = stage is not None and trip is not None and stage > trip
        if decision.code != "SKW002" and not above:
            return None
        fold = lambda e: fold_bound(e, parsed.header_ctx)  # noqa: E731 - as the bounds were
        line = self._span(loop).line

        def assigned(name: str) -> Assigned | None:
            """Where the fold read ``name`` (FunctionScope.bound_lookup's order): a local
            above the loop, no line for a parameter, else the module's constant."""
            if name in scope.locals or name in scope.poisoned:
                return scope.module.assigned(name, line)
            if name in scope.params or name in scope.specialized or name in scope.call_site:
                return None
            return scope.module.assigned(name)

        origins = bounds_read(parsed.call, fold, assigned, self.path, self.made)
        stage_value = parsed.stage_value
        if decision.code != "SKW002":
            return StageAdvice(stage_value, origins)
        advice, depth_stage = depth_advice(
            header, stmts, decision, parsed.call, fold, self.made, origins
        )
        fix = None
        if depth_stage is not None and stage_value is not None:
            applicability: Applicability = "unsafe" if origins else "safe"
            fix = StageFix(Edit(stage_value, str(depth_stage)), "SKW001", applicability)
        return StageAdvice(stage_value, origins, advice, fix)

    def _decide_loop(
        self, loop: cst.For, scope: FunctionScope, enclosing: list[EnclosingLoop], fn: str
    ) -> InnerSkew | None:
        """The passes on one loop, in the order of pypto's ``pass_manager.py``.

        InlineFunctions (01) has run: a helper's loops are decided where the walk meets
        its call (:mod:`.unit_walk`). The lowering passes (27, 28) run at the end of the
        unit's walk (:mod:`.lowered`), on every loop the skew pass left.
        """
        key = id(loop)
        parsed = self._parse(loop, scope, enclosing)  # the DSL parser: the header, the checks
        ctx = self._body_context(loop, scope, parsed, fn)
        placeholder = unanalysed(  # guards against re-entry
            self.path, self._span(loop), "", call_span=self._span(parsed.call)
        )
        self.models[key] = LoopModel(placeholder)
        body = normalise(body_statements(loop.body), ctx)  # 02 UnrollLoops, 05 Simplify
        stmts = body.stmts
        resolve(stmts, parsed.iter_names)  # 04 ConvertToSSA
        header = replace(parsed.header, errors=(*parsed.header.errors, *ctx.errors))
        split = None
        if self._incore and not (ctx.unknowns or parsed.checks.explicit_messages or header.errors):
            # 06 FlattenCallExpr .. 23 SplitVectorKernel, then 26 on each core's copy
            split = self._split_and_skew(loop, ctx, header, body, scope)
        if split is not None and split.summary is not None:
            decision, stmts = split.summary, split.stmts
        else:
            decision = decide(header, stmts)  # 26 SkewCrossCorePipeline
            decision = _unroll_count_unknown(decision, ctx.unknowns)
        instance, helper = self._copy_of(loop)  # which copy the walk decides it in
        report = loop_report(  # put together once, from what the passes left
            self.path, self._span, loop, parsed.call, fn, parsed.loop_var, decision, stmts,
            parsed.stage_span, parsed.stage_value, made=self.made,
            cores=split.cores if split is not None else (),
            across=split.scalars_across if split is not None else (),
            advice=self._stage_advice(loop, scope, parsed, header, stmts, decision),
            instance=instance,
            helper=helper,
        )
        bounds = (header.start, header.stop, header.step)
        opaque = [v.symbol for v in bounds if isinstance(v, Opaque)]
        facts = LoopFacts(load_time_bound=opaque[0] if opaque else None)
        # 10 ConvertTensorToTileOps: the loads LowerPipelineToSlots (27) will see
        if split is not None:  # 26's clones, for 33
            facts = replace(facts, skew=_clones(split.cube_skew, loop))
            facts = replace(facts, vector_skew=_clones(split.vector_skew, loop))
        where = (self.functions[-1] if self.functions else None, self._function_incore)
        copy = (self.copy[0].bindings if self.copy else (), self.deciding_copy)
        facts = self.loads.of_loop(
            facts, report, loop, ctx, (*where, self.call_caller), scope.module.function_sources,
            self._span, scope.module.function_text, copy,
        )
        if where[0] is not None and facts.matmuls is not None and len(facts.matmuls.sites) == 2:
            # 15 AutoTileMatmulL0 may write the loop once per output tile (read off the tree)
            fn_def = where[0]
            found = self.state.syntactic_fact(
                (split_k_loop, loop, fn_def), lambda: split_k_loop(loop, fn_def), (loop, fn_def)
            )
            facts = replace(facts, split_k=found) if found is not None else facts
        model = LoopModel(
            report, loop, self.unit, self.module, stmts, decision, parsed.iter_names,
            body.yield_node, facts=facts,
        )
        model.inner = [
            self.models[id(stmt.node)]
            for stmt in stmts
            if stmt.origin == "steady" and id(stmt.node) in self.models
        ]
        self.models[key] = model
        if not self.deciding_copy:
            model.copies = self._unrolled_copies(loop, scope, enclosing, fn, model)
        inner = _as_inner_skew(
            loop, parsed.call, stmts, decision, parsed.loop_var, parsed.iter_names, body
        )
        self.inner[key] = inner
        return inner

    def _parse(
        self, loop: cst.For, scope: FunctionScope, enclosing: list[EnclosingLoop]
    ) -> _Parsed:
        """The loop as the DSL parser reads it: its header folded, its body checked, and
        the ranges of the loop variables around its body."""
        call = loop.iter
        assert isinstance(call, cst.Call)
        kind = dsl.loop_kind(call, self.aliases)
        header_ctx = BodyContext(
            scope.bound_lookup(enclosing), {}, self.aliases, lambda n, c: None, self.made
        )
        errors: list[str] = []
        if kind == "bare_pipeline":
            errors.append(
                "a bare `pipeline(...)` is rejected by the DSL parser: write `pl.pipeline(...)`"
            )
        loop_var, iter_names, target_error = loop_target(loop, call)
        if target_error:
            errors.append(target_error)
        stage, stage_span, stage_value = stage_of(call, scope, errors, self._span)
        start, stop, step = bounds_of(call, header_ctx, errors)
        overflow = check_int64(LoopHeader(stage, start, stop, step, iter_names, ()))
        if overflow:
            errors.append(overflow)
        checks = self.syntax.body_checks.get(id(loop))
        if checks is None:  # (a helper's loops are decided again at each of its calls)
            fn_around = self.functions[-1] if self.functions else None
            checks = check_body(loop, self.aliases, fn_around, self.made)
            self.syntax.body_checks[id(loop)] = checks
        errors.extend(checks.errors)
        ranges = {e.var: e.interval for e in enclosing if e.interval is not None}
        if isinstance(start, Const) and isinstance(stop, Const) and stop.value > start.value:
            ranges[loop_var] = Interval(start.value, stop.value - 1)
        inner_enclosing = [*enclosing, EnclosingLoop(loop_var, ranges.get(loop_var))]
        header = LoopHeader(stage, start, stop, step, iter_names, tuple(errors))
        return _Parsed(
            call, loop_var, iter_names, stage_span, stage_value, header, header_ctx, checks,
            ranges, inner_enclosing,
        )

    def _body_context(
        self, loop: cst.For, scope: FunctionScope, parsed: _Parsed, fn: str
    ) -> BodyContext:
        """What the body walk needs: the values in scope, the ranges of the loop variables,
        and how an inner pipeline is decided (first, as the compiler decides the inner
        loops of a function before the loops around them)."""

        def decide_inner(node: cst.For, _ctx: BodyContext) -> InnerSkew | None:
            return self._decide(node, scope, parsed.inner_enclosing, fn)

        return BodyContext(
            scope.bound_lookup(parsed.inner_enclosing),
            parsed.ranges,
            self.aliases,
            decide_inner,
            self.made,
            scope.tile_names,
            parse_time_lookup=scope.parse_time_lookup,
            may_message=parsed.checks.explicit_messages,
            nested_messages=parsed.checks.nested_messages,
        )

    def _split_and_skew(
        self, loop: cst.For, ctx: BodyContext, header: LoopHeader, body: Body, scope: FunctionScope
    ) -> per_core.PerCore:
        """The loop in an InCore scope, through the passes that split it per core and the
        skew pass on each core's copy (:mod:`.core_passes`); what they need to know of the
        function it is outlined to is worked out here, once per function where it can."""
        live_out = (*header.iter_names, *body.yield_reads)
        nested = per_core.NestedPipelines(
            lambda decider: normalise(
                body_statements(loop.body),
                replace(ctx, decide_inner=decider, errors=[], unknowns=[]),
            ).stmts,
            lambda node: self.inner.get(id(node)),
            lambda node: self.models[id(node)].report.cores if id(node) in self.models else (),
        )
        outlined = self._outlined(loop, scope.module.function_sources)
        made_of = (
            self.functions[-1] if self.functions else None, self._function_incore,
            (self.module, self.unit.text, self.unit.line_offset), scope.module.function_sources,
        )
        inputs = split_inputs(body.stmts, header, live_out, outlined, made_of)
        make = lambda: split_and_skew(body.stmts, header, live_out, outlined, nested)  # noqa: E731
        if inputs is None:
            return make()
        kept: list[tuple[SplitInputs, per_core.PerCore]] = self.state.syntactic_fact(
            (split_and_skew, loop), list
        )  # (a split kept per loop, reused for equal inputs)
        return kept_split(kept, inputs, make)

    def _unrolled_copies(
        self,
        loop: cst.For,
        scope: FunctionScope,
        enclosing: list[EnclosingLoop],
        fn: str,
        first: LoopModel,
    ) -> list[tuple[tuple[tuple[str, int], ...], LoopModel]]:
        """The loop decided once per pl.unroll copy around it, as UnrollLoops makes them.

        The compiler sees one loop per copy, each with its own constants (bounds such
        as ``g * 4``): a preview of the first copy alone would be wrong for the others.
        """
        unrolled = [(i, e) for i, e in enumerate(enclosing) if len(e.copies) > 1]
        if not unrolled:
            return []
        combos = list(itertools.islice(
            itertools.product(*(e.copies for _, e in unrolled)), MAX_PREVIEW_COPIES + 1
        ))
        if len(combos) > MAX_PREVIEW_COPIES:
            return []  # too many copies to show one by one: the preview says so
        copies = []
        for combo in combos:
            bindings = tuple((e.var, value) for (_, e), value in zip(unrolled, combo, strict=True))
            if combo == tuple(e.unrolled for _, e in unrolled):
                copies.append((bindings, first))
                continue
            alternative = list(enclosing)
            for (index, e), value in zip(unrolled, combo, strict=True):
                alternative[index] = replace(
                    e, unrolled=value, interval=Interval(value, value)
                )
            copies.append((bindings, self._decide_copy(loop, scope, alternative, fn)))
        return copies

    def _decide_copy(
        self, loop: cst.For, scope: FunctionScope, enclosing: list[EnclosingLoop], fn: str
    ) -> LoopModel:
        """Decide ``loop`` again with other unrolled values, leaving every stored result as
        it was (nested loops included: their copies are decided afresh, then forgotten)."""
        models, inner = dict(self.models), dict(self.inner)
        for node in walk(loop):
            if type(node) is cst.For:
                self.models.pop(id(node), None)
                self.inner.pop(id(node), None)
        self.deciding_copy += 1
        self.loop_stack.append(loop)
        try:
            self._decide_loop(loop, scope, enclosing, fn)
            return self.models[id(loop)]
        finally:
            self.loop_stack.pop()
            self.deciding_copy -= 1
            self.models, self.inner = models, inner

    # -- the function a loop is outlined to -------------------------------------------------

    def _outlined(self, loop: cst.For, helpers: Mapping[str, str]) -> OutlinedFunction:
        """What the passes before the split know of the function ``loop`` is outlined to
        (``helpers``: the module's functions' texts, for 01 InlineFunctions at a call)."""
        fn = self.functions[-1] if self.functions else None
        inline = helper_splicer(helpers)
        walked = self._outside_sides(fn, helpers, inline) if fn else None  # 21's sides before it
        outside = walked.before(loop) if walked else {}
        made_before = walked.moves_before(loop) if walked else frozenset()  # 17's moves
        # 08 OutlineIncoreScopes
        scope = outlined_scope(fn, loop, self.made, self._function_incore) if fn else None
        # 20 LowerAutoVectorSplit, 23 SplitVectorKernel
        copies = 2 if scope is not None and self._dual_aiv_dispatch(loop, scope) else 1
        return OutlinedFunction(
            outside,
            made_before,
            copies,
            (lambda: self._scope_multiplies(scope.node)) if scope else (lambda: False),
            self.made,
            self.positions.statement_code,
            inline,
        )

    def _outside_sides(
        self, fn: cst.FunctionDef, helpers: Mapping[str, str], inline: Splicer
    ) -> OutsideSides:
        """One walk of the function serves every loop in it, in every copy of it (the
        module's helpers are the same for each), under every build (the sides are read
        off the tree and the helpers' texts)."""
        key = (id(fn), self._function_incore)
        found = self.outside.get(key)
        if found is None:
            shared = (OutsideSides, fn, key[1], frozenset(helpers.items()))
            found = self.outside[key] = self.state.syntactic_fact(shared, lambda: OutsideSides(
                body_statements(fn.body), param_sides(fn), self.made, operand_moves, key[1], inline
            ))
        return found

    def _dual_aiv_dispatch(self, loop: cst.For, scope: OutlinedScope) -> bool:
        """Whether the compiler runs this loop's vector copy twice (once per loop).

        A loop spliced from an inline helper is outlined from the caller's scope: the
        caller's headers around the call count as well as the helper's around the loop.
        """
        known = self.dual_aiv.get(id(loop))
        if known is None:
            known = dual_aiv_dispatch(
                scope.headers, self._lane_regions(scope.node)
            ) and not any_split(self.call_headers)
            self.dual_aiv[id(loop)] = known
        return known

    def _scope_multiplies(self, scope: cst.CSTNode) -> bool:
        """One walk per outlined scope serves every loop in it."""
        found = self.syntax.multiplies.get(id(scope))
        if found is None:
            found = self.syntax.multiplies[id(scope)] = scope_multiplies(scope, self.made)
        return found

    def _lane_regions(self, scope: cst.CSTNode) -> bool:
        """Whether the scope opens a lane region; not walked when the unit names none."""
        if "split_aiv" not in self.unit.text:
            return False
        found = self.syntax.lane_regions.get(id(scope))
        if found is None:
            found = self.syntax.lane_regions[id(scope)] = opens_lane_regions(scope)
        return found


def _clones(skew: per_core.CoreSkew | None, loop: cst.For) -> SkewClones | None:
    """What the memory passes read of a core copy's skew: its depth, which half each
    matmul and each top-level statement of the loop's body is cloned into."""
    if skew is None:
        return None
    halves = per_core.statement_halves(body_statements(loop.body), skew.located)
    return SkewClones(skew.depth, skew.matmuls, statements=halves)


def _unroll_count_unknown(decision: Decision, unknowns: Sequence[str]) -> Decision:
    """The decision, unless a ``pl.unroll`` count in the body is only known when the module
    loads: then how many messages the body sends is not known either (SKW050)."""
    if not unknowns or decision.verdict == "error":
        return decision
    symbol = unknowns[0]
    return Decision(
        "unknown",
        "SKW050",
        f"a pl.unroll count depends on `{symbol}`, computed when the "
        "module loads, and it decides how many messages the body sends",
        dynamic_symbol=symbol,
    )


def _as_inner_skew(
    loop: cst.For,
    call: cst.Call,
    stmts: list[Stmt],
    decision: Decision,
    loop_var: str,
    iter_names: tuple[str, ...],
    body: Body,
) -> InnerSkew | None:
    """What a skewed loop splices into the body of a pipeline loop around it; None when
    the loop is not skewed (it is then an ordinary statement there)."""
    if decision.verdict != "skewed" or not decision.depth:
        return None
    init_reads: list[str] = []
    init = dsl.keyword(call, "init_values")
    if init is not None:
        init_reads = reads_of(init.value)
    return InnerSkew(
        loop,
        tuple(stmts),
        decision.produce,
        decision.consume,
        decision.depth,
        loop_var,
        iter_names,
        tuple(init_reads),
        body.yield_targets,
    )
