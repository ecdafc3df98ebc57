"""The rewrite does the same work as the original loop, checked by running both.

Each case runs the test's own kernel text against a recording fake of ``pl``
(see fake_pl.py): same stores in the same order, same messages, no pop before
its push, same results after the loop, and the producer exactly D ahead at
every steady-group boundary.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from .equivalence import check_source
from .kernels import Shape, shapes

CASES = {
    "design-note stage=2 trip 8": Shape(),
    "trip 3 falls back to depth 1": Shape(stop=3),
    "trip 2 depth 1": Shape(stop=2, stage=4),
    "stage 4 trip 8 -> depth 2": Shape(stage=4),
    "stage 4 trip 9 -> depth 3": Shape(stage=4, stop=9),
    "stage 6 trip 12 -> depth 4": Shape(stage=6, stop=12),
    "negative step": Shape(start=7, stop=-1, step=-1, stage=3),
    "step 3 ragged stop": Shape(start=-4, stop=21, step=3),
    "address scalar recomputed": Shape(address=True, reuse_address=True),
    "unroll in the producer": Shape(unroll=True, producer_ops=2),
    "init_values, two iter-args": Shape(iter_args=2),
    "implicit carried state": Shape(implicit=True),
    "if in the consumer": Shape(guard=True),
    "keyword arguments": Shape(keyword_store=True),
    "slices": Shape(slices=True),
    "producer value read after the loop": Shape(read_after=True),
    "vector direction": Shape(direction="aic"),
    "everything": Shape(
        start=3, stop=27, step=2, stage=5, address=True, reuse_address=True, unroll=True,
        iter_args=2, implicit=True, guard=True, keyword_store=True, read_after=True,
    ),
    "demoted: consumer role": Shape(consumer_first=True, iter_args=1),
    "demoted: stage=1": Shape(stage=1, iter_args=1),
    "demoted: trip 1": Shape(stop=1),
}


@pytest.mark.parametrize("shape", list(CASES.values()), ids=list(CASES))
def test_rewrite_is_equivalent(shape: Shape) -> None:
    verdicts = check_source(shape.text())
    assert verdicts and verdicts[0] in ("skewed", "demoted")


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shapes())
def test_generated_shapes_are_equivalent(shape: Shape) -> None:
    verdicts = check_source(shape.text())
    assert verdicts and verdicts[0] in ("skewed", "demoted")
