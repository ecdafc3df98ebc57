"""Trees made from the stdlib's read as libcst's parse of the same text, and a lint on
them says what a lint on libcst's trees says.

The analysis reads node kinds, names, literals, operators, nesting and parentheses;
those are compared field by field with libcst's own parse (never with the code under
test). Whitespace is not made, so whatever needs the text's own is cut from it
(``tree_text``) or sends the unit back to libcst's parse.
"""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import libcst as cst
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from skewlsp.analysis import analyze, analyze_models
from skewlsp.analysis.frontend.source_index import build_index
from skewlsp.analysis.frontend.state import AnalysisState
from skewlsp.analysis.frontend.values import code_of, full_code
from skewlsp.analysis.source.cst_expressions_from_ast import NotConvertible
from skewlsp.analysis.source.cst_from_ast import convert
from skewlsp.analysis.source.cst_nodes import is_placeholder
from skewlsp.analysis.source.tree_text import MadeTrees
from skewlsp.analysis.source.unit_parses import NeedsConcreteTree
from tests.fuzz.strategies import PYTHON, kernels, python_in_a_loop
from tests.kernels import in_tiers

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = sorted(
    path
    for folder in (ROOT / "tests" / "fixtures", ROOT / "examples")
    for path in folder.rglob("*.py")
    if "pipeline" in path.read_text(encoding="utf-8")
)
# The sweeps of every file: a few in the fast tier, the rest slow (tests/kernels.in_tiers).
SWEPT = in_tiers(FIXTURES, ids=lambda p: str(p.relative_to(ROOT)))


# Fields that hold only layout: blank lines, line ends, separators (a made tree does not make
# them; whitespace fields, named ``whitespace_*``, are left out too). Parentheses are kept.
_LAYOUT_FIELDS = frozenset(
    {
        "comma",
        "equal",
        "leading_lines",
        "lines_after_decorators",
        "header",
        "footer",
        "newline",
        "trailing_whitespace",
    }
)


def _code_fields(node: cst.CSTNode) -> list[str]:
    """The fields of ``node`` that say what the code is, by libcst's own dataclass fields."""
    if isinstance(node, cst.Module):
        return ["body"]  # the rest is how the text is laid out
    return [
        field.name
        for field in dataclasses.fields(node)
        if field.name not in _LAYOUT_FIELDS and not field.name.startswith("whitespace")
    ]


def _shape(node: object) -> object:
    """What the code of a tree is: every node's kind and every code field's value, names,
    literals and operators included, parentheses and stars too; layout left out."""
    if isinstance(node, (list, tuple)):
        return tuple(_shape(item) for item in node)
    if isinstance(node, cst.CSTNode):
        fields = ((name, _shape(getattr(node, name))) for name in _code_fields(node))
        return (type(node).__name__, *fields)
    if isinstance(node, cst.MaybeSentinel):
        return "absent"
    return node  # a name's or literal's text, a star, an indent


def _made(text: str) -> cst.Module:
    return convert(ast.parse(text), text).module


def _same_shape(text: str) -> None:
    assert _shape(_made(text)) == _shape(cst.parse_module(text))


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("x = 1\n", "y = 1\n"),
        ("x = 1\n", "x = 2\n"),
        ("x = a + b\n", "x = a - b\n"),
        ("x = (a)\n", "x = a\n"),
        ('x = "a"\n', "x = 'a'\n"),
        ("f(*a)\n", "f(**a)\n"),
    ],
)
def test_two_trees_of_different_code_differ_in_shape(one: str, other: str) -> None:
    # (what the comparison below holds: names, literals, operators, parentheses and stars)
    assert _shape(cst.parse_module(one)) != _shape(cst.parse_module(other))


@pytest.mark.parametrize(
    "code",
    [
        "x = (a)\ny = ((a + b)) * c\nz = -(a)\n",
        "t = (a, b)\nu = a, b\nv = ((a), b)\nw = ()\ns = (a,)\n",
        "f(a)\nf((a))\nf((a), (b))\n(f)(x)\nf(*a, k=1, **kw)\nf(k=1, *a)\n",
        "x[a]\nx[a, b]\nx[(a, b)]\nx[(a), b]\nx[a:b, ::2, c]\nx[:]\nx[a : a + T, 0:H]\n",
        "a and b and c\na or b and c\nnot a\na < b <= c\na not in b\na is not None\n",
        "p = x if c else y\nq = lambda v: v\nr = {a: 1}\ns = {1, 2}\nt = [v for v in w]\n",
        "u = sum(v for v in w)\nv = sum((v for v in w), 0)\nw = (yield_ := 3)\n",
        's = "a"\nt = ("a"\n     "b")\nu = f"{x}"\nv = b"q"\nw = r"\\d"\nx = \'\'\'a\nb\'\'\'\n',
        "n = 0x10 + 1_000 + 1.5 + 2j\nm = None\nk = True\ne = ...\nl = [*a, b]\n",
        "x: int = 1\ny: pl.Tensor[[4], pl.FP16]\nx += 1\nx //= 2\nreturn_ = 1\n",
        "@pl.jit\n@pl.jit.inline(a=1)\ndef f(a, b: int = 1, *args, c, d=2, **kw) -> int:\n"
        "    return a\n",
        "def g(a, *, c):\n    pass\n\n\nclass K(Base, metaclass=M):\n    x = 1\n",
        "if a:\n    x\nelif b:\n    y\nelse:\n    z\nif a:\n    x\nelse:\n    if b:\n        y\n",
        "for i in pl.pipeline(0, 8, stage=2):\n    x = 1\nelse:\n    y = 2\n"
        "while c:\n    break\nif a: x = 1\nwith pl.at(level=L) as s, b:\n    continue\n",
        "assert a, 'm'\nraise E from e\nraise\nreturn\n",
        "y = pl.matmul(  # a comment\n    a,\n    b,  # it's here\n)\n",
        "é = 1\nx = é + f(é)  # ünï\n",
        # parentheses where a statement starts, and right after a call's own
        "(a) = 1\n(a).b = 2\n((a)) += 1\n(x)\n(f)(x).y = 3\n",
        "f( (a) )\nf( a, (b))\nx = (\n    a\n)\ng(\n    (a),\n)\n",
        # an import in a function body (libcst's parse of the statement alone)
        "import os\nfrom x import y\nfrom .. import a as b\n"
        "def f():\n    import a.b as c, d\n    from x import (\n        y,\n        z,\n    )\n",
    ],
)
def test_a_made_tree_has_libcst_s_shape(code: str) -> None:
    _same_shape(code)


@pytest.mark.parametrize(
    "code",
    [
        "a = 1; b = 2\n",
        "async def f():\n    pass\n",
        "try:\n    pass\nexcept E:\n    pass\n",
        "with (a, b):\n    pass\n",
        "def f(a, /, b):\n    pass\n",
    ],
)
def test_what_is_not_made_is_said_so(code: str) -> None:
    with pytest.raises(NotConvertible):
        convert(ast.parse(code), code)


@pytest.mark.parametrize("path", SWEPT)
def test_every_fixture_unit_is_made_in_libcst_s_shape(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    units = build_index(source).units
    assert units, "a fixture that mentions pipeline holds a loop"
    for unit in units:
        try:
            made = _made(unit.text)
        except (NotConvertible, SyntaxError):  # (a fixture of a syntax error)
            continue
        assert _shape(made) == _shape(cst.parse_module(unit.text)), unit.qualname


def test_most_fixture_units_are_made() -> None:
    made = refused = 0
    for path in FIXTURES:
        for unit in build_index(path.read_text(encoding="utf-8")).units:
            try:
                _made(unit.text)
                made += 1
            except NotConvertible:
                refused += 1
            except SyntaxError:
                pass
    assert made > 80  # (93 when this was written, 1 refused: two statements on a line)
    assert refused * 20 < made


def test_every_node_a_made_tree_knows_by_id_is_a_node_of_that_tree() -> None:
    """A made tree is kept across analyses and read by the server's two threads; it knows
    its nodes' places by id, and an id names an object only while it lives: each must be
    a node the tree holds (a node made and then dropped would leave an id a later node
    could take)."""
    checked = 0
    for path in FIXTURES:
        for unit in build_index(path.read_text(encoding="utf-8")).units:
            try:
                made = convert(ast.parse(unit.text), unit.text)
            except (NotConvertible, SyntaxError):
                continue
            held, pending = set(), [made.module]
            while pending:
                node = pending.pop()
                held.add(id(node))
                pending.extend(node.children)
            known = set(made.ranges) | made.shapeless | set(made.blocks)
            assert known - held == set(), (path.name, unit.qualname)
            checked += len(known)
    assert checked > 10_000


def _on_libcst_trees(source: str, path: str) -> list:
    """The reports of an analysis of ``source`` on libcst's own trees (as a rewrite's)."""
    return [model.report for model in analyze_models(source, path, concrete=True)]


def _made_in(state: AnalysisState, text: str) -> cst.Module:
    """The tree the analysis of ``state`` reads for ``text``: made from the stdlib's."""
    made = state.analysis_module(text, lambda: state.parses.unit_tree(text, None))
    assert made is not None and state.made.holds(made)
    return made


@pytest.mark.parametrize("path", SWEPT)
def test_a_lint_on_made_trees_reports_what_one_on_libcst_s_trees_does(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    lint = analyze(source, str(path))
    concrete = _on_libcst_trees(source, str(path))
    assert lint == concrete
    assert lint  # every fixture that mentions pipeline holds a loop


# -- the code of a made node, as libcst renders it -------------------------------------------


KERNEL = """\
def k(a, b):
    for i in pl.pipeline(0, 8, stage=2):
        y = pl.matmul(  # the left operand
            a[i : i + 16, 0:64],
            (b),
        )
        z = (y  +  1)
"""


def test_a_made_node_s_code_is_libcst_s_rendering_of_it() -> None:
    concrete = cst.parse_module(KERNEL)
    state = AnalysisState()
    made = _made_in(state, KERNEL)
    nodes = [
        (a, b)
        for a, b in _pairs_of(made, concrete)
        if isinstance(b, (cst.BaseExpression, cst.BaseSmallStatement))
    ]
    assert len(nodes) > 20
    for a, b in nodes:
        assert code_of(a, state.made) == code_of(b, None)
        assert full_code(a, state.made) == cst.Module(body=[]).code_for_node(b)


def test_a_made_compound_statement_s_and_block_s_source_is_their_text_as_written() -> None:
    text = (
        "def f(a):\n"
        "    @pl.jit.inline\n"
        "    def g(b):\n"
        "        return b\n"
        "    for i in pl.range(4):  # four\n"
        "        a = g(a)\n"
    )
    state = AnalysisState()
    fn = _made_in(state, text).body[0]
    loop = fn.body.body[1]
    assert state.made.source(loop) == "for i in pl.range(4):  # four\n        a = g(a)"
    # A block starts at its first statement's decorators.
    assert state.made.source(fn.body) == text[text.index("pl.jit") : -1]
    assert state.made.source(fn) is None  # (a function's own decorators lie before its start)


def test_a_made_node_s_source_is_its_text_as_written() -> None:
    text = "def f(a):\n    y = g(a,  # the first\n          a)\n"
    concrete = cst.parse_module(text)
    state = AnalysisState()
    line = _made_in(state, text).body[0].body.body[0]
    source = state.made.source
    assert source(line.body[0]) == "y = g(a,  # the first\n          a)"
    assert source(line.body[0].value) == "g(a,  # the first\n          a)"
    assert source(line.body[0].value.args[1].value) is None  # (a bare name)
    assert source(line) is None  # (a line's code is its statements')
    assert source(concrete.body[0].body.body[0].body[0]) is None
    assert MadeTrees().source(line.body[0]) is None  # another analysis's trees hold it not


def _pairs_of(made: cst.CSTNode, concrete: cst.CSTNode) -> list[tuple[cst.CSTNode, cst.CSTNode]]:
    found = [(made, concrete)]
    for name in _code_fields(made):
        left, right = getattr(made, name), getattr(concrete, name)
        if isinstance(left, (list, tuple)):
            for x, y in zip(left, right, strict=True):
                if isinstance(x, cst.CSTNode):
                    found.extend(_pairs_of(x, y))
        elif isinstance(left, cst.CSTNode):
            found.extend(_pairs_of(left, right))
    return found


def test_a_made_tree_s_whitespace_is_placeholders_never_rendered_as_the_text() -> None:
    made = _made(KERNEL)
    call = next(
        n for n, _ in _pairs_of(made, cst.parse_module(KERNEL)) if isinstance(n, cst.Call)
    )
    assert is_placeholder(call.whitespace_after_func)
    assert not is_placeholder(cst.parse_expression("f(x)").whitespace_after_func)
    state = AnalysisState()
    tree = _made_in(state, KERNEL)
    call = next(n for n, _ in _pairs_of(tree, made) if isinstance(n, cst.Call))
    rebuilt = call.with_changes(args=call.args[:1])  # whitespace of a made tree
    with pytest.raises(NeedsConcreteTree):
        code_of(rebuilt, state.made)
    with pytest.raises(NeedsConcreteTree):  # a made node rendered as if it were libcst's
        code_of(call, None)


def test_a_unit_whose_code_cannot_be_cut_is_decided_on_libcst_s_tree() -> None:
    # A string over lines inside a loop's statement: the cut could read otherwise.
    source = (
        "import pypto.language as pl\n\n\n@pl.jit\n"
        "def k(a: pl.Tensor[[64, 64], pl.FP16]):\n"
        "    for i in pl.pipeline(0, 8, 1, stage=2):\n"
        "        pl.tile.tpush_to_aiv(pl.tile.load(a, [i, 0], [16, 64]), split=0)\n"
        '        t = pl.tile.tpop_from_aic(split=0, name="""x\n"""\n        )\n'
    )
    lint = analyze(source, "k.py")
    assert _on_libcst_trees(source, "k.py") == lint
    assert [r.code for r in lint] == ["SKW001"]


@pytest.mark.slow  # fuzzing: any program the grammar allows
@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(PYTHON)
@example(source="\r\n")
@example(source="globalmatch\x0c;\n")  # a form feed before a semicolon
def test_any_program_is_made_in_libcst_s_shape_or_refused(source: str) -> None:
    try:
        tree = ast.parse(source)
        concrete = cst.parse_module(source)
    except Exception:  # noqa: BLE001 - the two parsers disagree on what is valid
        return
    try:
        made = convert(tree, source)
    except (NotConvertible, RecursionError):
        return
    assert _shape(made.module) == _shape(concrete)


REFUSED = "this function could not be parsed by libcst"


@pytest.mark.slow  # fuzzing: kernels drawn from the DSL's vocabulary, and any Python in a loop
@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.one_of(kernels(), python_in_a_loop()))
def test_any_kernel_is_linted_alike_on_made_and_on_libcst_s_trees(source: str) -> None:
    lint = analyze(source, "k.py")
    concrete = _on_libcst_trees(source, "k.py")
    if any(r.message == REFUSED for r in concrete):
        return  # libcst refuses a unit Python accepts: see the test below
    assert concrete == lint


def test_a_unit_python_accepts_and_libcst_refuses_is_still_linted() -> None:
    # A backslash at the end of a unit's text: Python (and so the compiler) accepts the
    # file; libcst's parser refuses the method cut out of it. The made tree needs only
    # the stdlib's tree.
    source = (
        "import pypto.language as pl\n\n\n@pl.program\nclass Kernel:\n    @pl.function\n"
        "    def main(self, q, out):\n        for i in pl.pipeline(0, 8, 1, stage=2):\n"
        "            A\\\n\n\n"
    )
    ast.parse(source)
    assert [(r.verdict, r.code) for r in analyze(source, "k.py")] == [("left", "SKW011")]
    # As a rewrite reads it: libcst's parse or nothing.
    assert REFUSED in {r.message for r in _on_libcst_trees(source, "k.py")}
