"""The passes on an InCore loop from FlattenCallExpr to SkewCrossCorePipeline, per core.

pypto's ``python/pypto/ir/pass_manager.py`` lists the passes once, in order; the
driver does the same for one loop in an InCore scope (:func:`split_and_skew`), so a
reviewer can read the two side by side. Each call names the upstream pass it models;
each pass is a module of its own under ``analysis/passes`` (or the skew pass's package)
and none of them calls another: the order lives here.

What differs from the compiler's order, and why no verdict depends on it:

- The compiler splits a whole outlined function; this splits one loop's body, once per
  distinct body the cores see (an inner pipeline skewed on one core only is spliced
  into that core's body alone: ``per_core.core_bodies``, the skew pass's result on
  the inner loops, decided first as the compiler decides the inner loops of a function
  before the loops around them).
- InferTileMemorySpace (17) puts a move before the first statement that needs it,
  before ExpandMixedKernel (21) runs; the moves of outside tiles that several
  statements share are found on each core's list after the split, where they sit at
  the same statement (``infer_tile_memory_space.shared_moves``).
- ConvertToSSA (04) runs again on each core's new list: the split makes fresh
  statements, and the skew pass follows their def/use edges.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

import libcst as cst

from skewlsp.analysis.frontend import op_registry
from skewlsp.analysis.frontend.op_registry import op_leaf
from skewlsp.analysis.frontend.values import PYTHON_ONLY
from skewlsp.analysis.passes.auto_tile_matmul_l0 import cube_casts
from skewlsp.analysis.passes.body import Splicer, Stmt
from skewlsp.analysis.passes.convert_to_ssa import resolve
from skewlsp.analysis.passes.expand_mixed_kernel.core_split import (
    Split,
    fence_values,
    message_core,
    scalars_across,
    split_body,
)
from skewlsp.analysis.passes.flatten_call_expr import flatten_crossing_calls
from skewlsp.analysis.passes.infer_tile_memory_space import shared_moves
from skewlsp.analysis.skew_cross_core_pipeline import per_core
from skewlsp.analysis.skew_cross_core_pipeline.decide import Decision, LoopHeader, decide
from skewlsp.analysis.source.tree_text import MadeTrees
from skewlsp.analysis.source.walk import walk
from skewlsp.contract import CoreResult


@dataclass(frozen=True)
class OutlinedFunction:
    """What the passes before the split know of the function a loop is outlined to.

    ``outside``: each value made before the loop, by its side (``core_sides``);
    ``made_before``: the (tile, memory) moves made before it (InferTileMemorySpace);
    ``copies``: how many copies of the vector function run (SplitVectorKernel, with
    LowerAutoVectorSplit's regions); ``multiplies``: whether the function holds a cube
    op, asked only for a loop with none of its own (ExpandMixedKernel then still splits
    the function); ``statement_code`` cuts a statement's code out of the source.
    """

    outside: Mapping[str, str]
    made_before: Collection[tuple[str, str]]
    copies: int
    multiplies: Callable[[], bool]
    made: MadeTrees | None
    statement_code: Callable[[cst.CSTNode], str | None] | None
    inline: Splicer | None = None  # 01 InlineFunctions at a call of the module's helpers


def split_and_skew(
    stmts: list[Stmt],
    header: LoopHeader,
    live_out: Sequence[str],
    function: OutlinedFunction,
    nested: per_core.NestedPipelines | None,
) -> per_core.PerCore:
    """Both cores' verdicts on a loop in an InCore scope, the passes run in the compiler's
    order on the body each core sees (``stmts``: the body as ConvertToSSA leaves it)."""
    bodies = per_core.core_bodies(stmts, nested)
    splits = {"aic": _split(bodies["aic"], live_out, function)}
    # Both cores usually see the same body: one split serves both (each core's list is
    # made afresh by the split, so neither core's list is shared with the other's).
    same = bodies["aiv"] is bodies["aic"]
    splits["aiv"] = splits["aic"] if same else _split(bodies["aiv"], live_out, function)
    unknown = next((s.unknown for s in splits.values() if s.unknown), None)
    spliced_messages = any(message_core(s) is not None for s in stmts)
    if not spliced_messages and not any(s.crossings for s in splits.values()):
        cores = per_core.left_cores(splits["aic"], function.copies, function.multiplies)
        if unknown and cores:
            return per_core.unknown_split(cores, unknown, stmts)
        return per_core.PerCore(cores, None, stmts)
    lists = {"aic": splits["aic"].aic, "aiv": splits["aiv"].aiv}
    across = tuple(
        found
        for core, core_stmts in lists.items()
        for found in scalars_across(core, core_stmts, splits[core], splits[core].body)
    )
    results: list[tuple[CoreResult, Decision]] = []
    for core, core_stmts in lists.items():
        results.append(_skew_core(core, core_stmts, splits[core], header, function))
    if unknown:
        return per_core.unknown_split(tuple(c for c, _ in results), unknown, stmts)
    chosen, summary = per_core.summarise(results)
    skews = {c.core: _core_skew(lists[c.core], d) for c, d in results}
    return per_core.PerCore(
        tuple(c for c, _ in results), summary, lists[chosen], across,
        skews.get("aic"), skews.get("aiv"),
    )  # fmt: skip


@dataclass(frozen=True)
class SplitInputs:
    """What :func:`split_and_skew` reads of one decision of a loop with no inner pipeline
    spliced in (the nested pipelines' callbacks are then never asked), beyond the loop's
    tree: its body statements (ConvertToSSA set their edges before the split; nothing
    after it sets a body statement's fields: the split makes each core's own), its
    header (with its text: 1, 1.0 and True are equal but fold apart), what it leaves
    live, what :class:`OutlinedFunction` holds, and what that is made from where a
    callback reads it (the function and whether its body is InCore give the outlined
    scope ``multiplies`` walks; the unit's module, text and first line make the
    positions ``statement_code`` cuts from; the module's helpers' texts ``inline``
    splices). Equal inputs make an equal split, so a loop decided again in another copy
    (a pl.unroll copy, a helper's call, another build) with equal inputs reuses it:
    0.5% of a cold lint of pypto-lib (benchmarks/README.md)."""

    header_text: str
    live_out: tuple[str, ...]
    copies: int
    fn: cst.FunctionDef | None
    fn_incore: bool
    unit: tuple[cst.Module, str, int]
    outside: Mapping[str, str]
    made_before: Collection[tuple[str, str]]
    helpers: Mapping[str, str]
    header: LoopHeader
    stmts: list[Stmt]


def split_inputs(
    stmts: Sequence[Stmt],
    header: LoopHeader,
    live_out: Sequence[str],
    function: OutlinedFunction,
    made_of: tuple[cst.FunctionDef | None, bool, tuple[cst.Module, str, int], Mapping[str, str]],
) -> SplitInputs | None:
    """The inputs a split of these arguments reads (``made_of``: :class:`SplitInputs`'
    last four fields); None when a result cannot be reused: an inner pipeline is spliced
    in (the split then reads the inner loops' decisions of this copy), or a bound folds
    to a value only Python builds (its equality leaves out where it was folded)."""
    folded = (header.stage, header.start, header.stop, header.step)
    if any(s.origin == "steady" for s in stmts) or any(isinstance(v, PYTHON_ONLY) for v in folded):
        return None
    fn, fn_incore, unit, helpers = made_of
    return SplitInputs(
        repr(header), tuple(live_out), function.copies, fn, fn_incore, unit, function.outside,
        function.made_before, helpers, header, list(stmts),
    )


def kept_split(
    kept: list[tuple[SplitInputs, per_core.PerCore]],
    inputs: SplitInputs,
    make: Callable[[], per_core.PerCore],
) -> per_core.PerCore:
    """``make()``'s split, or the one kept (``kept``: one loop's) for equal inputs. The
    split's statement lists are read only after it, so two copies may share them."""
    for earlier, split in kept:
        if earlier == inputs:
            return split
    split = make()
    kept.append((inputs, split))
    return split


def _core_skew(stmts: Sequence[Stmt], decision: Decision) -> per_core.CoreSkew | None:
    """What the skew pass clones of a skewed copy: each matmul, in program order, and
    each statement: whether it clones it into the producer half (the backward slice of
    its lead push) or the consumer half (a recomputed address scalar: both); the memory
    passes lay out the clones of each half apart (prologue, steady body, epilogue), with
    its effective depth. None when the copy is not skewed."""
    if decision.verdict != "skewed" or decision.depth is None:
        return None
    produce, again = set(decision.produce), set(decision.recompute)
    matmuls = tuple(
        k in produce
        for k, stmt in enumerate(stmts)
        for node in walk(stmt.node)
        if type(node) is cst.Call and op_leaf(node) in op_registry.CUBE_OPS
    )
    located = tuple(
        (stmt.located, None if k in again else k in produce) for k, stmt in enumerate(stmts)
    )
    return per_core.CoreSkew(decision.depth, matmuls, located)


def _split(body: list[Stmt], live_out: Sequence[str], function: OutlinedFunction) -> Split:
    """One body as the passes up to ExpandMixedKernel leave it: both cores' lists."""
    made = function.made
    flat = flatten_crossing_calls(body, made)  # 06 FlattenCallExpr
    casts = cube_casts(flat)  # 15 AutoTileMatmulL0
    # 21 ExpandMixedKernel (a helper's body spliced at its call: 01)
    return split_body(flat, function.outside, live_out, made, casts, function.inline)


def _skew_core(
    core: str,
    core_stmts: list[Stmt],
    split: Split,
    header: LoopHeader,
    function: OutlinedFunction,
) -> tuple[CoreResult, Decision]:
    """One core's copy through the skew pass, with the values several of its statements
    share through one move (the skew pass sees them as carries across its halves)."""
    made = function.made
    resolve(core_stmts, header.iter_names)  # 04 ConvertToSSA, on the core's new list
    shared = shared_moves(core_stmts, function.outside, made, function.made_before)  # 17
    shared += fence_values(core_stmts, split.crossings, split.body)  # 21's GM fences
    decision = decide(header, core_stmts, shared)  # 26 SkewCrossCorePipeline
    result = per_core.core_result(
        core, decision, function.copies, core_stmts, made, function.statement_code
    )
    return result, decision
