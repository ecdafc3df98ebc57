"""``analyze``: source text in, one ``LoopReport`` per ``pl.pipeline`` loop out.

Pure: no I/O (imported constants come through a caller-supplied resolver),
no LSP or CLI types. The module is indexed with the stdlib parser and only
the units holding loops are parsed with libcst, so the cost follows the loops.
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field, replace

import libcst as cst

from skewlsp.analysis.frontend import dsl, module_flow
from skewlsp.analysis.frontend.closures import (
    Closure,
    builder_calls,
    capture_locals,
    parameter_values,
    seen_inside,
)
from skewlsp.analysis.frontend.constants import Const, Folded, ModuleConstants
from skewlsp.analysis.frontend.dsl_checks import BodyChecks, check_body
from skewlsp.analysis.frontend.imports import Origin, imported_lookup
from skewlsp.analysis.frontend.jit_params import specialized_params
from skewlsp.analysis.frontend.names import (
    block_defs,
    body_statements,
    memoised_effects,
    reads_of,
    statement_defs,
)
from skewlsp.analysis.frontend.reads import ModuleRead, ReadLog
from skewlsp.analysis.frontend.scope import (
    EnclosingLoop,
    FunctionScope,
    flatten_top_level,
    function_params,
    is_incore_function,
    opens_incore_scope,
    tile_like_names,
    update_locals,
)
from skewlsp.analysis.frontend.source_index import (
    ModuleIndex,
    SyntaxProblem,
    Unit,
    build_exact_index,
    build_index,
    imported_module_index,
    is_inline_helper_unit,
    may_hold_pipeline_loops,
    parse_whole,
    syntax_problem,
)
from skewlsp.analysis.frontend.values import CallSiteValue, Interval, code_of, memoised_code
from skewlsp.analysis.passes.expand_mixed_kernel.move_reuse import operand_moves
from skewlsp.analysis.passes.header import bounds_of, loop_target, stage_of
from skewlsp.analysis.passes.inline_functions.call_sites import (
    CallSite,
    call_sites,
    is_inline_helper,
)
from skewlsp.analysis.passes.inline_functions.imported_helpers import (
    ImportedHelper,
    at_the_call,
    imported_helpers,
)
from skewlsp.analysis.passes.loop_body import (
    BodyContext,
    InnerSkew,
    Stmt,
    loop_bounds,
    normalise,
    resolve,
)
from skewlsp.analysis.report.advice import depth_hint
from skewlsp.analysis.report.assemble import at_call, loop_report, scalar_across
from skewlsp.analysis.report.coverage import unreported_loops
from skewlsp.analysis.reuse.unit_cache import SiteKey, UnitCache, UnitKey, context_fingerprint
from skewlsp.analysis.skew_cross_core_pipeline import per_core
from skewlsp.analysis.skew_cross_core_pipeline.decide import (
    Decision,
    LoopHeader,
    check_int64,
    decide,
)
from skewlsp.analysis.source.guard import TooDeep, check_parseable, describe
from skewlsp.analysis.source.positions import LoopPositions
from skewlsp.analysis.source.unit_parses import (
    NeedsConcreteTree,
    analysis_module,
    concrete_trees,
    helper_unit_parse,
    parse_or_none,
    share_module_tree,
    share_parsed_text,
    shared_unit_parses,
)
from skewlsp.analysis.source.walk import walk
from skewlsp.contract import (
    NOT_COMPILED,
    SYNTAX_ERROR,
    UNKNOWN,
    CoreResult,
    Importers,
    Instance,
    LoopReport,
    Resolver,
    Span,
)

MAX_PREVIEW_COPIES = 16  # pl.unroll copies of one loop rewritten one by one for its preview


def analyze(
    source: str,
    path: str | None = None,
    *,
    resolver: Resolver | None = None,
    cache: UnitCache | None = None,
    importers: Importers | None = None,
) -> list[LoopReport]:
    """Predict the SkewCrossCorePipeline verdict of every ``pl.pipeline`` loop in ``source``.

    With a ``cache``, functions whose text and surroundings did not change are not
    analysed again (what a language server wants on every keystroke). With
    ``importers``, an inline helper's loop is decided for each caller in the project's
    other modules too.
    """
    models = analyze_models(source, path, resolver=resolver, cache=cache, importers=importers)
    return [model.report for model in models]


@dataclass
class LoopModel:
    """A loop's report plus the internals a rewrite needs (the normalised body and its split)."""

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
    # One copy of several (a call of an inline helper, an iteration of a module-level
    # ``for``): the message before the copy's label was put in front of it.
    unlabelled_message: str | None = None


def analyze_models(
    source: str,
    path: str | None = None,
    *,
    resolver: Resolver | None = None,
    cache: UnitCache | None = None,
    importers: Importers | None = None,
) -> list[LoopModel]:
    """The reports plus, for units analysed now (not served from ``cache``), their models."""
    # A helper's callers are often units too (parsed once), and its body is walked again
    # at each call (each expression rendered once).
    with shared_unit_parses(), memoised_code():
        return _analyze_models(source, path, resolver, cache, importers)


def _analyze_models(
    source: str,
    path: str | None,
    resolver: Resolver | None,
    cache: UnitCache | None,
    importers: Importers | None = None,
) -> list[LoopModel]:
    if "pypto" not in source and "pipeline" not in source:  # "pypto" is in the imports: early
        return []
    if source.startswith("\ufeff"):
        source = source[1:]
    # A batch run checks the syntax of a file with loops as a whole anyway (below): parsed
    # first, the tree also gives the index its blocks and each unit its own tree (a
    # language server, with a cache, parses only the blocks and units an edit touched).
    whole: ast.Module | SyntaxProblem | None = None
    if cache is None and may_hold_pipeline_loops(source):
        whole = parse_whole(source)
    if cache is not None:
        index = cache.index(path, source)
    else:
        index = build_index(source, whole if isinstance(whole, ast.Module) else None)
    if index.syntax_problem is not None:
        return [LoopModel(_syntax_report(index.syntax_problem, path))]
    log = ReadLog(resolver) if cache is not None and resolver is not None else None
    if cache is None and whole is None and index.units and not index.known_to_parse:
        whole = parse_whole(source)  # a loop the text did not show (a renamed pipeline)
    if isinstance(whole, ast.Module) and index.units:
        share_module_tree(whole, source)
    if not index.units:  # no function holds a pipeline loop (nor mentions "pipeline")
        # Calls of imported inline helpers: only in a file that mentions "pipeline", as
        # the linter reads no other (so that the editor and CI agree).
        if not index.imported or "pipeline" not in source:
            return _never_silent(source, path, index, [])
        constants, _ = _module_context(index, path, log or resolver)
        return _never_silent(
            source, path, index, _imported_calls(index, path, log or resolver, constants)
        )
    constants, aliases = _module_context(index, path, log or resolver)
    fingerprint = context_fingerprint(index) if cache is not None else ""
    sites = SiteMemo(cache, log or resolver, fingerprint) if cache is not None else None
    # Python refuses the whole file for a syntax error anywhere (and so does the compiler
    # that imports it). A language server checks only the top-level blocks an edit
    # touched, before the units: the function edited is usually one of them, and its
    # stdlib tree serves that unit too.
    early: SyntaxProblem | None = None
    checked = False
    if cache is not None and whole is None and not index.known_to_parse:
        early = syntax_problem(source, cache.parsed_blocks, share_parsed_text)
        checked = True
    models: list[LoopModel] = []
    fresh: list[tuple[UnitKey, list[LoopModel]]] = []
    broken = False
    # An inline helper without a caller here whose verdict waits for one (SKW050).
    waiting: dict[str, list[LoopModel]] = {}
    for unit in index.units:
        # Texts up to comments: an edit that only types a comment is answered here.
        callers = tuple(c.cache_key for c in unit.callers)
        key = (path, *unit.cache_key, fingerprint, callers)
        cached = cache.get(key, log or resolver) if cache is not None else None
        if cached is not None:
            unit_models = [LoopModel(report) for report in cached]
        else:
            found = _analyse_unit(unit, path, aliases, constants, sites)
            if found is None:  # a syntax error in this unit, or the fast split was wrong
                broken = True
                continue
            unit_models = found
            fresh.append((key, unit_models))
        models.extend(unit_models)
        if (
            importers is not None
            and not unit.callers
            and is_inline_helper_unit(unit)
            and any(m.report.code == UNKNOWN for m in unit_models)
        ):
            waiting[unit.qualname] = unit_models
    if waiting and importers is not None:
        # Each call in another module decides its own copy: those copies replace the
        # one decided here with the parameters unknown.
        external = _external_calls(source, path, importers, log or resolver, waiting)
        for qualname in {name for name, _ in external}:
            dropped = {id(m) for m in waiting[qualname]}
            models = [m for m in models if id(m) not in dropped]
        models.extend(model for _, model in external)
    models.extend(_imported_calls(index, path, log or resolver, constants))
    if cache is not None:
        # Every read of this run: the module context is shared (and memoised) across
        # units, so a unit may depend on a module an earlier unit made us read.
        reads = log.record() if log is not None else frozenset()
        for key, unit_models in fresh:
            cache.put(key, tuple(model.report for model in unit_models), reads)
        if sites is not None:
            sites.store(reads)
    # The fast index parses only the blocks it needs, but Python refuses the whole file
    # for a syntax error anywhere (and so does the compiler that imports it): the loops
    # that parsed keep their verdicts, next to the error.
    problem = None
    if broken or not index.known_to_parse:
        if whole is not None:  # what syntax_problem(source) says, from the parse done above
            problem = whole if isinstance(whole, SyntaxProblem) else None
        elif checked:
            problem = early
        else:
            problem = syntax_problem(source, cache.parsed_blocks if cache is not None else None)
        index.known_to_parse = problem is None and not broken
    if problem is not None:
        models.append(LoopModel(_syntax_report(problem, path)))
    elif broken:  # the file is fine: the layout misled the fast split
        return _analyze_exact(source, path, resolver)
    return _never_silent(source, path, index, models)


def _never_silent(
    source: str, path: str | None, index: ModuleIndex, models: list[LoopModel]
) -> list[LoopModel]:
    """The models, plus an honest report for any pipeline loop the walk did not reach."""
    reported = {model.report.span.line for model in models}
    missed = unreported_loops(source, path, reported, index.pl_aliases | {"pl"})
    models.extend(LoopModel(report) for report in missed)
    models.sort(key=lambda m: (m.report.span.line, m.report.span.column))
    return models


def _syntax_report(problem: SyntaxProblem, path: str | None) -> LoopReport:
    """One SKW900 report at the position the stdlib parser gives."""
    span = Span(problem.line, problem.column, problem.line, problem.column + 1)
    message = f"syntax error: {problem.message}"  # the position is the span's, shown apart
    return LoopReport(path, span, span, "error", SYNTAX_ERROR, message)


def _module_context(
    index: ModuleIndex,
    path: str | None,
    resolver: Resolver | None,
    origin: Origin | None = None,
) -> tuple[ModuleConstants, dsl.Aliases]:
    """What every unit of a module sees: its constants (and imports), and its aliases.

    ``origin``: how the kernel at ``path`` imported this module (:mod:`.imports`).
    """
    constants = ModuleConstants(
        index.constant_sources,
        imported_lookup(index, path, resolver, origin=origin),
        classes=index.class_sources,
        functions=index.function_sources,
    )
    return constants, dsl.Aliases(index.pl_aliases, index.pipeline_names)


def _analyze_exact(source: str, path: str | None, resolver: Resolver | None) -> list[LoopModel]:
    """The slow, exact path: the whole module through the stdlib parser first."""
    index = build_exact_index(source)
    if index.syntax_problem is not None:
        return [LoopModel(_syntax_report(index.syntax_problem, path))]
    constants, aliases = _module_context(index, path, resolver)
    models: list[LoopModel] = _imported_calls(index, path, resolver, constants)
    for unit in index.units:
        unit_models = _analyse_unit(unit, path, aliases, constants)
        if unit_models is None:
            line = unit.line_offset + 1
            span = Span(line, 1, line, 2)
            message = "this function could not be parsed by libcst"
            unit_models = [LoopModel(LoopReport(path, span, span, "unknown", "SKW050", message))]
        models.extend(unit_models)
    return _never_silent(source, path, index, models)


def _imported_calls(
    index: ModuleIndex, path: str | None, resolver: Resolver | None, constants: ModuleConstants
) -> list[LoopModel]:
    """A report at each call of an imported inline helper: its loops, as spliced there."""
    models: list[LoopModel] = []
    for helper in imported_helpers(index, path, resolver):
        for model in _helper_copies(helper, path, resolver, constants):
            report = at_the_call(model.report, model.unlabelled_message, helper, path)
            if report is not None:
                models.append(LoopModel(report))
    return models


def _helper_copies(
    helper: ImportedHelper,
    path: str | None,
    resolver: Resolver | None,
    constants: ModuleConstants,
) -> list[LoopModel]:
    """The helper's loops as the calls in the module at ``path`` splice them (each copy
    labelled by its call): what the caller's module reports at each call and the helper's
    module at its loop; [] when the helper's module fails to analyse."""
    other, aliases = _module_context(helper.index, path, resolver, helper.origin)
    try:
        return (
            _run(
                lambda: _UnitAnalysis(
                    helper.unit, path, aliases, other, (constants, helper.name), helper_unit_parse
                )
            )
            or []
        )
    except Exception:  # the other module's problem is reported where it lives
        return []


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
            if isinstance(item, cst.BaseSuite):
                found.extend(body_statements(item))
            elif isinstance(item, cst.CSTNode):
                found.append(item)
    return found


_NO_NESTED_STATEMENTS = frozenset(
    {cst.SimpleStatementLine, cst.SimpleStatementSuite, cst.FunctionDef, cst.ClassDef}
)


def _run(analysis: Callable[[], _UnitAnalysis]) -> list[LoopModel] | None:
    """Run a unit's analysis on a made tree, or on libcst's when the made one cannot give
    what the analysis asks (the trees, and so the verdicts, are the same)."""
    try:
        return analysis().run()
    except NeedsConcreteTree:
        with concrete_trees():
            return analysis().run()


def _external_calls(
    source: str,
    path: str | None,
    importers: Importers,
    resolver: Resolver | None,
    helpers: Collection[str],
) -> list[tuple[str, LoopModel]]:
    """(helper, copy) for every call of ``helpers`` (inline helpers of this module) made in
    another module.

    Each caller is read as its own analysis reads it (its constants, its scopes around
    the call), so the copy here is the one reported at the call there; it is located at
    the helper's loop, named by its caller and that caller's file.
    """
    names = list(helpers)
    found: list[tuple[str, LoopModel]] = []
    for caller_path, caller_text in importers(path):
        if caller_path == path or not any(name in caller_text for name in names):
            continue
        caller = imported_module_index(caller_text)  # read only; one index per text
        if caller.syntax_problem is not None or not any(
            imported.name in names for imported in caller.imported.values()
        ):
            continue
        constants, _ = _module_context(caller, caller_path, resolver)
        for helper in imported_helpers(caller, caller_path, resolver, only=names):
            if helper.text != source:
                continue  # an import of another module
            for model in _helper_copies(helper, caller_path, resolver, constants):
                report, message = model.report, model.unlabelled_message
                if report.instance is None or message is None:
                    continue
                instance = replace(report.instance, call_path=caller_path)
                # The remark at the call belongs to the caller's file (its analysis makes it).
                own = tuple(h for h in report.hints if h.span != instance.call)
                report = replace(
                    report,
                    path=path,
                    message=f"{instance.label}: {message}",
                    instance=instance,
                    hints=own,
                )
                # The model stays: its tree is the helper's, in this file's coordinates,
                # so the copy has the preview its caller's values give it.
                found.append((helper.unit.qualname, replace(model, report=report)))
    return found


@dataclass
class SiteMemo:
    """The cache's copies of inline helpers at their calls, for one analysis of a module.

    A copy read from it is used as is; a copy decided now is kept once the analysis
    knows every module it read (:meth:`store`).
    """

    cache: UnitCache
    resolver: Resolver | None
    fingerprint: str
    fresh: list[tuple[SiteKey, tuple[LoopReport, ...]]] = field(default_factory=list)

    def get(self, key: SiteKey) -> tuple[LoopReport, ...] | None:
        return self.cache.get_site(key, self.resolver)

    def remember(self, key: SiteKey, reports: tuple[LoopReport, ...]) -> None:
        self.fresh.append((key, reports))

    def store(self, reads: frozenset[ModuleRead]) -> None:
        for key, reports in self.fresh:
            self.cache.put_site(key, reports, reads)


def _analyse_unit(
    unit: Unit,
    path: str | None,
    aliases: dsl.Aliases,
    constants: ModuleConstants,
    sites: SiteMemo | None = None,
) -> list[LoopModel] | None:
    """One unit's loops; None when libcst cannot parse it, other failures become reports."""
    # An inline helper is also analysed by each file that imports it: libcst's tree of it
    # (when a rewrite asks for libcst's trees) is kept.
    parse = helper_unit_parse if is_inline_helper_unit(unit) else None
    try:
        return _run(lambda: _UnitAnalysis(unit, path, aliases, constants, parse=parse, sites=sites))
    except RecursionError:
        reason = "the code is nested too deeply to analyse"
    except TooDeep as err:
        reason = str(err)
    except Exception as err:  # an analysis bug must not take the editor or CI down
        reason = f"internal error while analysing this function: {describe(err)}"
    line = unit.line_offset + (2 if unit.text.startswith("if 1:") else 1)
    span = Span(line, 1, line, 2)
    return [
        LoopModel(LoopReport(path, span, span, "unknown", "SKW050", reason, function=unit.qualname))
    ]


class _UnitAnalysis:
    def __init__(
        self,
        unit: Unit,
        path: str | None,
        aliases: dsl.Aliases,
        module: ModuleConstants,
        callers: tuple[ModuleConstants, str] | None = None,
        parse: Callable[[str], cst.Module | None] | None = None,
        sites: SiteMemo | None = None,
    ) -> None:
        self.unit = unit
        self.sites = sites  # copies of an inline helper decided by an earlier analysis
        self.parse = parse  # how libcst parses the unit when this analysis has not yet
        # An imported helper: its callers are in the importing module, with its constants,
        # and may call it by another name.
        self.caller_constants, self.called_as = callers or (module, None)
        self.path = path
        self.aliases = aliases
        self.module_constants = module
        self.models: dict[int, LoopModel] = {}
        self.inner: dict[int, InnerSkew | None] = {}
        self.functions: list[cst.FunctionDef] = []
        self.incore: list[bool] = []
        self.dual_aiv: dict[int, bool] = {}  # per function: no pl.split, so two AIV lanes
        # Per outlined scope (by node): whether it multiplies, whether it opens lane regions.
        self.multiplies: dict[int, bool] = {}
        self.lane_regions: dict[int, bool] = {}
        self.holds_pipeline_loops: dict[int, bool] = {}  # per statement (see _visit)
        # Per function (by id, while its tree lives): its parameters, the names it binds
        # and those bound to tiles.
        self.function_names: dict[int, tuple[frozenset[str], frozenset[str], frozenset[str]]] = {}
        self.bound_by_statement: dict[int, frozenset[str]] = {}  # per top-level compound statement
        self.body_checks: dict[int, BodyChecks] = {}  # per loop
        # Per function and whether its body is InCore (a helper's call sites differ only
        # there): the sides are syntactic, so one walk serves every copy decided apart.
        self.outside: dict[tuple[int, bool], per_core.OutsideSides] = {}
        # Per enclosing function: its locals as the DSL parser would capture them for a
        # program or function defined inside it (texts to fold, and names it cannot fold).
        self.closures: list[Closure] = []
        self.function_incore: list[bool] = []  # per function being walked: its body is InCore
        self.deciding_copy = 0  # >0 while a pl.unroll copy other than the first is decided

    def run(self) -> list[LoopModel] | None:
        tree = check_parseable(self.unit.text, self.unit.line_offset)
        if tree is None:
            return None
        module = analysis_module(self.unit.text, lambda: tree, self.parse or parse_or_none)
        if module is None:
            return None
        self.module = module
        self.positions = LoopPositions(
            module, tree.tree, self.unit.text, self.unit.line_offset, tree.shift
        )
        self.loop_stack: list[cst.For] = []
        # Models of loops decided once per iteration of a module-level ``for`` (set aside
        # as each iteration ends, so the next one decides the same nodes afresh).
        self.finished: list[LoopModel] = []
        self.module_bindings: tuple[tuple[str, str], ...] = ()  # module-level for variables
        # The builder being decided for one module-level call of it, with that call's arguments.
        self.builder: tuple[cst.FunctionDef, dict[str, cst.BaseExpression]] | None = None
        self.call_headers: tuple[cst.CSTNode, ...] = ()  # scope headers around a helper call
        with memoised_effects():
            for stmt in module.body:
                self._visit_top(stmt, qualname="")
        return [*self.finished, *self.models.values()]

    # -- walking ---------------------------------------------------------------------------

    def _visit_top(self, stmt: cst.CSTNode, qualname: str) -> None:
        if isinstance(stmt, cst.FunctionDef):
            self._function(stmt, qualname)
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
        header = module_flow.header_text(stmt)
        for is_body, block in branches:
            if taken is None or taken == is_body:
                for child in block:
                    self._visit_top(child, qualname)
                continue
            why = (
                f"the module-level `{header}` is false when the module loads"
                if is_body
                else f"the module-level `{header}` is true when the module loads, so its "
                "`else` branch never runs"
            )
            for child in block:
                self._not_compiled(child, why)

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
            why = f"the module-level `{module_flow.header_text(stmt)}` runs zero times"
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
                    self._decide_apart(lambda c=child: self._visit_top(c, qualname))
                    self.module_bindings = bound
        finally:
            self.module_constants, self.module_bindings = outer, bound

    def _decide_apart(
        self, visit: Callable[[], object], instance: Instance | None = None, helper: str = ""
    ) -> None:
        """Run ``visit`` with no loop decided yet and set its models aside, marked with the
        module-level bindings in force (the same nodes are decided once per iteration), or
        with ``instance``: a call of the inline ``helper``, also remarked at the call."""
        instance = instance or Instance(self.module_bindings)
        if instance.caller and self.module_bindings:
            instance = replace(instance, bindings=(*self.module_bindings, *instance.bindings))
        saved = self.models, self.inner, self.dual_aiv
        self.models, self.inner, self.dual_aiv = {}, {}, {}
        try:
            visit()
            for model in self.models.values():
                report = model.report
                hints = report.hints
                if instance.call is not None and report.verdict != "left":
                    # A helper loop left for LowerPipelineLoops is left at every call:
                    # only a cross-core verdict is worth a remark where the caller is.
                    hints = (*hints, at_call(report, instance.call, helper))
                model.unlabelled_message = report.message
                model.report = replace(
                    report,
                    instance=instance,
                    message=f"{instance.label}: {report.message}",
                    hints=hints,
                )
                self.finished.append(model)
        finally:
            self.models, self.inner, self.dual_aiv = saved

    def _not_compiled(self, stmt: cst.CSTNode, why: str) -> None:
        """Every pipeline loop under ``stmt``: never compiled, so no verdict (SKW070)."""
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
            report = LoopReport(
                self.path, span, call_span, "not_compiled", NOT_COMPILED, f"not compiled: {why}"
            )
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
                    (param, code_of(arguments.get(param) or p.default))
                    for param, p in function_params(fn)
                    if param in arguments or p.default is not None
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
            site
            for caller in self.unit.callers
            for site in call_sites(caller, fn, self.caller_constants, self.called_as)
        ]
        sites.sort(key=lambda site: (site.span.line, site.span.column))
        if not sites:
            why = (
                "each caller's argument is spliced in for it (InlineFunctions), and no "
                "caller of `{helper}` is in this file or in the files analysed with it"
            )
            unknown = {
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
        for site in sites:
            key = self._site_key(name, site)
            known = self.sites.get(key) if self.sites is not None and key is not None else None
            if known is not None:
                self.finished.extend(LoopModel(report) for report in known)
                continue
            before = len(self.finished)
            self.call_headers = site.headers
            self._decide_apart(
                lambda site=site: self._body(fn, name, site=site),
                Instance(site.shown, site.caller, site.span),
                helper=name,
            )
            if self.sites is not None and key is not None:
                self.sites.remember(key, tuple(m.report for m in self.finished[before:]))
        self.call_headers = ()

    def _site_key(self, name: str, site: CallSite) -> SiteKey | None:
        """Everything one copy of the helper is decided with, or None if it cannot be a key.

        The helper's own text and place, the module around it (its fingerprint, in the
        memo), and what the call gives it: its values, where it is (the copy's label and
        remark), whether it sits in an InCore scope and whether a header there splits.
        """
        if self.sites is None or self.caller_constants is not self.module_constants:
            return None  # an imported helper's copies: decided with another module's values
        key = (
            self.path,
            self.unit.text,
            self.unit.line_offset,
            self.sites.fingerprint,
            self.module_bindings,
            name,
            site.caller,
            site.span,
            tuple(sorted(site.values.items())),
            site.shown,
            site.incore,
            per_core.any_split(site.headers),
            tuple(sorted(site.specialized.items())),
        )
        try:
            hash(key)
        except TypeError:  # a value holding a mapping (a config record): decided every time
            return None
        return key

    def _body(
        self,
        fn: cst.FunctionDef,
        name: str,
        *,
        site: CallSite | None = None,
        call_site: dict[str, Folded] | None = None,
    ) -> None:
        names = self.function_names.get(id(fn))
        if names is None:  # (a helper's body is walked again at each of its calls)
            params = frozenset(n for n, _ in function_params(fn))
            dsl_names = frozenset(block_defs(body_statements(fn.body))) | params
            names = self.function_names[id(fn)] = (params, dsl_names, tile_like_names(fn))
        params, dsl_names, tiles = names
        base = FunctionScope(self.module_constants, params, dsl_names, tiles)
        base.specialized = specialized_params(fn, self.module_constants)
        env: dict[str, Folded] = dict(base.specialized)  # pl.jit literals, until rebound
        function_incore = is_incore_function(fn)
        if site is not None:  # the caller's arguments stand for the parameters
            base.specialized = {**base.specialized, **site.specialized}
            env = {**site.values, **base.specialized}
            function_incore = function_incore or site.incore
        if call_site is not None:  # a helper without callers: as spliced into an InCore scope
            base.call_site = call_site
            env.update(call_site)
            function_incore = True
        arguments = self.builder[1] if self.builder and self.builder[0] is fn else None
        self.closures.append(parameter_values(fn, name, arguments))
        self.function_incore.append(function_incore)
        try:
            for stmt, incore in flatten_top_level(body_statements(fn.body), function_incore):
                self.incore.append(incore)
                compound = not isinstance(
                    stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite)
                )
                poisoned = self.bound_by_statement.get(id(stmt)) if compound else frozenset()
                if poisoned is None:
                    poisoned = self.bound_by_statement[id(stmt)] = frozenset(statement_defs(stmt))
                scope = base.at(env, poisoned)
                self._visit(stmt, scope, [], name)
                self.incore.pop()
                update_locals(stmt, env, self.module_constants)
                capture_locals(stmt, *self.closures[-1])
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
        if kind is cst.FunctionDef or kind is cst.ClassDef:
            self._nested_definition(stmt, "" if fn == "<module>" else fn + ".")  # type: ignore[arg-type]
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
            self.incore.append(self._incore or opens_incore_scope(stmt, self._incore))
            for child in body_statements(stmt.body):
                self._visit(child, scope, inner, fn)
            self.incore.pop()
            return
        if isinstance(stmt, cst.If):
            for child in body_statements(stmt.body):
                self._visit(child, scope, enclosing, fn)
            if stmt.orelse is not None:
                self._visit(stmt.orelse, scope, enclosing, fn)
            return
        if isinstance(stmt, cst.Else):
            for child in body_statements(stmt.body):
                self._visit(child, scope, enclosing, fn)
            return
        if isinstance(stmt, (cst.While, cst.With, cst.Try)):
            self.incore.append(self._incore or opens_incore_scope(stmt, self._incore))
            for child in body_statements(stmt.body):
                self._visit(child, scope, enclosing, fn)
            self.incore.pop()
            return

    def _is_pipeline_loop(self, stmt: cst.For) -> bool:
        return isinstance(stmt.iter, cst.Call) and dsl.loop_kind(stmt.iter, self.aliases) in (
            "pipeline",
            "bare_pipeline",
        )

    def _holds_pipeline_loops(self, stmt: cst.CSTNode) -> bool:
        """Whether a pipeline loop is decided inside ``stmt`` with the loops around it (one
        in a function defined there is decided with that function's own)."""
        found = self.holds_pipeline_loops.get(id(stmt))
        if found is None:
            found = any(
                (type(child) is cst.For and self._is_pipeline_loop(child))  # type: ignore[arg-type]
                or self._holds_pipeline_loops(child)
                for child in _nested_statements(stmt)
            )
            self.holds_pipeline_loops[id(stmt)] = found
        return found

    def _nested_definition(self, stmt: cst.FunctionDef | cst.ClassDef, qualname: str) -> None:
        """A program, class or function defined inside a function (a builder, a closure).

        The DSL parser compiles it wherever Python defines it, seeing the enclosing
        function's locals as constants: its loops are decided like top-level ones.
        """
        outer = self.module_constants
        if self.closures:
            self.module_constants = outer.enclosed(*seen_inside(self.closures[-1]))
        try:
            if isinstance(stmt, cst.FunctionDef):
                self._function(stmt, qualname)
                return
            for child in body_statements(stmt.body):
                if isinstance(child, (cst.FunctionDef, cst.ClassDef)):
                    self._nested_definition(child, f"{qualname}{stmt.name.value}.")
        finally:
            self.module_constants = outer

    @property
    def _function_incore(self) -> bool:
        """Whether the body of the function being walked already runs in an InCore scope."""
        return bool(self.function_incore) and self.function_incore[-1]

    @property
    def _incore(self) -> bool:
        return bool(self.incore) and self.incore[-1]

    def _enclosing(
        self, loop: cst.For, scope: FunctionScope, enclosing: Sequence[EnclosingLoop]
    ) -> EnclosingLoop:
        var = loop.target.value if isinstance(loop.target, cst.Name) else ""
        if isinstance(loop.target, cst.Tuple) and loop.target.elements:
            first = loop.target.elements[0].value
            var = first.value if isinstance(first, cst.Name) else ""
        interval = None
        if isinstance(loop.iter, cst.Call):
            lookup = scope.bound_lookup(enclosing)
            ctx = BodyContext(lookup, {}, self.aliases, lambda n, c: None)
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
                    copies = tuple(values[:MAX_PREVIEW_COPIES + 1])
                    return EnclosingLoop(var, Interval(first, first), first, copies)
        return EnclosingLoop(var, interval)

    # -- one loop ------------------------------------------------------------------------------

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

    def _decide_loop(
        self, loop: cst.For, scope: FunctionScope, enclosing: list[EnclosingLoop], fn: str
    ) -> InnerSkew | None:
        key = id(loop)
        call = loop.iter
        assert isinstance(call, cst.Call)
        kind = dsl.loop_kind(call, self.aliases)
        lookup = scope.bound_lookup(enclosing)
        header_ctx = BodyContext(lookup, {}, self.aliases, lambda n, c: None)
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
        header = LoopHeader(stage, start, stop, step, iter_names, ())
        overflow = check_int64(header)
        if overflow:
            errors.append(overflow)
        checks = self.body_checks.get(id(loop))
        if checks is None:  # (a helper's loops are decided again at each of its calls)
            fn_around = self.functions[-1] if self.functions else None
            checks = self.body_checks[id(loop)] = check_body(loop, self.aliases, fn_around)
        errors.extend(checks.errors)

        ranges = {e.var: e.interval for e in enclosing if e.interval is not None}
        if isinstance(start, Const) and isinstance(stop, Const) and stop.value > start.value:
            ranges[loop_var] = Interval(start.value, stop.value - 1)
        inner_enclosing = [*enclosing, EnclosingLoop(loop_var, ranges.get(loop_var))]

        def decide_inner(node: cst.For, _ctx: BodyContext) -> InnerSkew | None:
            return self._decide(node, scope, inner_enclosing, fn)

        body_lookup = scope.bound_lookup(inner_enclosing)
        ctx = BodyContext(
            body_lookup,
            ranges,
            self.aliases,
            decide_inner,
            scope.tile_names,
            parse_time_lookup=scope.parse_time_lookup,
            may_message=checks.explicit_messages,
            nested_messages=checks.nested_messages,
        )
        self.models[key] = LoopModel(  # placeholder guards against re-entry
            LoopReport(self.path, self._span(loop), self._span(call), "unknown", "SKW050", "")
        )
        body = normalise(body_statements(loop.body), ctx)
        stmts = body.stmts
        resolve(stmts, iter_names)
        errors.extend(ctx.errors)
        header = LoopHeader(stage, start, stop, step, iter_names, tuple(errors))
        decision = decide(header, stmts)
        if ctx.unknowns and decision.verdict != "error":
            symbol = ctx.unknowns[0]
            decision = Decision(
                "unknown",
                "SKW050",
                f"a pl.unroll count depends on `{symbol}`, computed when the "
                "module loads, and it decides how many messages the body sends",
                dynamic_symbol=symbol,
            )
        cores: tuple[CoreResult, ...] = ()
        across: tuple[per_core.ScalarAcross, ...] = ()
        if (
            self._incore
            and not ctx.unknowns
            and not checks.explicit_messages
            and not header.errors
        ):
            live_out = (*iter_names, *body.yield_reads)
            nested = per_core.NestedPipelines(
                lambda decider: normalise(
                    body_statements(loop.body),
                    replace(ctx, decide_inner=decider, errors=[], unknowns=[]),
                ).stmts,
                self.inner.get,
                lambda node: self.models[id(node)].report.cores if id(node) in self.models else (),
            )
            split = self._per_core(loop, stmts, header, live_out, nested)
            cores = split.cores
            across = split.scalars_across
            if split.summary is not None:
                decision = split.summary
                stmts = split.stmts
        report = loop_report(
            self.path, self._span, loop, call, fn, loop_var, decision, stmts,
            stage_span, stage_value,
        )
        if cores:
            report = replace(report, cores=cores)
        if across:
            found = tuple(scalar_across(item, self._span) for item in across)
            report = replace(report, hints=(*report.hints, *found))
        if decision.code == "SKW002" and decision.trip and decision.requested_depth:
            report = replace(
                report, fix_hint=depth_hint(decision.trip, decision.requested_depth, call)
            )
        model = LoopModel(
            report, loop, self.unit, self.module, stmts, decision, iter_names, body.yield_node
        )
        model.inner = [
            self.models[id(stmt.node)]
            for stmt in stmts
            if stmt.origin == "steady" and id(stmt.node) in self.models
        ]
        self.models[key] = model
        if not self.deciding_copy:
            model.copies = self._unrolled_copies(loop, scope, enclosing, fn, model)
        inner: InnerSkew | None = None
        if decision.verdict == "skewed" and decision.depth:
            init_reads: list[str] = []
            init = dsl.keyword(call, "init_values")
            if init is not None:
                init_reads = reads_of(init.value)
            inner = InnerSkew(
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
        self.inner[key] = inner
        return inner

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

    def _per_core(
        self,
        loop: cst.For,
        stmts: list[Stmt],
        header: LoopHeader,
        live_out: Sequence[str],
        nested: per_core.NestedPipelines,
    ) -> per_core.PerCore:
        """Per-core verdicts (the model lives in ``mixed``; this only supplies the context)."""
        fn = self.functions[-1] if self.functions else None
        walked = self._outside_sides(fn) if fn else None
        outside = walked.before(loop) if walked else {}
        made_before = walked.moves_before(loop) if walked else frozenset()
        scope = per_core.outlined_scope(fn, loop, self._function_incore) if fn else None
        copies = 2 if scope is not None and self._dual_aiv_dispatch(loop, scope) else 1
        return per_core.per_core(
            stmts,
            header,
            live_out,
            outside,
            copies,
            nested,
            self.positions.statement_code,
            made_before,
            (lambda: self._scope_multiplies(scope.node)) if scope else (lambda: False),
        )

    def _outside_sides(self, fn: cst.FunctionDef) -> per_core.OutsideSides:
        """One walk of the function serves every loop in it, in every copy of it."""
        key = (id(fn), self._function_incore)
        found = self.outside.get(key)
        if found is None:
            found = self.outside[key] = per_core.OutsideSides(
                body_statements(fn.body),
                per_core.param_sides(fn),
                operand_moves,
                self._function_incore,
            )
        return found

    def _dual_aiv_dispatch(self, loop: cst.For, scope: per_core.OutlinedScope) -> bool:
        """Whether the compiler runs this loop's vector copy twice (once per loop).

        A loop spliced from an inline helper is outlined from the caller's scope: the
        caller's headers around the call count as well as the helper's around the loop.
        """
        known = self.dual_aiv.get(id(loop))
        if known is None:
            known = per_core.dual_aiv_dispatch(
                scope, self._lane_regions(scope.node)
            ) and not per_core.any_split(self.call_headers)
            self.dual_aiv[id(loop)] = known
        return known

    def _scope_multiplies(self, scope: cst.CSTNode) -> bool:
        """One walk per outlined scope serves every loop in it."""
        found = self.multiplies.get(id(scope))
        if found is None:
            found = self.multiplies[id(scope)] = per_core.scope_multiplies(scope)
        return found

    def _lane_regions(self, scope: cst.CSTNode) -> bool:
        """Whether the scope opens a lane region; not walked when the unit names none."""
        if "split_aiv" not in self.unit.text:
            return False
        found = self.lane_regions.get(id(scope))
        if found is None:
            found = self.lane_regions[id(scope)] = per_core.opens_lane_regions(scope)
        return found

