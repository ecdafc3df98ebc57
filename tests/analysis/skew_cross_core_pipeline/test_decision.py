"""The decision procedure of SKEW_RULES.md section 3, one rule at a time, in order."""

from __future__ import annotations

from tests.kernels import CONSUMER, PRODUCER, kernel, loop_at, only_loop


class TestSkewedLoops:
    def test_producer_role_single_round_trip_skews_at_default_depth_two(self) -> None:
        report = only_loop(kernel(PRODUCER))
        assert (report.verdict, report.code, report.depth, report.trip) == (
            "skewed",
            "SKW001",
            2,
            8,
        )
        assert report.requested_depth == 2
        assert report.message == "loop skewed: producer runs 2 iterations ahead (trip 8, stage 2)"

    def test_vector_side_produce_first_skews_like_the_cube_side(self) -> None:
        body = PRODUCER.replace("tpush_to_aiv", "tpush_to_aic").replace(
            "tpop_from_aiv", "tpop_from_aic"
        )
        assert only_loop(kernel(body)).code == "SKW001"

    def test_stage_four_requests_depth_three(self) -> None:
        report = only_loop(kernel(PRODUCER, "pl.pipeline(0, 6, 1, stage=4)"))
        assert (report.code, report.requested_depth, report.depth) == ("SKW001", 3, 3)

    def test_odd_trip_falls_back_to_depth_one(self) -> None:
        report = only_loop(kernel(PRODUCER, "pl.pipeline(0, 3, 1, stage=2)"))
        assert (report.verdict, report.code, report.depth, report.requested_depth) == (
            "skewed",
            "SKW002",
            1,
            2,
        )
        assert "trip 3" in report.message

    def test_trip_eight_at_stage_four_falls_back_to_depth_two(self) -> None:
        report = only_loop(kernel(PRODUCER, "pl.pipeline(0, 8, 1, stage=4)"))
        assert (report.code, report.depth, report.requested_depth) == ("SKW002", 2, 3)

    def test_recomputable_address_scalar_does_not_block_the_skew(self) -> None:
        body = """\
        off: pl.Scalar[pl.INDEX] = i * 16
        ka = pl.tile.load(q, [off, 0], [16, 64])
        pl.tile.tpush_to_aiv(ka, split=0)
        e = pl.tile.tpop_from_aiv(split=0)
        va = pl.tile.load(q, [off, 0], [16, 64])
        pl.tile.store(pl.tile.add(e, va), [off, 0], out)
        """
        assert only_loop(kernel(body, "pl.pipeline(0, 4, 1, stage=2)")).code == "SKW001"

    def test_stage_three_skews_and_hints_that_stage_two_says_the_same(self) -> None:
        report = only_loop(kernel(PRODUCER, "pl.pipeline(0, 8, 1, stage=3)"))
        assert (report.code, report.depth) == ("SKW001", 2)
        assert [h.code for h in report.hints] == ["SKW030"]
        assert report.hints[0].span == report.stage_span

    def test_descending_loop_counts_its_trip_backwards(self) -> None:
        report = only_loop(kernel(PRODUCER, "pl.pipeline(8, 0, -1, stage=2)"))
        assert (report.code, report.trip, report.depth) == ("SKW001", 8, 2)


class TestLeftLoops:
    def test_loop_without_messages_is_left_for_lower_pipeline_loops(self) -> None:
        body = "t = pl.tile.load(q, [i * 16, 0], [16, 64])\npl.tile.store(t, [i * 16, 0], out)\n"
        report = only_loop(kernel(body))
        # trip 8 at stage=2: LowerPipelineLoops makes a main loop of 4 iterations, no remainder
        assert (report.verdict, report.code, report.depth) == ("left", "SKW011", None)

    def test_one_directional_traffic_is_left(self) -> None:
        body = "t = pl.tile.load(q, [i * 16, 0], [16, 64])\npl.tile.tpush_to_aiv(t, split=0)\n"
        report = only_loop(kernel(body))
        assert report.code == "SKW011" and "one-directional" in report.message

    def test_messages_nested_in_an_unprovable_if_do_not_count(self) -> None:
        body = """\
        if n > 4:
            pl.tile.tpush_to_aiv(q, split=0)
            e = pl.tile.tpop_from_aiv(split=0)
        """
        assert only_loop(kernel(body)).code == "SKW011"

    def test_stage_one_without_messages_is_left(self) -> None:
        body = "t = pl.tile.load(q, [i * 16, 0], [16, 64])\n"
        report = only_loop(kernel(body, "pl.pipeline(0, 8, 1, stage=1)"))
        assert (report.verdict, report.code) == ("left", "SKW010")
        assert report.message.endswith("; stage=1: nothing replicated")


class TestDemotions:
    def test_consumer_role_is_demoted_naming_the_carried_tile(self) -> None:
        report = only_loop(kernel(CONSUMER, "pl.pipeline(0, 4, 1, stage=2)"))
        assert (report.verdict, report.code) == ("demoted", "SKW020")
        assert "`s0`" in report.message
        assert report.offending is not None

    def test_scalar_derived_from_a_call_is_a_genuine_carry(self) -> None:
        body = """\
        row = pl.tensor.dim(q, 0)
        t = pl.tile.load(q, [row, 0], [16, 64])
        pl.tile.tpush_to_aiv(t, split=0)
        e = pl.tile.tpop_from_aiv(split=0)
        pl.tile.store(e, [row, 0], out)
        """
        assert only_loop(kernel(body)).code == "SKW020"

    def test_multi_round_trip_is_demoted_with_counts(self) -> None:
        body = """\
        qa = pl.tile.load(q, [i * 16, 0], [16, 64])
        pl.tile.tpush_to_aiv(qa, split=0)
        e0 = pl.tile.tpop_from_aiv(split=0)
        p1 = pl.tile.add(e0, e0)
        pl.tile.tpush_to_aiv(p1, split=0)
        e1 = pl.tile.tpop_from_aiv(split=0)
        pl.tile.store(e1, [i * 16, 0], out)
        """
        report = only_loop(kernel(body))
        assert report.code == "SKW021"
        assert report.message.endswith("2 tpush and 2 tpop per iteration")

    def test_consumer_first_multi_round_trip_reports_multi_round_trip_first(self) -> None:
        body = """\
        s0 = pl.tile.tpop_from_aic(split=0)
        c0 = pl.tile.add(s0, s0)
        pl.tile.tpush_to_aic(c0, split=0)
        s1 = pl.tile.tpop_from_aic(split=0)
        pl.tile.store(s1, [i * 16, 0], out)
        """
        assert only_loop(kernel(body)).code == "SKW021"

    def test_dynamic_stop_is_demoted_naming_the_parameter(self) -> None:
        report = only_loop(kernel(PRODUCER, "pl.pipeline(0, n, 1, stage=2)"))
        assert (report.code, report.dynamic_symbol) == ("SKW022", "n")

    def test_trip_one_is_demoted(self) -> None:
        report = only_loop(kernel(PRODUCER, "pl.pipeline(0, 1, 1, stage=2)"))
        assert (report.code, report.trip) == ("SKW023", 1)

    def test_empty_loop_has_trip_zero(self) -> None:
        assert only_loop(kernel(PRODUCER, "pl.pipeline(4, 0, 1, stage=2)")).trip == 0

    def test_stage_one_on_a_cross_core_loop_is_demoted(self) -> None:
        assert only_loop(kernel(PRODUCER, "pl.pipeline(0, 8, 1, stage=1)")).code == "SKW024"

    def test_stage_one_wins_over_a_dynamic_step(self) -> None:
        assert only_loop(kernel(PRODUCER, "pl.pipeline(0, 8, n, stage=1)")).code == "SKW024"

    def test_producer_reading_an_init_values_iter_arg_is_demoted(self) -> None:
        body = """\
        t = pl.tile.add(acc, acc)
        pl.tile.tpush_to_aiv(t, split=0)
        e = pl.tile.tpop_from_aiv(split=0)
        acc2 = pl.tile.add(e, e)
        acc_out = pl.yield_(acc2)
        """
        report = only_loop(
            kernel(body, "pl.pipeline(0, 8, 1, stage=2, init_values=(q,))", target="i, (acc,)")
        )
        assert (report.code, report.verdict) == ("SKW025", "demoted")
        assert "`acc`" in report.message

    def test_iter_arg_used_only_by_the_consumer_half_still_skews(self) -> None:
        body = """\
        t = pl.tile.load(q, [i * 16, 0], [16, 64])
        pl.tile.tpush_to_aiv(t, split=0)
        e = pl.tile.tpop_from_aiv(split=0)
        acc2 = pl.tile.add(acc, e)
        acc_out = pl.yield_(acc2)
        """
        report = only_loop(
            kernel(body, "pl.pipeline(0, 8, 1, stage=2, init_values=(q,))", target="i, (acc,)")
        )
        assert report.code == "SKW001"

    def test_implicitly_carried_name_read_by_the_producer_is_demoted(self) -> None:
        body = """\
        q = pl.tile.add(q, q)
        pl.tile.tpush_to_aiv(q, split=0)
        e = pl.tile.tpop_from_aiv(split=0)
        """
        assert only_loop(kernel(body)).code == "SKW025"

    def test_subscript_store_in_the_producer_half_reads_the_carried_tensor(self) -> None:
        body = """\
        t = pl.tile.load(q, [i * 16, 0], [16, 64])
        out[0:16, 0:64] = t
        pl.tile.tpush_to_aiv(out, split=0)
        e = pl.tile.tpop_from_aiv(split=0)
        """
        assert only_loop(kernel(body)).code == "SKW025"

    def test_rebinding_only_in_the_consumer_half_is_harmless(self) -> None:
        body = PRODUCER.replace(
            "pl.tile.store(oi, [i * 16, 0], out)", "out = pl.tile.store(oi, [i * 16, 0], out)"
        )
        assert only_loop(kernel(body)).code == "SKW001"


class TestCompilerErrors:
    def test_missing_stage_is_an_error(self) -> None:
        report = only_loop(kernel(PRODUCER, "pl.pipeline(0, 8, 1)"))
        assert (report.verdict, report.code) == ("error", "SKW040")
        assert "stage" in report.message

    def test_stage_below_one_is_an_error(self) -> None:
        assert only_loop(kernel(PRODUCER, "pl.pipeline(0, 8, 1, stage=0)")).code == "SKW040"

    def test_stage_from_a_local_variable_is_an_error(self) -> None:
        report = only_loop(kernel(PRODUCER, "pl.pipeline(0, 8, 1, stage=s)", before="s = 2\n"))
        assert report.code == "SKW040"

    def test_stage_true_is_an_error(self) -> None:
        assert only_loop(kernel(PRODUCER, "pl.pipeline(0, 8, 1, stage=True)")).code == "SKW040"

    def test_dynamic_step_on_a_cross_core_loop_is_an_error(self) -> None:
        report = only_loop(kernel(PRODUCER, "pl.pipeline(0, 8, n, stage=2)"))
        assert report.code == "SKW040" and "step" in report.message

    def test_dynamic_step_on_a_same_core_loop_is_rejected_by_lower_pipeline_loops(self) -> None:
        # The skew pass leaves it; LowerPipelineLoops needs `factor * step` as a constant
        # (GetConstIntValue throws) once stage > 1.
        body = "t = pl.tile.load(q, [i * 16, 0], [16, 64])\n"
        report = only_loop(kernel(body, "pl.pipeline(0, 8, n, stage=2)"))
        assert (report.verdict, report.code) == ("error", "SKW041")
        assert "step must be a compile-time integer constant" in report.message

    def test_dynamic_step_on_a_same_core_stage_one_loop_is_left(self) -> None:
        # stage=1: LowerPipelineLoops returns before it reads the step.
        body = "t = pl.tile.load(q, [i * 16, 0], [16, 64])\n"
        report = only_loop(kernel(body, "pl.pipeline(0, 8, n, stage=1)"))
        assert (report.verdict, report.code) == ("left", "SKW010")

    def test_zero_step_on_a_cross_core_loop_is_an_error(self) -> None:
        assert only_loop(kernel(PRODUCER, "pl.pipeline(0, 8, 0, stage=2)")).code == "SKW040"

    def test_class_attribute_in_a_bound_is_an_error(self) -> None:
        report = only_loop(kernel(PRODUCER, "pl.pipeline(0, self.N, 1, stage=2)"))
        assert report.code == "SKW040" and "attribute" in report.message

    def test_op_spelled_with_another_alias_is_an_error(self) -> None:
        source = kernel(PRODUCER.replace("pl.tile.load", "lang.tile.load")).replace(
            "import pypto.language as pl",
            "import pypto.language as pl\nimport pypto.language as lang",
        )
        assert only_loop(source).code == "SKW040"

    def test_bare_pipeline_import_is_an_error(self) -> None:
        source = kernel(PRODUCER, "pipeline(0, 8, 1, stage=2)").replace(
            "import pypto.language as pl",
            "import pypto.language as pl\nfrom pypto.language import pipeline",
        )
        assert only_loop(source).code == "SKW040"

    def test_augmented_assignment_is_refused_by_the_parser(self) -> None:
        body = PRODUCER + "k = i\nk += 1\n"
        assert only_loop(kernel(body)).code == "SKW040"

    def test_push_without_split_is_refused(self) -> None:
        body = PRODUCER.replace("pl.tile.tpush_to_aiv(rs, split=0)", "pl.tile.tpush_to_aiv(rs)")
        assert only_loop(kernel(body)).code == "SKW040"

    def test_step_keyword_is_refused(self) -> None:
        assert only_loop(kernel(PRODUCER, "pl.pipeline(0, 8, step=1, stage=2)")).code == "SKW040"


class TestOrderOfChecks:
    def test_iter_arg_read_is_reported_before_multi_round_trip(self) -> None:
        body = """\
        t = pl.tile.add(acc, acc)
        pl.tile.tpush_to_aiv(t, split=0)
        e = pl.tile.tpop_from_aiv(split=0)
        pl.tile.tpush_to_aiv(e, split=0)
        e2 = pl.tile.tpop_from_aiv(split=0)
        acc_out = pl.yield_(e2)
        """
        report = only_loop(
            kernel(body, "pl.pipeline(0, 8, 1, stage=2, init_values=(q,))", target="i, (acc,)")
        )
        assert report.code == "SKW025"

    def test_multi_round_trip_is_reported_before_consumer_role(self) -> None:
        body = CONSUMER + "s1 = pl.tile.tpop_from_aic(split=0)\n"
        assert only_loop(kernel(body)).code == "SKW021"

    def test_trip_is_checked_before_the_body_split(self) -> None:
        assert only_loop(kernel(CONSUMER, "pl.pipeline(0, 1, 1, stage=2)")).code == "SKW023"

    def test_dynamic_bounds_are_checked_before_trip(self) -> None:
        assert only_loop(kernel(CONSUMER, "pl.pipeline(n, 1, 1, stage=2)")).code == "SKW022"


def test_reports_carry_locations_of_loop_call_and_lead() -> None:
    source = kernel(PRODUCER)
    report = loop_at(source, "for i in")
    lines = source.splitlines()
    assert lines[report.span.line - 1].lstrip().startswith("for i in pl.pipeline")
    call_line = lines[report.call_span.line - 1]
    assert call_line[report.call_span.column - 1 :].startswith("pl.pipeline(0, 8, 1, stage=2)")
    assert report.lead is not None
    assert "tpush_to_aiv" in lines[report.lead.line - 1]
    assert report.producer_lines and report.consumer_lines


def test_reduced_depth_names_the_trip_that_would_reach_the_requested_depth() -> None:
    report = only_loop(kernel(PRODUCER, "pl.pipeline(0, 3, 1, stage=2)"))
    assert report.fix_hint == "a trip of 4 would give depth 2"
    report = only_loop(kernel(PRODUCER, "pl.pipeline(0, 6, 1, stage=5)"))
    assert (report.depth, report.fix_hint) == (
        3,
        "a trip of 8 would give depth 4; or stage=4 gives the same depth 3 without asking for more",
    )


def test_the_advice_for_depth_two_names_stage_two_not_stage_three() -> None:
    # trip 6 at stage=4 asks for depth 3, which 6 allows (6 % 3 == 0, 6 >= 6): no finding.
    # trip 4 at stage=4 gets depth 2: stage=3 would ask for depth 2 as well, stage=2 is
    # the one SKW030 asks for.
    report = only_loop(kernel(PRODUCER, "pl.pipeline(0, 4, 1, stage=4)"))
    assert (report.code, report.depth) == ("SKW002", 2)
    assert report.fix_hint == (
        "a trip of 6 would give depth 3; or stage=2 gives the same depth 2 without asking for more"
    )


def test_at_trip_two_only_a_longer_trip_helps_and_no_stage_is_offered() -> None:
    # Depth 1 is all a trip of 2 allows at any stage, and stage=1 would demote the loop.
    report = only_loop(kernel(PRODUCER, "pl.pipeline(0, 2, 1, stage=2)"))
    assert (report.code, report.depth, report.fix_hint) == (
        "SKW002", 1, "a trip of 4 would give depth 2"
    )


class TestParserRefusals:
    """Calls the DSL parser refuses inside a kernel make the loop an error, wherever they are."""

    def test_a_method_call_on_a_value_is_refused(self) -> None:
        body = PRODUCER + "k = qa.sum()\n"
        assert only_loop(kernel(body)).code == "SKW040"

    def test_a_builtin_call_is_refused(self) -> None:
        body = PRODUCER + "k = max(i, 2)\n"
        assert only_loop(kernel(body)).code == "SKW040"

    def test_a_python_range_loop_is_refused(self) -> None:
        body = PRODUCER + "for j in range(2):\n    pass\n"
        assert only_loop(kernel(body)).code == "SKW040"

    def test_yield_and_kernel_calls_are_accepted(self) -> None:
        body = PRODUCER.replace("oi: pl.Tile[[16, 64], pl.FP32] = pl.tile.add(e, e)", "oi = self.helper(e)")
        assert only_loop(kernel(body)).code == "SKW001"


def test_an_address_from_pl_min_is_scalar_arithmetic_and_recomputed() -> None:
    body = """\
    off: pl.Scalar[pl.INDEX] = pl.min(i * 16, 48)
    ka = pl.tile.load(q, [off, 0], [16, 64])
    pl.tile.tpush_to_aiv(ka, split=0)
    e = pl.tile.tpop_from_aiv(split=0)
    pl.tile.store(e, [off, 0], out)
    """
    assert only_loop(kernel(body, "pl.pipeline(0, 4, 1, stage=2)")).code == "SKW001"


class TestReservedCodes:
    """SKW026 and SKW027 exist for completeness: SSA makes them unreachable from valid source."""

    def test_degenerate_split_is_reported_when_the_slice_covers_the_body(self) -> None:
        import libcst as cst

        from skewlsp.analysis.frontend.constants import Const
        from skewlsp.analysis.passes.body import Stmt
        from skewlsp.analysis.skew_cross_core_pipeline.decide import LoopHeader, decide

        node = cst.parse_statement("pass\n")
        push = Stmt(node, "push", (), ("y",), deps={"y": 1})  # a model no source produces
        pop = Stmt(node, "pop", ("y",), ())
        header = LoopHeader(Const(2), Const(0), Const(8), Const(1))
        assert decide(header, [push, pop]).code == "SKW027"

    def test_a_producer_reading_a_later_consumer_value_shows_up_as_loop_carried(self) -> None:
        body = """\
        t = pl.tile.add(e, e)
        pl.tile.tpush_to_aiv(t, split=0)
        e = pl.tile.tpop_from_aiv(split=0)
        """
        report = only_loop(kernel(body, before="e = pl.tile.load(q, [0, 0], [16, 64])\n"))
        assert report.code == "SKW025"  # what the compiler reports instead of SKW026


def test_a_hand_placed_auto_scope_needs_auto_scope_false_on_the_function() -> None:
    body = "with pl.scope():\n" + "".join("    " + line + "\n" for line in PRODUCER.splitlines())
    source = kernel(body)
    assert only_loop(source).code == "SKW040"
    allowed = source.replace("    @pl.function\n", "    @pl.function(auto_scope=False)\n")
    assert only_loop(allowed).code == "SKW011"  # the messages are nested in the scope
