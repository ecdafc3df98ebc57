"""A ``pl.pipeline`` header's bounds as the skew pass reads them: after Simplify, whose
arithmetic analyzer folds each bound (``SimplifyExpr`` of the loop's start, stop and step
in ``src/ir/transforms/simplify_pass.cpp``). The pass skews a loop only when its start and
its stop are each a constant: a constant trip between run-time bounds does not do."""

from __future__ import annotations

from skewlsp.analysis.driver import analyze_models
from skewlsp.api import analyse
from tests.kernels import PRODUCER, kernel


def test_a_bound_whose_run_time_terms_cancel_is_a_constant() -> None:
    (report,) = analyse(kernel(PRODUCER, "pl.pipeline(0, (n + 1) * 8 - n * 8, 1, stage=2)"))
    assert (report.code, report.trip) == ("SKW001", 8)


def test_bounds_each_known_at_run_time_stay_dynamic_whatever_their_difference() -> None:
    (report,) = analyse(kernel(PRODUCER, "pl.pipeline(n * 8, (n + 1) * 8, 1, stage=2)"))
    assert report.code == "SKW022"
    assert "start depends on `n`" in report.message


LOAD_TIME = "import os\nN = int(os.environ['N'])"  # the compiler knows N; skewlsp does not


def test_a_bound_of_values_computed_at_load_time_only_leaves_the_verdict_open() -> None:
    header = "pl.pipeline(0, (n + 1) * N - n * N, 1, stage=2)"  # N
    (model,) = analyze_models(kernel(PRODUCER, header, prelude=LOAD_TIME))
    assert (model.report.code, model.facts.load_time_bound) == ("SKW050", "N")


def test_a_bound_known_at_run_time_is_dynamic_whatever_else_it_reads() -> None:
    # N * n is known at run time only, whatever N is: the compiler demotes the loop
    source = kernel(PRODUCER, "pl.pipeline(0, N * n, 1, stage=2)", prelude=LOAD_TIME)
    (model,) = analyze_models(source)
    assert (model.report.code, model.facts.load_time_bound) == ("SKW022", None)
    assert "stop depends on `n`" in model.report.message
