"""SKW060: a skew that reorders a FIFO is reported, and only such a skew (issue 16).

Each test is one situation of the issue: the expected orders and counts are
written out by hand from the schedule of SKEW_RULES 4.1.
"""

from __future__ import annotations

import pytest

from skewlsp.analysis.driver import analyze_models
from skewlsp.analysis.skew_cross_core_pipeline import fifo_order as fifo_module
from skewlsp.contract import FifoMessage, LoopReport
from tests.kernels import FIFO_REORDER_BODY, kernel, only_loop


def line_of(source: str, text: str, occurrence: int = 0) -> int:
    lines = [k + 1 for k, line in enumerate(source.splitlines()) if text in line]
    return lines[occurrence]


def codes(report: LoopReport) -> list[str]:
    return [report.code, *(h.code for h in report.hints)]


def order(messages: tuple[FifoMessage, ...]) -> str:
    return " ".join(f"[{m.label}{m.index}]" if m.moved else f"{m.label}{m.index}" for m in messages)


def test_a_guarded_tpush_in_the_consumer_half_is_reported_on_the_skewed_loop() -> None:
    source = kernel(FIFO_REORDER_BODY)
    report = only_loop(source)
    assert codes(report) == ["SKW001", "SKW060"]
    (hazard,) = report.hazards
    assert hazard.direction == "aiv"
    assert hazard.moved.line == line_of(source, "pl.tpush_to_aiv(rt")
    assert hazard.lead.line == line_of(source, "pl.tpush_to_aiv(qt")
    assert hazard.guard == "if n > 2"
    assert (hazard.after_produces, hazard.depth, hazard.messages) == (2, 2, 16)
    assert order(hazard.source_order) == (
        "qt0 [rt0] qt1 [rt1] qt2 [rt2] qt3 [rt3] qt4 [rt4] qt5 [rt5]"
    )
    assert order(hazard.skewed_order) == (
        "qt0 qt1 qt2 qt3 [rt0] [rt1] qt4 qt5 [rt2] [rt3] qt6 qt7"
    )
    finding = report.hints[0]
    assert finding.span == report.call_span
    assert finding.message.startswith(
        f"skewing reorders the FIFO to AIV: the tpush at line {hazard.moved.line} "
        "(under `if n > 2`) is issued after the next 2 produces"
    )
    assert [r.span for r in finding.related] == [hazard.moved, hazard.lead]


def test_the_verdict_is_what_the_compiler_decides_without_the_nested_push() -> None:
    with_push = only_loop(kernel(FIFO_REORDER_BODY))
    without = only_loop(kernel(FIFO_REORDER_BODY.replace("    pl.tpush_to_aiv(rt, split=0)", "    pass")))
    fields = ("verdict", "code", "depth", "trip", "pushes", "pops", "message")
    assert [getattr(with_push, f) for f in fields] == [getattr(without, f) for f in fields]
    assert without.hazards == () and codes(without) == ["SKW001"]


def test_extra_pops_keep_the_peer_order_and_never_warn() -> None:
    body = FIFO_REORDER_BODY.replace("    pl.tpush_to_aiv(rt, split=0)", "    x = pl.tpop_from_aiv(split=0)")
    report = only_loop(kernel(body))
    assert codes(report) == ["SKW001"] and report.hazards == ()


@pytest.mark.parametrize(
    ("body", "header", "code"),
    [
        # the popped tile feeds the push: consumer role
        (
            "e = pl.tpop_from_aiv(split=0)\nif n > 2:\n    pl.tpush_to_aiv(e, split=0)\n"
            "t = pl.tile.add(e, e)\npl.tpush_to_aiv(t, split=0)\n",
            "pl.pipeline(0, 8, 1, stage=2)",
            "SKW020",
        ),
        (FIFO_REORDER_BODY, "pl.pipeline(0, 8, 1, stage=1)", "SKW024"),
        (FIFO_REORDER_BODY, "pl.pipeline(0, 1, 1, stage=2)", "SKW023"),
        (FIFO_REORDER_BODY, "pl.pipeline(0, n, 1, stage=2)", "SKW022"),
        (FIFO_REORDER_BODY + "pl.tpush_to_aiv(rt, split=0)\n", "pl.pipeline(0, 8, 1, stage=2)", "SKW021"),
    ],
    ids=["consumer role", "stage 1", "trip 1", "dynamic bounds", "multi-round-trip"],
)
def test_demoted_loops_never_warn(body: str, header: str, code: str) -> None:
    report = only_loop(kernel(body, header))
    assert (report.verdict, report.code) == ("demoted", code)
    assert report.hazards == () and codes(report) == [code]


def test_left_loops_never_warn() -> None:
    body = "qt = pl.tile.load(q, [i * 16, 0], [16, 64])\npl.tpush_to_aiv(qt, split=0)\n"
    body += "if n > 2:\n    pl.tpush_to_aiv(qt, split=0)\n"
    report = only_loop(kernel(body))
    assert (report.verdict, report.code, report.hazards) == ("left", "SKW011", ())


def test_a_guard_provably_true_from_the_bounds_is_inlined_first_and_demotes() -> None:
    report = only_loop(kernel(FIFO_REORDER_BODY.replace("if n > 2:", "if i < 8:")))
    assert (report.verdict, report.code, report.pushes) == ("demoted", "SKW021", 2)
    assert report.hazards == ()


def test_a_guard_provably_false_from_the_bounds_is_dropped_first_and_keeps_the_order() -> None:
    report = only_loop(kernel(FIFO_REORDER_BODY.replace("if n > 2:", "if i >= 8:")))
    assert codes(report) == ["SKW001"] and report.hazards == ()


def test_a_pop_first_loop_whose_pushes_all_sit_in_the_consumer_half_keeps_their_order() -> None:
    body = """\
    pl.tpop_from_aiv(split=0)
    qt = pl.tile.load(q, [i * 16, 0], [16, 64])
    pl.tpush_to_aiv(qt, split=0)
    if n > 2:
        pl.tpush_to_aiv(qt, split=0)
    """
    report = only_loop(kernel(body))
    assert (report.verdict, report.code, report.depth) == ("skewed", "SKW001", 2)
    assert report.hazards == () and codes(report) == ["SKW001"]


def test_the_vector_core_as_producer_is_symmetric() -> None:
    body = FIFO_REORDER_BODY.replace("to_aiv", "to_aic").replace("from_aiv", "from_aic")
    source = kernel(body)
    report = only_loop(source)
    assert codes(report) == ["SKW001", "SKW060"]
    (hazard,) = report.hazards
    assert (hazard.direction, hazard.after_produces) == ("aic", 2)
    assert hazard.moved.line == line_of(source, "pl.tpush_to_aic(rt")
    assert report.hints[0].message.startswith("skewing reorders the FIFO to AIC:")
    assert "the cube core receives tiles" in report.hints[0].message


def test_a_tpush_in_an_inner_loop_that_is_not_collapsed_moves_too() -> None:
    body = FIFO_REORDER_BODY.replace("if n > 2:", "for j in pl.range(2):")
    report = only_loop(kernel(body))
    assert codes(report) == ["SKW001", "SKW060"]
    assert report.hazards[0].guard == "for j in pl.range(2)"
    assert "(in `for j in pl.range(2)`)" in report.hints[0].message


def test_a_one_trip_inner_loop_is_collapsed_first_and_its_push_counts() -> None:
    report = only_loop(kernel(FIFO_REORDER_BODY.replace("if n > 2:", "for j in pl.range(1):")))
    assert (report.verdict, report.code, report.hazards) == ("demoted", "SKW021", ())


def test_a_tpush_in_an_else_branch_names_the_branch() -> None:
    body = FIFO_REORDER_BODY.replace(
        "if n > 2:\n    pl.tpush_to_aiv(rt, split=0)\n",
        "if n > 2:\n    pass\nelse:\n    pl.tpush_to_aiv(rt, split=0)\n",
    )
    report = only_loop(kernel(body))
    assert report.hazards[0].guard == "else of `if n > 2`"


def test_depth_one_moves_the_push_behind_one_produce() -> None:
    report = only_loop(kernel(FIFO_REORDER_BODY, "pl.pipeline(0, 3, 1, stage=2)"))
    assert (report.code, report.depth) == ("SKW002", 1)
    (hazard,) = report.hazards
    assert hazard.after_produces == 1
    assert order(hazard.skewed_order) == "qt0 qt1 [rt0] qt2 [rt1] [rt2]"
    assert hazard.messages == 6


def test_indices_are_the_loop_variable_values() -> None:
    report = only_loop(kernel(FIFO_REORDER_BODY, "pl.pipeline(10, 2, -2, stage=2)"))  # 10 8 6 4: depth 2
    assert order(report.hazards[0].skewed_order) == "qt10 qt8 qt6 qt4 [rt10] [rt8] [rt6] [rt4]"


def test_a_push_on_the_other_fifo_only_in_the_consumer_half_keeps_that_fifo_in_order() -> None:
    body = FIFO_REORDER_BODY.replace("    pl.tpush_to_aiv(rt, split=0)", "    pl.tpush_to_aic(rt, split=0)")
    report = only_loop(kernel(body))
    assert codes(report) == ["SKW001"] and report.hazards == ()


def test_a_guarded_push_in_the_producer_half_moves_with_the_lead() -> None:
    body = """\
    if n > 2:
        pl.tpush_to_aiv(pl.tile.load(q, [i * 16, 1], [16, 64]), split=0)
        w = pl.tile.load(q, [i * 16, 2], [16, 64])
    else:
        w = pl.tile.load(q, [i * 16, 3], [16, 64])
    pl.tpush_to_aiv(w, split=0)
    rt = pl.tpop_from_aiv(split=0)
    pl.tile.store(rt, [i * 16, 0], out)
    """
    report = only_loop(kernel(body))
    assert codes(report) == ["SKW001"] and report.hazards == ()


def test_each_moved_statement_is_one_hazard() -> None:
    body = FIFO_REORDER_BODY + "for j in pl.range(2):\n    pl.tpush_to_aiv(rt, split=0)\n"
    source = kernel(body)
    report = only_loop(source)
    assert codes(report) == ["SKW001", "SKW060", "SKW060"]
    assert [h.moved.line for h in report.hazards] == [
        line_of(source, "pl.tpush_to_aiv(rt", 0),
        line_of(source, "pl.tpush_to_aiv(rt", 1),
    ]
    assert order(report.hazards[1].skewed_order).startswith("qt0 qt1 qt2 qt3 rt0 [rt0] rt1 [rt1]")


def test_a_huge_depth_is_decided_by_the_closed_form_with_the_same_counts() -> None:
    source = kernel(FIFO_REORDER_BODY, "pl.pipeline(0, 60000, 1, stage=30001)")
    (model,) = analyze_models(source)
    assert (model.report.depth, model.report.code) == (30000, "SKW001")
    (hazard,) = model.report.hazards
    assert hazard.after_produces == 30000
    assert hazard.source_order[:2] == (FifoMessage("qt", 0), FifoMessage("rt", 0, True))


@pytest.mark.parametrize(
    ("trip", "stage", "depth"),
    [
        (2, 2, 1), (3, 2, 1), (8, 2, 2), (9, 4, 3), (12, 5, 4), (16, 6, 4),
        # windows of more than MAX_WINDOW_MESSAGES messages: counted in closed form
        (40000, 20001, 20000), (60000, 30001, 30000),
    ],
)  # fmt: skip
def test_the_moved_sends_follow_the_schedule_at_any_depth(trip: int, stage: int, depth: int) -> None:
    body = "if n > 1:\n    pl.tpush_to_aiv(q, split=0)\n" + FIFO_REORDER_BODY
    # (libcst's own trees, as a rewrite reads them: no made trees to cut code from)
    source = kernel(body, f"pl.pipeline(0, {trip}, 1, stage={stage})")
    (model,) = analyze_models(source, concrete=True)
    assert model.decision is not None and model.decision.depth == depth
    moved = fifo_module.moved_sends(model.decision, model.stmts, None)
    # Both pushes (statements 0 and 4) move past the lead (statement 2); the one before the
    # lead is also overtaken by its own iteration's lead (d + 1). The steady and epilogue
    # counts of depth d, as SKEW_RULES' schedule gives them:
    assert [(shape(m), m.after_produces) for m in moved] == [
        (("aiv", 0, 2, tuple(range(2 * depth, depth, -1)), tuple(range(depth, 0, -1))), depth + 1),
        (("aiv", 4, 2, tuple(range(2 * depth - 1, depth - 1, -1)), tuple(range(depth - 1, -1, -1))), depth),
    ]


def shape(move: fifo_module.MovedSend) -> tuple:
    return (move.direction, move.sender.index, move.lead.index, move.steady, move.epilogue)


def test_mixed_kernels_compiler_messages_never_move() -> None:
    from tests.kernels import ATTENTION, ATTENTION_STORES

    report = only_loop(ATTENTION.format(heads=128, tail=ATTENTION_STORES))
    assert report.verdict == "skewed" and report.hazards == ()
    assert "SKW060" not in codes(report)
