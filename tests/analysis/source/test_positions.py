"""Loop positions: statement spans from the stdlib parser equal libcst's own position metadata.

The reference is libcst's public ``PositionProvider`` on the whole module (the
slow path the engine avoids); the code under test pairs statements with their
``ast`` twins. Two independent parsers, one answer.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import libcst as cst
import pytest
from hypothesis import HealthCheck, given, settings
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from skewlsp.analysis import analyze
from skewlsp.analysis.frontend.values import code_of
from skewlsp.analysis.skew_cross_core_pipeline.per_core import _first_lines
from skewlsp.analysis.source.positions import LoopPositions
from skewlsp.analysis.source.walk import walk
from skewlsp.contract import Span
from tests.fuzz.strategies import PYTHON, kernels
from tests.kernels import fast_tier, in_tiers

ROOT = Path(__file__).resolve().parents[3]
KERNEL_FILES = sorted(
    [*ROOT.glob("examples/*.py"), *ROOT.glob("tests/fixtures/**/*.py")], key=str
)
KERNEL_FILES = [p for p in KERNEL_FILES if p.name != "syntax_error.py"]
# The sweeps of every file: a few in the fast tier, the rest slow (tests/kernels.in_tiers).
SWEPT = in_tiers(KERNEL_FILES, ids=lambda p: p.name)

TRICKY = '''\
import pypto.language as pl


def kernel(a, n: pl.Scalar[pl.INDEX]):  # café
    x = 1  # ünïcödé comment
    for i in pl.pipeline(0, 8, stage = 2 , init_values=(a,)):  # header
        y = pl.tile.load(a, [i, 0], [16, 16]) ; z = "日本語" ; w = (x)
        if y:
            pass
        elif z:
            q = 3
        else:
            (r) = 3   # tail
        with pl.at(level=pl.Level.CORE_GROUP):
            for j in (pl.pipeline(4, stage=(2))): s = 1; t = (2)
        while x:
            x = (x +
                 1)
        try:
            pass
        except ValueError:
            u = "ß"
        else:
            v = 1
        finally:
            v = 2
        match x:
            case 1:
                m = 1
            case _:
                m = 2
        for k in pl.range(4):
            e = "€" + "𝄞"; f = e
        else:
            g = 0
        doc = """
    a string line the rendering keeps as it is
        pl.tile.add(y, y)"""
        ü = pl.tile.add(y, y)
        out[0:16, 0:16] = \\
            pl.cast(ü, pl.INT8, mode="trunc")
'''


def reference_spans(module: cst.Module) -> dict[int, Span]:
    ranges = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    return {
        id(node): Span(r.start.line, r.start.column + 1, r.end.line, r.end.column + 1)
        for node, r in ranges.items()
    }


def loops(module: cst.Module) -> Iterator[cst.For]:
    for node in walk(module):
        if isinstance(node, cst.For):
            yield node


def statements_within(loop: cst.For) -> Iterator[cst.CSTNode]:
    for node in walk(loop):
        if isinstance(node, (cst.BaseSmallStatement, cst.BaseCompoundStatement)):
            yield node


def assert_spans_match(source: str) -> int:
    """Compare every statement, loop call and keyword argument of every loop; return the count."""
    module = cst.parse_module(source)
    tree = ast.parse(source)
    expected = reference_spans(module)
    found = LoopPositions(module, tree, source, 0)
    compared = 0
    for loop in loops(module):
        nodes = [*statements_within(loop)]
        if isinstance(loop.iter, cst.Call):
            nodes += [loop.iter, *loop.iter.args]
        for node in nodes:
            assert found.span(node, loop) == expected[id(node)], cst.Module([]).code_for_node(node)
            compared += 1
    return compared


def test_every_statement_of_a_tricky_kernel_is_where_libcst_puts_it() -> None:
    assert assert_spans_match(TRICKY) > 30


def test_windows_line_endings_and_form_feeds_keep_their_places() -> None:
    source = TRICKY.replace("    x = 1  #", "\f\n    x = 1  # \f").replace("\n", "\r\n")
    assert assert_spans_match(source) > 30


@pytest.mark.parametrize("path", SWEPT)
def test_every_statement_of_the_sample_kernels_is_where_libcst_puts_it(path: Path) -> None:
    assert_spans_match(path.read_text(encoding="utf-8"))


def test_nodes_inside_expressions_fall_back_to_rendering_the_loop() -> None:
    module = cst.parse_module(TRICKY)
    expected = reference_spans(module)
    found = LoopPositions(module, ast.parse(TRICKY), TRICKY, 0)
    loop = next(loops(module))
    inner_calls = [n for n in walk(loop.body) if isinstance(n, cst.Call)]
    assert inner_calls
    for call in inner_calls:
        assert found.span(call, loop) == expected[id(call)]


def assert_every_node_matches(source: str) -> int:
    """Every node of every loop (expressions included) where libcst's metadata puts it."""
    module = cst.parse_module(source)
    expected = reference_spans(module)
    found = LoopPositions(module, ast.parse(source), source, 0)
    compared = 0
    for loop in loops(module):
        for node in walk(loop):
            assert found.span(node, loop) == expected[id(node)], cst.Module([]).code_for_node(node)
            compared += 1
    return compared


@pytest.mark.parametrize("crlf", [False, True])
def test_every_node_of_a_tricky_kernel_is_where_libcst_puts_it(crlf: bool) -> None:
    source = TRICKY.replace("\n", "\r\n") if crlf else TRICKY
    assert assert_every_node_matches(source) > 250


@pytest.mark.parametrize("path", SWEPT)
def test_every_node_of_the_sample_kernels_is_where_libcst_puts_it(path: Path) -> None:
    assert_every_node_matches(path.read_text(encoding="utf-8"))


def test_an_expression_on_a_continued_line_or_in_a_header_is_where_libcst_puts_it() -> None:
    module = cst.parse_module(TRICKY)
    expected = reference_spans(module)
    found = LoopPositions(module, ast.parse(TRICKY), TRICKY, 0)
    loop = next(loops(module))
    wrapped = next(n for n in walk(loop.body) if isinstance(n, cst.BinaryOperation))  # x + 1
    assert found.span(wrapped, loop) == expected[id(wrapped)] == Span(17, 18, 18, 19)
    header_call = next(n for n in walk(loop.body) if isinstance(n, cst.Attribute)
                       and n.attr.value == "at")
    assert found.span(header_call, loop) == expected[id(header_call)] == Span(14, 14, 14, 19)


def test_spans_are_shifted_by_the_units_line_offset() -> None:
    module = cst.parse_module(TRICKY)
    loop = next(loops(module))
    at_zero = LoopPositions(module, ast.parse(TRICKY), TRICKY, 0).span(loop, loop)
    at_forty = LoopPositions(module, ast.parse(TRICKY), TRICKY, 40).span(loop, loop)
    assert at_forty == at_zero.shifted(40)


@pytest.mark.slow  # fuzzing: any program the grammar allows
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(PYTHON)
def test_any_python_program_pairs_statements_like_libcst(source: str) -> None:
    try:
        ast.parse(source)
        cst.parse_module(source)
    except Exception:  # noqa: BLE001 - the two parsers disagree on what is valid
        return
    assert_spans_match(source)


def assert_report_spans_are_libcst_s(source: str, placed: list[Span] | None = None) -> int:
    """Every report's loop and call spans are where libcst's metadata puts that loop and
    its ``pl.pipeline`` call; its stage span (if any) is its ``stage=`` argument's; its lead
    and offending statements (if any) are statements of that loop. Returns how many
    reports were compared; the stage, lead and offending spans found go to ``placed``."""
    placed = [] if placed is None else placed
    module = cst.parse_module(source)
    where = reference_spans(module)
    by_span = {where[id(loop)]: loop for loop in loops(module)}
    compared = 0
    for report in analyze(source, None):
        loop = by_span[report.span]
        assert report.call_span == where[id(loop.iter)]
        stage = [a for a in getattr(loop.iter, "args", ()) if a.keyword and a.keyword.value == "stage"]
        assert {report.stage_span} - {None} <= {where[id(arg)] for arg in stage}
        statements = {where[id(node)] for node in statements_within(loop)}
        assert {report.lead, report.offending} - {None} <= statements
        compared += 1
        placed.extend(p for p in (report.stage_span, report.lead, report.offending) if p)
    return compared


# What the fast tier's few sample kernels hold (24 reports, 38 spans, 208 cut statements
# when this was written): each sweep must still compare that many.
FAST_REPORTS, FAST_PLACED, FAST_CUTS = 20, 30, 180


def test_the_fast_tier_s_sample_kernels_reports_are_where_libcst_puts_their_loops() -> None:
    placed: list[Span] = []
    compared = [
        assert_report_spans_are_libcst_s(path.read_text(encoding="utf-8"), placed)
        for path in fast_tier(KERNEL_FILES)
    ]
    assert sum(compared) > FAST_REPORTS  # reports
    assert len(placed) > FAST_PLACED  # stage, lead and offending spans among them


@pytest.mark.slow  # every sample kernel (the fast tier reads a few, above)
def test_the_sample_kernels_reports_are_where_libcst_puts_their_loops() -> None:
    placed: list[Span] = []
    compared = [
        assert_report_spans_are_libcst_s(path.read_text(encoding="utf-8"), placed)
        for path in KERNEL_FILES
    ]
    assert sum(compared) > 100  # reports (146 when this was written)
    assert len(placed) > 200  # stage, lead and offending spans among them (238 then)


@pytest.mark.slow  # fuzzing: sixty drawn kernels, each analysed and placed by libcst
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(kernels())
def test_any_kernel_s_reports_are_where_libcst_puts_its_loops(source: str) -> None:
    try:
        cst.parse_module(source)
    except cst.ParserSyntaxError:
        return  # (a drawn kernel libcst refuses: its one report is a syntax error)
    assert_report_spans_are_libcst_s(source)


# -- a statement's code, cut from the text instead of rendered ------------------------------

CUT = '''\
def kernel(a, b):
    for i in pl.pipeline(0, 8, stage=2):
        x = pl.tile.load(a, [i, 0], [16, 16])
        y = pl.tile.matmul(
            x,
            b,
    )
        z = "café"
        n = 1  # a trailing comment: not part of the statement
        m = (2  # a comment inside: libcst's rendering drops it
             + 3)
        p = 4; q = 5
        s = """two
            lines"""
        t = 6 + \\
            7
'''


def _cut_codes(source: str) -> dict[str, str | None]:
    """Each small statement's cut code, by its first target's name."""
    module = cst.parse_module(source)
    found = LoopPositions(module, ast.parse(source), source, 0)
    codes: dict[str, str | None] = {}
    for node in walk(module):
        if isinstance(node, cst.Assign):
            target = node.targets[0].target
            assert isinstance(target, cst.Name)
            codes[target.value] = found.statement_code(node)
    return codes


def test_a_statement_is_cut_from_the_text_without_its_blocks_indentation() -> None:
    codes = _cut_codes(CUT)
    assert codes["x"] == "x = pl.tile.load(a, [i, 0], [16, 16])"
    # Continuation lines lose the block's indentation where they have it (as libcst's
    # rendering of the statement on its own does); a less indented line keeps its own.
    assert codes["y"] == "y = pl.tile.matmul(\n    x,\n    b,\n    )"
    assert codes["z"] == 'z = "café"'
    assert codes["n"] == "n = 1"


def test_what_the_rendering_would_change_is_not_cut() -> None:
    codes = _cut_codes(CUT)
    assert codes["m"] is None  # a comment inside the statement
    assert codes["p"] is None  # a semicolon after it (libcst keeps it with the statement)
    assert codes["q"] is None  # not the first statement of its line
    assert codes["s"] is None  # a triple-quoted string keeps its lines' indentation
    assert codes["t"] is None  # a backslash continuation


def test_a_cut_statement_reads_as_libcst_renders_it() -> None:
    module = cst.parse_module(CUT)
    found = LoopPositions(module, ast.parse(CUT), CUT, 0)
    cut = [n for n in walk(module) if isinstance(n, cst.Assign) and found.statement_code(n)]
    assert len(cut) == 4
    for node in cut:
        assert found.statement_code(node) == code_of(node, None)


@pytest.mark.parametrize(
    ("source", "name"),
    [
        # after a backslash the statement starts a line but not a logical one
        ("def f():\n    y = 1; \\\nx = g(a,\n        b)\n", "x"),
        ("def f():\n    if c: \\\n        y = g(a,\n            b)\n", "y"),
        # a form feed is not indentation
        ("def f():\n    y = 0\n\f    x = g(a,\n        b)\n", "x"),
        # a backslash after the statement carries on to a semicolon
        ("def f():\n    x = 1 \\\n    ; y = 2\n", "x"),
    ],
)
def test_a_statement_that_reads_otherwise_alone_is_not_cut(source: str, name: str) -> None:
    codes = _cut_codes(source)
    assert name in codes
    assert codes[name] is None


def test_a_method_whose_tree_is_cut_from_the_files_is_cut_at_its_own_lines() -> None:
    from skewlsp.analysis.source.unit_parses import UnitParses

    source = "import pypto.language as pl\n\n\nclass K:\n    def f(a, b):\n"
    source += "        x = g(a,\n            b)\n"
    unit = "if 1:\n" + "".join(source.splitlines(keepends=True)[4:])  # as the index cuts it
    parses = UnitParses()
    parses.share_module_tree(ast.parse(source), source)
    found = parses.unit_tree(unit, 3)
    assert found.shift == 3  # the tree is the file's, not a parse of the unit text
    module = cst.parse_module(unit)
    positions = LoopPositions(module, found.tree, unit, 3, found.shift)
    assign = next(n for n in walk(module) if isinstance(n, cst.Assign))
    assert positions.statement_code(assign) == "x = g(a,\n    b)"


def test_a_compound_statement_is_cut_to_its_first_line_as_a_body_shows_it() -> None:
    module = cst.parse_module(CUT)
    found = LoopPositions(module, ast.parse(CUT), CUT, 0)
    loop = next(n for n in walk(module) if isinstance(n, cst.For))
    assert found.statement_code(loop) == "for i in pl.pipeline(0, 8, stage=2):"
    made = cst.parse_statement("w = 1\n").body[0]
    assert found.statement_code(made) is None  # a node the compiler would add: no text


def test_a_first_line_keeps_the_spaces_before_its_comment_as_libcst_renders_them() -> None:
    source = (
        "def k(a):\n    if a > 1:   # big\n        b = 2\n    with pl.at(x): # 'q'\n"
        '        c = 3\n    while f("""#"""):  # d\n        d = 4\n'
    )
    module = cst.parse_module(source)
    found = LoopPositions(module, ast.parse(source), source, 0)
    branch = next(n for n in walk(module) if isinstance(n, cst.If))
    scope = next(n for n in walk(module) if isinstance(n, cst.With))
    loop = next(n for n in walk(module) if isinstance(n, cst.While))
    assert found.statement_code(branch) == "if a > 1:   "
    assert found.statement_code(scope) == "with pl.at(x): "  # a quote in the comment
    assert found.statement_code(loop) is None  # a triple quote on the line: rendered


# What may make a cut read otherwise than libcst's rendering (the test's own list).
_MAY_READ_OTHERWISE = ("#", "\\", ";", '"""', "'''")


def _must_be_cut(lines: list[str], where: CodeRange, compound: bool) -> bool:
    """Whether a statement's text is plain enough that its cut must be given: it starts a
    logical line after spaces and tabs only, and (a compound statement) its first line
    holds no triple quote, or (a small statement) its lines hold no comment, backslash,
    semicolon or triple quote and nothing follows it."""
    first = lines[where.start.line - 1]
    if first[: where.start.column].strip(" \t"):
        return False
    if where.start.line > 1 and lines[where.start.line - 2].endswith("\\"):
        return False
    if compound:
        return '"""' not in first and "'''" not in first
    own = lines[where.start.line - 1 : where.end.line]
    after = lines[where.end.line - 1][where.end.column :]
    return not after.strip() and not any(m in line for line in own for m in _MAY_READ_OTHERWISE)


def assert_cuts_read_as_libcst_renders(source: str) -> int:
    """Every statement's cut is libcst's rendering (a compound statement's: its first line,
    body stubbed); a plain one must be cut, any other may be left to rendering (None).
    Returns how many plain statements were compared."""
    module = cst.parse_module(source)
    found = LoopPositions(module, ast.parse(source), source, 0)
    where = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    lines = re.split(r"\r\n|\r|\n", source)
    plain: list[tuple[str | None, str]] = []
    other: list[tuple[str | None, str]] = []
    for node in walk(module):
        if isinstance(node, cst.BaseSmallStatement):
            rendered, compound = code_of(node, None), False
        elif isinstance(node, (cst.For, cst.While, cst.If, cst.With)) and isinstance(
            node.body, cst.IndentedBlock
        ):
            rendered, compound = code_of(_first_lines(node), None).splitlines()[0], True
        else:
            continue
        pair = (found.statement_code(node), rendered)
        (plain if _must_be_cut(lines, where[node], compound) else other).append(pair)
    assert [code for code, _ in plain] == [rendered for _, rendered in plain]
    given_ones = [(code, rendered) for code, rendered in other if code is not None]
    assert [code for code, _ in given_ones] == [rendered for _, rendered in given_ones]
    return len(plain)


def test_what_is_plain_is_cut_and_what_is_not_is_left_to_rendering() -> None:
    # (the oracle above against hand-written answers)
    assert assert_cuts_read_as_libcst_renders(CUT) == 4  # the for line, x, y and z
    codes = _cut_codes(CUT)
    assert [name for name, code in codes.items() if code is not None] == ["x", "y", "z", "n"]


def test_an_elif_header_is_cut_as_libcst_renders_its_node_an_if() -> None:
    # (the `elif` keyword is the parent's: libcst renders the nested node as an `if`)
    source = "if a:\n    x = 1\nelif b:  # the second test\n    y = 2\nelse:\n    z = 3\n"
    module = cst.parse_module(source)
    found = LoopPositions(module, ast.parse(source), source, 0)
    first = module.body[0]
    assert isinstance(first, cst.If) and isinstance(first.orelse, cst.If)
    assert found.statement_code(first.orelse) == "if b:  "
    assert assert_cuts_read_as_libcst_renders(source) == 5  # both headers, x, y and z


def test_every_statement_of_the_fast_tier_s_sample_kernels_is_cut_as_libcst_renders_it() -> None:
    kernels = fast_tier(KERNEL_FILES)
    compared = [assert_cuts_read_as_libcst_renders(p.read_text(encoding="utf-8")) for p in kernels]
    assert sum(compared) > FAST_CUTS


@pytest.mark.slow  # every sample kernel (the fast tier reads a few, above)
def test_every_statement_of_the_sample_kernels_is_cut_as_libcst_renders_it() -> None:
    compared = [assert_cuts_read_as_libcst_renders(p.read_text(encoding="utf-8")) for p in KERNEL_FILES]
    assert sum(compared) > 1000  # (1138 when this was written)


@pytest.mark.slow  # fuzzing: any program the grammar allows
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(PYTHON)
def test_any_statement_cut_from_the_text_reads_as_libcst_renders_it(source: str) -> None:
    try:
        ast.parse(source)
        cst.parse_module(source)
    except Exception:  # noqa: BLE001 - the two parsers disagree on what is valid
        return
    assert_cuts_read_as_libcst_renders(source)
