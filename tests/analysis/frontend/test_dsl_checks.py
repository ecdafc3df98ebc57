"""One walk of a loop body: what the DSL parser refuses, and hand-written messages."""

from __future__ import annotations

import textwrap

import libcst as cst

from skewlsp.analysis.frontend import dsl
from skewlsp.analysis.frontend.dsl_checks import check_body

ALIASES = dsl.Aliases(frozenset({"pl"}), frozenset())


def _loop(source: str) -> cst.For:
    loop = cst.parse_module(textwrap.dedent(source)).body[0]
    assert isinstance(loop, cst.For)
    return loop


def test_a_body_without_messages_or_errors() -> None:
    checks = check_body(
        _loop("""\
            for i in pl.pipeline(4, stage=2):
                t = pl.tile.load(x, [i, 0], [16, 16])
                pl.tile.store(t, [i, 0], y)
            """),
        ALIASES,
        None,
        None,  # (libcst's tree: nothing made)
    )
    assert checks.errors == []
    assert checks.explicit_messages is False


def test_a_pop_is_a_hand_written_message_and_a_push_without_split_is_refused() -> None:
    checks = check_body(
        _loop("""\
            for i in pl.pipeline(4, stage=2):
                t = pl.tile.tpop_from_aic(split=0)
                pl.tile.tpush_to_aic(t)
            """),
        ALIASES,
        None,
        None,  # (libcst's tree: nothing made)
    )
    assert checks.explicit_messages is True
    assert checks.errors == ["tpush requires the keyword argument split="]
    # Each message is a statement's whole value: none hides inside an expression.
    assert checks.nested_messages is False


def test_messages_count_inside_nested_calls_and_definitions() -> None:
    nested_call = check_body(
        _loop("""\
            for i in pl.pipeline(4, stage=2):
                y = pl.add(pl.tile.tpop_from_aic(split=0), 1)
            """),
        ALIASES,
        None,
        None,  # (libcst's tree: nothing made)
    )
    assert nested_call.explicit_messages is True
    assert nested_call.nested_messages is True
    in_arithmetic = check_body(
        _loop("""\
            for i in pl.pipeline(4, stage=2):
                if i > 0:
                    z = pl.tile.tpop_from_aic(split=0) + 1
                pl.tile.tpush_to_aiv(z, split=0)
            """),
        ALIASES,
        None,
        None,  # (libcst's tree: nothing made)
    )
    assert in_arithmetic.nested_messages is True
    in_definition = check_body(
        _loop("""\
            for i in pl.pipeline(4, stage=2):
                def later():
                    pl.tile.tpush_to_aiv(t)
            """),
        ALIASES,
        None,
        None,  # (libcst's tree: nothing made)
    )
    # The definition's body is not the kernel's (its missing split= is not reported)...
    assert in_definition.errors == []
    # ...but a hand-written message anywhere in the loop keeps the mixed-kernel model out.
    assert in_definition.explicit_messages is True


def test_a_message_op_spelled_outside_pl_is_not_a_message() -> None:
    checks = check_body(
        _loop("""\
            for i in pl.pipeline(4, stage=2):
                t = other.tpop_from_aic(split=0)
            """),
        ALIASES,
        None,
        None,  # (libcst's tree: nothing made)
    )
    assert checks.explicit_messages is False
    assert len(checks.errors) == 1
    assert "unsupported operation call `other.tpop_from_aic" in checks.errors[0]


def test_a_message_returned_or_yielded_whole_is_not_nested() -> None:
    checks = check_body(
        _loop("""\
            for i in pl.pipeline(4, stage=2):
                t: pl.Tile = pl.tile.tpop_from_aic(split=0)
                acc = pl.yield_(t)
            """),
        ALIASES,
        None,
        None,  # (libcst's tree: nothing made)
    )
    assert checks.explicit_messages is True
    assert checks.nested_messages is False


def test_a_lane_region_is_a_loop_header_the_parser_accepts_and_others_are_not() -> None:
    checks = check_body(
        _loop("""\
            for i in pl.pipeline(4, stage=2):
                for lane in pl.split_aiv(2, mode=pl.SplitMode.NONE):
                    pl.tile.store(pl.exp(x), [i, 0], y)
                for j in pl.grid(2):
                    pass
            """),
        ALIASES,
        None,
        None,  # (libcst's tree: nothing made)
    )
    assert checks.errors == [
        "`for ... in pl.grid(...)`: the DSL parser accepts only pl.range, pl.parallel, "
        "pl.unroll, pl.pipeline, pl.while_, pl.spmd and pl.split_aiv loops"
    ]
