"""Units and their callers, and helpers imported by several files: what each analysis
decides while trees are made, shared and kept between analyses (a lint's trees made from
the stdlib's, a preview's from libcst's); and the parses' scope (one analysis's state).

How often each parser runs is a budget, measured in ``benchmarks/``."""

from __future__ import annotations

import pytest

from skewlsp.analysis import UnitCache, analyze, analyze_models
from skewlsp.analysis.source import unit_parses
from skewlsp.contract import LoopReport, Resolver, Span

# A helper with a loop, called by a function that holds a loop of its own: the caller is
# a unit (parsed for its loop) and a caller (parsed for its call sites).
KERNEL = '''\
import pypto.language as pl


@pl.jit.inline
def helper_{tag}(a: pl.Tensor[[64, 64], pl.FP16], m: pl.Scalar[pl.INT32]):
    for i in pl.pipeline(0, m, 1, stage=2):
        pl.tile.tpush_to_aiv(pl.tile.load(a, [i, 0], [16, 64]), split=0)
        t = pl.tile.tpop_from_aic(split=0)
    return a


@pl.jit
def caller_{tag}(a: pl.Tensor[[64, 64], pl.FP16]):
    with pl.at(level=pl.Level.CORE_GROUP):
        for j in pl.pipeline(0, 8, 1, stage=2):
            pl.tile.tpush_to_aiv(pl.tile.load(a, [j, 0], [16, 64]), split=0)
            t = pl.tile.tpop_from_aic(split=0)
        a = helper_{tag}(a, 4)
    return a
'''


@pytest.mark.parametrize("concrete", [False, True], ids=["lint", "preview"])
def test_a_caller_that_holds_loops_decides_its_own_loop_and_its_copy_of_the_helper(
    concrete: bool,
) -> None:
    source = KERNEL.format(tag="once")
    # A lint's trees made from the stdlib's, or a preview's libcst trees.
    reports = [m.report for m in analyze_models(source, "k.py", concrete=concrete)]
    found = [
        (r.span.line, r.code, r.trip, r.depth, r.instance.caller if r.instance else None)
        for r in reports
    ]
    assert found == [(6, "SKW001", 4, 2, "caller_once"), (15, "SKW001", 8, 2, None)]
    assert reports[0].instance.call.line == 18  # type: ignore[union-attr]


def test_a_language_server_parses_only_the_units() -> None:
    # With a cache (the server) the whole file is not parsed up front: each unit's own
    # text is, and its tree gives the same positions as the one cut out of the file's.
    source = CUT_OUT
    # Lines and 1-based columns counted by hand (each loop runs to the end of its body).
    expected = [
        (Span(10, 5, 11, 109), Span(10, 14, 10, 43), "SKW001"),
        (Span(19, 9, 24, 51), Span(19, 18, 19, 47), "SKW021"),  # two pushes
        (Span(22, 13, 24, 51), Span(22, 22, 22, 51), "SKW001"),
    ]
    for cache in (None, UnitCache()):  # a batch run, a language server
        assert [(r.span, r.call_span, r.code) for r in analyze(source, "k.py", cache=cache)] == expected


# Units at the top level and in a class (wrapped in ``if 1:`` to parse alone), with
# non-ASCII text before the loops on their lines and a docstring spanning lines.
CUT_OUT = '''\
import pypto.language as pl

NAME = "é"  # ünïcode before any unit


@pl.function
def top(a: pl.Tensor[[64, 64], pl.FP16]):
    """Dœc
    string."""
    for i in pl.pipeline(0, 8, 1, stage=2):
        pl.tile.tpush_to_aiv(pl.tile.load(a, [i, 0], [16, 64]), split=0); t = pl.tile.tpop_from_aic(split=0)


@pl.program
class Kernel:
    @pl.function
    def main(self, a: pl.Tensor[[64, 64], pl.FP16]):
        é = 1
        for i in pl.pipeline(0, 8, 1, stage=2):
            pl.tile.tpush_to_aiv(pl.tile.load(a, [i, 0], [16, 64]), split=0)
            if é: x = 1; y = 2
            for j in pl.pipeline(0, 4, 1, stage=2):
                pl.tile.tpush_to_aiv(pl.tile.load(a, [j, 0], [16, 64]), split=0)
                t = pl.tile.tpop_from_aic(split=0)
'''


def test_an_unroll_of_an_unseen_count_over_a_push_leaves_the_verdict_unknown() -> None:
    # Whether its body names a cross-core op is read from the names, not from the code
    # of the block (which a made tree cannot cut).
    assert [(r.code, r.message) for r in analyze(UNSEEN_UNROLL, "k.py")] == [
        ("SKW050", "verdict unknown: a pl.unroll count depends on `N`, computed when the "
                   "module loads, and it decides how many messages the body sends"),
    ]


UNSEEN_UNROLL = """\
import pypto.language as pl

from .config import N


@pl.function
def top(a: pl.Tensor[[64, 64], pl.FP16]):
    for i in pl.pipeline(0, 8, 1, stage=2):
        for j in pl.unroll(N):
            pl.tile.tpush_to_aiv(pl.tile.load(a, [i, j], [16, 64]), split=0)
        t = pl.tile.tpop_from_aic(split=0)
"""


def test_one_analysis_parses_a_text_once_and_the_next_parses_it_again() -> None:
    text = "x = 1\n"
    parses = unit_parses.UnitParses()
    assert parses.concrete_module(text) is parses.concrete_module(text)
    assert parses.unit_tree(text, None) is parses.unit_tree(text, None)
    assert unit_parses.UnitParses().concrete_module(text) is not parses.concrete_module(text)


def test_a_refused_text_raises_each_time_it_is_asked_for() -> None:
    parses = unit_parses.UnitParses()
    for _ in range(2):
        with pytest.raises(SyntaxError):
            parses.unit_tree("def broken(:\n", None)
    assert parses.concrete_module("def broken(:\n") is None


HELPER_MODULE = '''\
import pypto.language as pl


@pl.jit.inline
def shared_{tag}(a: pl.Tensor[[64, 64], pl.FP16], m: pl.Scalar[pl.INT32]):
    for i in pl.pipeline(0, m, 1, stage=2):
        pl.tile.tpush_to_aiv(pl.tile.load(a, [i, 0], [16, 64]), split=0)
        t = pl.tile.tpop_from_aic(split=0)
    return a
'''

IMPORTER = '''\
import pypto.language as pl
from helpers_{tag} import shared_{tag}


@pl.jit
def entry(a: pl.Tensor[[64, 64], pl.FP16]):
    with pl.at(level=pl.Level.CORE_GROUP):
        a = shared_{tag}(a, {trip})  # runs the helper's pl.pipeline loop
    return a
'''


def _helpers_module(tag: str) -> tuple[str, Resolver]:
    """The text of ``helpers_<tag>`` (an inline helper with a loop) and a resolver that
    finds it as that module (every other import is not found)."""
    helpers = HELPER_MODULE.format(tag=tag)

    def resolver(module: str, level: int, path: str | None) -> str | None:
        return helpers if module == f"helpers_{tag}" else None

    return helpers, resolver


def test_an_inline_helper_is_decided_in_its_file_and_for_every_importer_in_a_preview() -> None:
    tag = "kept"
    helpers, resolver = _helpers_module(tag)

    def preview_reports(source: str, path: str) -> list[LoopReport]:
        """As a preview analyses (on libcst's trees; a lint parses none)."""
        models = analyze_models(source, path, resolver=resolver, concrete=True)
        return [model.report for model in models]

    own = preview_reports(helpers, "helpers.py")
    trips = [
        [r.trip for r in preview_reports(IMPORTER.format(tag=tag, trip=n), f"k{n}.py")]
        for n in (4, 6)
    ]
    assert [r.code for r in own] == ["SKW050"]  # no caller in its own file
    assert trips == [[4], [6]]  # each importer decides its own copy
    again = analyze(IMPORTER.format(tag=tag, trip=8), "k8.py", resolver=resolver)
    assert [r.trip for r in again] == [8]  # then a lint, on a tree made from the stdlib's


@pytest.mark.parametrize("tag", ["stdlib_kept", "made"])
def test_each_importer_of_a_helper_decides_the_helper_s_loop_with_its_own_arguments(
    tag: str,
) -> None:
    # A server's edit re-analyses a file: the helper read again gives each importer its own.
    helpers, resolver = _helpers_module(tag)
    trips = [
        [
            (r.code, r.trip, r.instance.caller if r.instance else None)
            for r in analyze(IMPORTER.format(tag=tag, trip=n), f"k{n}.py", resolver=resolver)
        ]
        for n in (3, 4, 8)
    ]
    assert trips == [
        [("SKW002", 3, "entry")], [("SKW001", 4, "entry")], [("SKW001", 8, "entry")]
    ]
