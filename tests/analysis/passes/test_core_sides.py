"""ExpandMixedKernel's sides of the values made before a loop: one walk of the function
gives each loop the sides known where it starts (``expand_mixed_kernel.core_sides``)."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest


def test_each_loop_sees_the_sides_of_the_values_defined_before_it() -> None:
    """One walk of a function gives every loop the sides known where it starts."""
    import libcst as cst

    from skewlsp.analysis.frontend.names import body_statements
    from skewlsp.analysis.frontend.op_registry import CUBE, GM, VECTOR
    from skewlsp.analysis.passes.expand_mixed_kernel.core_sides import OutsideSides
    from skewlsp.analysis.source.walk import walk

    fn = cst.parse_module(textwrap.dedent("""\
        def k(kv):
            for first in pl.pipeline(4, stage=2):
                pass
            raw = pl.matmul(kv, kv, out_dtype=pl.FP32)
            with pl.scope():  # not an InCore scope: nothing reaches it as a tensor
                for second in pl.pipeline(4, stage=2):
                    pass
            if kv:
                pass
            else:
                for third in pl.pipeline(4, stage=2):
                    pass
            ex = pl.exp(raw)
        """)).body[0]
    assert isinstance(fn, cst.FunctionDef)
    loops = [n for n in walk(fn) if isinstance(n, cst.For)]
    first, second, third = loops
    sides = OutsideSides(body_statements(fn.body), {"kv": GM}, None)
    assert "raw" not in sides.before(first)
    assert sides.before(second)["raw"] == CUBE and "ex" not in sides.before(second)
    # the walk does not enter else branches: that loop sees the whole function
    assert sides.before(third)["ex"] == VECTOR
    assert sides.before(first) == {"kv": GM}
    # The walk goes only as far as asked: the answers do not depend on the order asked.
    backwards = OutsideSides(body_statements(fn.body), {"kv": GM}, None)
    assert backwards.before(third)["ex"] == VECTOR
    assert backwards.before(second) == {"kv": GM, "raw": CUBE}
    assert backwards.before(first) == {"kv": GM}


def test_what_is_made_before_an_incore_scope_is_a_tensor_inside_it() -> None:
    """OutlineIncoreScopes makes each InCore scope a function of its own (a scope inside
    another one too) before tensor ops become tile ops: a slice, a reshape or an
    element-wise op made before the scope reaches it as a tensor parameter (GM), not a
    tile its first reader loads or a vector tile. Inside the scope they stay tiles."""
    from skewlsp.analysis.frontend.names import body_statements
    from skewlsp.analysis.frontend.op_registry import GM, LAZY, VECTOR
    from skewlsp.analysis.passes.expand_mixed_kernel.core_sides import OutsideSides
    from skewlsp.analysis.source.walk import walk

    fn = cst.parse_module(textwrap.dedent("""\
        def k(table):
            flat = pl.reshape(table, [8])
            ex = pl.exp(table)
            with pl.at(level=pl.Level.CORE_GROUP):
                row = table[0:1, 0:8]
                ey = pl.exp(table)
                for t in pl.pipeline(4, stage=2):
                    pass
                with pl.at(level=pl.Level.CORE_GROUP):
                    for u in pl.pipeline(4, stage=2):
                        pass
        """)).body[0]
    assert isinstance(fn, cst.FunctionDef)
    first, second = [n for n in walk(fn) if isinstance(n, cst.For)]
    sides = OutsideSides(body_statements(fn.body), {"table": GM}, None)
    assert sides.before(first) == {
        "table": GM, "flat": GM, "ex": GM, "row": LAZY, "ey": VECTOR
    }
    assert sides.before(second) == {"table": GM, "flat": GM, "ex": GM, "row": GM, "ey": GM}


def test_a_helper_returning_a_matmul_gives_its_caller_a_cube_tile() -> None:
    """InlineFunctions splices ``return pl.matmul(...)`` of an inline helper as
    ``s = pl.matmul(...)`` at its call (inline_functions_pass.cpp's
    SpliceInlineCallAsAssign), before ExpandMixedKernel: the score tile is the cube's and
    the softmax that reads it is the vector's, so the loop is cross-core.

    Kernel: tests/fixtures/lowering/models/lower_llm/inline_scores.py. pypto e2d0f78ae
    skews the cube's copy of line 34 at depth 2 (trip 4) and demotes the two vector
    copies (the popped scores feed the softmax). Line 49 stores the helper's value into
    a slice, a call inside an expression, which InlineFunctions does not splice: the
    compiler leaves ``self.head_scores(...)`` in an AIV function and replicates the loop
    to 2 copies; skewlint puts it on no core (it does not see into the call there)."""
    from pathlib import Path

    from skewlsp.api import analyse
    from skewlsp.common.resolver import resolve_module

    root = Path(__file__).resolve().parents[2] / "fixtures" / "lowering" / "models"
    path = root / "lower_llm" / "inline_scores.py"

    def resolver(module: str, level: int, importing: str | None) -> str | None:
        return resolve_module(module, level, importing, [root / "lower_llm"])

    reports = {r.span.line: r for r in analyse(path.read_text(), str(path), resolver=resolver)}
    cores = {
        line: tuple((c.core, c.code, c.depth, c.copies) for c in reports[line].cores)
        for line in (34, 49)
    }
    assert cores[34] == (("aic", "SKW001", 2, 1), ("aiv", "SKW020", None, 2))
    assert cores[49] == ()
    lowered = reports[49].lowering
    assert lowered is not None
    assert (lowered.verdict, lowered.main_trip) == ("replicated", 2)


def test_a_helper_whose_ops_hand_a_tile_across_inside_it_is_unknown() -> None:
    """Spliced, ``pl.exp(pl.matmul(a, b))`` is a cube op and a vector op with a message
    between them inside the caller's one statement, which the split does not model: it
    says it does not know (SKW050) rather than put the whole call on one core."""
    from skewlsp.analysis.frontend.op_registry import CUBE, GM, VECTOR
    from skewlsp.analysis.passes.expand_mixed_kernel.core_sides import SideModel
    from skewlsp.analysis.passes.inline_functions.splice import helper_splicer

    helpers = {
        "mix": "@pl.jit.inline\ndef mix(a, b):\n    return pl.exp(pl.matmul(a, b))\n",
        "scores": "@pl.jit.inline\ndef scores(a, b):\n    return pl.matmul(a, b)\n",
        "soft": "@pl.jit.inline\ndef soft(s):\n    e = pl.exp(s)\n    return e\n",
    }
    model = SideModel({"a": GM, "b": GM}, None)
    model.inline = helper_splicer(helpers)

    def side(code: str) -> tuple[str, list[tuple[str, str, str]]]:
        line = cst.parse_statement(code)
        assert isinstance(line, cst.SimpleStatementLine)
        consumed: list[tuple[str, str, str]] = []
        return model.small(line.body[0], consumed)[0], consumed

    assert side("s = scores(a, b)")[0] == CUBE and model.sides["s"] == CUBE
    # the caller's cube tile crosses to the helper's vector op before the call
    assert side("p = soft(s)") == (VECTOR, [("s", VECTOR, CUBE)])
    assert model.unknown == []
    side("m = mix(a, b)")
    assert model.unknown == ["mix"]


def test_only_a_call_that_is_a_whole_statement_is_spliced() -> None:
    """InlineFunctions splices ``x = helper(...)``, ``helper(...)`` and
    ``return helper(...)`` only (InlineCallsMutator's HandleTopLevelInlineCall). A call
    inside an expression, such as the value of a slice store (which the parser makes
    ``pl.tensor.assemble(o, helper(...), ...)``), stays a call: pypto e2d0f78ae leaves
    ``self.head_scores(...)`` in the loop of inline_scores.py's ``scores_only``, in an
    AIV function."""
    from skewlsp.analysis.frontend.op_registry import CUBE, GM, SHARED
    from skewlsp.analysis.passes.expand_mixed_kernel.core_sides import SideModel
    from skewlsp.analysis.passes.inline_functions.splice import helper_splicer

    helpers = {"scores": "@pl.jit.inline\ndef scores(a, b):\n    return pl.matmul(a, b)\n"}
    model = SideModel({"a": GM, "b": GM, "o": GM}, None)
    model.inline = helper_splicer(helpers)

    def side(code: str) -> str:
        line = cst.parse_statement(code)
        assert isinstance(line, cst.SimpleStatementLine)
        return model.small(line.body[0], [])[0]

    assert side("o[0:16, :] = scores(a, b)") == SHARED
    assert side("e = pl.exp(scores(a, b))") != CUBE
    assert side("s = scores(a, b)") == CUBE
    assert side("scores(a, b)") == CUBE


def test_a_statement_the_walk_fails_on_fails_every_loop_after_it() -> None:
    """One walk serves every question about a function, from every build the module is
    decided under: a statement it fails on (here a helper call libcst's own tree is
    needed for) fails each loop asked about after it, as a fresh walk would, not only the
    first one asked; a loop before it keeps its sides."""
    from skewlsp.analysis.frontend.names import body_statements
    from skewlsp.analysis.frontend.op_registry import GM
    from skewlsp.analysis.passes.expand_mixed_kernel.core_sides import OutsideSides
    from skewlsp.analysis.source.unit_parses import NeedsConcreteTree
    from skewlsp.analysis.source.walk import walk

    fn = cst.parse_module(textwrap.dedent("""\
        def k(kv):
            for first in pl.pipeline(4, stage=2):
                pass
            row = helper(kv)
            for second in pl.pipeline(4, stage=2):
                pass
            for third in pl.pipeline(4, stage=2):
                pass
        """)).body[0]
    assert isinstance(fn, cst.FunctionDef)
    first, second, third = [n for n in walk(fn) if isinstance(n, cst.For)]

    def needs_libcst(small: cst.BaseSmallStatement, fresh: int) -> None:
        raise NeedsConcreteTree

    sides = OutsideSides(body_statements(fn.body), {"kv": GM}, None, inline=needs_libcst)
    assert sides.before(first) == {"kv": GM}
    with pytest.raises(NeedsConcreteTree):
        sides.before(second)
    with pytest.raises(NeedsConcreteTree):
        sides.before(third)
    with pytest.raises(NeedsConcreteTree):
        sides.moves_before(second)
    assert sides.before(first) == {"kv": GM}
