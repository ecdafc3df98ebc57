"""Positions of the nodes of a loop, without libcst's whole-tree position metadata.

libcst computes positions by generating the code of the tree it is given and
recording where each node lands; on a kernel function that costs more than
parsing it, although only a handful of nodes per loop ever need a position.
The stdlib parser already knows where every statement starts and ends, so:

- statements (compound ones and each small statement of a line) are paired
  with their ``ast`` twins by one walk over the two statement trees, and a
  loop's ``pl.pipeline(...)`` call and its keyword arguments with the twin
  ``ast.For``'s call. Their ranges are the same in both parsers (both leave out
  comments and enclosing parentheses); only ``ast``'s columns are UTF-8 byte
  offsets, converted here to code points;
- any other node (an expression deep inside a statement) is placed by rendering
  only the statement that holds it with libcst's position-recording code
  generator, shifted to where that statement starts: a small statement alone, or
  the header of a ``for``/``while``/``if``/``with`` with its body stubbed out.
  Rendering the whole loop instead cost a fifth of a cold run on real kernels;
  it stays the fallback for whatever that cannot place (e.g. a node inside a
  ``try`` header or a ``match`` case pattern).
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator, Mapping, Sequence
from typing import TypeAlias, cast

import libcst as cst
from libcst.metadata import CodePosition, CodeRange, MetadataWrapper, PositionProvider

from skewlsp.analysis.source.lines import ast_end, source_lines, split_comment
from skewlsp.analysis.source.unit_parses import NeedsConcreteTree
from skewlsp.analysis.source.walk import walk
from skewlsp.contract import Span

# What a node's twin may be: a statement, or an argument of a loop's call (positional or
# keyword); each has a start and an end.
_Located: TypeAlias = "ast.stmt | ast.expr | ast.keyword"

# The compound statements whose header is shown (and rendered) alone.
_Compound: TypeAlias = "cst.For | cst.While | cst.If | cst.With"
_Anchor: TypeAlias = "cst.SimpleStatementLine | _Compound"

# The ast classes a libcst compound statement may pair with.
_TWINS: dict[type[cst.CSTNode], tuple[type[ast.stmt], ...]] = {
    cst.FunctionDef: (ast.FunctionDef, ast.AsyncFunctionDef),
    cst.ClassDef: (ast.ClassDef,),
    cst.For: (ast.For, ast.AsyncFor),
    cst.While: (ast.While,),
    cst.If: (ast.If,),
    cst.With: (ast.With, ast.AsyncWith),
    cst.Try: (ast.Try,),
    cst.Match: (ast.Match,),
}
if sys.version_info >= (3, 11):
    _TWINS[cst.TryStar] = (ast.TryStar,)
    _TRY_TWINS: tuple[type[ast.Try | ast.TryStar], ...] = (ast.Try, ast.TryStar)
else:
    _TRY_TWINS = (ast.Try,)


# Where libcst's rendering of a statement on its own may differ from its text.
_NOT_AS_WRITTEN = ("#", "\\", ";", '"""', "'''")


_FIRST_LINE_SHOWN = frozenset({cst.For, cst.While, cst.If, cst.With})


def shown_by_first_line(node: cst.CSTNode) -> bool:
    """A compound statement that a per-core body shows by its first line (its indented
    body stubbed): ``for``, ``while``, ``if`` and ``with``."""
    # (exact types: an ABC's failed isinstance is slow, and none of these has subclasses)
    return (
        type(node) in _FIRST_LINE_SHOWN
        and type(cast("_Compound", node).body) is cst.IndentedBlock
    )


class _Unpaired(Exception):
    """The two statement trees do not line up (never expected; positions then fall back)."""


class LoopPositions:
    """Spans of the nodes of a unit's loops, computed on first use."""

    def __init__(
        self,
        module: cst.Module,
        tree: ast.Module,
        text: str,
        line_offset: int,
        shift: int = 0,
        *,
        made: bool = False,
    ) -> None:
        """``tree``'s line ``n`` is ``text``'s line ``n - shift`` (a tree cut out of the
        file's has the file's line numbers); ``made``: ``module`` was made from ``tree``,
        not parsed by libcst."""
        self._module = module
        self._made = made
        self._tree = tree
        self._text = text
        self._line_offset = line_offset
        self._shift = shift
        self._twins: dict[int, ast.stmt] | None = None
        self._lines: list[str] | None = None
        self._rendered: dict[int, CodeRange] = {}
        self._rendered_loops: set[int] = set()
        self._anchors: dict[int, _Anchor] = {}  # node -> the statement rendered for it
        self._anchoring: dict[int, Iterator[None]] = {}  # per loop: its mapping, as far as needed
        self._rendered_anchors: set[int] = set()

    def span(self, node: cst.CSTNode, loop: cst.For) -> Span:
        """The span of ``node``, which lies inside ``loop`` (or is it)."""
        twin = self._twin(node, loop)
        if twin is not None:
            return self._span_of_twin(twin)
        found = self._rendered.get(id(node))
        if found is None:
            anchor = self._anchor(node, loop)
            if anchor is not None:
                self._render_alone(anchor)
                found = self._rendered.get(id(node))
        if found is None:
            self._render(loop)
            found = self._rendered[id(node)]
        return Span(
            found.start.line + self._line_offset,
            found.start.column + 1,
            found.end.line + self._line_offset,
            found.end.column + 1,
        )

    def header_span(self, node: cst.With | cst.FunctionDef) -> Span | None:
        """Where a scope's header is: a ``with``'s from its keyword to the end of its last
        item, a function's its ``def`` and name; None when the statement has no twin in
        the stdlib tree (then no place is claimed)."""
        twin = self._statement_twins().get(id(node))
        if isinstance(twin, (ast.With, ast.AsyncWith)) and twin.items:
            end = twin.items[-1].context_expr
        elif isinstance(twin, (ast.FunctionDef, ast.AsyncFunctionDef)):
            start = self._span_of_twin(twin)
            text = self._source_line(twin.lineno - self._shift)
            name = text.find(twin.name, start.column - 1)
            if name < 0:
                return None
            return Span(start.line, start.column, start.line, name + len(twin.name) + 1)
        else:
            return None
        start, finish = self._span_of_twin(twin), self._span_of_twin(end)
        return Span(start.line, start.column, finish.end_line, finish.end_column)

    def statement_text(self, node: cst.CSTNode) -> str | None:
        """The lines a statement spans, cut from the text as they are (comments too): for a
        text search of what it holds, where folding it would cost more; None without a
        stdlib twin."""
        twin = self._statement_twins().get(id(node))
        if twin is None:
            return None
        if self._lines is None:
            self._lines = source_lines(self._text)
        first, last = twin.lineno - self._shift, ast_end(twin)[0] - self._shift
        return "\n".join(self._lines[first - 1 : last])

    def _source_line(self, line: int) -> str:
        if self._lines is None:
            self._lines = source_lines(self._text)
        return self._lines[line - 1] if 0 < line <= len(self._lines) else ""

    # -- statements and loop headers, from the stdlib tree --------------------------------------

    def _twin(self, node: cst.CSTNode, loop: cst.For) -> _Located | None:
        twins = self._statement_twins()
        found = twins.get(id(node))
        if found is not None or id(node) in twins:
            return found
        loop_twin = twins.get(id(loop))
        if not isinstance(loop_twin, (ast.For, ast.AsyncFor)):
            return None
        call = loop.iter
        if not isinstance(call, cst.Call) or not isinstance(loop_twin.iter, ast.Call):
            return None
        if node is call:
            return loop_twin.iter
        if isinstance(node, cst.Arg):
            return _argument_twin(node, call, loop_twin.iter)
        for arg in call.args:  # an argument's value (``stage=``'s, asked for every loop)
            if arg.value is node and not arg.star and type(node) in _SAME_RANGE:
                twin = _argument_twin(arg, call, loop_twin.iter)
                return twin.value if isinstance(twin, ast.keyword) else twin
        return None

    def _statement_twins(self) -> dict[int, ast.stmt]:
        if self._twins is None:
            twins: dict[int, ast.stmt] = {}
            try:
                _pair_block(self._module.body, self._tree.body, twins)
            except _Unpaired:
                twins = {}
            self._twins = twins
        return self._twins

    def _span_of_twin(self, twin: _Located) -> Span:
        end_lineno, end_col_offset = ast_end(twin)
        line = twin.lineno - self._shift
        end_line = end_lineno - self._shift
        column = self._code_points(line, twin.col_offset)
        end_column = self._code_points(end_line, end_col_offset)
        return Span(
            line + self._line_offset,
            column + 1,
            end_line + self._line_offset,
            end_column + 1,
        )

    def _code_points(self, line: int, byte_offset: int) -> int:
        if self._lines is None:
            self._lines = source_lines(self._text)
        text = self._lines[line - 1] if 0 < line <= len(self._lines) else ""
        if text.isascii():
            return byte_offset
        return len(text.encode("utf-8", "surrogatepass")[:byte_offset].decode("utf-8", "replace"))

    # -- a statement's code, cut from the text ---------------------------------------------------

    def statement_code(self, node: cst.CSTNode) -> str | None:
        """``values.code_of(node)`` for a small statement, cut from the unit text.

        Rendering a statement with libcst costs tens of microseconds; the stdlib twin
        says where its text is. libcst renders a statement on its own without the
        indentation of the block it sits in, so a continuation line loses that prefix
        where it has it; the rendering drops comments and keeps a ``;`` that follows
        the statement, the text keeps the one and not the other. So None where the cut
        could read otherwise: a comment, a backslash, a ``;`` or a triple-quoted string
        (whose lines keep their indentation) in the statement; anything but a comment
        after it on its last line; a statement that does not start a logical line (after
        code or a backslash), or whose indentation is not spaces and tabs; a node
        without a statement twin.
        """
        if shown_by_first_line(node):
            return self._first_line(node)
        if not isinstance(node, cst.BaseSmallStatement):
            return None
        twin = self._statement_twins().get(id(node))
        if twin is None:
            return None
        if self._lines is None:
            self._lines = source_lines(self._text)
        lines = self._lines
        end_lineno, end_col_offset = ast_end(twin)
        first = twin.lineno - self._shift
        last = end_lineno - self._shift
        if not 0 < first <= last <= len(lines):
            return None
        start = self._code_points(first, twin.col_offset)
        end = self._code_points(last, end_col_offset)
        indent = lines[first - 1][:start]
        after = lines[last - 1][end:].strip()
        if (
            indent.strip(" \t")
            or (first > 1 and lines[first - 2].endswith("\\"))
            or (after and not after.startswith("#"))
        ):
            return None
        if first == last:
            code = lines[first - 1][start:end]
        else:
            cut = [lines[first - 1][start:], *lines[first : last - 1], lines[last - 1][:end]]
            code = "\n".join(
                [cut[0]]
                + [line[len(indent) :] if line.startswith(indent) else line for line in cut[1:]]
            )
        if any(mark in code for mark in _NOT_AS_WRITTEN):
            return None
        return code.strip()

    def _first_line(self, node: cst.CSTNode) -> str | None:
        """The first line of a compound statement as libcst renders it with its body stubbed
        and comments dropped: the text from the statement on, less a comment (the spaces
        before it stay, as libcst keeps them). None where a triple-quoted string shares
        the line."""
        twin = self._statement_twins().get(id(node))
        if twin is None:
            return None
        if self._lines is None:
            self._lines = source_lines(self._text)
        first = twin.lineno - self._shift
        if not 0 < first <= len(self._lines):
            return None
        line = self._lines[first - 1]
        start = self._code_points(first, twin.col_offset)
        if line[:start].strip(" \t"):
            return None
        found = split_comment(line[start:])
        if found is None:
            return None
        if type(node) is cst.If and found[0].startswith("elif"):
            return found[0][2:]  # (an `elif`'s node alone renders as an `if`)
        return found[0]

    # -- an expression: render the statement that holds it ----------------------------------------

    def _anchor(self, node: cst.CSTNode, loop: cst.For) -> _Anchor | None:
        """The statement of ``loop`` whose rendering places ``node`` (None: render the loop)."""
        mapping = self._anchoring.get(id(loop))
        if mapping is None:
            mapping = _map_anchors(loop, self._anchors) if self._statement_twins() else iter(())
            self._anchoring[id(loop)] = mapping
        while id(node) not in self._anchors:  # map statement by statement until found
            if next(mapping, StopIteration) is StopIteration:
                return None
        return self._anchors[id(node)]

    def _render_alone(self, anchor: _Anchor) -> None:
        """Positions of the nodes of one line of small statements, or of one compound header."""
        if id(anchor) in self._rendered_anchors:
            return
        self._concrete_only()
        self._rendered_anchors.add(id(anchor))
        if isinstance(anchor, cst.SimpleStatementLine):
            twin = self._statement_twins().get(id(anchor.body[0]))
            statement: cst.SimpleStatementLine | _Compound = anchor.with_changes(leading_lines=[])
        else:
            twin = self._statement_twins().get(id(anchor))
            statement = _header_only(anchor)
        if twin is None:
            return
        module = cst.Module(
            body=[statement],
            default_indent=self._module.default_indent,
            default_newline=self._module.default_newline,
        )
        line = twin.lineno - self._shift
        column = self._code_points(line, twin.col_offset)
        # A line rendered alone spans what it spans in place; a stubbed header does not.
        renamed: dict[int, int | None]
        if isinstance(anchor, cst.SimpleStatementLine):
            renamed = {id(statement): id(anchor)}
        else:
            renamed = {id(n): None for n in walk(statement)}
            renamed.update((id(n), id(n)) for n in _header_nodes(anchor))
        self._place(module, line, column, renamed)

    def _place(
        self, module: cst.Module, line: int, column: int, renamed: dict[int, int | None]
    ) -> None:
        """Record where the nodes of ``module``, rendered alone, sit in the unit text.

        ``renamed`` maps the ids of nodes made for the rendering to the node they
        stand for, or to None when their range means nothing in the source.
        """
        ranges, code = _syntactic_ranges(module)
        shifts = self._column_shifts(source_lines(code), line, column)

        def moved(at: CodePosition) -> CodePosition:
            shift = shifts[at.line - 1] if at.line <= len(shifts) else column
            return CodePosition(at.line + line - 1, at.column + shift)

        for node, found in ranges.items():
            if node is module:
                continue  # made for this rendering only: its id may be reused later
            key = renamed.get(id(node), id(node))
            if key is not None and key not in self._rendered:
                self._rendered[key] = CodeRange(moved(found.start), moved(found.end))

    # -- anything else: render the loop alone ----------------------------------------------------

    def _render(self, loop: cst.For) -> None:
        """Positions of every node of ``loop``, from rendering it alone, moved into place.

        Rendering drops the loop's indentation from the lines it indents itself,
        but not from lines whose leading whitespace belongs to a token (after a
        backslash continuation, inside a triple-quoted string): those keep their
        column. Comparing each rendered line with the source line tells them apart.
        """
        if id(loop) in self._rendered_loops:
            return
        self._concrete_only()
        self._rendered_loops.add(id(loop))
        line, column = self._loop_start(loop)
        alone = loop.with_changes(leading_lines=[])
        module = cst.Module(
            body=[alone],
            default_indent=self._module.default_indent,
            default_newline=self._module.default_newline,
        )
        self._place(module, line, column, {id(alone): id(loop)})

    def _concrete_only(self) -> None:
        """Rendering places nodes only in libcst's own tree (a made one has placeholder
        whitespace): the unit is then decided on that tree."""
        if self._made:
            raise NeedsConcreteTree("the position of a node inside a statement")

    def _column_shifts(self, rendered: list[str], line: int, column: int) -> list[int]:
        """Per rendered line, how far right its text sits in the source."""
        if self._lines is None:
            self._lines = source_lines(self._text)
        shifts = [column]
        for k, text in enumerate(rendered[1:], start=1):
            index = line - 1 + k
            original = self._lines[index] if index < len(self._lines) else ""
            reindented = not original[:column].strip() and original[column:] == text
            shifts.append(0 if original == text and not reindented else column)
        return shifts

    def _loop_start(self, loop: cst.For) -> tuple[int, int]:
        """(line, code-point column) of ``loop`` in the unit text."""
        twin = self._statement_twins().get(id(loop))
        if twin is None:
            raise LookupError("a loop the stdlib parser does not know")
        line = twin.lineno - self._shift
        return line, self._code_points(line, twin.col_offset)


# Compound statements whose header is rendered alone: the fields that make up the header.
_HEADERS: dict[type[cst.CSTNode], tuple[str, ...]] = {
    cst.For: ("target", "iter"),
    cst.While: ("test",),
    cst.If: ("test",),
    cst.With: ("items",),
}
_STUB = cst.IndentedBlock(body=[cst.SimpleStatementLine(body=[cst.Pass()])])


def _header_nodes(statement: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """The nodes of a compound statement's header (what its stubbed rendering places)."""
    for name in _HEADERS[type(statement)]:
        value = getattr(statement, name)
        for part in value if isinstance(value, (list, tuple)) else (value,):
            yield from walk(part)


def _header_only(statement: _Compound) -> _Compound:
    """``statement`` with a ``pass`` body and no ``else``: its header renders as written
    (the comment after its colon included, so that every header line matches the source)."""
    body = statement.body
    assert isinstance(body, cst.IndentedBlock)  # _map_anchors anchors no other header
    changes: dict[str, object] = {
        "body": _STUB.with_changes(header=body.header),
        "leading_lines": [],
    }
    if isinstance(statement, (cst.For, cst.While, cst.If)):
        changes["orelse"] = None
    return statement.with_changes(**changes)


def _map_anchors(loop: cst.For, out: dict[int, _Anchor]) -> Iterator[None]:
    """Map the nodes of ``loop`` to the line of small statements or the header holding them,
    pausing after each statement (most questions are about the loop's own header).

    Only what renders line for line as in the source is mapped: a line of small
    statements (with its comment), the header of a compound statement whose body is
    an indented block. Everything else (one-line suites, ``try``, ``match``, ``def``)
    falls back to rendering the whole loop.
    """
    pending: list[cst.BaseStatement] = [loop]
    while pending:
        statement = pending.pop()
        if isinstance(statement, cst.SimpleStatementLine):
            for node in walk(statement):
                out[id(node)] = statement
            yield
            continue
        if type(statement) not in _HEADERS:
            continue
        statement = cast("_Compound", statement)  # _HEADERS has these four kinds only
        if not isinstance(statement.body, cst.IndentedBlock):
            continue
        for node in _header_nodes(statement):
            out[id(node)] = statement
        yield
        pending.extend(statement.body.body)
        orelse = getattr(statement, "orelse", None)
        if isinstance(orelse, cst.If):  # elif
            pending.append(orelse)
        elif isinstance(orelse, cst.Else) and isinstance(orelse.body, cst.IndentedBlock):
            pending.extend(orelse.body.body)


# Expressions whose range is the same in both parsers, parentheses around them
# excluded (ast's range of a tuple or a generator expression includes its own).
_SAME_RANGE = frozenset({
    cst.Name, cst.Integer, cst.Float, cst.SimpleString, cst.Attribute, cst.Call,
    cst.BinaryOperation, cst.UnaryOperation, cst.Subscript,
})


def _argument_twin(node: cst.Arg, call: cst.Call, twin: ast.Call) -> _Located | None:
    """``f(a, *b, k=c, **d)``: ast keeps positional and starred arguments in ``args``
    and the rest in ``keywords``, each in source order."""
    positional = [arg for arg in call.args if arg.keyword is None and arg.star != "**"]
    named = [arg for arg in call.args if arg.keyword is not None or arg.star == "**"]
    groups: tuple[tuple[list[cst.Arg], Sequence[ast.expr | ast.keyword]], ...] = (
        (positional, twin.args),
        (named, twin.keywords),
    )
    for group, twins in groups:
        if len(group) != len(twins):
            return None
        for arg, arg_twin in zip(group, twins, strict=True):
            if arg is node:
                return arg_twin
    return None


def _syntactic_ranges(module: cst.Module) -> tuple[Mapping[cst.CSTNode, CodeRange], str]:
    """PositionProvider's ranges of every node of ``module``, and its code (public API:
    only the rare nodes without a stdlib twin come here)."""
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    return wrapper.resolve(PositionProvider), module.code


def _pair_block(
    statements: object, twins_of_block: list[ast.stmt], out: dict[int, ast.stmt]
) -> None:
    """Pair a block's libcst statements (or a one-line suite) with the ast statements."""
    queue = iter(twins_of_block)
    for statement in _statements(statements):
        if isinstance(statement, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            for small in statement.body:
                out[id(small)] = _next(queue, (ast.stmt,))
            continue
        twin = _next(queue, _TWINS.get(type(statement), ()))
        out[id(statement)] = twin
        _pair_compound(statement, twin, out)
    if next(queue, None) is not None:
        raise _Unpaired("more ast statements than libcst ones")


def _statements(block: object) -> list[cst.CSTNode]:
    if isinstance(block, (list, tuple)):
        return list(block)
    if isinstance(block, cst.IndentedBlock):
        return list(block.body)
    if isinstance(block, cst.SimpleStatementSuite):
        return [block]
    raise _Unpaired(f"unexpected block {type(block).__name__}")


def _next(queue: Iterator[ast.stmt], kinds: tuple[type[ast.stmt], ...]) -> ast.stmt:
    twin = next(queue, None)
    if twin is None or not kinds or not isinstance(twin, kinds):
        raise _Unpaired("statement kinds differ")
    return twin


def _pair_compound(statement: cst.CSTNode, twin: ast.stmt, out: dict[int, ast.stmt]) -> None:
    # (each twin is of a kind _TWINS pairs with the statement's: _next checked it)
    if isinstance(statement, (cst.FunctionDef, cst.ClassDef, cst.With)):
        assert isinstance(
            twin, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.With, ast.AsyncWith)
        )
        _pair_block(statement.body, twin.body, out)
    elif isinstance(statement, (cst.For, cst.While)):
        assert isinstance(twin, (ast.For, ast.AsyncFor, ast.While))
        _pair_block(statement.body, twin.body, out)
        _pair_else(statement.orelse, twin.orelse, out)
    elif isinstance(statement, cst.If):
        assert isinstance(twin, ast.If)
        _pair_block(statement.body, twin.body, out)
        if isinstance(statement.orelse, cst.If):  # elif: the twin is the only else statement
            if len(twin.orelse) != 1 or not isinstance(twin.orelse[0], ast.If):
                raise _Unpaired("elif")
            out[id(statement.orelse)] = twin.orelse[0]
            _pair_compound(statement.orelse, twin.orelse[0], out)
        else:
            _pair_else(statement.orelse, twin.orelse, out)
    elif isinstance(statement, (cst.Try, cst.TryStar)):
        assert isinstance(twin, _TRY_TWINS)
        _pair_block(statement.body, twin.body, out)
        if len(statement.handlers) != len(twin.handlers):
            raise _Unpaired("except clauses")
        handlers: Sequence[cst.ExceptHandler | cst.ExceptStarHandler] = statement.handlers
        for handler, handler_twin in zip(handlers, twin.handlers, strict=True):
            _pair_block(handler.body, handler_twin.body, out)
        _pair_else(statement.orelse, twin.orelse, out)
        finalbody: object = statement.finalbody.body if statement.finalbody is not None else []
        _pair_block(finalbody, twin.finalbody, out)
    elif isinstance(statement, cst.Match):
        assert isinstance(twin, ast.Match)
        if len(statement.cases) != len(twin.cases):
            raise _Unpaired("match cases")
        for case, case_twin in zip(statement.cases, twin.cases, strict=True):
            _pair_block(case.body, case_twin.body, out)
    else:
        raise _Unpaired(f"unexpected statement {type(statement).__name__}")


def _pair_else(orelse: cst.Else | None, twins: list[ast.stmt], out: dict[int, ast.stmt]) -> None:
    _pair_block(orelse.body if orelse is not None else [], twins, out)

