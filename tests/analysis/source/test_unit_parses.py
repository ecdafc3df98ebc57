"""Within one analysis a unit text is parsed once by each parser (callers are units too),
and an expression is rendered once."""

from __future__ import annotations

import ast
from collections import Counter

import libcst as cst
import pytest

from skewlsp.analysis import UnitCache, analyze
from skewlsp.analysis.source import unit_parses
from skewlsp.contract import Resolver, Span

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


def _counting(monkeypatch: pytest.MonkeyPatch) -> tuple[Counter[str], Counter[str]]:
    concrete: Counter[str] = Counter()
    stdlib: Counter[str] = Counter()
    real_cst, real_ast = cst.parse_module, ast.parse

    def cst_parse(text: str, *args: object, **kwargs: object) -> cst.Module:
        concrete[text] += 1
        return real_cst(text, *args, **kwargs)  # type: ignore[arg-type]

    def ast_parse(text: str, *args: object, **kwargs: object) -> ast.AST:
        stdlib[text] += 1
        return real_ast(text, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(cst, "parse_module", cst_parse)
    monkeypatch.setattr(ast, "parse", ast_parse)
    return concrete, stdlib


def test_a_caller_that_holds_loops_is_parsed_once_by_each_parser(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tag = "once"
    source = KERNEL.format(tag=tag)
    concrete, stdlib = _counting(monkeypatch)
    reports = analyze(source, "k.py")
    callers = [r for r in reports if r.instance is not None]
    assert [r.instance.caller for r in callers] == [f"caller_{tag}"]
    caller_text = source[source.index("@pl.jit\n") :]
    helper_text = source[source.index("@pl.jit.inline") : source.index("@pl.jit\n")].rstrip() + "\n"
    # A lint reads trees made from the stdlib's: libcst parses neither unit.
    assert (concrete[caller_text], concrete[helper_text]) == (0, 0)
    # The stdlib parser reads the file once; each unit's tree is cut out of that tree.
    assert stdlib[source] == 1
    assert (stdlib[caller_text], stdlib[helper_text]) == (0, 0)
    others = [text for text in stdlib if text != source]
    assert all(text.lstrip("\n").startswith(("import ", "from ")) for text in others)


def test_for_a_rewrite_libcst_parses_a_caller_that_holds_loops_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tag = "rewrite"
    source = KERNEL.format(tag=tag)
    concrete, _ = _counting(monkeypatch)
    with unit_parses.concrete_trees():  # as a preview analyses
        reports = analyze(source, "k.py")
    assert [r.instance.caller for r in reports if r.instance is not None] == [f"caller_{tag}"]
    assert concrete[source[source.index("@pl.jit\n") :]] == 1


def test_a_language_server_parses_only_the_units() -> None:
    # With a cache (the server) the whole file is not parsed up front: each unit's own
    # text is, and its tree gives the same positions as the one cut out of the file's.
    source = CUT_OUT
    batch = analyze(source, "k.py")
    assert analyze(source, "k.py", cache=UnitCache()) == batch
    # Lines and 1-based columns counted by hand (each loop runs to the end of its body).
    assert [(r.span, r.call_span, r.code) for r in batch] == [
        (Span(10, 5, 11, 109), Span(10, 14, 10, 43), "SKW001"),
        (Span(19, 9, 24, 51), Span(19, 18, 19, 47), "SKW021"),  # two pushes
        (Span(22, 13, 24, 51), Span(22, 22, 22, 51), "SKW001"),
    ]


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


def test_an_unroll_of_an_unseen_count_is_decided_on_the_made_tree(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Whether its body names a cross-core op is read from the names, not from the code
    # of the block (which a made tree cannot cut): pypto-lib's largest inline helper
    # was parsed by libcst for it alone.
    concrete, _stdlib = _counting(monkeypatch)
    source = UNSEEN_UNROLL
    reports = analyze(source, "k.py")
    assert [r.code for r in reports] == ["SKW050"]
    assert not concrete


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


def test_outside_an_analysis_nothing_is_kept() -> None:
    text = "x = 1\n"
    assert unit_parses.concrete_module(text) is not unit_parses.concrete_module(text)
    with unit_parses.shared_unit_parses():
        assert unit_parses.concrete_module(text) is unit_parses.concrete_module(text)
        assert unit_parses.stdlib_tree(text) is unit_parses.stdlib_tree(text)


def test_a_refused_text_raises_each_time_it_is_asked_for() -> None:
    with unit_parses.shared_unit_parses():
        for _ in range(2):
            with pytest.raises(SyntaxError):
                unit_parses.stdlib_tree("def broken(:\n")
        assert unit_parses.concrete_module("def broken(:\n") is None


def test_within_an_analysis_an_expression_is_rendered_once() -> None:
    from skewlsp.analysis.frontend.values import code_of, memoised_code

    node = cst.parse_expression("f(a,  b) + g[1]")
    assert code_of(node) == "f(a,  b) + g[1]"
    assert code_of(node) is not code_of(node)  # rendered anew each time
    with memoised_code():
        assert code_of(node) is code_of(node)


def test_a_node_s_code_is_rendered_once_across_analyses(monkeypatch: pytest.MonkeyPatch) -> None:
    # A constant source's tree serves every file that imports it: its code is kept too.
    from skewlsp.analysis.frontend import values

    rendered: list[cst.CSTNode] = []
    real = values._rendered

    def counting(node: cst.CSTNode, *, comments: bool) -> str:
        rendered.append(node)
        return real(node, comments=comments)

    monkeypatch.setattr(values, "_rendered", counting)
    node = cst.parse_expression("Config(heads=(8, 16),  tile=[64, 64])")
    texts = []
    for _ in range(3):
        with values.memoised_code():  # one analysis each
            texts.append(values.code_of(node))
    assert texts == ["Config(heads=(8, 16),  tile=[64, 64])"] * 3
    assert rendered == [node]


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


def test_an_inline_helper_is_parsed_once_for_its_file_and_every_importer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tag = "kept"
    helpers, resolver = _helpers_module(tag)

    concrete, _ = _counting(monkeypatch)
    with unit_parses.concrete_trees():  # as a preview analyses (a lint parses none)
        own = analyze(helpers, "helpers.py", resolver=resolver)
        trips = [
            [
                r.trip
                for r in analyze(IMPORTER.format(tag=tag, trip=n), f"k{n}.py", resolver=resolver)
            ]
            for n in (4, 6)
        ]
    assert [r.code for r in own] == ["SKW050"]  # no caller in its own file
    assert trips == [[4], [6]]  # each importer decides its own copy
    helper_text = helpers[helpers.index("@pl.jit.inline") :]
    assert concrete[helper_text] == 1
    again = analyze(IMPORTER.format(tag=tag, trip=8), "k8.py", resolver=resolver)
    assert [r.trip for r in again] == [8]
    assert concrete[helper_text] == 1  # a lint made its tree from the stdlib's


def test_an_imported_helper_is_parsed_once_by_the_stdlib_for_all_its_importers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Each importer's analysis decides the helper's loop with its own arguments; the
    # helper's text is not cut from the importer's tree, and was parsed by each.
    tag = "stdlib_kept"
    helpers, resolver = _helpers_module(tag)

    _, stdlib = _counting(monkeypatch)
    trips = [
        [r.trip for r in analyze(IMPORTER.format(tag=tag, trip=n), f"k{n}.py", resolver=resolver)]
        for n in (4, 6, 8)
    ]
    assert trips == [[4], [6], [8]]
    helper_text = helpers[helpers.index("@pl.jit.inline") :]
    assert stdlib[helper_text] == 1


def test_a_made_tree_outlives_its_analysis_as_libcst_s_did(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A server's edit re-analyses a file: the helper read again is not made again.
    tag = "made"
    helpers, resolver = _helpers_module(tag)

    made: Counter[str] = Counter()
    real_convert = unit_parses.convert

    def counting(tree: ast.Module, text: str, shift: int = 0) -> object:
        made[text] += 1
        return real_convert(tree, text, shift)

    monkeypatch.setattr(unit_parses, "convert", counting)
    trips = [
        [r.trip for r in analyze(IMPORTER.format(tag=tag, trip=n), f"k{n}.py", resolver=resolver)]
        for n in (3, 5, 7)
    ]
    assert trips == [[3], [5], [7]]
    helper_text = helpers[helpers.index("@pl.jit.inline") :]
    assert made[helper_text] == 1
