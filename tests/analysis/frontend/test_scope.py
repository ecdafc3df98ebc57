"""Which statements open an InCore scope (the functions OutlineIncoreScopes makes)."""

from __future__ import annotations

import libcst as cst
import pytest

from skewlsp.analysis.frontend.scope import is_split_aiv_region, opens_incore_scope


def statement(code: str) -> cst.CSTNode:
    return cst.parse_statement(code + "\n    pass\n")


@pytest.mark.parametrize(
    "header",
    [
        "with pl.at(level=pl.Level.CORE_GROUP):",
        "with pl.spmd(4) as tid:",
        "for tid in pl.spmd(4):",
    ],
)
def test_core_group_and_spmd_scopes_open_one_inside_another_too(header: str) -> None:
    assert opens_incore_scope(statement(header), None)
    assert opens_incore_scope(statement(header), None, incore=True)


def test_a_lane_region_opens_a_scope_only_where_none_is_open_yet() -> None:
    region = statement("for lane in pl.split_aiv(2, mode=pl.SplitMode.NONE):")
    assert opens_incore_scope(region, None)
    assert not opens_incore_scope(region, None, incore=True)
    assert is_split_aiv_region(region)


@pytest.mark.parametrize(
    "header",
    [
        "for t in pl.range(8):",
        "for t in pl.pipeline(8, stage=2):",
        "with pl.at(level=pl.Level.HOST):",
    ],
)
def test_loops_and_other_levels_open_no_scope_and_are_no_region(header: str) -> None:
    assert not opens_incore_scope(statement(header), None)
    assert not is_split_aiv_region(statement(header))
