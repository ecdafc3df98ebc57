"""UnrollLoops writes a ``pl.unroll`` loop out, one copy of its body per value, before the
skew pass sees the body; a count the parser cannot fold does not compile."""

from __future__ import annotations

import libcst as cst

from skewlsp.analysis.frontend import dsl
from skewlsp.analysis.frontend.names import body_statements
from skewlsp.analysis.passes.body import BodyContext
from skewlsp.analysis.passes.loop_body import normalise

ALIASES = dsl.Aliases(frozenset({"pl"}), frozenset())


def body_of(code: str) -> tuple[list[tuple[str, tuple[tuple[str, int], ...]]], BodyContext]:
    loop = cst.parse_statement(code)
    assert isinstance(loop, cst.For)
    ctx = BodyContext(lambda name: None, {}, ALIASES, lambda node, c: None, None)
    stmts = normalise(body_statements(loop.body), ctx).stmts
    return [(s.origin, s.bindings) for s in stmts], ctx


def test_each_copy_of_the_body_is_written_out_with_its_value() -> None:
    found, ctx = body_of(
        "for i in pl.pipeline(8, stage=2):\n"
        "    for g in pl.unroll(0, 3):\n"
        "        x = pl.load(q, [g, 0], [16, 64])\n"
    )
    assert found == [("g=0", (("g", 0),)), ("g=1", (("g", 1),)), ("g=2", (("g", 2),))]
    assert ctx.errors == []


def test_a_count_the_parser_cannot_fold_is_refused() -> None:
    found, ctx = body_of(
        "for i in pl.pipeline(8, stage=2):\n"
        "    for g in pl.unroll(0, n):\n"
        "        x = pl.load(q, [g, 0], [16, 64])\n"
    )
    assert [origin for origin, _ in found] == [""]  # the loop stays one statement
    assert ctx.errors == ["pl.unroll() requires compile-time constant integer bounds"]
