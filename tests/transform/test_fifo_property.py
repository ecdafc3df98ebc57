"""SKW060 is reported exactly when running the rewrite sends the peer another order.

For generated loops (messages at the top level, under guards the compiler can
or cannot prove, in inner loops, extra pops, either direction), the test runs
the original kernel and its rewrite against the recording fake of ``pl`` and
compares, per FIFO, the values this core sends. The analysis must report
SKW060 iff some FIFO's sequence differs. Runtime guards are chosen true on
the first iterations (a tpush that never runs cannot move).
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from skewlsp.analysis import analyze
from skewlsp.api import PreviewUnavailable, rewrite
from tests.transform.fake_pl import Tensor, run_kernel

HEADER = """import pypto.language as pl


@pl.program
class Kernel:
    @pl.function
    def main(self, q: pl.Tensor[[64, 64], pl.FP32], kv: pl.Tensor[[64, 64], pl.FP32], out: pl.Tensor[[64, 64], pl.FP32], mode: pl.Scalar[pl.INT32]):
"""
ARGS = (Tensor("q"), Tensor("kv"), Tensor("out"), 3)
BLOCKS = (
    "push",
    "push_value",
    "pop",
    "pop_store",
    "guarded_push",
    "loop_push",
    "one_trip_push",
    "provably_true_push",
    "provably_false_push",
    "guarded_pop",
    "work",
    "producer_guarded_push",
)


@dataclass(frozen=True)
class Loop:
    start: int
    trip: int
    step: int
    stage: int
    blocks: tuple[tuple[str, str, str], ...]  # (kind, direction, runtime guard)

    def text(self) -> str:
        stop = self.start + self.trip * self.step
        lines = [f"for i in pl.pipeline({self.start}, {stop}, {self.step}, stage={self.stage}):"]
        big = abs(self.start) + abs(stop) + 1000
        for c, (kind, d, guard) in enumerate(self.blocks):
            load = f"pl.tile.load(kv, [i * 16, {c}], [16, 64])"
            push = f"pl.tile.tpush_to_{d}({load}, split=0)"
            if kind == "push":
                lines.append(push)
            elif kind == "push_value":
                lines += [f"t{c} = pl.tile.load(q, [i * 16, {c}], [16, 64])",
                          f"pl.tile.tpush_to_{d}(t{c}, split=0)"]
            elif kind == "pop":
                lines.append(f"e{c} = pl.tile.tpop_from_{d}(split=0)")
            elif kind == "pop_store":
                lines += [f"e{c} = pl.tile.tpop_from_{d}(split=0)",
                          f"pl.tile.store(e{c}, [i * 16, {c}], out)"]
            elif kind == "guarded_push":
                lines += [f"if {guard}:", f"    {push}"]
            elif kind == "loop_push":
                lines += ["for j in pl.range(2):",
                          f"    pl.tile.tpush_to_{d}(pl.tile.load(kv, [i * 16, j + {c}], "
                          "[16, 64]), split=0)"]
            elif kind == "one_trip_push":
                lines += ["for j in pl.range(1):", f"    {push}"]
            elif kind == "provably_true_push":
                lines += [f"if i < {big}:", f"    {push}"]
            elif kind == "provably_false_push":
                lines += [f"if i > {big}:", f"    {push}"]
            elif kind == "guarded_pop":
                lines += [f"if {guard}:", f"    x{c} = pl.tile.tpop_from_{d}(split=0)"]
            elif kind == "work":
                lines += [f"w{c} = pl.tile.load(q, [i * 16, {c}], [16, 64])",
                          f"pl.tile.store(w{c}, [i * 16, {c}], out)"]
            elif kind == "producer_guarded_push":
                lines += [f"if {guard}:", f"    {push}",
                          f"    v{c} = pl.tile.load(q, [i * 16, {c}], [16, 64])",
                          "else:",
                          f"    v{c} = pl.tile.load(q, [i * 16, {c + 100}], [16, 64])",
                          f"pl.tile.tpush_to_{d}(v{c}, split=0)"]
        body = [" " * 8 + lines[0], *(" " * 12 + line for line in lines[1:])]
        return HEADER + "\n".join(body) + "\n        return out\n"


NESTED = tuple(b for b in BLOCKS if b not in ("push", "push_value", "pop", "pop_store"))


@st.composite
def loops(draw) -> Loop:
    """One top-level tpush and one tpop (so most loops are cross-core), plus extra blocks:
    mostly nested messages and work, sometimes another top-level message (a demotion)."""
    start = draw(st.integers(-3, 3))
    step = draw(st.sampled_from([1, 1, 2, -1]))
    guards = st.sampled_from(["mode > 2", f"i != {start + step}"])
    directions = st.sampled_from(["aiv", "aic"])
    push = ("push_value", draw(directions), "")
    pop = (draw(st.sampled_from(["pop", "pop", "pop_store"])), draw(directions), "")
    blocks = [push, pop] if draw(st.integers(0, 3)) else [pop, push]
    kinds = st.one_of(st.sampled_from(NESTED), st.sampled_from(NESTED), st.sampled_from(BLOCKS))
    same = st.just(push[1])
    directions = st.one_of(same, directions)  # extra pushes mostly share the lead's FIFO
    for extra in draw(st.lists(st.tuples(kinds, directions, guards), max_size=4)):
        if step < 0 and extra[0].startswith("provably"):
            # Bounds give the loop variable a range only for ascending loops: on a
            # descending one the guard stays an `if` (false at run time: nothing moves).
            continue
        blocks.insert(draw(st.integers(0, len(blocks))), extra)
    trip = draw(st.sampled_from([8, 2, 3, 4, 6, 9, 1]))
    return Loop(start, trip, step, draw(st.sampled_from([2, 3, 4, 5, 1])), tuple(blocks))


def sends(source: str) -> dict[str, list]:
    fake, _ = run_kernel(source, *ARGS, peer_leads=True)
    return {core: fake.sends_to(core) for core in ("aiv", "aic")}


def check(loop: Loop) -> None:
    source = loop.text()
    [report] = analyze(source)
    assert report.verdict != "error", report.message
    warned = [h.code for h in report.hints].count("SKW060") > 0
    assert warned == bool(report.hazards)
    reordered = False
    if report.verdict in ("skewed", "demoted"):
        try:
            rewritten = rewrite(source, report.line)
        except PreviewUnavailable:
            assume(False)
        before, after = sends(source), sends(rewritten)
        for core in ("aiv", "aic"):  # the same messages: only their order may change
            assert sorted(map(repr, after[core])) == sorted(map(repr, before[core]))
        reordered = before != after
    assert warned == reordered, (report.code, report.message, source)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(loops())
def test_skw060_iff_the_rewrite_sends_another_order(loop: Loop) -> None:
    check(loop)


@pytest.mark.slow  # the same property over many more generated loops
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(loops())
def test_skw060_iff_the_rewrite_sends_another_order_at_length(loop: Loop) -> None:
    check(loop)


def test_the_issue_example_reorders_and_is_reported() -> None:
    loop = Loop(0, 8, 1, 2, (("push_value", "aiv", ""), ("pop", "aiv", ""),
                             ("guarded_push", "aiv", "mode > 2")))
    [report] = analyze(loop.text())
    assert [h.code for h in report.hints] == ["SKW060"]
    check(loop)


def test_a_skew_without_nested_pushes_keeps_the_order_and_is_not_reported() -> None:
    loop = Loop(0, 8, 1, 2, (("push_value", "aiv", ""), ("pop", "aiv", ""), ("work", "aiv", "")))
    [report] = analyze(loop.text())
    assert report.verdict == "skewed" and report.hints == ()
    check(loop)
