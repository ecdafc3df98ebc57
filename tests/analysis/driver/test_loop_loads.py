"""What the lowering and memory passes read of a loop's body (``driver.loop_loads``):
folded again for each copy of the loop the analysis decides, read off the tree once."""

from __future__ import annotations

import libcst as cst

from skewlsp.analysis.driver.loop_loads import LoopLoads
from skewlsp.analysis.frontend import dsl
from skewlsp.analysis.frontend.constants import Const
from skewlsp.analysis.frontend.state import AnalysisState
from skewlsp.analysis.lower_pipeline.loop_facts import NO_FACTS, LoopFacts
from skewlsp.analysis.lower_pipeline.slot_loads import body_uses
from skewlsp.analysis.passes.body import BodyContext
from skewlsp.analysis.passes.cube_side import cube_only
from skewlsp.analysis.source.walk import calls_in
from skewlsp.contract import LoopReport, Span
from tests.kernels import function_and_loop

KERNEL = """\
import pypto.language as pl


@pl.function(type=pl.FunctionType.InCore)
def project(a: pl.Tensor[[1024, 256], pl.FP16], w: pl.Tensor[[256, 256], pl.FP16]):
    for k in pl.pipeline(0, 1024, ROWS, stage=2):
        x = a[k:k + ROWS, 0:256]
        y = pl.matmul(x, w)
"""
AT = Span(6, 5, 8, 28)


def _copy(loads: LoopLoads, fn: cst.FunctionDef, loop: cst.For, rows: int) -> LoopFacts:
    """The loop's facts in the copy where ``ROWS`` is ``rows`` (as a helper's copy at a
    call, or the module under another build, folds it)."""
    ctx = BodyContext(
        lambda name: Const(rows) if name == "ROWS" else None,
        {},
        dsl.Aliases(frozenset({"pl"}), frozenset()),
        lambda node, ctx: None,
        None,
    )
    report = LoopReport(None, AT, AT, "left", "SKW011", "left as a pipeline loop")
    return loads.of_loop(NO_FACTS, report, loop, ctx, (fn, True, None), {}, lambda node: AT)


def test_each_copy_folds_its_loads_and_the_tree_is_read_once_for_all() -> None:
    fn, loop = function_and_loop(KERNEL)
    state = AnalysisState()
    loads = LoopLoads(state)
    small, large = _copy(loads, fn, loop, 64), _copy(loads, fn, loop, 128)
    assert small.slot_loads is not None and large.slot_loads is not None
    # x: a [ROWS, 256] FP16 slice, one slot of it per copy's ROWS; w: the whole
    # [256, 256] FP16 tensor the matmul takes, loaded into Mat
    assert [(load.name, load.space, load.size) for load in small.slot_loads] == [
        ("x", "Mat", 64 * 256 * 2),
        ("w", "Mat", 256 * 256 * 2),
    ]
    assert [(load.name, load.space, load.size) for load in large.slot_loads] == [
        ("x", "Mat", 128 * 256 * 2),
        ("w", "Mat", 256 * 256 * 2),
    ]
    assert small.matmuls is large.matmuls  # AutoTileMatmulL0's sites: read off the tree once
    read = sorted({key[0].__name__ for key in state.syntactic})  # type: ignore[index]
    # (the scope's matmuls are not among them: which statements Simplify keeps of the
    # scope depends on how its ``if`` tests fold)
    assert read == ["body_matmuls", "body_uses", "calls_in", "cube_only", "replayed", "surroundings"]


def test_a_walk_whose_folding_gets_the_same_answers_reads_what_an_earlier_one_made() -> None:
    fn, loop = function_and_loop(KERNEL)
    state = AnalysisState()
    # the module walked under three builds (``driver.variants``): ROWS folds alike in two
    first = _copy(LoopLoads(state), fn, loop, 64)
    again = _copy(LoopLoads(state), fn, loop, 64)
    other = _copy(LoopLoads(state), fn, loop, 128)
    assert again.slot_loads is first.slot_loads
    assert again.scope_tiles is first.scope_tiles
    assert again.scope_mat is first.scope_mat
    # the third folds its own: x is [128, 256] FP16
    assert other.slot_loads is not None
    assert [(load.name, load.size) for load in other.slot_loads] == [
        ("x", 128 * 256 * 2),
        ("w", 256 * 256 * 2),
    ]


def test_the_same_tree_at_another_place_names_its_own_loops() -> None:
    fn, loop = function_and_loop(KERNEL)
    state = AnalysisState()
    ctx = BodyContext(
        lambda name: Const(64) if name == "ROWS" else None,
        {},
        dsl.Aliases(frozenset({"pl"}), frozenset()),
        lambda node, ctx: None,
        None,
    )
    # a second file of a batch holding the kernel's text ten lines lower: the same tree
    lower = Span(16, 5, 18, 28)
    report = LoopReport(None, lower, lower, "left", "SKW011", "left as a pipeline loop")
    _copy(LoopLoads(state), fn, loop, 64)
    found = LoopLoads(state).of_loop(
        NO_FACTS, report, loop, ctx, (fn, True, None), {}, lambda node: lower
    )
    # the pipeline loop the scope's Mat loads are in, where this file has it
    assert found.scope_mat is not None
    assert found.scope_mat.loops == (lower,)


def test_how_a_scope_s_blocks_use_their_names_is_read_off_the_tree_once_for_every_copy() -> None:
    fn, loop = function_and_loop(KERNEL)
    state = AnalysisState()
    # the walk of the module under one build, then under another (``driver.variants``:
    # a walk of its own, the same trees and syntactic facts)
    small = _copy(LoopLoads(state), fn, loop, 64)
    large = _copy(LoopLoads(state), fn, loop, 128)
    assert small.scope_mat is not None and large.scope_mat is not None
    # each build's Mat model of the scope (the InCore function's body) folds its own
    # sizes: x is [ROWS, 256] FP16, w the whole [256, 256] FP16 tensor
    assert [(m.name, m.bytes) for m in small.scope_mat.loads] == [
        ("x", 64 * 256 * 2),
        ("w", 256 * 256 * 2),
    ]
    assert [(m.name, m.bytes) for m in large.scope_mat.loads] == [
        ("x", 128 * 256 * 2),
        ("w", 256 * 256 * 2),
    ]
    # but how the scope's blocks use their names (the function's body, the loop's) is
    # kept once, by the statements and the tensors in scope, for both builds
    kept = [key[1:] for key in state.syntactic if key[0] is body_uses]  # type: ignore[index]
    tensors = frozenset({"a", "w"})
    assert sorted(kept, key=lambda key: len(key[0])) == [
        (tuple(fn.body.body), tensors),
        (tuple(loop.body.body), tensors),
    ]


def test_the_calls_of_a_scope_s_statements_are_read_off_the_tree_once_for_every_build() -> None:
    fn, loop = function_and_loop(KERNEL)
    state = AnalysisState()
    _copy(LoopLoads(state), fn, loop, 64)
    kept = {key[1]: found for key, found in state.syntactic.items() if key[0] is calls_in}  # type: ignore[index]
    x, y = (line.body[0] for line in loop.body.body)  # type: ignore[attr-defined]
    code = cst.Module([]).code_for_node
    assert [code(call) for call in kept[y]] == ["pl.matmul(x, w)"]
    assert kept[x] == ()
    # the module decided under another build reads the same statements' calls, kept
    _copy(LoopLoads(state), fn, loop, 128)
    again = {key[1]: found for key, found in state.syntactic.items() if key[0] is calls_in}  # type: ignore[index]
    assert again.keys() == kept.keys()
    assert all(again[node] is kept[node] for node in kept)


def test_the_names_only_a_scope_s_matmuls_read_are_read_off_the_tree_once_for_every_build() -> (
    None
):
    fn, loop = function_and_loop(KERNEL)
    state = AnalysisState()
    # the module under two builds: the scope (the InCore function's body) converted for
    # each, as its ROWS folds
    small = _copy(LoopLoads(state), fn, loop, 64)
    large = _copy(LoopLoads(state), fn, loop, 128)
    assert small.scope_tiles is not None and large.scope_tiles is not None
    # what ExpandMixedKernel puts on the cube (x and w: only the matmul reads them) is
    # the tree's, kept once by the scope's statements for both
    kept = {key[1]: found for key, found in state.syntactic.items() if key[0] is cube_only}  # type: ignore[index]
    assert kept == {tuple(fn.body.body): frozenset({"x", "w"})}


TWO_LOOPS = """\
import pypto.language as pl


@pl.function(type=pl.FunctionType.InCore)
def scale(a: pl.Tensor[[1024, 256], pl.FP32], out: pl.Tensor[[1024, 256], pl.FP32]):
    for i in pl.pipeline(0, 1024, ROWS, stage=2):
        x = a[i:i + ROWS, 0:256]
        y = pl.exp(x)
        out[i:i + ROWS, 0:256] = y
    for j in pl.pipeline(0, 1024, ROWS, stage=2):
        u = a[j:j + ROWS, 0:256]
        v = pl.exp(u)
        out[j:j + ROWS, 0:256] = v
"""


def test_the_loops_of_a_scope_share_its_tiles_where_their_folding_agrees() -> None:
    module = cst.parse_module(TWO_LOOPS)
    fn = module.body[1]
    assert isinstance(fn, cst.FunctionDef)
    first, second = fn.body.body
    assert isinstance(first, cst.For) and isinstance(second, cst.For)
    spans = {id(first): Span(6, 5, 9, 35), id(second): Span(10, 5, 13, 35)}
    loads = LoopLoads(AnalysisState())

    def facts(loop: cst.For, rows: int) -> LoopFacts:
        at = spans[id(loop)]
        report = LoopReport(None, at, at, "left", "SKW011", "left as a pipeline loop")
        ctx = BodyContext(
            lambda name: Const(rows) if name == "ROWS" else None,
            {},
            dsl.Aliases(frozenset({"pl"}), frozenset()),
            lambda node, ctx: None,
            None,
        )
        return loads.of_loop(
            NO_FACTS, report, loop, ctx, (fn, True, None), {}, lambda n: spans[id(n)]
        )

    one, two, wider = facts(first, 64), facts(second, 64), facts(first, 128)
    assert one.scope_tiles is not None and wider.scope_tiles is not None
    assert one.scope_tiles is two.scope_tiles  # the same answers: converted once
    assert (one.scope_loop, two.scope_loop) == (0, 1)
    # ConvertTensorToTileOps' tiles: each loop's load and its exp, [ROWS, 256] FP32
    assert [(op.out, op.shape) for op in one.scope_tiles.ops if op.out] == [
        ("x", ((64, 256), "FP32")),
        ("y", ((64, 256), "FP32")),
        ("u", ((64, 256), "FP32")),
        ("v", ((64, 256), "FP32")),
    ]
    assert [(op.out, op.shape) for op in wider.scope_tiles.ops if op.out][0] == (
        "x",
        ((128, 256), "FP32"),
    )
