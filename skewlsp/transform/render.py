"""Put new statements where the loop was, in the whole file, and cut the preview out of it.

The whole file is parsed once more with libcst and only the ``for`` node at
the report's position is replaced, so every other byte of the file (comments,
blank lines, quoting, indentation) is exactly what the author wrote. The
preview is then the changed region of the rewritten file, which makes it
indented like the original loop by construction.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from skewlsp.analysis.source.lines import source_lines
from skewlsp.contract import PreviewUnavailable, Span
from skewlsp.transform.expr import leading_lines

BOM = "\ufeff"
Replacement = Callable[[cst.For], Sequence[cst.BaseStatement]]


class _Replace(cst.CSTTransformer):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, span: Span, make: Replacement) -> None:
        super().__init__()
        self.span = span
        self.make = make
        self.found = False

    def leave_For(
        self, original_node: cst.For, updated_node: cst.For
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement]:
        start = self.get_metadata(PositionProvider, original_node).start
        if self.found or (start.line, start.column + 1) != (self.span.line, self.span.column):
            return updated_node
        self.found = True
        statements = list(self.make(original_node))
        if not statements:
            raise PreviewUnavailable("internal: the rewrite produced no statements")
        first = statements[0]
        statements[0] = first.with_changes(
            leading_lines=[*original_node.leading_lines, *leading_lines(first)]
        )
        return cst.FlattenSentinel(statements)


def replace_loop(source: str, span: Span, make: Replacement) -> str:
    """``source`` with the ``for`` statement starting at ``span`` replaced by ``make(loop)``."""
    bom = source.startswith(BOM)
    text = source[1:] if bom else source
    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError as err:
        raise PreviewUnavailable(f"the file cannot be parsed: {err}") from None
    transformer = _Replace(span, make)
    rewritten = MetadataWrapper(module, unsafe_skip_copy=True).visit(transformer)
    if not transformer.found:
        raise PreviewUnavailable(f"no loop starts at line {span.line}, column {span.column}")
    return (BOM if bom else "") + rewritten.code


def changed_region(before: str, after: str, span: Span) -> str:
    """The lines of ``after`` that stand where the loop's lines stood in ``before``."""
    old, new = source_lines(before, keepends=True), source_lines(after, keepends=True)
    head = 0
    limit = min(span.line - 1, len(old), len(new))
    while head < limit and old[head] == new[head]:
        head += 1
    tail = 0
    limit = min(len(old) - span.end_line, len(new) - head)
    while tail < limit and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    region = "".join(new[head : len(new) - tail])
    return region.lstrip(BOM)


def loop_lines(source: str, span: Span) -> str:
    """The full lines the loop occupies, indentation included."""
    lines = source_lines(source, keepends=True)
    return "".join(lines[span.line - 1 : span.end_line]).lstrip(BOM)
