"""Depth selection (SKEW_RULES 4.1) as properties over (start, stop, step, stage)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from skewlsp.analysis.passes.body import trip_count
from skewlsp.analysis.skew_cross_core_pipeline.depth import effective_depth, requested_depth


def reference_depth(trip: int, requested: int) -> int:
    """The pass's own search, written the slow obvious way."""
    for d in range(requested, 0, -1):
        if trip % d == 0 and trip >= 2 * d:
            return d
    return 1


@given(st.integers(2, 5000), st.integers(1, 300))
def test_effective_depth_is_the_largest_feasible_depth(trip: int, stage: int) -> None:
    requested = requested_depth(stage)
    assert effective_depth(trip, requested) == reference_depth(trip, requested)


@given(st.integers(-1000, 1000), st.integers(-1000, 1000), st.integers(-50, 50).filter(bool))
def test_trip_count_matches_python_range(start: int, stop: int, step: int) -> None:
    assert trip_count(start, stop, step) == len(range(start, stop, step))


@given(st.integers(1, 10**6))
def test_requested_depth_is_at_least_two(stage: int) -> None:
    assert requested_depth(stage) == max(2, stage - 1)


def test_design_note_examples() -> None:
    assert effective_depth(8, requested_depth(2)) == 2
    assert effective_depth(3, requested_depth(2)) == 1
    assert effective_depth(8, requested_depth(4)) == 2
    assert effective_depth(2, requested_depth(2)) == 1


def test_huge_values_are_computed_not_looped() -> None:
    assert effective_depth(10**18, 10**9) == 10**9
    assert effective_depth(10**18, requested_depth(10**9)) == 976_562_500  # 2**6 * 5**12
    assert effective_depth(2**61 - 1, requested_depth(10**9)) == 1
    assert trip_count(-(2**63), 2**63 - 1, 1) == 2**63 - 1
