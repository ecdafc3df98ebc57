"""OutlineIncoreScopes: a loop is outlined to the innermost InCore scope around it, whose
headers (SplitVectorKernel reads them) say whether it splits."""

from __future__ import annotations

import textwrap

import libcst as cst

from skewlsp.analysis.passes.outline_incore_scopes import outlined_scope
from skewlsp.analysis.passes.split_vector_kernel import any_split, dual_aiv_dispatch
from skewlsp.analysis.source.walk import walk


def function(code: str) -> cst.FunctionDef:
    fn = cst.parse_module(textwrap.dedent(code)).body[0]
    assert isinstance(fn, cst.FunctionDef)
    return fn


NESTED = function("""\
    def k(q):
        with pl.at(level=pl.Level.CORE_GROUP):
            with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.UP_DOWN)]):
                for i in pl.pipeline(4, stage=2):
                    pass
    """)


def test_a_loop_is_outlined_to_the_innermost_incore_scope_around_it() -> None:
    loop = next(n for n in walk(NESTED) if isinstance(n, cst.For))
    scope = outlined_scope(NESTED, loop, None)
    inner_with = [n for n in walk(NESTED) if isinstance(n, cst.With)][1]
    assert scope.node is inner_with
    assert any_split(scope.headers)
    assert not dual_aiv_dispatch(scope.headers, lane_regions=False)
