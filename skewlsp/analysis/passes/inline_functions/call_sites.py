"""Where an ``@pl.jit.inline`` helper is called, and what each call hands its parameters.

The InlineFunctions pass (the first pass of the default pipeline) splices a
fresh copy of an inline helper's body at every call site, each formal
parameter replaced by the caller's argument expression; every later pass,
the skew pass included, sees the copy as if the caller had written it. So a
helper loop whose bounds come from its parameters is decided once per call:
constant at one call, dynamic at another. What folds at a call is what folds
in the caller at that point (module constants, the caller's top-level
constant locals, its ``pl.jit``-specialized scalars). The helper's ``stage``
is different: the DSL parser reads it when it parses the helper, before any
splicing, so only a literal ``pl.jit`` writes into the helper's body counts
(the specializer forwards a caller's specialized scalar passed by name, from
the first call it finds in that caller).

Models: ``src/ir/transforms/inline_functions_pass.cpp``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import libcst as cst

from skewlsp.analysis.frontend import dsl
from skewlsp.analysis.frontend.constants import (
    Const,
    Dynamic,
    Folded,
    Folder,
    ModuleConstants,
    code_of,
)
from skewlsp.analysis.frontend.jit_params import is_jit_entry, specialized_params
from skewlsp.analysis.frontend.names import body_statements
from skewlsp.analysis.frontend.scope import (
    EnclosingLoop,
    FunctionScope,
    flatten_top_level,
    function_params,
    is_incore_function,
    is_transparent_with,
    opens_incore_scope,
    update_locals,
)
from skewlsp.analysis.frontend.source_index import Unit
from skewlsp.analysis.frontend.state import AnalysisState
from skewlsp.analysis.frontend.values import CallSiteValue
from skewlsp.analysis.source.tree_text import MadeTrees
from skewlsp.analysis.source.walk import CallsOf, stdlib_nodes, walk
from skewlsp.contract import Span


@dataclass
class CallSite:
    """One call of an inline helper: who calls it, where, and the values it passes."""

    caller: str
    span: Span  # the call expression, in the file
    values: dict[str, Folded]  # each helper parameter's value at this call
    shown: tuple[tuple[str, str], ...]  # scalar parameters as messages quote them
    incore: bool  # the call sits where ExpandMixedKernel splits cube from vector
    headers: tuple[cst.CSTNode, ...]  # the caller's decorators and scope headers around it
    specialized: dict[str, Folded] = field(default_factory=dict)  # literals pl.jit writes
    # The call sits in a loop or branch of the caller (a ``with`` Simplify sees through
    # aside): spliced there, the helper's own top-level assignments are not at the top
    # level of a function any more, and Simplify does not fold them.
    nested: bool = False


def call_sites(
    caller: Unit,
    helper: cst.FunctionDef,
    constants: ModuleConstants,
    state: AnalysisState,
    called: str | None = None,
) -> list[CallSite]:
    """Every call of ``helper`` in ``caller``, in source order (none if it does not parse).

    ``constants`` are the caller's module's; ``state`` is the analysis's (the caller's
    trees are shared with its own unit's); ``called`` is the name the caller calls the
    helper by, when it imported it under another name.
    """
    facts = _caller_facts(caller, constants, state)
    if facts is None:
        return []
    fn = facts.fn
    name = called or helper.name.value
    places = facts.calls.get(name, [])
    spans = facts.spans.get(name, [])
    if not places or len(spans) != len(places):
        return []  # the two parsers disagree about the calls: say nothing rather than guess
    scopes = facts.scopes
    spliced_in_loop = _always_in_a_loop(caller, state)
    helper_params = function_params(helper)
    entry = is_jit_entry(fn)
    forwarded: dict[str, Folded] | None = None
    sites: list[CallSite] = []
    for (call, incore, headers, loop_vars, nested), span in zip(places, spans, strict=True):
        scope = scopes.get(id(call))
        if scope is None:
            continue
        lookup = scope.bound_lookup([EnclosingLoop(var, None) for var in loop_vars])
        values, texts = _bind(call, helper_params, lookup, constants, state.made)
        shown = tuple(
            (param, _quoted(values[param], texts[param]))
            for param, p in helper_params
            if param in values and not dsl.annotation_kind(p.annotation)
        )
        if forwarded is None:
            forwarded = _forwarded(call, helper_params, scope) if entry else {}
        decorators = tuple(d.decorator for d in fn.decorators)
        sites.append(
            CallSite(
                caller.qualname,
                span,
                values,
                shown,
                incore,
                decorators + headers,
                forwarded,
                nested or spliced_in_loop,
            )
        )
    return sites


def sites_of(
    helper: Unit, constants: ModuleConstants, state: AnalysisState
) -> list[tuple[Unit, CallSite]]:
    """Every call of the inline helper ``helper`` in its callers (``helper.callers``, of
    the module whose ``constants`` are given), with the caller making it."""
    fn = _parsed(helper, state)
    if fn is None:
        return []
    return [
        (caller, site)
        for caller in helper.callers
        for site in call_sites(caller, fn, constants, state)
    ]


def _always_in_a_loop(caller: Unit, state: AnalysisState) -> bool:
    """Whether ``caller``, an inline helper, is spliced into a loop or branch at every one
    of its calls (through any helper calling it): its body, and the calls in it, are then
    never at a function's top level. False for a caller that is not a helper, and when
    its calls differ (each of them is one copy, and this walk decides one)."""
    found: list[bool] = []
    for outer in caller.callers:
        calls = _calls_of(outer, state)
        if calls is None:
            return False
        places = calls[1].get(caller.qualname, [])
        around = _always_in_a_loop(outer, state)
        found.extend(place[4] or around for place in places)
    return bool(found) and all(found)


# A call: the call, InCore or not, the headers and loop variables around it, and whether a
# loop or branch of the caller holds it.
Place = tuple[cst.Call, bool, tuple[cst.CSTNode, ...], tuple[str, ...], bool]


@dataclass
class _CallerFacts:
    """A caller's calls of plain names, each name's in source order, found in one walk of
    each tree however many helpers it calls (a kernel calls several)."""

    fn: cst.FunctionDef
    calls: dict[str, list[Place]]  # libcst: the call, InCore or not, headers, loop variables
    spans: dict[str, list[Span]]  # the stdlib parser's places of the same calls
    scopes: dict[int, FunctionScope]  # name resolution at each call (by id)


def _caller_facts(
    caller: Unit, constants: ModuleConstants, state: AnalysisState
) -> _CallerFacts | None:
    memo = state.facts
    # ``constants`` itself (compared by identity) in the key, not its id: the key keeps it
    # alive, so no other module's constants made later in the analysis can take its place.
    key = ("caller", caller.text, caller.line_offset, constants, state.concrete)
    if key in memo:
        return memo[key]  # type: ignore[return-value]  # the facts hold any value: this key's
    found = _calls_of(caller, state)
    facts = None
    if found is not None:
        fn, calls, spans = found
        facts = _CallerFacts(fn, calls, spans, _scopes_at_calls(fn, constants, state))
    memo[key] = facts
    return facts


_Calls = tuple[cst.FunctionDef, dict[str, list[Place]], dict[str, list[Span]]]


def _calls_of(caller: Unit, state: AnalysisState) -> _Calls | None:
    """The caller's tree and its calls by name, kept with a made tree across analyses:
    they depend on its text and place only (a server re-analyses a helper whenever any
    of its callers changes, the others did not). What names mean there depends on the
    module's constants and is worked out again every time."""
    fn = _parsed(caller, state)
    facts = state.made_facts(caller.text)
    if facts is None:  # libcst's tree: nothing kept
        return _find_calls(caller, fn, state)
    key = ("calls", caller.line_offset)
    if key not in facts:
        # Shared by the server's two analysis threads with the tree: both may find the
        # calls; the first one kept is the one every analysis reads (never changed after).
        facts.setdefault(key, _find_calls(caller, fn, state))
    return facts[key]  # type: ignore[return-value]  # the facts hold any value: this key's


def _find_calls(
    caller: Unit, fn: cst.FunctionDef | None, state: AnalysisState
) -> _Calls | None:
    if fn is None:
        return None
    calls: dict[str, list[Place]] = {}
    incore = is_incore_function(fn, state.made)
    statements = body_statements(fn.body)
    for place in _calls(statements, incore, (), (), state.made, False, state.calls_in):
        func = place[0].func
        assert type(func) is cst.Name  # (_calls yields calls of a plain name only)
        calls.setdefault(func.value, []).append(place)
    return fn, calls, _call_spans(caller, state)


def _parsed(caller: Unit, state: AnalysisState) -> cst.FunctionDef | None:
    """A caller's function, parsed once however many helpers it calls (never mutated).

    Within one analysis the tree is the one the caller's own unit uses, if it has
    loops (whichever needed it first made it).
    """
    text = caller.text
    module = state.analysis_module(text, lambda: state.parses.unit_tree(text, caller.line_offset))
    if module is None:
        return None
    return next((s for s in module.body if isinstance(s, cst.FunctionDef)), None)


def _call_spans(caller: Unit, state: AnalysisState) -> dict[str, list[Span]]:
    """Where each call of each plain name is in the file, in source order (the stdlib
    parser gives positions for a fraction of what libcst's position metadata costs)."""
    try:
        found = state.parses.unit_tree(caller.text, caller.line_offset)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return {}
    lines = caller.text.split("\n")
    shift = found.shift  # the tree's line numbers may be the file's: made the text's

    def column(line: int, offset: int) -> int:  # UTF-8 byte offset -> code points, 1-based
        return len(lines[line - 1].encode("utf-8")[:offset].decode("utf-8", "replace")) + 1

    calls: dict[str, list[tuple[int, int, int, int]]] = {}
    for node in stdlib_nodes(found.tree):
        if type(node) is ast.Call and type(node.func) is ast.Name:
            calls.setdefault(node.func.id, []).append(
                (
                    node.lineno - shift,
                    node.col_offset,
                    (node.end_lineno or node.lineno) - shift,
                    node.end_col_offset or 0,
                )
            )
    return {
        name: [
            Span(
                line + caller.line_offset,
                column(line, col),
                end_line + caller.line_offset,
                column(end_line, end_col),
            )
            for line, col, end_line, end_col in sorted(places)
        ]
        for name, places in calls.items()
    }


def _quoted(value: Folded, text: str) -> str:
    """A parameter's value as a message quotes it: the number, else the argument's text."""
    return str(value.value) if isinstance(value, Const) else text


def _calls(
    block: Sequence[cst.CSTNode],
    incore: bool,
    headers: tuple[cst.CSTNode, ...],
    loop_vars: tuple[str, ...],
    made: MadeTrees | None,
    nested: bool,
    calls: CallsOf,
) -> Iterator[Place]:
    """Calls of plain names with whether they are InCore, the headers and loop variables
    around them and whether a loop or branch holds them, in source order (``calls``: the
    calls under a statement, as the analysis keeps them)."""
    for stmt in block:
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            continue
        if isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            for node in calls(stmt):  # (exact types: ABC checks are slow)
                if type(node.func) is cst.Name:
                    yield node, incore, headers, loop_vars, nested
            continue
        inner_incore = incore or opens_incore_scope(stmt, made, incore)
        inner_nested = nested or not (isinstance(stmt, cst.With) and is_transparent_with(stmt))
        inner_headers = headers
        inner_vars = loop_vars
        if isinstance(stmt, cst.With):
            inner_headers = (*headers, *(item.item for item in stmt.items))
        elif isinstance(stmt, cst.For):
            inner_headers = (*headers, stmt.iter)
            inner_vars = (*loop_vars, *statement_effects_of_target(stmt))
        blocks = [body_statements(stmt.body)] if hasattr(stmt, "body") else []
        orelse = getattr(stmt, "orelse", None)
        if isinstance(orelse, cst.If):
            blocks.append([orelse])
        elif orelse is not None and hasattr(orelse, "body"):
            blocks.append(body_statements(orelse.body))
        for inner in blocks:
            yield from _calls(
                inner, inner_incore, inner_headers, inner_vars, made, inner_nested, calls
            )


def statement_effects_of_target(loop: cst.For) -> tuple[str, ...]:
    """The names a ``for`` binds in its target."""
    return tuple(n.value for n in walk(loop.target) if isinstance(n, cst.Name))


def _scopes_at_calls(
    fn: cst.FunctionDef, constants: ModuleConstants, state: AnalysisState
) -> dict[int, FunctionScope]:
    """The caller's name resolution at each call of a plain name (by id), as the engine
    builds it for loops (from the names the unit walk reads off the caller: the state
    keeps them for both)."""
    made = state.made
    base = FunctionScope(constants, *state.function_names(fn))
    base.specialized = specialized_params(fn, constants, made)
    env: dict[str, Folded] = dict(base.specialized)
    if is_inline_helper(fn):  # a helper calling a helper: its parameters come from its callers
        for param, _ in function_params(fn):
            env[param] = CallSiteValue(
                param,
                f"`{param}` is a parameter of the inline helper `{fn.name.value}`, "
                "set by each of its callers",
            )
    found: dict[int, FunctionScope] = {}
    for stmt, _incore in flatten_top_level(body_statements(fn.body), made, False):
        compound = not isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite))
        defs, poisoned = state.statement_binds(stmt) if compound else ([], frozenset())
        scope = base.at(env, poisoned)
        for node in state.calls_in(stmt):
            if type(node.func) is cst.Name:
                found[id(node)] = scope
        update_locals(stmt, env, constants, defs=defs)
    return found


def _bind(
    call: cst.Call,
    params: list[tuple[str, cst.Param]],
    lookup,
    constants: ModuleConstants,
    made: MadeTrees | None,
) -> tuple[dict[str, Folded], dict[str, str]]:
    """Each helper parameter's value at ``call`` (Python's binding rules), and its text."""
    values: dict[str, Folded] = {}
    texts: dict[str, str] = {}
    positional = [p for p, _ in params]
    index = 0
    for arg in call.args:
        if arg.star:
            break  # *args / **kwargs: what follows is not known statically
        if arg.keyword is None:
            if index >= len(positional):
                break
            target = positional[index]
            index += 1
        else:
            target = arg.keyword.value
        values[target] = Folder(lookup, made).fold(arg.value)
        texts[target] = code_of(arg.value, made)[:40]
    for param, p in params:
        if param in values:
            continue
        if p.default is not None:
            values[param] = Folder(constants, made).fold(p.default)
            texts[param] = code_of(p.default, made)[:40]
        else:
            values[param] = Dynamic(param, f"`{param}` is not passed at this call")
            texts[param] = "?"
    return values, texts


def _forwarded(
    call: cst.Call, params: list[tuple[str, cst.Param]], scope: FunctionScope
) -> dict[str, Folded]:
    """Helper parameters the pl.jit specializer turns into literals in the helper's body:
    those passed, by name, a scalar the calling entry has specialized."""
    forwarded: dict[str, Folded] = {}
    positional = [p for p, _ in params]
    for index, arg in enumerate(call.args):
        if arg.star:
            break
        target = positional[index] if arg.keyword is None and index < len(positional) else None
        if arg.keyword is not None:
            target = arg.keyword.value
        if (
            target is not None
            and isinstance(arg.value, cst.Name)
            and arg.value.value in scope.specialized
        ):
            forwarded[target] = scope.specialized[arg.value.value]
    return forwarded


def is_inline_helper(fn: cst.FunctionDef) -> bool:
    """``@pl.jit.inline`` (bare or called)."""
    return dsl.jit_decorated(fn, "inline")
