"""Source is not the IR: the normalisations that run before the pass (SKEW_RULES 4.2, 4.3, 6)."""

from __future__ import annotations

import textwrap

import pytest

from skewlsp.analysis import analyze
from tests.kernels import PRODUCER, kernel, loop_at, only_loop


class TestUnroll:
    def test_a_push_inside_unroll_counts_once_per_copy(self) -> None:
        body = """\
        for j in pl.unroll(2):
            t = pl.tile.load(q, [i * 16, j * 32], [16, 32])
            pl.tile.tpush_to_aiv(t, split=0)
        e = pl.tile.tpop_from_aiv(split=0)
        """
        report = only_loop(kernel(body))
        assert (report.code, report.pushes, report.pops) == ("SKW021", 2, 1)

    def test_unroll_of_one_inlines_a_round_trip(self) -> None:
        body = """\
        for j in pl.unroll(1):
            t = pl.tile.load(q, [i * 16, j], [16, 32])
            pl.tile.tpush_to_aiv(t, split=0)
            e = pl.tile.tpop_from_aiv(split=0)
            pl.tile.store(e, [i * 16, j], out)
        """
        assert only_loop(kernel(body)).code == "SKW001"

    def test_unroll_bounds_must_be_parse_time_constants(self) -> None:
        body = "for j in pl.unroll(m):\n    pl.tile.tpush_to_aiv(q, split=0)\n"
        assert only_loop(kernel(body, before="m = 2\n")).code == "SKW040"

    def test_an_unseen_unroll_count_over_a_push_leaves_the_verdict_unknown(self) -> None:
        body = "for j in pl.unroll(N):\n    pl.tile.tpush_to_aiv(q, split=0)\n"
        report = only_loop(kernel(body, prelude="from .config import N\n"))
        assert report.code == "SKW050"
        assert "`N`" in report.message

    def test_an_unseen_unroll_count_matters_only_where_a_name_says_so(self) -> None:
        # A comment naming an op sends no message; the loop's own verdict stands.
        body = "for j in pl.unroll(N):\n    t = pl.tile.load(q, [0, 0], [16, 64])  # matmul later\n"
        assert only_loop(kernel(body, prelude="from .config import N\n")).code == "SKW011"

    @pytest.mark.parametrize(
        "around",
        [
            "if n > 0:\n    pass\nelse:\n",
            "if n > 0:\n    pass\nelif n > 1:\n",
            "with pl.at(level=pl.Level.CORE_GROUP):\n",
            "for k in pl.range(n):\n",
        ],
        ids=["else", "elif", "with", "range"],
    )
    def test_a_pipeline_loop_bounded_by_the_unroll_variable_folds_in_any_block(
        self, around: str
    ) -> None:
        # (the first copy's: UnrollLoops writes j = 0 into it)
        inner = "for i in pl.pipeline(0, j + 4, 1, stage=2):\n" + textwrap.indent(PRODUCER, "    ")
        source = kernel(around + textwrap.indent(inner, "    "), "pl.unroll(2)", target="j")
        assert (loop_at(source, "for i in").code, loop_at(source, "for i in").trip) == (
            "SKW001",
            4,
        )

    def test_if_on_the_unroll_variable_folds_per_copy(self) -> None:
        body = """\
        for j in pl.unroll(2):
            if j == 0:
                t = pl.tile.load(q, [i * 16, 0], [16, 32])
                pl.tile.tpush_to_aiv(t, split=0)
            else:
                e = pl.tile.tpop_from_aiv(split=0)
                pl.tile.store(e, [i * 16, 0], out)
        """
        assert only_loop(kernel(body)).code == "SKW001"


class TestSimplify:
    def test_if_provable_from_the_loop_bounds_is_lifted(self) -> None:
        body = "if i < 8:\n" + "".join("    " + line + "\n" for line in PRODUCER.splitlines())
        assert only_loop(kernel(body)).code == "SKW001"

    def test_if_provably_false_disappears_with_its_messages(self) -> None:
        body = "t = pl.tile.load(q, [i * 16, 0], [16, 64])\nif i < 0:\n    pl.tile.tpush_to_aiv(t, split=0)\n    e = pl.tile.tpop_from_aiv(split=0)\n"
        assert only_loop(kernel(body)).code == "SKW011"

    def test_if_on_a_module_constant_is_folded(self) -> None:
        body = "if FLAG > 1:\n" + "".join("    " + line + "\n" for line in PRODUCER.splitlines())
        assert only_loop(kernel(body, prelude="FLAG = 2\n")).code == "SKW001"

    def test_if_on_the_loop_variable_that_varies_stays_nested(self) -> None:
        body = "if i == 0:\n" + "".join("    " + line + "\n" for line in PRODUCER.splitlines())
        assert only_loop(kernel(body)).code == "SKW011"

    def test_one_trip_inner_range_is_collapsed(self) -> None:
        body = "for j in pl.range(1):\n" + "".join(
            "    " + line + "\n" for line in PRODUCER.splitlines()
        )
        assert only_loop(kernel(body)).code == "SKW001"

    def test_multi_trip_inner_range_hides_its_messages(self) -> None:
        body = "for j in pl.range(2):\n" + "".join(
            "    " + line + "\n" for line in PRODUCER.splitlines()
        )
        assert only_loop(kernel(body)).code == "SKW011"

    def test_nested_call_holding_a_pop_is_split_out(self) -> None:
        body = """\
        t = pl.tile.load(q, [i * 16, 0], [16, 64])
        pl.tile.tpush_to_aiv(t, split=0)
        pl.tile.store(pl.tile.exp(pl.tile.tpop_from_aiv(split=0)), [i * 16, 0], out)
        """
        assert only_loop(kernel(body)).code == "SKW001"


class TestNestedPipelines:
    def test_inner_skewed_at_depth_two_makes_the_parent_multi_round_trip(self) -> None:
        inner = "for j in pl.pipeline(0, 4, 1, stage=2):\n" + "".join(
            "    " + line.replace("i * 16", "j * 16") + "\n" for line in PRODUCER.splitlines()
        )
        source = kernel(inner, "pl.pipeline(0, 4, 1, stage=2)")
        assert loop_at(source, "for j in").code == "SKW001"
        parent = loop_at(source, "for i in")
        assert (parent.code, parent.pushes, parent.pops) == ("SKW021", 2, 2)

    def test_inner_skewed_at_depth_one_lets_the_parent_skew(self) -> None:
        inner = "for j in pl.pipeline(0, 3, 1, stage=2):\n" + "".join(
            "    " + line.replace("i * 16", "j * 16") + "\n" for line in PRODUCER.splitlines()
        )
        source = kernel(inner, "pl.pipeline(0, 4, 1, stage=2)")
        assert loop_at(source, "for j in").depth == 1
        assert loop_at(source, "for i in").code == "SKW001"

    def test_inner_demoted_loop_stays_nested_and_leaves_the_parent_alone(self) -> None:
        inner = "for j in pl.pipeline(0, n, 1, stage=2):\n" + "".join(
            "    " + line + "\n" for line in PRODUCER.splitlines()
        )
        source = kernel(inner, "pl.pipeline(0, 4, 1, stage=2)")
        assert loop_at(source, "for j in").code == "SKW022"
        assert loop_at(source, "for i in").code == "SKW011"

    def test_inner_bounds_on_the_parent_variable_are_dynamic(self) -> None:
        inner = "for j in pl.pipeline(i, i + 4, 1, stage=2):\n" + "".join(
            "    " + line + "\n" for line in PRODUCER.splitlines()
        )
        report = loop_at(kernel(inner), "for j in")
        assert (report.code, report.dynamic_symbol) == ("SKW022", "i")


class TestConstants:
    def test_module_constant_arithmetic_folds(self) -> None:
        report = only_loop(
            kernel(
                PRODUCER, "pl.pipeline(0, N * 2 // 4, 1, stage=S + 1)", prelude="N = 16\nS = 1\n"
            )
        )
        assert (report.trip, report.stage, report.depth) == (8, 2, 2)

    def test_local_constant_at_function_top_level_folds(self) -> None:
        report = only_loop(kernel(PRODUCER, "pl.pipeline(0, m, 1, stage=2)", before="m = 4\n"))
        assert (report.code, report.trip) == ("SKW001", 4)

    def test_local_chain_of_constants_folds(self) -> None:
        report = only_loop(
            kernel(PRODUCER, "pl.pipeline(0, k, 1, stage=2)", before="m = 8\nk = m // 2\n")
        )
        assert report.trip == 4

    def test_local_constant_assigned_in_a_branch_stays_dynamic(self) -> None:
        before = "m = 4\nif n > 2:\n    m = 4\n"
        report = only_loop(kernel(PRODUCER, "pl.pipeline(0, m, 1, stage=2)", before=before))
        assert (report.code, report.dynamic_symbol) == ("SKW022", "m")

    def test_local_constant_inside_an_outer_loop_stays_dynamic(self) -> None:
        source = kernel(
            "m = 4\nfor i in pl.pipeline(0, m, 1, stage=2):\n"
            + "".join("    " + line + "\n" for line in PRODUCER.splitlines()),
            "pl.range(2)",
            target="b",
        )
        assert loop_at(source, "for i in").code == "SKW022"

    def test_constant_inside_a_with_pl_at_scope_counts_as_top_level(self) -> None:
        source = kernel(
            "for i in pl.pipeline(0, m, 1, stage=2):\n"
            + "".join("    " + line + "\n" for line in PRODUCER.splitlines()),
            "pl.range(1)",
            target="b",
        )
        wrapped = source.replace(
            "        for b in pl.range(1):\n",
            "        with pl.at(level=pl.Level.CORE_GROUP):\n            m = 4\n",
        )
        assert loop_at(wrapped, "for i in").code == "SKW001"

    def test_imported_constant_resolves_through_the_resolver(self) -> None:
        source = kernel(
            PRODUCER, "pl.pipeline(0, TILES, 1, stage=2)", prelude="from consts import TILES\n"
        )

        def resolver(module: str, level: int, importer: str | None) -> str | None:
            return "TILES = 2 * 3\n" if module == "consts" else None

        reports = analyze(source, "kernel.py", resolver=resolver)
        assert (reports[0].code, reports[0].trip, reports[0].depth) == ("SKW001", 6, 2)

    def test_unresolved_import_gives_an_honest_unknown(self) -> None:
        source = kernel(
            PRODUCER, "pl.pipeline(0, TILES, 1, stage=2)", prelude="from consts import TILES\n"
        )
        report = only_loop(source)
        assert (report.verdict, report.code, report.dynamic_symbol) == (
            "unknown",
            "SKW050",
            "TILES",
        )


class TestDiscovery:
    def test_other_aliases_for_the_loop_header_are_found(self) -> None:
        source = kernel(PRODUCER, "lang.pipeline(0, 8, 1, stage=2)").replace(
            "import pypto.language as pl",
            "import pypto.language as pl\nfrom pypto import language as lang",
        )
        assert only_loop(source).code == "SKW001"

    def test_loops_in_nested_functions_and_with_blocks_are_found(self) -> None:
        source = """\
import pypto.language as pl


def factory():
    @pl.function
    def inner(q: pl.Tensor[[64, 64], pl.FP32], out: pl.Tensor[[64, 64], pl.FP32]):
        with pl.at(level=pl.Level.CORE_GROUP):
            for i in pl.pipeline(0, 4, 1, stage=2):
                t = pl.tile.load(q, [i * 16, 0], [16, 64])
                pl.tile.store(t, [i * 16, 0], out)
    return inner
"""
        report = only_loop(source)
        assert report.code == "SKW011" and report.function.endswith("inner")

    def test_a_file_without_pypto_yields_nothing(self) -> None:
        assert analyze("for i in range(3):\n    print(i)\n") == []

    def test_a_syntax_error_yields_one_error_with_its_position(self) -> None:
        source = "import pypto.language as pl\nfor i in pl.pipeline(8, stage=2)\n    pass\n"
        reports = analyze(source, "bad.py")
        assert [(r.code, r.verdict, r.span.line) for r in reports] == [("SKW900", "error", 2)]

    @pytest.mark.parametrize(
        "text", ["pipeline(((", "\x00pipeline", "pypto\n\tpipeline\n  x", "def f(:\n pipeline"]
    )
    def test_garbage_that_does_not_import_pypto_yields_nothing(self, text: str) -> None:
        assert analyze(text) == []

    @pytest.mark.parametrize(
        ("text", "line", "column"),
        [
            ("for i in pl.pipeline(((", 2, 23),
            ("\x00for i in pl.pipeline(8, stage=2):\n  pass\n", 1, 1),
            ("def f(:\n for i in pl.pipeline(4, stage=2):\n  pass", 2, 7),
        ],
    )
    def test_garbage_in_a_pypto_file_yields_one_syntax_error_where_python_sees_it(
        self, text: str, line: int, column: int
    ) -> None:
        reports = analyze("import pypto.language as pl\n" + text, "bad.py")
        assert [(r.code, r.span.line, r.span.column) for r in reports] == [("SKW900", line, column)]


def test_a_pipeline_inside_unroll_sees_the_unroll_variable_as_a_literal() -> None:
    inner = "for i in pl.pipeline(j * 4, j * 4 + 4, 1, stage=2):\n" + "".join(
        "    " + line + "\n" for line in PRODUCER.splitlines()
    )
    report = loop_at(kernel(inner, "pl.unroll(2)", target="j"), "for i in")
    assert (report.code, report.trip, report.depth) == ("SKW001", 4, 2)


def test_an_unseen_constant_gives_a_conditional_verdict_from_the_body() -> None:
    source = kernel(PRODUCER, "pl.pipeline(0, TILES, 1, stage=2)", prelude="TILES = compute()\n")
    report = only_loop(source)
    assert (report.verdict, report.code) == ("unknown", "SKW050")
    assert "if the trip is at least 2 the loop skews" in report.message
    consumer = kernel(
        "s0 = pl.tile.tpop_from_aic(split=0)\npl.tile.tpush_to_aic(pl.tile.exp(s0), split=0)\n",
        "pl.pipeline(0, TILES, 1, stage=2)",
        prelude="TILES = compute()\n",
    )
    assert "the loop is demoted (SKW020" in only_loop(consumer).message
