"""The fast tree walk sees exactly the code nodes libcst's own traversal sees."""

from __future__ import annotations

import dataclasses
import inspect
from pathlib import Path

import libcst as cst
import pytest

from skewlsp.analysis.walk import _PUNCTUATION_FIELDS, _SKIPPED, walk

ROOT = Path(__file__).resolve().parents[2]
NODE_CLASSES = [
    kind
    for kind in vars(cst).values()
    if inspect.isclass(kind) and issubclass(kind, cst.CSTNode) and dataclasses.is_dataclass(kind)
]
ONLY_LAYOUT = ("whitespace", "Whitespace", "EmptyLine", "Newline", "Paren", "Bracket", "Brace",
               "Comma", "Semicolon", "Colon", "AssignEqual", "Dot", "MaybeSentinel", "Optional")


@pytest.mark.parametrize("kind", NODE_CLASSES, ids=lambda k: k.__name__)
def test_fields_skipped_by_name_only_ever_hold_layout(kind: type) -> None:
    for field in dataclasses.fields(kind):
        if field.name in _PUNCTUATION_FIELDS or field.name.startswith("whitespace"):
            annotation = str(field.type).replace("typing.", "").replace("libcst.", "")
            names = [part for part in annotation.replace("[", " ").replace("]", " ")
                     .replace(",", " ").replace("<class '", " ").replace("'>", " ").split()
                     if part not in ("Union", "Sequence")]
            assert names and all(any(k in n for k in ONLY_LAYOUT) for n in names), (
                f"{kind.__name__}.{field.name}: {field.type}"
            )


def libcst_code_nodes(module: cst.Module) -> list[cst.CSTNode]:
    """Reference: libcst's visitor traversal, minus layout-only nodes."""
    found: list[cst.CSTNode] = []

    class Collect(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            if isinstance(node, _SKIPPED):
                return False
            found.append(node)
            return True

    module.visit(Collect())
    return found


@pytest.mark.parametrize("path", sorted(ROOT.glob("examples/*.py")), ids=lambda p: p.name)
def test_walk_visits_the_same_nodes_as_libcst(path: Path) -> None:
    """The same node objects (walk goes in field order, e.g. decorators after the name)."""
    module = cst.parse_module(path.read_text(encoding="utf-8"))
    expected = libcst_code_nodes(module)
    seen = list(walk(module))
    assert len(seen) == len(expected)
    assert {id(node) for node in seen} == {id(node) for node in expected}
