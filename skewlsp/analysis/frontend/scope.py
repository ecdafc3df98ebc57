"""What a loop header can see: constants, locals, parameters and enclosing loops.

The compiler resolves a name in a loop bound in three tiers: module constants
(and closure values) are folded when the kernel is parsed, locals assigned a
constant at the top level of the function are folded by Simplify, and
everything else — parameters, loop variables, locals assigned inside a branch
or loop — stays dynamic. ``stage`` is stricter: only the first tier counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import libcst as cst

from skewlsp.analysis.frontend.constants import (
    Const,
    Dynamic,
    Folded,
    Folder,
    ModuleConstants,
    Opaque,
    Rejected,
    Symbolic,
)
from skewlsp.analysis.frontend.dsl import annotation_kind, dotted
from skewlsp.analysis.frontend.names import (
    binding_of,
    block_defs,
    body_statements,
    statement_defs,
)
from skewlsp.analysis.frontend.values import CallSiteValue, Interval, full_code
from skewlsp.analysis.source.tree_text import MadeTrees
from skewlsp.analysis.source.walk import children, walk

# pypto.language scopes whose bodies Simplify treats as top level (no extra depth).
TRANSPARENT_WITH = frozenset({"at", "scope", "manual_scope", "cluster"})
# Python builtins a kernel cannot call: the parser resolves bare-name calls only to kernels.
BUILTIN_CALLS = frozenset(
    {
        "max",
        "min",
        "int",
        "abs",
        "len",
        "round",
        "sum",
        "float",
        "bool",
        "print",
        "range",
        "list",
        "tuple",
        "dict",
        "enumerate",
        "zip",
        "str",
        "divmod",
        "pow",
    }
)


@dataclass(frozen=True)
class EnclosingLoop:
    """A loop around the one being decided.

    ``unrolled`` holds the first value of a ``pl.unroll`` variable: UnrollLoops
    replaces it by a literal in every copy before the pass, so bounds that use it
    are constants. The report is the first copy's; ``copies`` lets a preview show
    every copy as the compiler rewrites it.
    """

    var: str
    interval: Interval | None
    unrolled: int | None = None
    copies: tuple[int, ...] = ()  # every value of a pl.unroll variable, one per copy


@dataclass
class FunctionScope:
    """Names of one DSL function and the local constants visible at a given point."""

    module: ModuleConstants
    params: frozenset[str]
    dsl_names: frozenset[str]
    tile_names: frozenset[str]
    locals: dict[str, Folded] = field(default_factory=dict)
    poisoned: frozenset[str] = frozenset()
    # Scalar parameters pl.jit writes into the body as literals (see jit_params).
    specialized: dict[str, Folded] = field(default_factory=dict)
    # An inline helper analysed without a caller: its parameters, known per call site.
    call_site: dict[str, Folded] = field(default_factory=dict)

    def at(self, local_env: dict[str, Folded], poisoned: frozenset[str]) -> FunctionScope:
        return FunctionScope(
            self.module,
            self.params,
            self.dsl_names,
            self.tile_names,
            dict(local_env),
            poisoned,
            self.specialized,
            self.call_site,
        )

    def bound_lookup(self, enclosing: Sequence[EnclosingLoop]):
        """Name resolution for loop bounds and conditions inside the loop body."""
        loop_vars = {loop.var for loop in enclosing}
        unrolled = {loop.var: loop.unrolled for loop in enclosing if loop.unrolled is not None}

        def lookup(name: str) -> Folded | None:
            if name in unrolled:
                return Const(unrolled[name])
            if name in loop_vars:
                return Dynamic(name, f"`{name}` is the variable of an enclosing loop")
            if name in self.poisoned:
                return Dynamic(name, f"`{name}` is assigned inside a branch or loop")
            if name in self.locals:
                return self.locals[name]
            if name in self.specialized:
                return self.specialized[name]
            if name in self.params:
                return Dynamic(name, f"`{name}` is a parameter of the kernel")
            if name in self.dsl_names:
                return Dynamic(name, f"`{name}` is not a compile-time constant")
            found = self.module(name)
            if found is None:
                return Opaque(name, f"`{name}` is not defined in this module")
            return found

        return lookup

    def parse_time_lookup(self, name: str) -> Folded | None:
        """What the DSL parser folds: module constants (and pl.jit's literals), never
        kernel variables."""
        if name in self.specialized and name not in self.dsl_names - self.params:
            return self.specialized[name]
        if name in self.params or name in self.dsl_names:
            return Dynamic(name, f"`{name}` is a kernel variable")
        return self.module(name)

    def stage_lookup(self, name: str) -> Folded | None:
        """``stage`` must be a constant when the kernel is parsed: no DSL-scope names."""
        if name in self.specialized and name not in self.dsl_names - self.params:
            return self.specialized[name]
        if name in self.call_site:
            return self.call_site[name]
        if name in self.params or name in self.dsl_names:
            return Rejected(
                f"stage must be a compile-time constant integer, `{name}` is a kernel variable"
            )
        found = self.module(name)
        if found is None:
            return Opaque(name, f"`{name}` is not defined in this module")
        return found


def function_params(fn: cst.FunctionDef) -> list[tuple[str, cst.Param]]:
    params = fn.params
    everything = [*params.posonly_params, *params.params, *params.kwonly_params]
    if isinstance(params.star_arg, cst.Param):
        everything.append(params.star_arg)
    if params.star_kwarg is not None:
        everything.append(params.star_kwarg)
    return [(p.name.value, p) for p in everything if p.name.value != "self"]


# A function's parameters, the names it binds (its parameters included) and those bound
# to tiles: what every scope of its body is built from.
FunctionNames = tuple[frozenset[str], frozenset[str], frozenset[str]]


def function_names(fn: cst.FunctionDef) -> FunctionNames:
    """The names a scope of ``fn``'s body is built from (see :data:`FunctionNames`)."""
    params = frozenset(n for n, _ in function_params(fn))
    dsl_names = frozenset(block_defs(body_statements(fn.body))) | params
    return params, dsl_names, tile_like_names(fn)


_STATEMENT_HOLDERS = (cst.BaseCompoundStatement, cst.BaseSuite, cst.Else)


def tile_like_names(fn: cst.FunctionDef) -> frozenset[str]:
    """Names that hold tiles or tensors: what plain arithmetic on them turns into op calls."""
    names = {name for name, p in function_params(fn) if annotation_kind(p.annotation)}

    stack: list[cst.CSTNode] = [fn.body]
    while stack:  # statements only: annotated assignments never hide inside expressions
        node = stack.pop()
        kind = type(node)  # (exact types: an ABC's failed isinstance is slow)
        if type(node) is cst.SimpleStatementLine:
            for small in node.body:
                if (
                    type(small) is cst.AnnAssign
                    and type(small.target) is cst.Name
                    and annotation_kind(small.annotation)
                ):
                    names.add(small.target.value)
        elif issubclass(kind, _STATEMENT_HOLDERS):  # (9,000 asks in a cold pypto-lib run)
            stack.extend(children(node))
    return frozenset(names)


def is_transparent_with(stmt: cst.With) -> bool:
    if len(stmt.items) != 1 or not isinstance(stmt.items[0].item, cst.Call):
        return False
    func = stmt.items[0].item.func
    return (
        isinstance(func, cst.Attribute)
        and isinstance(func.value, cst.Name)
        and func.value.value == "pl"
        and func.attr.value in TRANSPARENT_WITH
    )


def update_locals(
    stmt: cst.CSTNode,
    env: dict[str, Folded],
    lookup_module: ModuleConstants,
    inlined_in: str | None = None,
    defs: Sequence[str] | None = None,
) -> None:
    """Advance the top-level constant environment past one top-level statement.

    ``inlined_in``: the statement is an inline helper's, spliced into a loop or branch of
    this caller, where what was its top level is not a function's top level any more.
    ``defs``: the names a compound ``stmt`` binds (``statement_defs``), when the caller
    has them already (they are a walk of the whole statement).
    """
    if isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
        for small in stmt.body:
            _update_small(small, env, lookup_module)
            if inlined_in is not None:
                _inside_callers_loop(small, env, inlined_in)
        return
    for name in statement_defs(stmt) if defs is None else defs:
        env[name] = Dynamic(name, f"`{name}` is assigned inside a branch or loop")


def _inside_callers_loop(
    small: cst.BaseSmallStatement, env: dict[str, Folded], caller: str
) -> None:
    """What ``small`` assigns stays a run-time value: Simplify folds only constants
    assigned at a function's top level, and InlineFunctions put this one, by way of
    ``caller``'s call, in a loop or branch."""
    for name in statement_defs(small):
        if not isinstance(env.get(name), Dynamic):
            env[name] = Dynamic(
                name,
                f"`{name}` is assigned in an inline helper whose call from `{caller}` ends up "
                "inside a loop or branch, where Simplify does not fold it",
            )


def _update_small(
    small: cst.BaseSmallStatement, env: dict[str, Folded], module: ModuleConstants
) -> None:
    def lookup(name: str) -> Folded | None:
        if name in env:
            return env[name]
        return module(name)

    target, value, _ = binding_of(small)
    if isinstance(target, cst.Name) and value is not None:
        folded = Folder(lookup, module.made).fold(value)
        if isinstance(folded, (Const, CallSiteValue)):
            env[target.value] = folded
        elif isinstance(folded, Symbolic):
            env[target.value] = Symbolic(target.value, f"`{target.value}` = {folded.reason}")
        else:
            env[target.value] = Dynamic(
                target.value, f"`{target.value}` is not a compile-time constant"
            )
        return
    defs = statement_defs(small)
    for name in defs:
        env[name] = Dynamic(name, f"`{name}` is not a compile-time constant")


def flatten_top_level(
    block: Sequence[cst.CSTNode], made: MadeTrees | None, incore: bool = False
) -> list[tuple[cst.CSTNode, bool]]:
    """Top-level statements of a function body, looking through transparent ``with`` scopes.

    Each statement comes with whether it runs in an InCore scope (``pl.at`` at
    the CORE_GROUP level), the only place ExpandMixedKernel splits cube from vector.
    ``made``: the trees the analysis made (the block may be one's).
    """
    out: list[tuple[cst.CSTNode, bool]] = []
    for stmt in block:
        if isinstance(stmt, cst.With) and is_transparent_with(stmt):
            inner = incore or opens_incore_scope(stmt, made, incore)
            out.extend(flatten_top_level(body_statements(stmt.body), made, inner))
        else:
            out.append((stmt, incore))
    return out


def opens_incore_scope(stmt: cst.CSTNode, made: MadeTrees | None, incore: bool = False) -> bool:
    """``with pl.at(level=CORE_GROUP)``, ``with pl.spmd(...)`` or ``for _ in pl.spmd(...)``;
    also ``for _ in pl.split_aiv(...)`` when not ``incore`` already: the DSL wraps a
    region in an InCore scope of its own unless it is in one (then it stays in place).
    ``made``: the trees the analysis made (``stmt`` may be one's)."""
    call: cst.BaseExpression | None = None
    if isinstance(stmt, cst.With) and len(stmt.items) == 1:
        call = stmt.items[0].item
    elif isinstance(stmt, cst.For):
        call = stmt.iter
    if not isinstance(call, cst.Call):
        return False
    func = call.func
    if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)):
        return False
    if func.value.value != "pl":
        return False
    if func.attr.value == "spmd":
        return not (isinstance(stmt, cst.With) and _dispatch_body(stmt, call))
    if func.attr.value == "split_aiv":
        return isinstance(stmt, cst.For) and not incore
    return func.attr.value == "at" and "CORE_GROUP" in full_code(call, made)


def is_spmd_scope(stmt: cst.CSTNode) -> bool:
    """``with pl.spmd(...)`` or ``for _ in pl.spmd(...)``, whatever its body."""
    call = stmt.items[0].item if isinstance(stmt, cst.With) and len(stmt.items) == 1 else None
    if isinstance(stmt, cst.For):
        call = stmt.iter
    return isinstance(call, cst.Call) and dotted(call.func) == ("pl", "spmd")


def _dispatch_body(scope: cst.With, call: cst.Call) -> bool:
    """A ``with pl.spmd(...)`` body the DSL parser leaves without an InCore scope.

    The parser wraps the body in one only when it does the per-block work itself: it
    reads ``get_block_idx()`` (anywhere in it), or ``optimizations=`` carries a split or
    a cross-core slot count. A body that instead dispatches a kernel (a ``self.<kernel>``
    call, or a bare helper the jit specializer turns into one) stays a bare Spmd scope:
    OutlineClusterScopes makes it a Spmd function, at tensor level, that ExpandMixedKernel
    never splits. A lone ``pl.at(CORE_GROUP)`` body is its own scope (and opens one); a
    body with no dispatch is a parse error, left as it was.
    """
    if _optimised(call):
        return False
    # One walk that stops at the first block-index read (usually the body's first line:
    # the decision is then made without walking the rest of a whole kernel's body).
    dispatches = False
    for node in walk(scope.body):
        if type(node) is cst.Call:
            if _named(node.func) == "get_block_idx":
                return False
            dispatches = dispatches or _dispatches(node.func)
    return dispatches


def _optimised(call: cst.Call) -> bool:
    """``optimizations=[...]`` holding a ``pl.split`` or ``pl.cross_core_slot`` entry."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "optimizations":
            entries = [n for n in walk(arg.value) if isinstance(n, cst.Call)]
            return any(_named(n.func) in ("split", "cross_core_slot") for n in entries)
    return False


def _named(func: cst.BaseExpression) -> str | None:
    """The last name of a called ``a.b.name`` or ``name``."""
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return func.value if isinstance(func, cst.Name) else None


def _dispatches(func: cst.BaseExpression) -> bool:
    """A kernel dispatch as the parser counts one: ``self.<kernel>(...)``, or a bare name
    that is not a Python builtin (a helper; the jit specializer writes it ``self.``)."""
    if isinstance(func, cst.Attribute):
        return isinstance(func.value, cst.Name) and func.value.value == "self"
    return isinstance(func, cst.Name) and func.value not in BUILTIN_CALLS


def is_split_aiv_region(stmt: cst.CSTNode) -> bool:
    """``for lane in pl.split_aiv(...)``: a region of explicit vector-lane work.

    Opening one puts its whole InCore function in manual mode: the compiler stops
    copying the vector body per lane (the author shards by the lane variable).
    """
    if not (isinstance(stmt, cst.For) and isinstance(stmt.iter, cst.Call)):
        return False
    path = dotted(stmt.iter.func)
    return path is not None and path[-1] == "split_aiv"


def is_incore_function(fn: cst.FunctionDef, made: MadeTrees | None) -> bool:
    """A function declared InCore (the other kinds are not split by ExpandMixedKernel).

    ``@pl.function(type=pl.FunctionType.InCore)`` or ``@pl.jit.incore`` (bare or
    called): the jit decorator makes the latter a separate InCore function. ``made``:
    the trees the analysis made (``fn`` may be one's).
    """
    for d in fn.decorators:
        node = d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator
        path = dotted(node)
        if path is not None and path[-2:] == ("jit", "incore"):
            return True
        if "InCore" in full_code(d.decorator, made):
            return True
    return False
