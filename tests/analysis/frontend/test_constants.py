"""``code_of``: the source text messages quote, read off simple nodes, rendered otherwise."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from hypothesis import HealthCheck, given, settings

from skewlsp.analysis.frontend import values
from skewlsp.analysis.frontend.constants import code_of
from skewlsp.analysis.source.walk import walk
from tests.fuzz.strategies import PYTHON

ROOT = Path(__file__).resolve().parents[3]
TRICKY = (
    "x = (a).b\ny = a . b\nz = a.\\\n  b\nw = (1)\nv = rb'\\x00' + 0x1F + 1_000 + 1.5e-3\n"
    "u = f(a.b.c, (d), e .f)\nt = a.b[c].d\n"
)


class _WithoutComments(cst.CSTTransformer):
    def leave_Comment(self, original: cst.Comment, updated: cst.Comment) -> cst.RemovalSentinel:
        return cst.RemoveFromParent()


def rendered(node: cst.CSTNode) -> str:
    """The reference: libcst renders every node (some only in context: their type name),
    without its comments (messages quote code)."""
    try:
        bare = node.visit(_WithoutComments())
        return cst.Module(body=[]).code_for_node(bare).strip()
    except Exception:  # noqa: BLE001 - e.g. an Annotation outside its parameter
        return type(node).__name__


def assert_same_text(source: str) -> int:
    count = 0
    for node in walk(cst.parse_module(source)):
        assert code_of(node, None) == rendered(node), rendered(node)  # (libcst's trees)
        count += 1
    return count


def test_simple_nodes_read_as_written() -> None:
    module = cst.parse_module("x = pl.tile.load\ny = 42\nz = 'q'\n")
    leaves = [n for n in walk(module) if isinstance(n, (cst.Name, cst.Integer, cst.SimpleString,
                                                         cst.Attribute))]
    assert [code_of(n, None) for n in leaves] == ["x", "pl.tile.load", "pl.tile", "pl", "tile", "load",
                                            "y", "42", "z", "'q'"]


def test_multi_line_expressions_render_as_libcst_renders_them() -> None:
    source = "x = f(\n    a,  # note\n    [b for b in c\n     if b],\n)\ny = lambda q: (q +\n  1)\n"
    assert assert_same_text(source) > 15


def test_parentheses_and_spaces_are_kept_by_rendering() -> None:
    assert assert_same_text(TRICKY) > 40
    assert values._plain_text(cst.parse_expression("(a).b")) is None


@pytest.mark.parametrize("path", sorted(ROOT.glob("examples/*.py")), ids=lambda p: p.name)
def test_every_node_of_the_examples_reads_as_libcst_renders_it(path: Path) -> None:
    assert_same_text(path.read_text(encoding="utf-8"))


@pytest.mark.slow  # fuzzing: any program the grammar allows
@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(PYTHON)
def test_every_node_of_any_program_reads_as_libcst_renders_it(source: str) -> None:
    try:
        cst.parse_module(source)
    except Exception:  # noqa: BLE001 - not every grammar-valid program is libcst-valid
        return
    assert_same_text(source)
