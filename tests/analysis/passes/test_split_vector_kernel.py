"""SplitVectorKernel: without a split mode the vector copy of a loop runs on both lanes;
a ``pl.split_aiv`` region (LowerAutoVectorSplit) puts the function in manual mode, one
copy."""

from __future__ import annotations

import textwrap

import libcst as cst

from skewlsp.analysis.passes.lower_auto_vector_split import opens_lane_regions
from skewlsp.analysis.passes.outline_incore_scopes import outlined_scope
from skewlsp.analysis.passes.scope_tile_ops import ScopeLoop, ScopeTiles, TileOp
from skewlsp.analysis.passes.split_vector_kernel import dual_aiv_dispatch, replayed_per_lane
from skewlsp.analysis.source.walk import walk
from skewlsp.contract import Span


def function(code: str) -> cst.FunctionDef:
    fn = cst.parse_module(textwrap.dedent(code)).body[0]
    assert isinstance(fn, cst.FunctionDef)
    return fn


def test_without_a_split_mode_the_vector_copy_runs_on_both_lanes() -> None:
    fn = function("""\
        def k(q):
            with pl.at(level=pl.Level.CORE_GROUP):
                for i in pl.pipeline(4, stage=2):
                    pass
        """)
    loop = next(n for n in walk(fn) if isinstance(n, cst.For))
    scope = outlined_scope(fn, loop, None)
    assert dual_aiv_dispatch(scope.headers, lane_regions=opens_lane_regions(scope.node))


def test_a_lane_region_puts_the_function_in_manual_mode_one_copy() -> None:
    fn = function("""\
        def k(q):
            with pl.at(level=pl.Level.CORE_GROUP):
                for i in pl.pipeline(4, stage=2):
                    for lane in pl.split_aiv(2):
                        pass
        """)
    loop = next(n for n in walk(fn) if isinstance(n, cst.For))
    scope = outlined_scope(fn, loop, None)
    assert opens_lane_regions(scope.node)
    assert not dual_aiv_dispatch(scope.headers, lane_regions=True)


def test_a_body_run_on_both_lanes_is_its_tiles_and_loops_once_per_lane() -> None:
    # pypto's dual-dispatch AIV function (tests/fixtures/memory/models/mem_llm/popped.py,
    # InitMemRef): the tile made before the loop and the loop's tiles, then all of them
    # again for the second lane, its loop a stage group after the first lane's.
    loop = ScopeLoop(Span(29, 9, 34, 50), True)
    made = TileOp("b", (), ((32, 256), "FP32"), "b (exp)")
    summed = TileOp("p", ("b",), ((32, 256), "FP32"), "p (add)", loop=0, forbid=("b",))
    both = replayed_per_lane(ScopeTiles((made, summed), (loop,)))
    assert [(op.out, op.reads, op.loop, op.forbid) for op in both.ops] == [
        ("b", (), -1, ()),
        ("p", ("b",), 0, ("b",)),
        ("b@1", (), -1, ()),
        ("p@1", ("b@1",), 1, ("b@1",)),
    ]
    assert both.loops == (loop, loop)
    assert replayed_per_lane(ScopeTiles(unknown="why")).unknown == "why"
