"""How the report puts together what the passes handed on (``report.assemble``)."""

from __future__ import annotations

from skewlsp.contract import Edit, Instance, LoopReport, Span, StageFix, Verdict


def test_a_loop_s_stage_advice_is_handed_to_the_report_as_it_is_assembled() -> None:
    """The stage advice (what a ``stage=`` fix needs) is a record the report is put
    together from, not fields replaced on a report already built."""
    import libcst as cst

    from skewlsp.analysis.report.advice import StageAdvice
    from skewlsp.analysis.report.assemble import loop_report
    from skewlsp.analysis.skew_cross_core_pipeline.decide import Decision
    from skewlsp.contract import Origin

    loop = cst.parse_statement("for i in pl.pipeline(4, stage=4):\n    pass\n")
    assert isinstance(loop, cst.For) and isinstance(loop.iter, cst.Call)
    where = Span(1, 28, 1, 29)
    decision = Decision("skewed", "SKW002", "trip 4", stage=4, requested_depth=3, depth=1, trip=4)
    fix = StageFix(Edit(where, "2"), "SKW001", "unsafe")
    read = (Origin("N", "4", 4, "config.py", 2),)
    advice = StageAdvice(where, read, "a trip of 6 would give depth 3", fix)
    report = loop_report(
        None, lambda node: Span(1, 0, 2, 8), loop, loop.iter, "kernel", "i", decision, (),
        None, where, made=None, advice=advice,
    )
    assert (report.stage_value, report.bounds_read) == (where, read)
    assert (report.fix_hint, report.stage_fix) == ("a trip of 6 would give depth 3", fix)


def _decided(verdict: Verdict, code: str, instance: Instance, helper: str = "") -> LoopReport:
    """A loop decided ``verdict`` by the skew pass, in the copy ``instance`` the walk
    hands on with the decision."""
    import libcst as cst

    from skewlsp.analysis.report.assemble import loop_report
    from skewlsp.analysis.skew_cross_core_pipeline.decide import Decision

    loop = cst.parse_statement("for i in pl.pipeline(1, stage=2):\n    pass\n")
    assert isinstance(loop, cst.For) and isinstance(loop.iter, cst.Call)
    decision = Decision(verdict, code, f"{verdict}: trip 1 < 2", stage=2, trip=1)
    return loop_report(
        None, lambda node: Span(3, 4, 4, 12), loop, loop.iter, "tile_loop", "i", decision,
        (), None, made=None, instance=instance, helper=helper,
    )


def test_a_helper_s_copy_is_put_together_with_its_identity_and_the_remark_at_its_call() -> None:
    """The walk hands which copy a loop is (and the helper whose call it is) with the
    decision: the report is built with them, not given them afterwards."""
    from skewlsp.contract import Related

    call = Span(40, 4, 40, 20)
    copy = Instance((("n", "4"),), caller="attn", call=call)
    report = _decided("demoted", "SKW023", copy, helper="tile_loop")
    assert report.instance == copy
    assert [(h.code, h.span, h.message, h.related) for h in report.hints] == [
        (
            "SKW023",
            call,
            "the inlined loop of `tile_loop` (line 3) is demoted here: "
            "loop not skewed: demoted: trip 1 < 2",
            (Related(Span(3, 4, 4, 12), "the loop in `tile_loop`"),),
        )
    ]


def test_a_copy_left_for_lower_pipeline_loops_is_not_remarked_at_its_call() -> None:
    copy = Instance((("n", "4"),), caller="attn", call=Span(40, 4, 40, 20))
    report = _decided("left", "SKW010", copy, helper="tile_loop")
    assert (report.instance, report.hints) == (copy, ())


def test_a_copy_of_a_module_level_for_has_its_identity_and_no_remark() -> None:
    copy = Instance((("tile", "8"),))
    report = _decided("demoted", "SKW023", copy)
    assert (report.instance, report.hints) == (copy, ())


def test_a_helper_s_loop_never_compiled_at_a_call_is_remarked_there() -> None:
    from skewlsp.analysis.report.assemble import not_compiled_report

    call, loop = Span(40, 4, 40, 20), Span(7, 4, 9, 8)
    copy = Instance((), caller="attn", call=call)
    report = not_compiled_report("h.py", loop, loop, "the `if` is false", copy, "tile_loop")
    assert (report.code, report.message, report.instance) == (
        "SKW070", "not compiled: the `if` is false", copy
    )
    assert [(h.code, h.span, h.message) for h in report.hints] == [
        (
            "SKW070",
            call,
            "the inlined loop of `tile_loop` (line 7) is not_compiled here: "
            "not compiled: the `if` is false",
        )
    ]
