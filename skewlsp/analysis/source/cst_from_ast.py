"""libcst-shaped trees built from the stdlib tree, for the analysis to read.

libcst's parser costs about nine times the stdlib parser on the same text, and a
lint never needs what only it records: whitespace, comments and the exact spelling
of punctuation. The analysis reads node kinds, names, literals and nesting; so
here the stdlib tree (already built for the file) is turned into nodes of libcst's
own classes with the same shape a parse gives (the same kinds, fields, nesting and
parentheses), at a fraction of the cost. Their whitespace is a set of shared
placeholder nodes (:func:`.cst_nodes.is_placeholder`), never the text's.

What needs the text itself asks for it by node: each node made from a stdlib node
knows where it is in the unit text (:class:`Converted`), so its code is cut from
there (``tree_text``). Anything that would render placeholders instead, or any
construct this module does not build, makes the caller fall back to libcst's own
parse (:class:`NotConvertible` here, ``NeedsConcreteTree`` later): the trees and
what is read off them are the same either way, which the tests check against libcst
on every fixture kernel.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from skewlsp.analysis.source import trusted_parse
from skewlsp.analysis.source.cst_nodes import (
    AND,
    ARG,
    ASSIGN,
    ASSIGN_EQUAL,
    ASSIGN_TARGET,
    ATTRIBUTE,
    AUGMENTED_OPERATORS,
    BINARY_OPERATION,
    CALL,
    COLON,
    ELEMENT,
    INDEX,
    INTEGER,
    LPAR,
    NAME,
    OPERATORS,
    OR,
    PARENS,
    RPAR,
    SIMPLE_STATEMENT_LINE,
    SUBSCRIPT,
    SUBSCRIPT_ELEMENT,
    make,
)
from skewlsp.analysis.source.lines import source_lines, split_comment, without_block_indent


class NotConvertible(Exception):
    """The unit holds a construct built only by libcst's parser here (parse it instead)."""


@dataclass(frozen=True)
class Converted:
    """A unit's tree and where its nodes' code lies in the unit text.

    ``ranges``: node id -> (start, end, indent): the node's code (its parentheses
    included) is ``text[start:end]``; ``indent`` is the indentation of the statement
    holding it, which libcst leaves out of continuation lines when it renders the
    node alone. ``shapeless``: the other nodes made here (an argument, a block, a
    function), whose code is not cut from the text. ``blocks``: node id -> (start, end)
    of the compound statements and indented blocks, whose text is read as written (no
    code is cut for them: libcst renders them otherwise).
    """

    module: cst.Module
    text: str
    ranges: dict[int, tuple[int, int, str]]
    shapeless: set[int]
    blocks: dict[int, tuple[int, int]] = field(default_factory=dict)
    # What the analysis derived from this tree alone (a caller's calls), kept with it.
    facts: dict[object, object] = field(default_factory=dict)


_STAR_CHARS = frozenset(" \t\f\\\r\n")
# Expressions libcst's own parser builds here, from their text (rare in kernels).
_PARSED_EXPRESSIONS = (
    ast.Lambda,
    ast.Dict,
    ast.Set,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.JoinedStr,
)


def _decorators(statement: ast.stmt) -> list[ast.expr]:
    return getattr(statement, "decorator_list", [])


class _Builder:
    """One unit's conversion: the text, where its lines start, the parentheses owned by
    calls and class headers (never an expression's)."""

    def __init__(self, text: str, shift: int) -> None:
        self.text = text
        self.shift = shift
        self.lines = source_lines(text, keepends=True)
        starts = [0]
        for line in self.lines:
            starts.append(starts[-1] + len(line))
        self.starts = starts
        # Per line, whether its UTF-8 columns are its offsets (None: every line is).
        self.ascii_lines = (
            None if text.isascii() else [line.isascii() for line in self.lines]
        )
        self.owned: set[int] = set()
        self.ranges: dict[int, tuple[int, int, str]] = {}
        self.shapeless: set[int] = set()
        self.blocks: dict[int, tuple[int, int]] = {}
        self.indent = ""
        self.statement_start = -1  # where the simple statement being made starts

    # -- positions ---------------------------------------------------------------------------------

    def offset(self, lineno: int, col: int) -> int:
        """The text offset of the stdlib parser's (line, UTF-8 byte column)."""
        index = lineno - self.shift - 1
        if not 0 <= index < len(self.lines):
            raise NotConvertible("a node outside the unit text")
        if self.ascii_lines is None or self.ascii_lines[index]:
            return self.starts[index] + col
        line = self.lines[index]
        return self.starts[index] + len(line.encode("utf-8")[:col].decode("utf-8", "replace"))

    def span(self, node: ast.AST) -> tuple[int, int]:
        return (
            self.offset(node.lineno, node.col_offset),  # type: ignore[attr-defined]
            self.offset(node.end_lineno, node.end_col_offset),  # type: ignore[attr-defined]
        )

    def _before(self, at: int) -> int:
        """The offset of the last code character before ``at`` (-1 if none)."""
        text = self.text
        i = at - 1
        while i >= 0:
            char = text[i]
            if char == "\n":
                start = text.rfind("\n", 0, i) + 1
                line = text[start:i]
                if "#" in line:
                    found = split_comment(line)
                    if found is None:
                        raise NotConvertible("a comment after a triple-quoted string")
                    i = start + len(found[0]) - 1
                    continue
            elif char not in _STAR_CHARS:
                return i
            i -= 1
        return -1

    def _after(self, at: int) -> int:
        """The offset of the first code character from ``at`` (len(text) if none)."""
        text = self.text
        size = len(text)
        i = at
        while i < size:
            char = text[i]
            if char == "#":
                found = text.find("\n", i)
                i = size if found < 0 else found
            elif char in _STAR_CHARS:
                i += 1
            else:
                return i
        return size

    def parens(self, start: int, end: int) -> tuple[int, int, int]:
        """How many parentheses enclose the code at ``start:end`` as its own, and the
        range with them."""
        text = self.text
        count = 0
        while True:
            before = self._before(start)
            if before < 0 or text[before] != "(" or before in self.owned:
                return count, start, end
            after = self._after(end)
            if after >= len(text) or text[after] != ")":
                return count, start, end
            count += 1
            start, end = before, after + 1

    def placed(self, made: Any, start: int, end: int) -> Any:
        self.ranges[id(made)] = (start, end, self.indent)
        return made

    def shapeless_node(self, made: Any) -> Any:
        self.shapeless.add(id(made))
        return made

    # -- expressions -------------------------------------------------------------------------------

    def expr(self, node: ast.expr) -> Any:
        """The made node of ``node``; ``self.start``/``self.end`` are then its range in the
        text, parentheses included (the parent reads them right away)."""
        kind = type(node)
        first = self.shift + 1
        line, end_line = node.lineno - first, node.end_lineno - first  # type: ignore[operator]
        ascii_lines = self.ascii_lines
        if ascii_lines is None or (ascii_lines[line] and ascii_lines[end_line]):
            starts = self.starts
            start = starts[line] + node.col_offset
            end = starts[end_line] + node.end_col_offset  # type: ignore[operator]
        else:
            start, end = self.span(node)
        if kind is ast.Tuple or kind is ast.GeneratorExp:
            return self._tuple(node, start, end)  # type: ignore[arg-type]
        text = self.text
        at = start - 1
        before = text[at] if start else ""
        if before == " " and start > 1:  # (``a = b``, ``f(a, b)``: one space, then code)
            at -= 1
            before = text[at]
        if start == self.statement_start or (before == "(" and at in self.owned):
            # Where a statement starts (``x = ...``: no parenthesis of its own can open
            # before it), or right after a call's own parenthesis (its first argument).
            count, outer_start, outer_end = 0, start, end
        elif before in _MAYBE_PARENTHESIZED:
            count, outer_start, outer_end = self.parens(start, end)
        else:  # (most code: nothing but an operator, a comma or a bracket just before)
            count, outer_start, outer_end = 0, start, end
        if count == 0:
            if kind is ast.Name:
                self.start, self.end = start, end
                return NAME(value=node.id if ascii_lines is None else text[start:end])  # type: ignore[attr-defined]
            if kind is ast.Constant and type(node.value) is int:  # type: ignore[attr-defined]
                self.start, self.end = start, end
                return INTEGER(value=text[start:end])
        lpar, rpar = PARENS[count] if count < len(PARENS) else self._too_deep()
        made = self._expr(node, kind, start, end, lpar, rpar, outer_start, outer_end)
        self.start, self.end = outer_start, outer_end
        if count or kind is not ast.Constant:  # (a literal's value is its exact text)
            self.ranges[id(made)] = (outer_start, outer_end, self.indent)
        return made

    def _too_deep(self) -> Any:
        raise NotConvertible("too many parentheses")

    def _expr(
        self,
        node: Any,
        kind: type,
        start: int,
        end: int,
        lpar: tuple[Any, ...],
        rpar: tuple[Any, ...],
        outer_start: int,
        outer_end: int,
    ) -> Any:
        if kind is ast.Name:
            value = node.id if self.ascii_lines is None else self.text[start:end]
            return NAME(value=value, lpar=lpar, rpar=rpar)
        if kind is ast.Attribute:
            base = self.expr(node.value)
            base_end = self.end
            if self.text[base_end:end] != "." + node.attr:
                raise NotConvertible("spaces around a dot")
            plain = self.ascii_lines is None
            attr = NAME(value=node.attr if plain else self.text[base_end + 1 : end])
            return ATTRIBUTE(value=base, attr=attr, lpar=lpar, rpar=rpar)
        if kind is ast.Call:
            return self._call(node, lpar, rpar)
        if kind is ast.Constant:
            return self._constant(node, start, end, lpar, rpar, outer_start, outer_end)
        if kind is ast.BinOp:
            operator = OPERATORS.get(type(node.op))
            return BINARY_OPERATION(
                left=self.expr(node.left),
                operator=operator,
                right=self.expr(node.right),
                lpar=lpar,
                rpar=rpar,
            )
        if kind is ast.Subscript:
            return self._subscript(node, lpar, rpar)
        if kind is ast.UnaryOp:
            return make(
                cst.UnaryOperation,
                operator=OPERATORS[type(node.op)],
                expression=self.expr(node.operand),
                lpar=lpar,
                rpar=rpar,
            )
        if kind is ast.Compare:
            left = self.expr(node.left)
            targets = [
                self.shapeless_node(
                    make(
                        cst.ComparisonTarget,
                        operator=OPERATORS[type(op)],
                        comparator=self.expr(comparator),
                    )
                )
                for op, comparator in zip(node.ops, node.comparators, strict=True)
            ]
            return make(cst.Comparison, left=left, comparisons=targets, lpar=lpar, rpar=rpar)
        if kind is ast.BoolOp:
            return self._boolean(node, lpar, rpar)
        if kind is ast.List:
            return make(cst.List, elements=self._elements(node.elts)[0], lpar=lpar, rpar=rpar)
        if kind is ast.IfExp:
            return make(
                cst.IfExp,
                body=self.expr(node.body),
                test=self.expr(node.test),
                orelse=self.expr(node.orelse),
                lpar=lpar,
                rpar=rpar,
            )
        if kind is ast.NamedExpr:
            return make(
                cst.NamedExpr,
                target=self.expr(node.target),
                value=self.expr(node.value),
                lpar=lpar,
                rpar=rpar,
            )
        if kind in _PARSED_EXPRESSIONS:
            return self._parsed(outer_start, outer_end)
        raise NotConvertible(f"a {kind.__name__} expression")

    def _parsed(self, start: int, end: int) -> Any:
        """libcst's own tree of the code at ``start:end`` (continuation lines without the
        statement's indentation, as libcst keeps them in place)."""
        code = without_block_indent(self.text[start:end], self.indent)
        try:
            return trusted_parse.parse_expression(code)
        except Exception:
            pass
        try:  # strings side by side over lines, inside a call's parentheses
            made = trusted_parse.parse_expression(f"({code})")
        except Exception as err:
            raise NotConvertible(f"libcst refuses {code[:40]!r}") from err
        if len(made.lpar) != 1:
            raise NotConvertible(f"libcst reads {code[:40]!r} otherwise")
        return made.with_changes(lpar=(), rpar=())

    def _constant(
        self,
        node: ast.Constant,
        start: int,
        end: int,
        lpar: tuple[Any, ...],
        rpar: tuple[Any, ...],
        outer_start: int,
        outer_end: int,
    ) -> Any:
        value = node.value
        if value is None or value is True or value is False:
            return make(cst.Name, value=str(value), lpar=lpar, rpar=rpar)
        if value is Ellipsis:
            return make(cst.Ellipsis, lpar=lpar, rpar=rpar)
        code = self.text[start:end]
        if isinstance(value, bool):  # pragma: no cover - handled above
            raise NotConvertible("a bool")
        if isinstance(value, int):
            return INTEGER(value=code, lpar=lpar, rpar=rpar)
        if isinstance(value, float):
            return make(cst.Float, value=code, lpar=lpar, rpar=rpar)
        if isinstance(value, complex):
            return make(cst.Imaginary, value=code, lpar=lpar, rpar=rpar)
        if _one_string_token(code):
            return make(cst.SimpleString, value=code, lpar=lpar, rpar=rpar)
        return self._parsed(outer_start, outer_end)  # implicit concatenation

    def _call(self, node: ast.Call, lpar: tuple[Any, ...], rpar: tuple[Any, ...]) -> Any:
        func = self.expr(node.func)
        opening = self._after(self.end)
        if self.text[opening : opening + 1] != "(":
            raise NotConvertible("a call without its parenthesis")
        self.owned.add(opening)
        items: list[ast.AST] = list(node.args)
        if node.keywords:
            items.extend(node.keywords)
            # In the order written: only a *args may follow a keyword.
            if any(type(arg) is ast.Starred for arg in node.args):
                items.sort(key=lambda item: (item.lineno, item.col_offset))  # type: ignore[attr-defined]
        args = []
        for item in items:
            if isinstance(item, ast.keyword):
                if item.arg is None:
                    made = make(cst.Arg, value=self.expr(item.value), star="**")
                else:
                    keyword = make(cst.Name, value=item.arg)
                    made = make(cst.Arg, value=self.expr(item.value), keyword=keyword)
                    self.shapeless.add(id(keyword))
            elif isinstance(item, ast.Starred):
                made = make(cst.Arg, value=self.expr(item.value), star="*")
            elif isinstance(item, ast.GeneratorExp) and self.span(item)[0] == opening:
                # f(x for x in y): the call's parentheses, not the generator's
                start, end = self.span(item)
                generator = self._parsed(start, end)
                made = make(cst.Arg, value=generator.with_changes(lpar=(), rpar=()))
            else:
                made = ARG(value=self.expr(item))  # type: ignore[arg-type]
            self.shapeless.add(id(made))
            args.append(made)
        return CALL(func=func, args=tuple(args), lpar=lpar, rpar=rpar)

    def _subscript(self, node: ast.Subscript, lpar: tuple[Any, ...], rpar: tuple[Any, ...]) -> Any:
        value = self.expr(node.value)
        index = node.slice
        parts: Sequence[ast.expr] = [index]
        if isinstance(index, ast.Tuple) and index.elts:
            first_start, first_end = self.span(index.elts[0])
            if isinstance(index.elts[0], ast.Slice):
                extended = first_start
            else:
                extended = self.parens(first_start, first_end)[1]
            if extended == self.span(index)[0]:
                parts = index.elts  # x[a, b:c]: one element each, not a tuple
        elements = []
        for part in parts:
            if isinstance(part, ast.Slice):
                inner: Any = make(
                    cst.Slice,
                    lower=self.expr(part.lower) if part.lower is not None else None,
                    upper=self.expr(part.upper) if part.upper is not None else None,
                    step=self.expr(part.step) if part.step is not None else None,
                    second_colon=COLON if part.step is not None else cst.MaybeSentinel.DEFAULT,
                )
                start, end = self.span(part)
                self.placed(inner, start, end)
            elif isinstance(part, ast.Starred):
                raise NotConvertible("a starred subscript")
            else:
                inner = INDEX(value=self.expr(part))
            element = SUBSCRIPT_ELEMENT(slice=inner)
            self.shapeless.add(id(element))  # (libcst's has its comma)
            elements.append(element)
        return SUBSCRIPT(value=value, slice=tuple(elements), lpar=lpar, rpar=rpar)

    def _boolean(self, node: ast.BoolOp, lpar: tuple[Any, ...], rpar: tuple[Any, ...]) -> Any:
        operator = AND if isinstance(node.op, ast.And) else OR
        values, ends = [], []
        for value in node.values:
            values.append(self.expr(value))
            ends.append(self.end)
            if len(values) == 1:
                start = self.start
        left = values[0]
        for k, right in enumerate(values[1:], start=1):
            last = k == len(values) - 1
            left = make(
                cst.BooleanOperation,
                left=left,
                operator=operator,
                right=right,
                lpar=lpar if last else (),
                rpar=rpar if last else (),
            )
            if not last:
                self.placed(left, start, ends[k])
        return left

    def _elements(self, elts: Sequence[ast.expr]) -> tuple[tuple[Any, ...], int]:
        """The elements, and where the first one's code starts (-1: none)."""
        made = []
        first = -1
        for elt in elts:
            if isinstance(elt, ast.Starred):
                element = make(cst.StarredElement, value=self.expr(elt.value))
                start, end = self.span(elt)
                self.placed(element, start, end)
            else:
                element = self.shapeless_node(ELEMENT(value=self.expr(elt)))
                start = self.start
            if first < 0:
                first = start
            made.append(element)
        return tuple(made), first

    def _tuple(self, node: ast.Tuple | ast.GeneratorExp, start: int, end: int) -> Any:
        if isinstance(node, ast.GeneratorExp):
            count, outer_start, outer_end = self.parens(start, end)
            self.start, self.end = outer_start, outer_end
            return self.placed(self._parsed(outer_start, outer_end), outer_start, outer_end)
        elements, first = self._elements(node.elts)
        own = 0
        if self.text[start : start + 1] == "(" and (first < 0 or first > start):
            own = 1
        if own:
            self.owned.add(start)  # an element's parentheses never start here
            count, outer_start, outer_end = self.parens(start, end)
            count += 1
        else:
            count, outer_start, outer_end = self.parens(start, end)
        if count >= len(PARENS):
            self._too_deep()
        lpar, rpar = PARENS[count]
        made = make(cst.Tuple, elements=elements, lpar=lpar, rpar=rpar)
        self.start, self.end = outer_start, outer_end
        return self.placed(made, outer_start, outer_end)

    # -- statements --------------------------------------------------------------------------------

    def block(self, body: Sequence[ast.stmt]) -> Any:
        """An indented block, or the statements on the header's own line."""
        first = body[0]
        start = self.offset(first.lineno, first.col_offset)
        before = self._before(start)
        if before >= 0 and self.text[before] == ":" and "\n" not in self.text[before:start]:
            self._check_lines(body)
            smalls = [self.small(statement) for statement in body]
            return self.shapeless_node(make(cst.SimpleStatementSuite, body=smalls))
        made = self.shapeless_node(make(cst.IndentedBlock, body=self.statements(body)))
        # (from the first statement's decorators, if it has any, to the last one's end)
        text_start = min(
            [start, *(self.offset(d.lineno, d.col_offset) for d in _decorators(first))]
        )
        last = body[-1]
        end = self.offset(last.end_lineno, last.end_col_offset)  # type: ignore[arg-type]
        self.blocks[id(made)] = (text_start, end)
        return made

    def _check_lines(self, body: Sequence[ast.stmt]) -> None:
        previous = -1
        for statement in body:
            if statement.lineno == previous:
                raise NotConvertible("two statements on one line")
            previous = statement.end_lineno or statement.lineno

    def statements(self, body: Sequence[ast.stmt]) -> list[Any]:
        self._check_lines(body)
        return [self.statement(statement) for statement in body]

    def statement(self, node: ast.stmt) -> Any:
        outer = self.indent
        start = self.offset(node.lineno, node.col_offset)
        line_start = self.text.rfind("\n", 0, start) + 1
        self.indent = self.text[line_start:start]
        try:
            kind = type(node)
            made: Any
            if kind is ast.FunctionDef:  # (its decorators lie before its start: no text)
                return self._function(node)  # type: ignore[arg-type]
            if kind is ast.For:
                made = self._for(node)  # type: ignore[arg-type]
            elif kind is ast.With:
                made = self._with(node)  # type: ignore[arg-type]
            elif kind is ast.If:
                made = self._if(node)  # type: ignore[arg-type]
            elif kind is ast.While:
                made = self._while(node)  # type: ignore[arg-type]
            elif kind is ast.ClassDef:
                return self._class(node)  # type: ignore[arg-type]
            else:
                return SIMPLE_STATEMENT_LINE(body=(self.small(node),))
            end = self.offset(node.end_lineno, node.end_col_offset)  # type: ignore[arg-type]
            self.blocks[id(made)] = (start, end)
            return made
        finally:
            self.indent = outer

    def small(self, node: ast.stmt) -> Any:
        kind = type(node)
        start, end = self.span(node)
        self.statement_start = start
        after = self._after_on_line(end)
        if after == ";":
            raise NotConvertible("a semicolon")
        made: Any
        if kind is ast.Assign:
            targets = [
                ASSIGN_TARGET(target=self.expr(t))
                for t in node.targets  # type: ignore[attr-defined]
            ]
            made = ASSIGN(targets=targets, value=self.expr(node.value))  # type: ignore[attr-defined]
        elif kind is ast.Expr:
            made = make(cst.Expr, value=self.expr(node.value))  # type: ignore[attr-defined]
        elif kind is ast.AugAssign:
            made = make(
                cst.AugAssign,
                target=self.expr(node.target),  # type: ignore[attr-defined]
                operator=AUGMENTED_OPERATORS[type(node.op)],  # type: ignore[attr-defined]
                value=self.expr(node.value),  # type: ignore[attr-defined]
            )
        elif kind is ast.AnnAssign:
            target = self.expr(node.target)  # type: ignore[attr-defined]
            annotation = self.shapeless_node(
                make(cst.Annotation, annotation=self.expr(node.annotation))  # type: ignore[attr-defined]
            )
            value = node.value  # type: ignore[attr-defined]
            made = make(
                cst.AnnAssign,
                target=target,
                annotation=annotation,
                value=self.expr(value) if value is not None else None,
                equal=ASSIGN_EQUAL if value is not None else cst.MaybeSentinel.DEFAULT,
            )
        elif kind is ast.Return:
            value = node.value  # type: ignore[attr-defined]
            made = make(cst.Return, value=self.expr(value) if value is not None else None)
        elif kind is ast.Pass:
            made = make(cst.Pass)
        elif kind is ast.Break:
            made = make(cst.Break)
        elif kind is ast.Continue:
            made = make(cst.Continue)
        elif kind is ast.Assert:
            msg = node.msg  # type: ignore[attr-defined]
            made = make(
                cst.Assert,
                test=self.expr(node.test),  # type: ignore[attr-defined]
                msg=self.expr(msg) if msg is not None else None,
            )
        elif kind is ast.Raise:
            exc, cause = node.exc, node.cause  # type: ignore[attr-defined]
            made = make(
                cst.Raise,
                exc=self.expr(exc) if exc is not None else None,
                cause=self.shapeless_node(make(cst.From, item=self.expr(cause)))
                if cause is not None
                else None,
            )
        else:
            raise NotConvertible(f"a {kind.__name__} statement")
        return self.placed(made, start, end)

    def _after_on_line(self, end: int) -> str:
        text = self.text
        size = len(text)
        i = end
        while i < size and text[i] in " \t":
            i += 1
        return text[i] if i < size else ""

    def _orelse(self, node: ast.If | ast.For | ast.While) -> Any:
        orelse = node.orelse
        if not orelse:
            return None
        first = orelse[0]
        start = self.offset(first.lineno, first.col_offset)
        if (
            isinstance(node, ast.If)
            and len(orelse) == 1
            and isinstance(first, ast.If)
            and self.text.startswith("elif", start)
        ):
            return self._if(first)
        return self.shapeless_node(make(cst.Else, body=self.block(orelse)))

    def _if(self, node: ast.If) -> Any:
        test = self.expr(node.test)
        body = self.block(node.body)
        made = make(cst.If, test=test, body=body, orelse=self._orelse(node))
        return self.shapeless_node(made)

    def _for(self, node: ast.For) -> Any:
        target = self.expr(node.target)
        iterable = self.expr(node.iter)
        body = self.block(node.body)
        made = make(cst.For, target=target, iter=iterable, body=body, orelse=self._orelse(node))
        return self.shapeless_node(made)

    def _while(self, node: ast.While) -> Any:
        test = self.expr(node.test)
        body = self.block(node.body)
        made = make(cst.While, test=test, body=body, orelse=self._orelse(node))
        return self.shapeless_node(made)

    def _with(self, node: ast.With) -> Any:
        start = self.offset(node.lineno, node.col_offset)
        if self.text[self._after(start + 4) : self._after(start + 4) + 1] == "(":
            raise NotConvertible("a parenthesized with")
        items = []
        for item in node.items:
            asname = None
            if item.optional_vars is not None:
                asname = self.shapeless_node(
                    make(cst.AsName, name=self.expr(item.optional_vars))
                )
            made = make(cst.WithItem, item=self.expr(item.context_expr), asname=asname)
            items.append(self.shapeless_node(made))
        body = self.block(node.body)
        return self.shapeless_node(make(cst.With, items=tuple(items), body=body))

    def _decorators(self, nodes: Sequence[ast.expr]) -> tuple[Any, ...]:
        decorators = []
        for expr in nodes:
            start = self.offset(expr.lineno, expr.col_offset)
            line_start = self.text.rfind("\n", 0, start) + 1
            outer, self.indent = self.indent, self.text[line_start : self._before(start)]
            try:
                made = make(cst.Decorator, decorator=self.expr(expr))
            finally:
                self.indent = outer
            decorators.append(self.shapeless_node(made))
        return tuple(decorators)

    def _function(self, node: ast.FunctionDef) -> Any:
        decorators = self._decorators(node.decorator_list)
        if getattr(node, "type_params", None):
            raise NotConvertible("type parameters")
        params = self._parameters(node.args)
        returns = None
        if node.returns is not None:
            returns = self.shapeless_node(
                make(cst.Annotation, annotation=self.expr(node.returns))
            )
        name = self.shapeless_node(make(cst.Name, value=node.name))
        body = self.block(node.body)
        made = make(
            cst.FunctionDef,
            name=name,
            params=params,
            body=body,
            decorators=decorators,
            returns=returns,
        )
        return self.shapeless_node(made)

    def _param(self, arg: ast.arg, default: ast.expr | None, star: Any) -> Any:
        annotation = None
        if arg.annotation is not None:
            annotation = self.shapeless_node(
                make(cst.Annotation, annotation=self.expr(arg.annotation))
            )
        name = self.shapeless_node(make(cst.Name, value=arg.arg))
        made = make(
            cst.Param,
            name=name,
            annotation=annotation,
            default=self.expr(default) if default is not None else None,
            equal=ASSIGN_EQUAL if default is not None else cst.MaybeSentinel.DEFAULT,
            star=star,
        )
        return self.shapeless_node(made)

    def _parameters(self, args: ast.arguments) -> Any:
        if args.posonlyargs:
            raise NotConvertible("positional-only parameters")
        plain = args.args
        defaults: list[ast.expr | None] = [None] * (len(plain) - len(args.defaults))
        defaults.extend(args.defaults)
        params = tuple(
            self._param(arg, default, "") for arg, default in zip(plain, defaults, strict=True)
        )
        star_arg: Any = cst.MaybeSentinel.DEFAULT
        if args.vararg is not None:
            star_arg = self._param(args.vararg, None, "*")
        elif args.kwonlyargs:
            star_arg = self.shapeless_node(make(cst.ParamStar))
        kwonly = tuple(
            self._param(arg, default, "")
            for arg, default in zip(args.kwonlyargs, args.kw_defaults, strict=True)
        )
        star_kwarg = self._param(args.kwarg, None, "**") if args.kwarg is not None else None
        made = make(
            cst.Parameters,
            params=params,
            star_arg=star_arg,
            kwonly_params=kwonly,
            star_kwarg=star_kwarg,
        )
        return self.shapeless_node(made)

    def _class(self, node: ast.ClassDef) -> Any:
        decorators = self._decorators(node.decorator_list)
        if getattr(node, "type_params", None):
            raise NotConvertible("type parameters")
        start = self.offset(node.lineno, node.col_offset)
        opening = self.text.find("(", start)
        bases = []
        keywords = []
        if node.bases or node.keywords:
            self.owned.add(opening)
            for base in node.bases:
                if isinstance(base, ast.Starred):
                    raise NotConvertible("a starred base")
                bases.append(self.shapeless_node(make(cst.Arg, value=self.expr(base))))
            for keyword in node.keywords:
                if keyword.arg is None:
                    raise NotConvertible("a ** base")
                name = self.shapeless_node(make(cst.Name, value=keyword.arg))
                made = make(cst.Arg, value=self.expr(keyword.value), keyword=name)
                keywords.append(self.shapeless_node(made))
        name = self.shapeless_node(make(cst.Name, value=node.name))
        body = self.block(node.body)
        made = make(
            cst.ClassDef,
            name=name,
            body=body,
            bases=tuple(bases),
            keywords=tuple(keywords),
            decorators=decorators,
            lpar=LPAR if node.bases or node.keywords else cst.MaybeSentinel.DEFAULT,
            rpar=RPAR if node.bases or node.keywords else cst.MaybeSentinel.DEFAULT,
        )
        return self.shapeless_node(made)


# A character before an expression that may be (or precede) its own opening parenthesis.
_MAYBE_PARENTHESIZED = frozenset("( \t\f\\\r\n")
_STRING_PREFIX = frozenset("rRbBuUfF")


def _one_string_token(code: str) -> bool:
    """Whether ``code`` is one string literal (not several written side by side)."""
    i = 0
    while i < len(code) and code[i] in _STRING_PREFIX:
        i += 1
    if i > 2 or i >= len(code) or "\\" in code:
        return False
    quote = code[i : i + 3] if code[i : i + 3] in ('"""', "'''") else code[i]
    body = code[i + len(quote) :]
    return body.endswith(quote) and quote not in body[: -len(quote)] and (
        len(quote) == 3 or "\n" not in body
    )


def convert(tree: ast.Module, text: str, shift: int = 0) -> Converted:
    """The libcst-shaped tree of ``text`` built from ``tree``, its stdlib tree (whose line
    ``n`` is the text's line ``n - shift``); raises :class:`NotConvertible`."""
    builder = _Builder(text, shift)
    try:
        body = builder.statements(tree.body)
    except IndexError as err:  # a position outside the text: not the text's tree
        raise NotConvertible("a node outside the unit text") from err
    module = builder.shapeless_node(make(cst.Module, body=body))
    return Converted(module, text, builder.ranges, builder.shapeless, builder.blocks)

