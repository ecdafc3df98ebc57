"""libcst-shaped expressions built from the stdlib's, each knowing where its code lies.

The half of :mod:`.cst_from_ast` that makes expressions (the statements around them are
made there): an expression's node is one of libcst's own classes with the fields and
parentheses a parse gives, and its range in the unit text (parentheses included) is
recorded so that its code is cut from the text. A construct made here only by libcst's
own parse is parsed from its text; one this module cannot make raises
:class:`NotConvertible`, and the caller falls back to libcst's parse of the unit.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from typing import Any

import libcst as cst

from skewlsp.analysis.source.cst_nodes import (
    AND,
    ARG,
    ATTRIBUTE,
    BINARY_OPERATION,
    CALL,
    COLON,
    INTEGER,
    NAME,
    OPERATORS,
    OR,
    PARENS,
    PLAIN_ARG,
    PLAIN_ELEMENT,
    PLAIN_INDEX,
    PLAIN_INTEGER,
    PLAIN_NAME,
    SUBSCRIPT,
    SUBSCRIPT_ELEMENT_OF,
    make,
)
from skewlsp.analysis.source.lines import (
    ast_end,
    source_lines,
    split_comment,
    without_block_indent,
)


class NotConvertible(Exception):
    """The unit holds a construct built only by libcst's parser here (parse it instead)."""


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


class ExpressionBuilder:
    """The expressions of one unit's conversion (its builder in :mod:`.cst_from_ast`
    makes the statements around them): the text, where its lines start, the parentheses
    owned by calls and class headers (never an expression's), and where each node's code
    lies.
    """

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
        self.indent = ""
        # Where the simple statement being made starts (the statements' builder sets it).
        self.statement_start = -1

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

    def span(self, node: ast.stmt | ast.expr) -> tuple[int, int]:
        return (self.offset(node.lineno, node.col_offset), self.offset(*ast_end(node)))

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
        # (``ast_end``'s two fields read here, which the parser sets on every node: no
        # call for each of the 138,000 expressions of a cold lint of pypto-lib)
        end_lineno: int = node.end_lineno  # type: ignore[assignment]
        line, end_line = node.lineno - first, end_lineno - first
        ascii_lines = self.ascii_lines
        if ascii_lines is None or (ascii_lines[line] and ascii_lines[end_line]):
            starts = self.starts
            start = starts[line] + node.col_offset
            end = starts[end_line] + node.end_col_offset  # type: ignore[operator]
        else:
            start, end = self.span(node)
        if kind is ast.Tuple or kind is ast.GeneratorExp:  # (neither has subclasses)
            return self._tuple(node, start, end)  # type: ignore[arg-type]  # (one of both)
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
            if type(node) is ast.Name:
                self.start, self.end = start, end
                return PLAIN_NAME(node.id if ascii_lines is None else text[start:end])
            if type(node) is ast.Constant and type(node.value) is int:
                self.start, self.end = start, end
                return PLAIN_INTEGER(text[start:end])
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
            attr = PLAIN_NAME(node.attr if plain else self.text[base_end + 1 : end])
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
            return cst.parse_expression(code)
        except Exception:
            pass
        try:  # strings side by side over lines, inside a call's parentheses
            made = cst.parse_expression(f"({code})")
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
        items: list[ast.expr | ast.keyword] = list(node.args)
        if node.keywords:
            items.extend(node.keywords)
            # In the order written: only a *args may follow a keyword.
            if any(type(arg) is ast.Starred for arg in node.args):
                items.sort(key=lambda item: (item.lineno, item.col_offset))
        args = []
        for item in items:
            if isinstance(item, ast.keyword):
                if item.arg is None:
                    made = make(cst.Arg, value=self.expr(item.value), star="**")
                else:
                    keyword = PLAIN_NAME(item.arg)
                    made = ARG(value=self.expr(item.value), keyword=keyword)
                    self.shapeless.add(id(keyword))
            elif isinstance(item, ast.Starred):
                made = make(cst.Arg, value=self.expr(item.value), star="*")
            elif isinstance(item, ast.GeneratorExp) and self.span(item)[0] == opening:
                # f(x for x in y): the call's parentheses, not the generator's
                start, end = self.span(item)
                generator = self._parsed(start, end)
                made = make(cst.Arg, value=generator.with_changes(lpar=(), rpar=()))
            else:
                made = PLAIN_ARG(self.expr(item))
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
                inner = PLAIN_INDEX(self.expr(part))
            element = SUBSCRIPT_ELEMENT_OF(inner)
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
                element = self.shapeless_node(PLAIN_ELEMENT(self.expr(elt)))
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
