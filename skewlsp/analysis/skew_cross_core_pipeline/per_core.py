"""SkewCrossCorePipeline on each core's copy of a loop that ExpandMixedKernel split.

Kernels written with high-level ops never spell ``tpush``/``tpop``: the compiler
splits each InCore function into a cube (AIC) and a vector (AIV) function and
creates the messages itself (``passes.expand_mixed_kernel``). The skew pass then runs
on each function, so each core's copy of the loop goes through the *same* decision
procedure as a hand-written loop. What is the skew pass's own here: the body each
core's copy is split from (a skewed inner pipeline is spliced only on the core whose
copy was skewed: :func:`core_bodies`), each core's verdict, and the loop's one-line
summary. The driver runs the passes in between (``driver.core_passes``).

Models: ``src/ir/transforms/skew_cross_core_pipeline_pass.cpp``, once per core function.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import libcst as cst

from skewlsp.analysis.frontend.constants import code_of
from skewlsp.analysis.passes.body import BodyContext, InnerSkew, Stmt
from skewlsp.analysis.passes.expand_mixed_kernel.core_split import ScalarAcross, Split
from skewlsp.analysis.skew_cross_core_pipeline.decide import Decision
from skewlsp.analysis.source.positions import shown_by_first_line
from skewlsp.analysis.source.tree_text import MadeTrees
from skewlsp.analysis.source.walk import walk
from skewlsp.contract import CONSUMER, CORE_NAMES, CoreResult

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
    # Each core copy's skew (None: not skewed), for the memory passes.
    cube_skew: CoreSkew | None = None
    vector_skew: CoreSkew | None = None


# Which half of a skewed copy a statement is cloned into: True the producer's, False the
# consumer's, None both (a recomputed address scalar) or neither (not on this core).
Half = bool | None


@dataclass(frozen=True)
class CoreSkew:
    """What the skew pass clones of one core's copy of a loop: its effective ``depth``,
    its matmuls in program order (each True when it is in the producer half: the
    backward slice of the lead push), and the node each statement of the copy stands at
    with the half it is in (:func:`statement_halves` finds the source statement)."""

    depth: int
    matmuls: tuple[bool, ...]
    located: tuple[tuple[cst.CSTNode, Half], ...]


def statement_halves(
    body: Sequence[cst.CSTNode], located: Sequence[tuple[cst.CSTNode, Half]]
) -> tuple[Half, ...]:
    """Per top-level statement of the loop's ``body``, the half of the skewed copy its
    statements are in (:class:`CoreSkew`'s ``located``): the producer's, the consumer's,
    or None where that is not one half (both, or no statement of the copy stands there:
    a statement of the other core)."""
    where: dict[int, int] = {}
    for index, statement in enumerate(body):
        for node in walk(statement):
            where.setdefault(id(node), index)
    found: list[set[Half]] = [set() for _ in body]
    for node, half in located:
        at = where.get(id(node))
        if at is not None:
            found[at].add(half)
    return tuple(next(iter(halves)) if len(halves) == 1 else None for halves in found)


def left_cores(
    split: Split, copies: int, scope_multiplies: Callable[[], bool]
) -> tuple[CoreResult, ...]:
    """Each core's verdict on a body whose split sends nothing across: left, as the skew
    pass leaves any loop without a message. ``copies`` is the vector function's
    (SplitVectorKernel's dispatch), which only a function holding cube ops has:
    ``scope_multiplies`` says whether the outlined function does, for a loop that has
    no cube op itself."""
    cores = []
    if split.has_cube:
        cores.append(CoreResult("aic", "left", "SKW010", _NO_CROSSING))
    if split.has_vector:
        mixed_scope = split.has_cube or scope_multiplies()
        vector_copies = copies if mixed_scope else 1
        cores.append(CoreResult("aiv", "left", "SKW010", _NO_CROSSING, copies=vector_copies))
    return tuple(cores)


def core_result(
    core: str,
    d: Decision,
    copies: int,
    core_stmts: Sequence[Stmt],
    made: MadeTrees | None,
    statement_code: Callable[[cst.CSTNode], str | None] | None,
) -> CoreResult:
    """One core's verdict, as the skew pass decided its copy of the loop (``copies``: the
    vector function's; ``core_stmts`` shown as ``body_lines`` shows them)."""
    return CoreResult(
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


def unknown_split(cores: tuple[CoreResult, ...], op: str, stmts: list[Stmt]) -> PerCore:
    """Every core's verdict unknown: the model cannot tell which core runs ``op``."""
    reason = f"the model does not know which core runs `{op}`"
    summary = Decision("unknown", "SKW050", reason)
    return PerCore(
        tuple(replace(c, verdict="unknown", code="SKW050", reason=reason) for c in cores),
        summary,
        stmts,
    )


def core_bodies(stmts: list[Stmt], nested: NestedPipelines | None) -> dict[str, list[Stmt]]:
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
