"""Positions of the nodes of a loop, computed for that loop only.

libcst's PositionProvider generates the code of the whole tree it is given;
on a kernel function that is most of the analysis time, although only the
loops' nodes ever need a position. So each loop is rendered on its own and
its positions are shifted to where the stdlib parser says the loop starts.
A loop starts at its indentation, and the rendering drops exactly that much
from every line, so one shift fits all of its nodes.
"""

from __future__ import annotations

import ast

import libcst as cst
from libcst.metadata import CodeRange, PositionProvider
from libcst.metadata.position_provider import PositionProvidingCodegenState

from .lines import source_lines
from .report import Span
from .walk import walk


class LoopPositions:
    """Spans of nodes inside ``for`` statements, computed on first use per loop."""

    def __init__(self, module: cst.Module, tree: ast.Module, text: str, line_offset: int) -> None:
        self._module = module
        self._line_offset = line_offset
        self._ranges: dict[int, CodeRange] = {}
        self._done: set[int] = set()
        starts = _for_starts(tree, text)
        fors = [node for node in walk(module) if isinstance(node, cst.For)]
        self._start_of = {id(node): start for node, start in zip(fors, starts, strict=False)}

    def span(self, node: cst.CSTNode, loop: cst.For) -> Span:
        """The span of ``node``, which lies inside ``loop`` (or is it)."""
        found = self._ranges.get(id(node))
        if found is None:
            self._measure(loop)
            found = self._ranges[id(node)]
        return Span(
            found.start.line + self._line_offset,
            found.start.column + 1,
            found.end.line + self._line_offset,
            found.end.column + 1,
        )

    def _measure(self, loop: cst.For) -> None:
        if id(loop) in self._done:
            return
        self._done.add(id(loop))
        line, column = self._start_of[id(loop)]
        alone = loop.with_changes(leading_lines=[])
        module = cst.Module(
            body=[alone],
            default_indent=self._module.default_indent,
            default_newline=self._module.default_newline,
        )
        for node, found in _syntactic_ranges(module).items():
            key = id(loop) if node is alone else id(node)
            self._ranges[key] = CodeRange(
                (found.start.line + line - 1, found.start.column + column),
                (found.end.line + line - 1, found.end.column + column),
            )


def _syntactic_ranges(module: cst.Module) -> dict[cst.CSTNode, CodeRange]:
    """PositionProvider's ranges, without MetadataWrapper's extra pass over the tree.

    (The wrapper also visits every node to hand metadata to visitors; the
    ranges themselves come from one code generation.)
    """
    provider = PositionProvider()
    state = PositionProvidingCodegenState(
        default_indent=module.default_indent,
        default_newline=module.default_newline,
        provider=provider,
    )
    module._codegen(state)
    return provider._computed


def _for_starts(tree: ast.Module, text: str) -> list[tuple[int, int]]:
    """(line, code-point column) of every ``for`` statement, in source order."""
    lines = source_lines(text)
    starts = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.For, ast.AsyncFor)):
            raw = lines[node.lineno - 1].encode("utf-8")[: node.col_offset]
            starts.append((node.lineno, len(raw.decode("utf-8", "replace"))))
    return sorted(starts)
