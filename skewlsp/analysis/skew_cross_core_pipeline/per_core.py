"""The mixed-kernel model: each core's verdict on a loop that ExpandMixedKernel splits.

Kernels written with high-level ops never spell ``tpush``/``tpop``: the compiler
splits each InCore function into a cube (AIC) and a vector (AIV) function and
creates the messages itself (``core_sides`` gives every value its core,
``core_split`` builds both bodies). Each core's copy of the loop then goes
through the *same* decision procedure as a hand-written loop. This module
orchestrates that: the bodies each core sees (a skewed inner pipeline is spliced
only on the core whose copy was skewed), the decisions, the loop's summary, and
whether the vector function runs as two copies.

Models: ``src/ir/transforms/expand_mixed_kernel_pass.cpp`` (which cores a loop lands on,
and ``split_vector_kernel_pass.cpp`` for the two vector copies) feeding
``skew_cross_core_pipeline_pass.cpp`` once per core.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace

import libcst as cst

from skewlsp.analysis.frontend import dsl, op_registry
from skewlsp.analysis.frontend.constants import code_of
from skewlsp.analysis.frontend.names import body_statements
from skewlsp.analysis.frontend.op_registry import CUBE, GM, VECTOR, op_leaf
from skewlsp.analysis.frontend.scope import is_split_aiv_region, opens_incore_scope
from skewlsp.analysis.passes.expand_mixed_kernel.core_sides import OutsideSides, param_sides
from skewlsp.analysis.passes.expand_mixed_kernel.core_split import (
    ScalarAcross,
    fence_values,
    message_core,
    scalars_across,
    split_body,
)
from skewlsp.analysis.passes.expand_mixed_kernel.move_reuse import shared_moves
from skewlsp.analysis.passes.loop_body import BodyContext, InnerSkew, Stmt, resolve
from skewlsp.analysis.skew_cross_core_pipeline.decide import Decision, LoopHeader, decide
from skewlsp.analysis.source.positions import shown_by_first_line
from skewlsp.analysis.source.tree_text import MadeTrees
from skewlsp.analysis.source.walk import walk
from skewlsp.contract import CONSUMER, CORE_NAMES, CoreResult

__all__ = [
    "CUBE",
    "GM",
    "VECTOR",
    "NestedPipelines",
    "OutlinedScope",
    "OutsideSides",
    "PerCore",
    "ScalarAcross",
    "dual_aiv_dispatch",
    "outlined_scope",
    "param_sides",
    "per_core",
    "opens_lane_regions",
    "scope_multiplies",
    "split_body",
]

_NO_CROSSING = "no boundary crossing at the top level"

# Decides an inner pipeline loop for one parent body (None: it stays nested).
InnerDecider = Callable[[cst.For, BodyContext], "InnerSkew | None"]


@dataclass(frozen=True)
class NestedPipelines:
    """How the parent body is rebuilt when its inner pipelines differ per core.

    ``renormalise`` normalises the parent body again with another inner decider;
    ``inner_skew`` and ``inner_cores`` give each inner loop's splice and its
    per-core verdicts, as decided before the parent.
    """

    renormalise: Callable[[InnerDecider], list[Stmt]]
    inner_skew: Callable[[cst.For], InnerSkew | None]
    inner_cores: Callable[[cst.For], tuple[CoreResult, ...]]


@dataclass(frozen=True)
class PerCore:
    """Both cores' verdicts for one loop, and the loop's one-line summary."""

    cores: tuple[CoreResult, ...]
    summary: Decision | None  # None: keep the decision of the unsplit body
    stmts: list[Stmt]  # the statement list the summary's indices refer to
    scalars_across: tuple[ScalarAcross, ...] = ()  # SKW061


@dataclass(frozen=True)
class OutlinedScope:
    """Where a loop is outlined to: the innermost InCore scope around it (every
    ``pl.at(CORE_GROUP)`` / ``pl.spmd`` scope, one inside another too, is a function of
    its own), else the function itself; and the headers that can set its split mode."""

    node: cst.CSTNode  # the scope statement, or the function's body
    headers: tuple[cst.CSTNode, ...]


def outlined_scope(
    fn: cst.FunctionDef, loop: cst.For, made: MadeTrees | None, incore: bool = False
) -> OutlinedScope:
    """``loop``'s outlined scope in ``fn`` (``incore``: ``fn``'s body already runs in an
    InCore scope, so a ``pl.split_aiv`` region in it opens none; ``made``: the trees the
    analysis made)."""
    around = _around(body_statements(fn.body), loop) or []
    scopes = _scopes(around, made, incore)
    if scopes:
        return OutlinedScope(around[scopes[-1]], tuple(_headers(around[scopes[-1] :])))
    decorators = [d.decorator for d in fn.decorators]
    return OutlinedScope(fn.body, (*decorators, *_headers(around)))


def scope_multiplies(scope: cst.CSTNode, made: MadeTrees | None) -> bool:
    """Whether the outlined scope calls a cube op (the matmul family).

    ExpandMixedKernel splits an InCore function holding ops of both cores, so a loop of
    vector ops only still lands in the AIV function, dispatched twice without a split
    mode, when the function around it multiplies; a function of vector ops only is one
    AIV function. (A loop of an inline helper without a scope of its own is outlined
    with its caller's; only the helper's body is seen here.) ``made``: the trees the
    analysis made (a made scope's text shows most name no cube op).
    """
    text = made.source(scope) if made is not None else None
    if text is not None and not any(op in text for op in op_registry.CUBE_OPS):
        return False
    return any(
        type(node) is cst.Call and op_leaf(node) in op_registry.CUBE_OPS
        for node in walk(scope)
    )


def opens_lane_regions(scope: cst.CSTNode) -> bool:
    """Whether the outlined scope opens a ``pl.split_aiv`` region (manual mode)."""
    return any(is_split_aiv_region(node) for node in walk(scope))


def dual_aiv_dispatch(scope: OutlinedScope, lane_regions: bool) -> bool:
    """Whether the vector copy of a loop outlined to ``scope`` runs as two identical copies.

    Without a split mode on the outlined scope (no ``pl.split(...)``, or
    ``pl.split(pl.SplitMode.NONE)``, or ``attrs={"split": pl.SplitMode.NONE}``) the
    a2a3 backend dispatches the AIV function on both vector lanes: two copies, one
    verdict. A ``pl.split_aiv`` region in that function puts it in manual mode:
    SplitVectorKernel marks the AIV function to run on both lanes as it is, one copy.
    """
    if lane_regions:
        return False
    return not any(_splits(header) for header in scope.headers)


def _scopes(around: Sequence[cst.CSTNode], made: MadeTrees | None, incore: bool) -> list[int]:
    """The indices of the statements of ``around`` that open an InCore scope."""
    found: list[int] = []
    for k, stmt in enumerate(around):
        if opens_incore_scope(stmt, made, incore):
            found.append(k)
            incore = True
    return found


def _headers(statements: Sequence[cst.CSTNode]) -> list[cst.CSTNode]:
    """The headers of the ``with``/``for`` statements among ``statements``."""
    headers: list[cst.CSTNode] = []
    for stmt in statements:
        if isinstance(stmt, cst.With):
            headers += [item.item for item in stmt.items]
        elif isinstance(stmt, cst.For):
            headers.append(stmt.iter)
    return headers


_BLOCK_HOLDERS = frozenset({cst.With, cst.For, cst.While, cst.If, cst.Try})


def _around(block: Sequence[cst.CSTNode], loop: cst.For) -> list[cst.CSTNode] | None:
    """The compound statements of ``block`` around ``loop``, outermost first (None: the
    loop is not in ``block``)."""
    for stmt in block:
        if stmt is loop:
            return []
        if type(stmt) in _BLOCK_HOLDERS:  # (exact types: an ABC's failed isinstance is slow)
            blocks = [body_statements(stmt.body)]  # type: ignore[attr-defined]  # all have one
            orelse = getattr(stmt, "orelse", None)
            if orelse is not None:
                blocks.append(body_statements(orelse.body))
            for inner in blocks:
                found = _around(inner, loop)
                if found is not None:
                    return [stmt, *found]
    return None


def any_split(headers: Sequence[cst.CSTNode]) -> bool:
    """Whether any of ``headers`` sets a split mode other than NONE."""
    return any(_splits(header) for header in headers)


def _splits(header: cst.CSTNode) -> bool:
    """A split mode other than NONE written in ``header``."""
    for node in walk(header):
        mode: cst.BaseExpression | None = None
        if type(node) is cst.Call and node.args:
            path = dsl.dotted(node.func)
            if path and path[-1] == "split":
                mode = node.args[0].value
        elif (
            isinstance(node, cst.DictElement)
            and isinstance(node.key, cst.SimpleString)
            and node.key.evaluated_value == "split"
        ):
            mode = node.value
        if mode is not None and not _is_none_mode(mode):
            return True
    return False


def _is_none_mode(expr: cst.BaseExpression) -> bool:
    path = dsl.dotted(expr)
    return path is not None and path[-1] == "NONE"


def per_core(
    stmts: list[Stmt],
    header: LoopHeader,
    live_out: Sequence[str],
    outside: Mapping[str, str],
    copies: int,
    made: MadeTrees | None,
    nested: NestedPipelines | None = None,
    statement_code: Callable[[cst.CSTNode], str | None] | None = None,
    made_before: Collection[tuple[str, str]] = (),
    scope_multiplies: Callable[[], bool] = lambda: False,
) -> PerCore:
    """Per-core verdicts when the compiler, not the author, creates the messages.

    Each core's copy goes through the same decision procedure as a hand-written
    loop. A skewed inner pipeline is spliced into its parent only on the core
    whose copy of it was skewed; on the other core it stays a nested loop.
    ``statement_code`` gives a statement's code from the source where it can (see
    ``body_lines``). ``copies`` is the vector function's, when the scope is split;
    ``scope_multiplies`` says whether it is, for a loop that has no cube op itself.
    ``made``: the trees the analysis made, which the code of their nodes is cut from.
    """
    bodies = _core_bodies(stmts, nested)
    splits = {"aic": split_body(bodies["aic"], outside, live_out, made)}
    # Both cores usually see the same body: one split serves both (each core's list is
    # made afresh by the split, so neither core's list is shared with the other's).
    same = bodies["aiv"] is bodies["aic"]
    if same:
        splits["aiv"] = splits["aic"]
    else:
        splits["aiv"] = split_body(bodies["aiv"], outside, live_out, made)
    unknown = next((s.unknown for s in splits.values() if s.unknown), None)
    spliced_messages = any(message_core(s) is not None for s in stmts)
    if not spliced_messages and not any(s.crossings for s in splits.values()):
        split = splits["aic"]
        cores = []
        if split.has_cube:
            cores.append(CoreResult("aic", "left", "SKW010", _NO_CROSSING))
        if split.has_vector:
            mixed_scope = split.has_cube or scope_multiplies()
            vector_copies = copies if mixed_scope else 1
            cores.append(CoreResult("aiv", "left", "SKW010", _NO_CROSSING, copies=vector_copies))
        if unknown and cores:
            return _unknown(tuple(cores), unknown, stmts)
        return PerCore(tuple(cores), None, stmts)
    results: list[tuple[CoreResult, Decision]] = []
    lists = {"aic": splits["aic"].aic, "aiv": splits["aiv"].aiv}
    across = tuple(
        found
        for core, core_stmts in lists.items()
        for found in scalars_across(core, core_stmts, splits[core], splits[core].body)
    )
    for core, core_stmts in lists.items():
        resolve(core_stmts, header.iter_names)
        shared = shared_moves(core_stmts, outside, made, made_before)
        shared += fence_values(core_stmts, splits[core].crossings, splits[core].body)
        d = decide(header, core_stmts, shared)
        result = CoreResult(
            core,  # type: ignore[arg-type]  # "aic" or "aiv": a Core
            d.verdict,
            d.code,
            core_reason(d),
            d.depth,
            d.requested_depth,
            d.trip,
            copies if core == "aiv" else 1,
            d.pushes,
            d.pops,
            body_lines(core_stmts, made, statement_code),
        )
        results.append((result, d))
    if unknown:
        return _unknown(tuple(c for c, _ in results), unknown, stmts)
    chosen, summary = summarise(results)
    return PerCore(tuple(c for c, _ in results), summary, lists[chosen], across)


def _unknown(cores: tuple[CoreResult, ...], op: str, stmts: list[Stmt]) -> PerCore:
    reason = f"the model does not know which core runs `{op}`"
    summary = Decision("unknown", "SKW050", reason)
    return PerCore(
        tuple(replace(c, verdict="unknown", code="SKW050", reason=reason) for c in cores),
        summary,
        stmts,
    )


def _core_bodies(stmts: list[Stmt], nested: NestedPipelines | None) -> dict[str, list[Stmt]]:
    """Each core's view of the parent body before it is split.

    The parent was normalised with every skewed inner pipeline spliced in, as the
    core whose copy was skewed sees it. The other core's copy of that inner loop
    was demoted (or left): it stays nested there, so that core's parent body is
    normalised again with the inner loop kept whole.
    """
    spliced = [s.node for s in stmts if s.origin == "steady" and isinstance(s.node, cst.For)]
    if nested is None or not spliced:
        return {"aic": stmts, "aiv": stmts}
    bodies: dict[str, list[Stmt]] = {}
    for core in ("aic", "aiv"):
        if all(_skewed_core(nested.inner_cores(node)) in (core, None) for node in spliced):
            bodies[core] = stmts
            continue

        def decide_for(node: cst.For, _ctx: BodyContext, core: str = core) -> InnerSkew | None:
            skew = nested.inner_skew(node)
            if skew is None:
                return None
            owner = _skewed_core(nested.inner_cores(node))
            return skew if owner in (core, None) else None

        bodies[core] = nested.renormalise(decide_for)
    return bodies


def _skewed_core(cores: Sequence[CoreResult]) -> str | None:
    """The core whose copy of an inner loop was skewed (None: not split per core)."""
    if not cores:
        return None
    return next((c.core for c in cores if c.verdict == "skewed"), "")


def body_lines(
    stmts: Sequence[Stmt],
    made: MadeTrees | None,
    statement_code: Callable[[cst.CSTNode], str | None] | None = None,
) -> tuple[str, ...]:
    """Each statement of a core's body, the compiler's own marked with "+ ".

    A simple statement is kept whole (over several lines if the author wrapped it), so a
    preview of this core's copy is real code; a nested block is shown by its first line
    followed by " ...", since rendering whole inner loops was a tenth of a mixed loop's cost.
    ``statement_code`` cuts a statement's code out of the source (None where it cannot):
    rendering each with libcst was the largest part of analysing a small mixed kernel.
    """
    lines = []
    for stmt in stmts:
        shown = _first_lines(stmt.node)
        # (a compound statement's own first line, cut from the text like a small statement)
        cut = statement_code(stmt.node) if statement_code else None
        code = cut or code_of(shown, made) or stmt.kind
        if shown is not stmt.node:
            code = code.splitlines()[0] + " ..."
        lines.append(("+ " if stmt.origin.startswith("implicit") else "") + code)
    return tuple(lines)


_STUB_BODY = cst.IndentedBlock(body=[cst.SimpleStatementLine(body=[cst.Pass()])])


def _first_lines(node: cst.CSTNode) -> cst.CSTNode:
    """A compound statement with its body stubbed: only its first line is shown, and
    rendering a whole inner loop to keep one line was a tenth of a mixed loop's cost."""
    if shown_by_first_line(node):
        header = node.body.header  # type: ignore[attr-defined]  # shown_by_first_line: indented
        changes: dict[str, object] = {"body": _STUB_BODY.with_changes(header=header)}
        if not isinstance(node, cst.With):
            changes["orelse"] = None
        return node.with_changes(**changes)
    return node


def core_reason(d: Decision) -> str:
    """What one core's remark says after its verdict ("skewed at", "demoted,")."""
    if d.code == "SKW002":
        return f"depth {d.depth} (requested {d.requested_depth}: {d.reason})"
    return d.reason


def summarise(results: list[tuple[CoreResult, Decision]]) -> tuple[str, Decision]:
    """One verdict for the loop: the skewed core if any, else the first cross-core one."""
    parts = []
    skewed = next((CORE_NAMES[c.core] for c, d in results if d.verdict == "skewed"), None)
    for core, d in results:
        name = CORE_NAMES[core.core]
        if d.code == CONSUMER and skewed is not None:  # the overlap the author wants
            parts.append(f"{name}: consumer of the {skewed}'s skewed loop")
            parts[-1] += f" (overlap from the {skewed}'s skew)"
        elif d.verdict == "skewed" and d.code == "SKW002":
            parts.append(f"{name}: skewed at {core.reason}")
        elif d.verdict == "skewed":
            parts.append(f"{name}: skewed at depth {d.depth}")
        elif d.verdict == "demoted":
            parts.append(f"{name}: demoted, {core.reason}")
        else:
            parts.append(f"{name}: {d.verdict}, {core.reason}")
        if core.copies > 1:
            parts[-1] += f" (dual AIV dispatch: the vector body runs as {core.copies} copies)"
    chosen = next((r for r in results if r[1].verdict == "skewed"), None)
    if chosen is None:
        chosen = next((r for r in results if r[1].verdict in ("demoted", "error")), results[0])
    summary = replace(chosen[1], summary="; ".join(parts))
    return chosen[0].core, summary
