"""Which statements open an InCore scope (the functions OutlineIncoreScopes makes)."""

from __future__ import annotations

import textwrap

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


def block(code: str) -> cst.CSTNode:
    return cst.parse_statement(textwrap.dedent(code))


@pytest.mark.parametrize(
    "call",
    ["project_wide(q, wv, proj, h * 4)", "self.project_wide(q, wv, proj, h * 4)"],
)
def test_an_spmd_body_that_dispatches_a_kernel_without_reading_the_block_index_opens_none(
    call: str,
) -> None:
    # The DSL parser wraps a `with pl.spmd(...)` body in an InCore scope only when it
    # reads `get_block_idx()` (or carries a split / slot optimisation): a dispatch body
    # stays a bare Spmd scope, outlined to a Spmd function no later pass splits.
    # pypto e2d0f78ae printed skewed_calls.py's heads_then_wide that way after
    # OutlineIncoreScopes: its head loop in `with pl.spmd(1, name_hint="wide")`, tensor ops.
    scope = block(f"""\
        with pl.spmd(1, name_hint="wide"):
            for h in pl.pipeline(4, stage=2):
                proj = {call}
        """)
    assert not opens_incore_scope(scope, None)


@pytest.mark.parametrize(
    ("header", "first"),
    [
        ('pl.spmd(1, name_hint="wide")', "b = pl.tile.get_block_idx()"),
        ("pl.spmd(1, optimizations=[pl.split(pl.SplitMode.UP_DOWN)])", "pass"),
        ("pl.spmd(1, optimizations=[pl.cross_core_slot(2)])", "pass"),
    ],
)
def test_an_spmd_body_reading_the_block_index_or_splitting_is_wrapped_in_an_incore_scope(
    header: str, first: str
) -> None:
    scope = block(f"""\
        with {header}:
            {first}
            for h in pl.pipeline(4, stage=2):
                proj = project_wide(q, wv, proj, h * 4)
        """)
    assert opens_incore_scope(scope, None)
