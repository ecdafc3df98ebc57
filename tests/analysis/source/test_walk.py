"""The fast tree walk sees exactly the code nodes libcst's own traversal sees; the stdlib
one, every node ``ast.walk`` gives."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import re
from pathlib import Path

import libcst as cst
import pytest

from skewlsp.analysis.source.walk import (
    _PUNCTUATION_FIELDS,
    calls_in,
    names_under,
    nodes_of,
    stdlib_nodes,
    walk,
)

ROOT = Path(__file__).resolve().parents[3]
NODE_CLASSES = [
    kind
    for kind in vars(cst).values()
    if inspect.isclass(kind) and issubclass(kind, cst.CSTNode) and dataclasses.is_dataclass(kind)
]
ONLY_LAYOUT = ("whitespace", "Whitespace", "EmptyLine", "Newline", "Paren", "Bracket", "Brace",
               "Comma", "Semicolon", "Colon", "AssignEqual", "Dot", "MaybeSentinel", "Optional")


# Every field of every libcst node class that the walk skips by its name.
SKIPPED_FIELDS = [
    (kind, field)
    for kind in NODE_CLASSES
    for field in dataclasses.fields(kind)
    if field.name in _PUNCTUATION_FIELDS or field.name.startswith("whitespace")
]


def test_the_walk_skips_fields_of_many_node_classes() -> None:
    assert len({kind for kind, _ in SKIPPED_FIELDS}) > 100  # (159 when this was written)


@pytest.mark.parametrize(
    ("kind", "field"), SKIPPED_FIELDS, ids=lambda x: getattr(x, "__name__", getattr(x, "name", ""))
)
def test_fields_skipped_by_name_only_ever_hold_layout(kind: type, field: dataclasses.Field) -> None:
    annotation = str(field.type).replace("typing.", "").replace("libcst.", "")
    names = [part for part in annotation.replace("[", " ").replace("]", " ")
             .replace(",", " ").replace("<class '", " ").replace("'>", " ").split()
             if part not in ("Union", "Sequence")]
    assert names, f"{kind.__name__}.{field.name}: {field.type}"
    assert [n for n in names if not any(k in n for k in ONLY_LAYOUT)] == [], (
        f"{kind.__name__}.{field.name}: {field.type}"
    )


# The layout-only node classes, named here independently of the walk's own skip list: the
# nodes that stand for whitespace, comments, blank lines or one punctuation token.
LAYOUT_CLASSES = frozenset({
    "SimpleWhitespace", "ParenthesizedWhitespace", "TrailingWhitespace", "EmptyLine",
    "Newline", "Comment", "LeftParen", "RightParen", "LeftSquareBracket", "RightSquareBracket",
    "LeftCurlyBrace", "RightCurlyBrace", "Comma", "Semicolon", "Colon", "AssignEqual", "Dot",
})
PUNCTUATION = {"", ",", ";", ":", "(", ")", "[", "]", "{", "}", "=", "."}

# Python beyond the examples: braces, relative imports, slices, keyword and star arguments,
# lambdas, comprehensions, walrus, f-strings, decorators, try/with/async, match, semicolons.
SAMPLE = """\
from . import a  # relative
from ..b.c import (d, e as f)
import x.y as z
X: dict[str, int] = {"k": 1, **{}}; S = {1, 2}
T = (1,) + tuple([*range(3)])


@decorator(arg=1)
class C(Base, metaclass=M):
    def m(self, p, /, q=2, *args, r, **kw) -> None:
        global G
        y = lambda s, t=3: s[1:2, ::3, ...] + t
        if (n := len(q)) > 1 and not p or -n:
            return [i async for i in aiter() if i] if n else {k: v for k, v in kw.items()}
        try:
            with open("f") as h, ctx():
                yield f"{y!r:>{n}} {q}"
        except (ValueError, KeyError) as err:
            raise RuntimeError from err
        finally:
            del z[0], p.attr
        match p:
            case [1, *rest] | {"k": _} if rest:
                pass
            case C(q=3):
                ...
"""


def rendered_layout(module: cst.Module, node: cst.CSTNode) -> str:
    """A node's code with comments, whitespace and line continuations taken out."""
    code = module.code_for_node(node)
    return "".join(re.sub(r"#[^\n]*", "", code).replace("\\", "").split())


def libcst_code_nodes(module: cst.Module) -> list[cst.CSTNode]:
    """Reference: libcst's visitor traversal, not entering layout-only nodes."""
    found: list[cst.CSTNode] = []

    class Collect(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            if type(node).__name__ in LAYOUT_CLASSES:
                assert rendered_layout(module, node) in PUNCTUATION, node
                return False
            found.append(node)
            return True

    module.visit(Collect())
    return found


SOURCES = {path.name: path for path in sorted(ROOT.glob("examples/*.py"))}


def test_the_examples_are_there() -> None:
    assert len(SOURCES) >= 5


@pytest.mark.parametrize("name", [*SOURCES, "sample"])
def test_walk_visits_the_same_nodes_as_libcst(name: str) -> None:
    """The same node objects (walk goes in field order, e.g. decorators after the name)."""
    text = SAMPLE if name == "sample" else SOURCES[name].read_text(encoding="utf-8")
    module = cst.parse_module(text)
    expected = libcst_code_nodes(module)
    seen = list(walk(module))
    assert len(seen) == len(expected)
    assert {id(node) for node in seen} == {id(node) for node in expected}


def libcst_calls(module: cst.Module) -> list[cst.Call]:
    """Reference: the calls libcst's own visitor meets."""
    found: list[cst.Call] = []

    class Collect(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            found.append(node)

    module.visit(Collect())
    return found


@pytest.mark.parametrize("name", [*SOURCES, "sample"])
def test_the_calls_under_a_node_are_those_libcst_meets_in_the_walks_order(name: str) -> None:
    text = SAMPLE if name == "sample" else SOURCES[name].read_text(encoding="utf-8")
    module = cst.parse_module(text)
    calls = calls_in(module)
    assert len(calls) > 0
    assert {id(call) for call in calls} == {id(call) for call in libcst_calls(module)}
    assert len(calls) == len(libcst_calls(module))
    assert [id(node) for node in calls] == [id(n) for n in walk(module) if type(n) is cst.Call]


def test_calls_come_outer_first_then_arguments_left_to_right() -> None:
    stmt = cst.parse_statement("x = f(g(a), h(b).k(c))\n")
    codes = [cst.Module([]).code_for_node(call.func) for call in calls_in(stmt)]
    assert codes == ["f", "g", "h(b).k", "h"]


def test_leaves_are_found_when_asked_for() -> None:
    """A name has no children: the walk need not go to one unless it is looked for."""
    stmt = cst.parse_statement("y: int = a + f(b)\n")
    names = nodes_of(stmt, frozenset({cst.Name}))
    assert [name.value for name in names] == ["y", "int", "a", "f", "b"]  # type: ignore[attr-defined]
    kinds = frozenset({cst.AnnAssign, cst.Call, cst.Integer})
    assert [type(n) for n in nodes_of(stmt, kinds)] == [cst.AnnAssign, cst.Call]


def test_the_names_under_a_node_go_only_where_they_are_told() -> None:
    """An attribute's name and a keyword are not read: only their ``value`` is gone
    into; an annotation is not gone into at all."""
    stmt = cst.parse_statement("x: T = f(a.b, k=c, *d)[e]\n")
    value_only = frozenset({cst.Attribute, cst.Arg})
    assert names_under(stmt, value_only, frozenset({cst.Annotation})) == ["x", "f", "a", "c", "d", "e"]
    # (in field order: an argument's value before its keyword)
    assert names_under(stmt, frozenset(), frozenset()) == ["x", "T", "f", "a", "b", "c", "k", "d", "e"]


STDLIB_SOURCES = sorted((ROOT / "tests" / "fixtures").rglob("*.py")) + sorted(
    (ROOT / "skewlsp" / "analysis").rglob("*.py")
)


def _stdlib_trees() -> list[tuple[Path, ast.Module]]:
    """The stdlib tree of every fixture and analysis module that parses (some fixtures
    hold a syntax error on purpose)."""
    trees = []
    for path in STDLIB_SOURCES:
        try:
            trees.append((path, ast.parse(path.read_text(encoding="utf-8"))))
        except SyntaxError:
            continue
    return trees


def test_the_stdlib_node_list_is_ast_walks_nodes_in_its_order() -> None:
    trees = _stdlib_trees()
    for path, tree in trees:
        assert list(map(id, stdlib_nodes(tree))) == list(map(id, ast.walk(tree))), path
    assert len(trees) > 80


def test_the_stdlib_node_list_of_an_expression_is_breadth_first() -> None:
    tree = ast.parse("f(a.b, [c])", mode="eval")
    kinds = [type(node).__name__ for node in stdlib_nodes(tree)]
    assert kinds == ["Expression", "Call", "Name", "Attribute", "List", "Load", "Name",
                     "Load", "Name", "Load", "Load", "Load"]
