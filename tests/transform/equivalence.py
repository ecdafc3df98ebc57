"""Run a kernel before and after its rewrite and check the two did the same work.

What must hold for every skewed or demoted loop: the same stores (destination,
offsets, symbolic value) in the same order, the same messages pushed, no pop
before its push (the fake asserts it), the same values returned after the loop
(iter-arg results included), and, for a skewed loop, the producer exactly D
messages ahead at every steady-group boundary, never more than 2*D in flight.
"""

from __future__ import annotations

import textwrap
from typing import Any

import libcst as cst

from skewlsp.analysis import analyze_models
from skewlsp.api import PreviewUnavailable, rewrite
from skewlsp.api import preview as preview_at
from skewlsp.contract import LoopReport
from tests.transform.fake_pl import Tensor, run_kernel

DEFAULT_ARGS = (Tensor("q"), Tensor("kv"), Tensor("out"), ("init", "acc0"))


def check_loop(source: str, report: LoopReport, args: tuple[Any, ...] = DEFAULT_ARGS) -> str:
    """Check one loop's rewrite; returns the rewritten file."""
    rewritten = rewrite(source, report.line)
    cst.parse_module(rewritten)
    preview = preview_at(source, report.line).rewritten
    cst.parse_module(textwrap.dedent(preview))
    peer_leads = report.verdict == "demoted" and _pops_first(source, args)
    before, result_before = run_kernel(source, *args, peer_leads=peer_leads)
    after, result_after = run_kernel(rewritten, *args, peer_leads=peer_leads)
    assert after.stores() == before.stores()
    assert after.pushes == before.pushes
    assert after.pops == before.pops
    assert result_after == result_before
    if report.verdict == "skewed":
        depth, trip = report.depth, report.trip
        start, step = report.start, report.step
        assert depth and trip and start is not None and step
        bounds = (start + depth * step, start + trip * step, depth * step)
        boundaries = after.in_flight_at_iterations(bounds)
        # one entry per steady iteration plus the loop's end: always exactly D ahead
        assert boundaries == [depth] * (trip // depth), boundaries
        assert after.max_in_flight <= 2 * depth
        assert before.pops == trip
    return rewritten


def _pops_first(source: str, args: tuple[Any, ...]) -> bool:
    """A consumer-role loop pops before it pushes: its peer must lead (only demoted loops)."""
    try:
        run_kernel(source, *args)
    except AssertionError as err:
        return "before its tpush" in str(err)
    return False


def check_source(source: str, args: tuple[Any, ...] = DEFAULT_ARGS) -> list[str]:
    """Check every loop of ``source``; returns the verdicts seen (left loops must refuse)."""
    verdicts: list[str] = []
    for model in analyze_models(source):
        report = model.report
        verdicts.append(report.verdict)
        if report.verdict in ("skewed", "demoted"):
            check_loop(source, report, args)
        else:
            try:
                preview_at(source, report.line)
            except PreviewUnavailable:
                continue
            raise AssertionError(f"a {report.verdict} loop got a preview")
    return verdicts
