"""The rewrite does the same work as the original loop, checked by running both.

Each case runs the test's own kernel text against a recording fake of ``pl``
(see fake_pl.py): same stores in the same order, same messages, no pop before
its push, same results after the loop, and the producer exactly D ahead at
every steady-group boundary. Each case also states the verdict, code and depth
the rules give it (SKEW_RULES.md §3 and §4.1), worked out by hand for the named
cases and by :func:`spec_verdict` for generated ones.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from skewlsp.analysis import analyze
from tests.kernels import Shape, shapes
from tests.transform.equivalence import check_source

Expected = tuple[str, str, "int | None"]  # verdict, code, effective depth

CASES: dict[str, tuple[Shape, Expected]] = {
    # D = max(2, stage - 1); depth = the largest d <= D with trip % d == 0 and trip >= 2d
    "design-note stage=2 trip 8": (Shape(), ("skewed", "SKW001", 2)),
    "trip 3 falls back to depth 1": (Shape(stop=3), ("skewed", "SKW002", 1)),
    "trip 2 depth 1": (Shape(stop=2, stage=4), ("skewed", "SKW002", 1)),  # D=3; 2 < 2*2
    "stage 4 trip 8 -> depth 2": (Shape(stage=4), ("skewed", "SKW002", 2)),  # 8 % 3 != 0
    "stage 4 trip 9 -> depth 3": (Shape(stage=4, stop=9), ("skewed", "SKW001", 3)),
    "stage 6 trip 12 -> depth 4": (Shape(stage=6, stop=12), ("skewed", "SKW002", 4)),  # D=5
    "negative step": (Shape(start=7, stop=-1, step=-1, stage=3), ("skewed", "SKW001", 2)),
    # trip = ceil((21 - -4) / 3) = 9, odd: depth 2 infeasible
    "step 3 ragged stop": (Shape(start=-4, stop=21, step=3), ("skewed", "SKW002", 1)),
    "address scalar recomputed": (
        Shape(address=True, reuse_address=True), ("skewed", "SKW001", 2)
    ),
    "unroll in the producer": (Shape(unroll=True, producer_ops=2), ("skewed", "SKW001", 2)),
    "init_values, two iter-args": (Shape(iter_args=2), ("skewed", "SKW001", 2)),
    "implicit carried state": (Shape(implicit=True), ("skewed", "SKW001", 2)),
    "if in the consumer": (Shape(guard=True), ("skewed", "SKW001", 2)),
    "keyword arguments": (Shape(keyword_store=True), ("skewed", "SKW001", 2)),
    "slices": (Shape(slices=True), ("skewed", "SKW001", 2)),
    "producer value read after the loop": (Shape(read_after=True), ("skewed", "SKW001", 2)),
    "vector direction": (Shape(direction="aic"), ("skewed", "SKW001", 2)),
    "everything": (  # trip (27 - 3) / 2 = 12, stage 5: D = 4, 12 % 4 == 0
        Shape(
            start=3, stop=27, step=2, stage=5, address=True, reuse_address=True, unroll=True,
            iter_args=2, implicit=True, guard=True, keyword_store=True, read_after=True,
        ),
        ("skewed", "SKW001", 4),
    ),
    "demoted: consumer role": (
        Shape(consumer_first=True, iter_args=1), ("demoted", "SKW020", None)
    ),
    "demoted: stage=1": (Shape(stage=1, iter_args=1), ("demoted", "SKW024", None)),
    "demoted: trip 1": (Shape(stop=1), ("demoted", "SKW023", None)),
}


def spec_verdict(shape: Shape) -> Expected:
    """What SKEW_RULES.md gives a generated shape, from its parameters alone.

    Rule order (§3): stage 1 (rule 2), trip < 2 (rule 5), a popped tile carried into
    the body by a consumer-role loop (rule 10), else skewed at the §4.1 depth.
    """
    trip = len(range(shape.start, shape.stop, shape.step))
    if shape.stage == 1:
        return ("demoted", "SKW024", None)
    if trip < 2:
        return ("demoted", "SKW023", None)
    if shape.consumer_first:
        return ("demoted", "SKW020", None)
    requested = max(2, shape.stage - 1)
    depth = max(d for d in range(1, requested + 1) if trip % d == 0 and trip >= 2 * d)
    return ("skewed", "SKW001" if depth == requested else "SKW002", depth)


def verdict_of(source: str) -> Expected:
    [report] = analyze(source)
    return (report.verdict, report.code, report.depth)


@pytest.mark.parametrize(("shape", "expected"), list(CASES.values()), ids=list(CASES))
def test_rewrite_is_equivalent(shape: Shape, expected: Expected) -> None:
    source = shape.text()
    assert verdict_of(source) == expected
    assert check_source(source) == [expected[0]]


@pytest.mark.slow  # ~7 s: a hundred generated kernels, each run twice against the fake
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shapes())
def test_generated_shapes_are_equivalent(shape: Shape) -> None:
    source = shape.text()
    expected = spec_verdict(shape)
    assert verdict_of(source) == expected
    assert check_source(source) == [expected[0]]
