"""The walk over one unit: where its ``pl.pipeline`` loops are, and what the compiler
sees around each.

A unit is a slice of the module (:class:`~skewlsp.analysis.frontend.source_index.Unit`)
holding loops. The walk follows what pypto's frontend compiles and when: top-level
statements and the module-level ``if``/``for`` around programs (``frontend.module_flow``),
functions and their scopes (``frontend.scope``), builder functions once per
module-level call, programs and functions defined inside a function with its locals
captured (``frontend.closures``), and ``@pl.jit.inline`` helpers once per call site, as
InlineFunctions splices them (``passes.inline_functions``). At each pipeline loop it
hands over to :class:`.loop_decision.LoopDecisions`, which decides that loop.

Apart from the loop's decision because this is about where loops are and what surrounds
them; the two share their state through the subclass.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import replace

import libcst as cst

from skewlsp.analysis.driver.call_context import CallContexts, CallerLoop, CallerWalk
from skewlsp.analysis.driver.loop_decision import MAX_PREVIEW_COPIES, LoopDecisions, LoopModel
from skewlsp.analysis.driver.lowered import lowered_models
from skewlsp.analysis.driver.site_memo import SiteMemo
from skewlsp.analysis.driver.walk_facts import walk_facts
from skewlsp.analysis.frontend import dsl, module_flow
from skewlsp.analysis.frontend.closures import (
    Closure,
    builder_calls,
    capture_locals,
    parameter_values,
    seen_inside,
)
from skewlsp.analysis.frontend.constants import Const, Folded, ModuleConstants
from skewlsp.analysis.frontend.jit_params import specialized_params
from skewlsp.analysis.frontend.names import body_statements, reads_of
from skewlsp.analysis.frontend.scope import (
    EnclosingLoop,
    FunctionScope,
    flatten_top_level,
    function_params,
    is_incore_function,
    opens_incore_scope,
    update_locals,
)
from skewlsp.analysis.frontend.source_index import Unit
from skewlsp.analysis.frontend.state import AnalysisState
from skewlsp.analysis.frontend.values import CallSiteValue, Interval, code_of
from skewlsp.analysis.lower_pipeline.lowering import Enclosing, own_lowering
from skewlsp.analysis.passes.body import BodyContext, loop_bounds
from skewlsp.analysis.passes.inline_functions.call_sites import (
    CallSite,
    call_sites,
    is_inline_helper,
)
from skewlsp.analysis.passes.simplify import folded_branches
from skewlsp.analysis.report.assemble import not_compiled_report
from skewlsp.analysis.reuse.unit_cache import SiteKey
from skewlsp.analysis.source.guard import check_parseable
from skewlsp.analysis.source.positions import LoopPositions
from skewlsp.analysis.source.unit_parses import NeedsConcreteTree
from skewlsp.analysis.source.walk import walk
from skewlsp.contract import Instance


class UnitWalk(LoopDecisions):
    """One unit's walk: :meth:`run` gives the models of its loops."""

    def __init__(
        self,
        unit: Unit,
        path: str | None,
        aliases: dsl.Aliases,
        module: ModuleConstants,
        state: AnalysisState,
        callers: tuple[ModuleConstants, dsl.Aliases, str] | None = None,
        sites: SiteMemo | None = None,
    ) -> None:
        super().__init__(unit, path, aliases, state)
        self.sites = sites  # copies of an inline helper decided by an earlier analysis
        # An imported helper: its callers are in the importing module, with its constants
        # and aliases, and may call it by another name.
        self.called_as: str | None
        self.caller_constants, caller_aliases, self.called_as = callers or (module, aliases, None)
        walk = _caller_walk(path, self.caller_constants, caller_aliases)
        self.calls = CallContexts(state, self.caller_constants, caller_aliases, walk)
        self.module_constants = module
        # Per enclosing function: its locals as the DSL parser would capture them for a
        # program or function defined inside it (texts to fold, and names it cannot fold).
        self.closures: list[Closure] = []
        # Models of loops decided once per iteration of a module-level ``for`` (set aside
        # as each iteration ends, so the next one decides the same nodes afresh).
        self.finished: list[LoopModel] = []
        self.module_bindings: tuple[tuple[str, str], ...] = ()  # module-level for variables
        # The builder being decided for one module-level call of it, with that call's arguments.
        self.builder: tuple[cst.FunctionDef, dict[str, cst.BaseExpression]] | None = None

    def run(self) -> list[LoopModel] | None:
        """The unit's models; None when libcst cannot parse it (a syntax error in it)."""
        tree = check_parseable(self.unit.text, self.state.parses, self.unit.line_offset)
        if tree is None:
            return None
        module = self.state.analysis_module(self.unit.text, lambda: tree)
        if module is None:
            return None
        self.module = module
        self.syntax = walk_facts(self.state, module, self.aliases)  # (every walk's of it)
        self.programs = module_flow.program_definitions(module, self.module_constants)
        self.positions = LoopPositions(
            module,
            tree.tree,
            self.unit.text,
            self.unit.line_offset,
            tree.shift,
            made=self.made.holds(module),
        )
        for stmt in module.body:
            self._visit_top(stmt, qualname="")
        # Then the lowering passes, while the loops' trees are at hand (``.lowered``).
        return lowered_models([*self.finished, *self.models.values()], self.state.planner)

    # -- walking ---------------------------------------------------------------------------

    def _visit_top(self, stmt: cst.CSTNode, qualname: str) -> None:
        if isinstance(stmt, cst.FunctionDef):
            self._function(stmt, qualname)
        elif isinstance(stmt, cst.ClassDef) and self._shadowed(stmt, qualname):
            self._not_compiled(stmt, module_flow.shadowed_reason(stmt.name.value))
        elif isinstance(stmt, cst.ClassDef):
            for child in body_statements(stmt.body):
                self._visit_top(child, f"{qualname}{stmt.name.value}.")
        elif isinstance(stmt, cst.If) and not qualname and self.unit.text.startswith("if 1:"):
            for child in body_statements(stmt.body):
                self._visit_top(child, qualname)
        elif isinstance(stmt, cst.If) and not self.functions:
            self._module_if(stmt, qualname)
        elif isinstance(stmt, cst.For) and not self.functions:
            self._module_for(stmt, qualname)
        else:
            scope = FunctionScope(self.module_constants, frozenset(), frozenset(), frozenset())
            self._visit(stmt, scope, [], qualname or "<module>")

    # -- module-level Python around programs (module_flow) ---------------------------------

    def _module_if(self, stmt: cst.If, qualname: str) -> None:
        """Only the branch Python takes when the module loads is ever compiled."""
        taken = module_flow.branch_taken(stmt.test, self.module_constants)
        branches: list[tuple[bool, list[cst.CSTNode]]] = [(True, list(body_statements(stmt.body)))]
        if isinstance(stmt.orelse, cst.If):
            branches.append((False, [stmt.orelse]))
        elif isinstance(stmt.orelse, cst.Else):
            branches.append((False, list(body_statements(stmt.orelse.body))))
        header = module_flow.header_text(stmt, self.made)
        for is_body, block in branches:
            if taken is None or taken == is_body:
                for child in block:
                    self._visit_top(child, qualname)
                continue
            # The first of several same-named programs is the one the compiler parses,
            # whichever branch defines the class Python runs (module_flow).
            compiled = [child for child in block if self._compiled_first(child, qualname)]
            for child in compiled:
                self._visit_top(child, qualname)
            block = [child for child in block if child not in compiled]
            why = (
                f"the module-level `{header}` is false when the module loads"
                if is_body
                else f"the module-level `{header}` is true when the module loads, so its "
                "`else` branch never runs"
            )
            for child in block:
                self._not_compiled(child, why)

    def _shadowed(self, stmt: cst.ClassDef, qualname: str) -> bool:
        """A later top-level definition of a program class: never compiled."""
        found = None if qualname else self.programs.get(stmt.name.value)
        return found is not None and stmt is not found.nodes[0]

    def _compiled_first(self, stmt: cst.CSTNode, qualname: str) -> bool:
        """The first definition of a program class in a branch Python skips, compiled
        because a later definition of the same name runs."""
        if qualname or not isinstance(stmt, cst.ClassDef):
            return False
        found = self.programs.get(stmt.name.value)
        return found is not None and stmt is found.nodes[0] and found.defined is True

    def _module_for(self, stmt: cst.For, qualname: str) -> None:
        """A program built in a module-level ``for`` is compiled once per iteration.

        ``@pl.program`` and ``@pl.function`` parse when Python defines them, with the
        module's values at that moment; a ``@pl.jit`` kernel is specialized when it is
        first called, with the module's values then: the loop has finished, so its
        variable holds the last iteration's value.
        """
        passes = module_flow.iterations(stmt, self.module_constants)
        if passes is None:  # not evaluable: analysed once, its variable unknown
            scope = FunctionScope(self.module_constants, frozenset(), frozenset(), frozenset())
            self._visit(stmt, scope, [], qualname or "<module>")
            return
        if not passes:
            why = f"the module-level `{module_flow.header_text(stmt, self.made)}` runs zero times"
            for child in body_statements(stmt.body):
                self._not_compiled(child, why)
            return
        outer, bound = self.module_constants, self.module_bindings
        try:
            for child in body_statements(stmt.body):
                late = module_flow.compiled_when_called(child)
                for one in passes[-1:] if late else passes:
                    self.module_constants = outer.enclosed({}, one.values)
                    if late or len(passes) == 1:  # one program: one verdict, as if written out
                        self._visit_top(child, qualname)
                        continue
                    self.module_bindings = (*bound, *one.shown)
                    self._decide_apart(functools.partial(self._visit_top, child, qualname))
                    self.module_bindings = bound
        finally:
            self.module_constants, self.module_bindings = outer, bound

    def _decide_apart(
        self, visit: Callable[[], object], instance: Instance | None = None, helper: str = ""
    ) -> None:
        """Run ``visit`` with no loop decided yet and set its models aside, marked with the
        module-level bindings in force (the same nodes are decided once per iteration), or
        with ``instance``: a call of the inline ``helper``, also remarked at the call.

        The walk hands the copy's identity to each loop's report as it is put together
        (``report.assemble``: :meth:`_copy_of`), never edits a report afterwards."""
        instance = instance or Instance(self.module_bindings)
        if instance.caller and self.module_bindings:
            instance = replace(instance, bindings=(*self.module_bindings, *instance.bindings))
        saved = self.models, self.inner, self.dual_aiv, self.copy
        self.models, self.inner, self.dual_aiv = {}, {}, {}
        self.copy = (instance, helper)
        try:
            visit()
            self.finished.extend(self.models.values())
        finally:
            self.models, self.inner, self.dual_aiv, self.copy = saved

    def _not_compiled(self, stmt: cst.CSTNode, why: str) -> None:
        """Every pipeline loop under ``stmt``: never compiled, so no verdict (SKW070); one in
        a function is a copy of the function's (an inline helper's at each call)."""
        for node in walk(stmt):
            if not (
                isinstance(node, cst.For)
                and isinstance(node.iter, cst.Call)
                and dsl.loop_kind(node.iter, self.aliases) in ("pipeline", "bare_pipeline")
            ):
                continue
            self.loop_stack.append(node)
            try:
                span, call_span = self._span(node), self._span(node.iter)
            finally:
                self.loop_stack.pop()
            # (in a function: of the copy decided apart, if the walk is deciding one)
            instance, helper = self._copy_of(None) if self.functions else (None, "")
            report = not_compiled_report(self.path, span, call_span, why, instance, helper)
            if self.functions:
                self.models[id(node)] = LoopModel(report)
            else:
                self.finished.append(LoopModel(report))

    def _function(self, fn: cst.FunctionDef, qualname: str) -> None:
        self.functions.append(fn)
        try:
            self._function_body(fn, qualname)
        finally:
            self.functions.pop()

    def _function_body(self, fn: cst.FunctionDef, qualname: str) -> None:
        name = f"{qualname}{fn.name.value}"
        if not qualname and "." in self.unit.qualname and self.unit.text.startswith("if 1:"):
            name = f"{self.unit.qualname.rsplit('.', 1)[0]}.{fn.name.value}"
        if len(self.functions) == 1 and not qualname and is_inline_helper(fn):
            self._inline_helper(fn, name)
            return
        if len(self.functions) == 1 and not qualname and not fn.decorators:
            calls = builder_calls(fn, self.module_constants.sources)
            nested = (cst.ClassDef, cst.FunctionDef)
            if calls and any(isinstance(n, nested) for n in walk(fn.body)):
                self._builder(fn, name, calls)
                return
        self._body(fn, name)

    def _builder(
        self, fn: cst.FunctionDef, name: str, calls: list[dict[str, cst.BaseExpression]]
    ) -> None:
        """The programs a builder defines are built once per module-level call of it, each
        with that call's arguments (and the defaults of the others): one verdict per call."""
        bound = self.module_bindings
        try:
            for arguments in calls:
                self.builder = (fn, arguments)
                if len(calls) == 1:  # one program: one verdict, as if written out
                    self._body(fn, name)
                    continue
                shown = tuple(
                    (param, code_of(given, self.made))
                    for param, p in function_params(fn)
                    if (given := arguments.get(param) or p.default) is not None
                )
                self.module_bindings = (*bound, *shown)
                self._decide_apart(lambda: self._body(fn, name))
                self.module_bindings = bound
        finally:
            self.builder, self.module_bindings = None, bound

    # -- @pl.jit.inline helpers, decided per call site (callsites) ---------------------------

    def _inline_helper(self, fn: cst.FunctionDef, name: str) -> None:
        """Each call splices its own copy of the helper: one verdict per call site."""
        sites = [
            (caller, site)
            for caller in self.unit.callers
            for site in call_sites(caller, fn, self.caller_constants, self.state, self.called_as)
        ]
        sites.sort(key=lambda found: (found[1].span.line, found[1].span.column))
        if not sites:
            why = (
                "each caller's argument is spliced in for it (InlineFunctions), and no "
                "caller of `{helper}` is in this file or in the files analysed with it"
            )
            unknown: dict[str, Folded] = {
                param: CallSiteValue(
                    param,
                    f"`{param}` is a parameter of the inline helper `{name}`: "
                    + why.format(helper=name),
                )
                for param, p in function_params(fn)
                if not dsl.annotation_kind(p.annotation)
            }
            self._body(fn, name, call_site=unknown)
            return
        for caller, site in sites:
            # The loops around the call hold the copy (InlineFunctions runs first).
            outside = self.calls.around(caller, site.span, site.headers)
            key = self._site_key(name, site, outside)
            known = self.sites.get(key) if self.sites is not None and key is not None else None
            if known is not None:
                self.finished.extend(
                    LoopModel(report, facts=facts, lowered=lowered)
                    for report, facts, lowered in known
                )
                continue
            before = len(self.finished)
            self.call_headers, self.call_caller = site.headers, site.caller
            depth = self.state.build.open()  # what this copy reads of the assumed build
            try:
                self._decide_apart(
                    functools.partial(self._body, fn, name, site=site),
                    Instance(site.shown, site.caller, site.span),
                    helper=name,
                )
            finally:
                assumed = self.state.build.close(depth)
            # Lowered now, in the loops around its call (and so kept: a copy read back
            # has no tree for LowerPipelineToSlots).
            copy = lowered_models(self.finished[before:], self.state.planner, outside)
            self.finished[before:] = copy
            if self.sites is not None and key is not None:
                loops = tuple((m.report, m.facts, m.lowered) for m in copy)
                self.sites.remember(key, loops, assumed)
        self.call_headers, self.call_caller = (), None

    def _site_key(self, name: str, site: CallSite, outside: Enclosing) -> SiteKey | None:
        """Everything one copy of the helper is decided with (:meth:`.SiteMemo.key`), or None
        if it cannot be a key."""
        if self.sites is None or self.caller_constants is not self.module_constants:
            return None  # an imported helper's copies: decided with another module's values
        return self.sites.key(self.path, self.unit, self.module_bindings, name, site, outside)

    def _body(
        self,
        fn: cst.FunctionDef,
        name: str,
        *,
        site: CallSite | None = None,
        call_site: dict[str, Folded] | None = None,
    ) -> None:
        # (a helper's body is walked again at each of its calls)
        params, dsl_names, tiles = self.state.function_names(fn)
        base = FunctionScope(self.module_constants, params, dsl_names, tiles)
        base.specialized = specialized_params(fn, self.module_constants, self.made)
        env: dict[str, Folded] = dict(base.specialized)  # pl.jit literals, until rebound
        function_incore = is_incore_function(fn, self.made)
        inlined_in = None
        if site is not None:  # the caller's arguments stand for the parameters
            base.specialized = {**base.specialized, **site.specialized}
            env = {**site.values, **base.specialized}
            function_incore = function_incore or site.incore
            inlined_in = site.caller if site.nested else None
        if call_site is not None:  # a helper without callers: as spliced into an InCore scope
            base.call_site = call_site
            env.update(call_site)
            function_incore = True
        arguments = self.builder[1] if self.builder and self.builder[0] is fn else None
        self.closures.append(parameter_values(fn, name, arguments))
        self.function_incore.append(function_incore)
        try:
            top_level = flatten_top_level(body_statements(fn.body), self.made, function_incore)
            for stmt, incore in top_level:
                self.incore.append(incore)
                compound = not isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite))
                bound = self.state.statement_binds(stmt) if compound else ([], frozenset())
                scope = base.at(env, bound[1])
                self._visit(stmt, scope, [], name)
                self.incore.pop()
                # (the names are read off the statement once: a kernel's top-level scope
                # statement is most of its body)
                update_locals(stmt, env, self.module_constants, inlined_in, bound[0])
                capture_locals(stmt, *self.closures[-1], bound[0])
        finally:
            self.closures.pop()
            self.function_incore.pop()

    def _visit(
        self, stmt: cst.CSTNode, scope: FunctionScope, enclosing: list[EnclosingLoop], fn: str
    ) -> None:
        # (exact types, none of which has subclasses: an ABC's failed isinstance is a
        # Python call, and most statements are simple lines that fail every one)
        kind = type(stmt)
        if kind is cst.SimpleStatementLine or kind is cst.SimpleStatementSuite:
            return
        if type(stmt) is cst.FunctionDef or type(stmt) is cst.ClassDef:
            self._nested_definition(stmt, "" if fn == "<module>" else fn + ".")
            return
        if isinstance(stmt, cst.For):
            if self._is_pipeline_loop(stmt):
                self._decide(stmt, scope, enclosing, fn)
            # (what a loop around pipeline loops bounds its variable to: only they ask,
            # and folding the bounds of every inner loop was a thirtieth of a cold run)
            inner = (
                [*enclosing, self._enclosing(stmt, scope, enclosing)]
                if self._holds_pipeline_loops(stmt)
                else enclosing
            )
            self.incore.append(self._incore or opens_incore_scope(stmt, self.made, self._incore))
            for child in body_statements(stmt.body):
                self._visit(child, scope, inner, fn)
            self.incore.pop()
            return
        if isinstance(stmt, cst.If):
            both = [*body_statements(stmt.body), *([stmt.orelse] if stmt.orelse else [])]
            kept, removed, why = self._folded(stmt, scope, enclosing) or (both, [], "")
            for child in kept:
                self._visit(child, scope, enclosing, fn)
            for child in removed:
                self._not_compiled(child, why)
            return
        if isinstance(stmt, cst.Else):
            for child in body_statements(stmt.body):
                self._visit(child, scope, enclosing, fn)
            return
        if isinstance(stmt, (cst.While, cst.With, cst.Try)):
            self.incore.append(self._incore or opens_incore_scope(stmt, self.made, self._incore))
            for child in body_statements(stmt.body):
                self._visit(child, scope, enclosing, fn)
            self.incore.pop()
            return

    def _folded(
        self, stmt: cst.If, scope: FunctionScope, enclosing: list[EnclosingLoop]
    ) -> tuple[list[cst.CSTNode], list[cst.CSTNode], str] | None:
        """What Simplify removes of an ``if`` around pipeline loops (a ``pl.unroll`` copy's own)."""
        if not self._holds_pipeline_loops(stmt) or any(
            loop.var in reads_of(stmt.test) for loop in enclosing if loop.unrolled is not None
        ):
            return None
        ranges = {loop.var: loop.interval for loop in enclosing if loop.interval is not None}
        return folded_branches(stmt, ranges, scope.bound_lookup(enclosing), self.made)

    def _is_pipeline_loop(self, stmt: cst.For) -> bool:
        return isinstance(stmt.iter, cst.Call) and dsl.loop_kind(stmt.iter, self.aliases) in (
            "pipeline",
            "bare_pipeline",
        )

    def _holds_pipeline_loops(self, stmt: cst.CSTNode) -> bool:
        """Whether a pipeline loop is decided inside ``stmt`` with the loops around it (one
        in a function defined there is decided with that function's own)."""
        found = self.syntax.holds_pipeline_loops.get(id(stmt))
        if found is None:
            found = any(
                (type(child) is cst.For and self._is_pipeline_loop(child))
                or self._holds_pipeline_loops(child)
                for child in _nested_statements(stmt)
            )
            self.syntax.holds_pipeline_loops[id(stmt)] = found
        return found

    def _nested_definition(self, stmt: cst.FunctionDef | cst.ClassDef, qualname: str) -> None:
        """A program, class or function defined inside a function (a builder, a closure).

        The DSL parser compiles it wherever Python defines it, seeing the enclosing
        function's locals as constants: its loops are decided like top-level ones.
        """
        outer = self.module_constants
        if self.closures:
            self.module_constants = outer.enclosed(*seen_inside(self.closures[-1], self.made))
        try:
            if isinstance(stmt, cst.FunctionDef):
                self._function(stmt, qualname)
                return
            for child in body_statements(stmt.body):
                if isinstance(child, (cst.FunctionDef, cst.ClassDef)):
                    self._nested_definition(child, f"{qualname}{stmt.name.value}.")
        finally:
            self.module_constants = outer

    def _enclosing(
        self, loop: cst.For, scope: FunctionScope, enclosing: Sequence[EnclosingLoop]
    ) -> EnclosingLoop:
        var = loop.target.value if isinstance(loop.target, cst.Name) else ""
        if isinstance(loop.target, cst.Tuple) and loop.target.elements:
            element = loop.target.elements[0].value
            var = element.value if isinstance(element, cst.Name) else ""
        interval = None
        if isinstance(loop.iter, cst.Call):
            lookup = scope.bound_lookup(enclosing)
            ctx = BodyContext(lookup, {}, self.aliases, lambda n, c: None, self.made)
            bounds = loop_bounds(loop.iter, ctx)
            if (
                bounds is not None
                and isinstance(bounds[0], Const)
                and isinstance(bounds[1], Const)
                and bounds[1].value > bounds[0].value
            ):
                interval = Interval(bounds[0].value, bounds[1].value - 1)
                if dsl.loop_kind(loop.iter, self.aliases) == "unroll":
                    first = bounds[0].value
                    step = bounds[2].value if isinstance(bounds[2], Const) else 1
                    values = range(first, bounds[1].value, step or 1)
                    copies = tuple(values[: MAX_PREVIEW_COPIES + 1])
                    return EnclosingLoop(var, Interval(first, first), first, copies)
        return EnclosingLoop(var, interval)


_BLOCK_FIELDS = ("body", "orelse", "handlers", "finalbody", "cases")


def _nested_statements(stmt: cst.CSTNode) -> list[cst.CSTNode]:
    """What sits directly in ``stmt``'s blocks, all of them (``else``, ``except``,
    ``finally`` and ``elif`` parts as nodes of their own): none for a simple line, nor
    for a function or class defined there."""
    kind = type(stmt)
    if kind in _NO_NESTED_STATEMENTS:
        return []
    found: list[cst.CSTNode] = []
    for name in _BLOCK_FIELDS:
        part = getattr(stmt, name, None)
        for item in part if isinstance(part, (list, tuple)) else (part,):
            if type(item) is cst.IndentedBlock or type(item) is cst.SimpleStatementSuite:
                found.extend(body_statements(item))
            elif isinstance(item, cst.CSTNode):
                found.append(item)
    return found


_NO_NESTED_STATEMENTS = frozenset(
    {cst.SimpleStatementLine, cst.SimpleStatementSuite, cst.FunctionDef, cst.ClassDef}
)


def _caller_walk(
    path: str | None, constants: ModuleConstants, aliases: dsl.Aliases
) -> CallerWalk:
    """The loops of a caller of a unit's helper as the caller's own walk leaves them
    (report and own lowering), in the caller's module (``constants``, ``aliases``). Not a
    method of the helper's walk, which holds it: that reference cycle kept every tree of
    the analysis alive until the garbage collector came (tests/analysis/driver/test_analyze.py)."""

    def walk_caller(caller: Unit, state: AnalysisState) -> list[CallerLoop] | None:
        def walk(state: AnalysisState) -> list[LoopModel] | None:
            return UnitWalk(caller, path, aliases, constants, state).run()

        try:
            try:
                models = walk(state)
            except NeedsConcreteTree:
                models = walk(state.with_concrete_trees())
        except Exception:  # the caller's own analysis reports what is wrong there
            return None
        return [(model.report, own_lowering(model.lowered)) for model in models or ()]

    return walk_caller
