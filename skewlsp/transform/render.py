"""Put new statements where the loop was, in the whole file, and cut the preview out of it.

The whole file is parsed once more with libcst and only the ``for`` node at
the report's position is replaced, so every other byte of the file (comments,
blank lines, quoting, indentation) is exactly what the author wrote. The
preview is then the changed region of the rewritten file, which makes it
indented like the original loop by construction.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from skewlsp.analysis.source.lines import source_lines
from skewlsp.contract import PreviewUnavailable, Span
from skewlsp.transform.expr import leading_lines

BOM = "\ufeff"
# What replaces a loop: statements, or the code of statements (a rewrite written as text,
# LowerPipelineLoops' copies: put in as written, not parsed and printed again).
Replacement = Callable[[cst.For], "Sequence[cst.BaseStatement] | str"]


def statements_of(code: str) -> list[cst.BaseStatement]:
    """``code`` parsed into statements, the comments above the first one kept with it."""
    try:
        module = cst.parse_module(code)
    except cst.ParserSyntaxError as error:  # pragma: no cover - built from parsed code
        raise PreviewUnavailable(f"internal: the rewritten loop does not parse ({error})") from None
    statements: list[cst.BaseStatement] = list(module.body)
    if statements and module.header:
        first = statements[0]
        statements[0] = first.with_changes(leading_lines=[*module.header, *leading_lines(first)])
    return statements


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
        # The maker sees the loop as :func:`_replace_alone` does, without the comments
        # above it: they stay where they are, once (a maker that keeps a loop's leading
        # lines would otherwise write them twice).
        made = self.make(original_node.with_changes(leading_lines=[]))
        statements = statements_of(made) if isinstance(made, str) else list(made)
        if not statements:
            raise PreviewUnavailable("internal: the rewrite produced no statements")
        first = statements[0]
        statements[0] = first.with_changes(
            leading_lines=[*original_node.leading_lines, *leading_lines(first)]
        )
        return cst.FlattenSentinel(statements)


def replace_loop(source: str, span: Span, make: Replacement) -> str:
    """``source`` with the ``for`` statement starting at ``span`` replaced by ``make(loop)``.

    The loop's own lines are parsed and rewritten alone when that gives the same text
    (:func:`_replace_alone`): a whole file's parse, position pass and render cost 40 to
    100 times a loop's on pypto-lib's largest kernels (benchmarks/README.md, "Previews").
    """
    alone = _replace_alone(source, span, make)
    if alone is not None:
        return alone
    return _replace_in_file(source, span, make)


def _replace_alone(source: str, span: Span, make: Replacement) -> str | None:
    """The loop's lines, dedented by its ``for``'s indentation, parsed as a module of one
    statement, rewritten, indented again and put back between the file's other lines.

    None (the whole file is parsed instead) whenever the loop's text cannot be cut out
    byte for byte: a line of the loop (a string's continuation) indented less than its
    ``for``, a line of only whitespace (a dedent would change it), a carriage return, a
    ``for`` that does not start its line (a byte-order mark before it included), or text
    that does not parse alone.
    """
    lines = source_lines(source, keepends=True)
    if span.line < 1 or span.end_line > len(lines) or span.end_line < span.line:
        return None
    first = lines[span.line - 1]
    indent = first[: span.column - 1]
    if indent.strip() or not first[span.column - 1 :].startswith("for"):
        return None
    body = lines[span.line - 1 : span.end_line]
    if any(
        "\r" in line or (line != "\n" and (not line.startswith(indent) or not line.strip()))
        for line in body
    ):
        return None
    try:
        module = cst.parse_module(
            "".join(line[len(indent) :] if line != "\n" else line for line in body)
        )
    except cst.ParserSyntaxError:
        return None
    if len(module.body) != 1 or not isinstance(module.body[0], cst.For):
        return None
    made = make(module.body[0])
    if isinstance(made, str):
        text = made
    else:
        if not made:
            raise PreviewUnavailable("internal: the rewrite produced no statements")
        text = module.with_changes(body=list(made)).code
    # lines end at newlines only (``splitlines`` also breaks at a form feed a string holds)
    region = "".join(
        indent + line if line.strip() else line for line in re.split(r"(?<=\n)", text) if line
    )
    head = "".join(lines[: span.line - 1])
    return head + region + "".join(lines[span.end_line :])


def _replace_in_file(source: str, span: Span, make: Replacement) -> str:
    """The whole file parsed with libcst, the ``for`` at ``span`` replaced in its tree."""
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
