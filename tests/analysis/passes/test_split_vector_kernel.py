"""SplitVectorKernel: without a split mode the vector copy of a loop runs on both lanes;
a ``pl.split_aiv`` region (LowerAutoVectorSplit) puts the function in manual mode, one
copy."""

from __future__ import annotations

import textwrap

import libcst as cst

from skewlsp.analysis.passes.lower_auto_vector_split import opens_lane_regions
from skewlsp.analysis.passes.outline_incore_scopes import outlined_scope
from skewlsp.analysis.passes.split_vector_kernel import dual_aiv_dispatch
from skewlsp.analysis.source.walk import walk


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
