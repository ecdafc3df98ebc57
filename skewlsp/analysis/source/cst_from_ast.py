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
parse (:class:`.cst_expressions_from_ast.NotConvertible`, ``NeedsConcreteTree``
later): the trees and what is read off them are the same either way, which the tests
check against libcst on every fixture kernel.

The statements are made here, the expressions they hold in
:mod:`.cst_expressions_from_ast`.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from skewlsp.analysis.source.cst_expressions_from_ast import ExpressionBuilder, NotConvertible
from skewlsp.analysis.source.cst_nodes import (
    ASSIGN,
    ASSIGN_EQUAL,
    ASSIGN_TARGET_OF,
    AUGMENTED_OPERATORS,
    LPAR,
    PLAIN_NAME,
    RPAR,
    STATEMENT_LINE_OF,
    make,
)
from skewlsp.analysis.source.lines import ast_end, without_block_indent


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

    Kept across analyses (``unit_parses``) and so read by the language server's two
    analysis threads at once: nothing here changes once made, but ``facts``, which only
    gains entries (the first one kept winning), each a value never changed or one that
    only gains entries itself, every one the same whoever adds it (a walk's facts:
    ``driver.walk_facts``). Every id here is a node of ``module``, which the tree holds:
    none can name a later object.
    """

    module: cst.Module
    text: str
    ranges: dict[int, tuple[int, int, str]]
    shapeless: set[int]
    blocks: dict[int, tuple[int, int]] = field(default_factory=dict)
    # What the analyses derived from this tree alone (a caller's calls, a walk's facts),
    # kept with it.
    facts: dict[object, object] = field(default_factory=dict)


def _decorators(statement: ast.stmt) -> list[ast.expr]:
    return getattr(statement, "decorator_list", [])


class _Builder(ExpressionBuilder):
    """One unit's conversion: its statements, around the expressions the base class makes,
    and where each compound statement and indented block lies in the text."""

    def __init__(self, text: str, shift: int) -> None:
        super().__init__(text, shift)
        self.blocks: dict[int, tuple[int, int]] = {}

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
        end = self.offset(*ast_end(last))
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
            made: Any
            if type(node) is ast.FunctionDef:  # (its decorators lie before its start: no text)
                return self._function(node)
            if type(node) is ast.For:
                made = self._for(node)
            elif type(node) is ast.With:
                made = self._with(node)
            elif type(node) is ast.If:
                made = self._if(node)
            elif type(node) is ast.While:
                made = self._while(node)
            elif type(node) is ast.ClassDef:
                return self._class(node)
            else:
                return STATEMENT_LINE_OF((self.small(node),))
            end = self.offset(*ast_end(node))
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
        if type(node) is ast.Assign:
            targets = [ASSIGN_TARGET_OF(self.expr(t)) for t in node.targets]
            made = ASSIGN(targets=targets, value=self.expr(node.value))
        elif type(node) is ast.Expr:
            made = make(cst.Expr, value=self.expr(node.value))
        elif type(node) is ast.AugAssign:
            made = make(
                cst.AugAssign,
                target=self.expr(node.target),
                operator=AUGMENTED_OPERATORS[type(node.op)],
                value=self.expr(node.value),
            )
        elif type(node) is ast.AnnAssign:
            target = self.expr(node.target)
            annotation = self.shapeless_node(
                make(cst.Annotation, annotation=self.expr(node.annotation))
            )
            value = node.value
            made = make(
                cst.AnnAssign,
                target=target,
                annotation=annotation,
                value=self.expr(value) if value is not None else None,
                equal=ASSIGN_EQUAL if value is not None else cst.MaybeSentinel.DEFAULT,
            )
        elif type(node) is ast.Return:
            value = node.value
            made = make(cst.Return, value=self.expr(value) if value is not None else None)
        elif type(node) is ast.Pass:
            made = make(cst.Pass)
        elif type(node) is ast.Break:
            made = make(cst.Break)
        elif type(node) is ast.Continue:
            made = make(cst.Continue)
        elif type(node) is ast.Assert:
            msg = node.msg
            made = make(
                cst.Assert,
                test=self.expr(node.test),
                msg=self.expr(msg) if msg is not None else None,
            )
        elif type(node) is ast.Raise:
            exc, cause = node.exc, node.cause
            made = make(
                cst.Raise,
                exc=self.expr(exc) if exc is not None else None,
                cause=self.shapeless_node(make(cst.From, item=self.expr(cause)))
                if cause is not None
                else None,
            )
        elif kind is ast.Import or kind is ast.ImportFrom:
            made = self._parsed_statement(start, end)
        else:
            raise NotConvertible(f"a {kind.__name__} statement")
        return self.placed(made, start, end)

    def _parsed_statement(self, start: int, end: int) -> Any:
        """libcst's own tree of the small statement at ``start:end`` (an ``import`` in a
        function body, which nothing reads but a name it binds: rarer than making it is
        worth, and far cheaper than parsing the whole function with libcst instead)."""
        code = without_block_indent(self.text[start:end], self.indent)
        try:
            line = cst.parse_statement(code + "\n")
        except Exception as err:
            raise NotConvertible(f"libcst refuses {code[:40]!r}") from err
        if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
            raise NotConvertible(f"libcst reads {code[:40]!r} otherwise")
        return line.body[0]

    def _after_on_line(self, end: int) -> str:
        text = self.text
        size = len(text)
        i = end
        while i < size and text[i] in " \t\f":  # (Python's whitespace in a line)
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
        name = self.shapeless_node(PLAIN_NAME(node.name))
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
        name = self.shapeless_node(PLAIN_NAME(arg.arg))
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
                name = self.shapeless_node(PLAIN_NAME(keyword.arg))
                made = make(cst.Arg, value=self.expr(keyword.value), keyword=name)
                keywords.append(self.shapeless_node(made))
        name = self.shapeless_node(PLAIN_NAME(node.name))
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

