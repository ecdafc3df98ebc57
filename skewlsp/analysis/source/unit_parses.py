"""The stdlib and libcst parses of unit texts, shared within one analysis of a module.

A function can be parsed for two reasons in one analysis: it holds loops (a
unit), and it calls an ``@pl.jit.inline`` helper (a caller, parsed to find the
call sites). Both parsers gave it a tree each time: on pypto-lib's kernels the
callers were parsed again with libcst 72 times and with ``ast`` 104 times, a
tenth of a cold run. One analysis's :class:`UnitParses` (held by its state,
``frontend.state.AnalysisState``) parses a text at most once with each parser.
Both kinds of trees are read, never changed, by the analysis.

A batch run also parses the whole file with ``ast`` (Python refuses a file for a
syntax error anywhere in it). Given that tree (:meth:`UnitParses.share_module_tree`),
a unit's stdlib tree is cut out of it instead of parsed again: the same statement
nodes, whose line numbers are then the file's, not the unit text's
(:class:`UnitTree` says by how much).

The analysis reads libcst-shaped trees built from the stdlib trees
(:mod:`cst_from_ast`; on pypto-lib's units 0.6 s where libcst's parse took 2.7 s).
A rewrite needs libcst's own, and so does any unit whose analysis asks a made tree
for code it cannot give (:class:`NeedsConcreteTree`).
"""

from __future__ import annotations

import ast
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import libcst as cst

from skewlsp.analysis.source.cst_expressions_from_ast import NotConvertible
from skewlsp.analysis.source.cst_from_ast import Converted, convert
from skewlsp.analysis.source.kept import Kept
from skewlsp.analysis.source.lines import line_count, source_lines


@dataclass(frozen=True)
class UnitTree:
    """A unit text's stdlib tree: its line ``n`` is the text's line ``n - shift``.

    Columns are the text's (a unit keeps the file's columns).
    """

    tree: ast.Module
    shift: int = 0


class UnitParses:
    """The trees of unit texts one analysis has asked for, by text: each parsed (or made)
    at most once."""

    def __init__(self) -> None:
        self._stdlib: dict[str, UnitTree | BaseException] = {}
        self._concrete: dict[str, cst.Module | None] = {}
        self._made: dict[str, Converted | None] = {}  # None: not convertible
        self._module: ast.Module | None = None  # the whole file's tree, when the caller has it
        self._source = ""
        self._lines: list[str] | None = None  # the file's, with their ends (split on first use)
        self._checked: set[str] = set()  # texts whose tree passed :meth:`checked_once`'s check

    def share_parsed_text(self, text: str, tree: ast.Module) -> None:
        """``tree`` is ``ast.parse(text)``: a unit with that text takes it instead of parsing."""
        if text not in self._stdlib:
            self._stdlib[text] = UnitTree(tree)

    def share_module_tree(self, tree: ast.Module, source: str) -> None:
        """Cut unit trees out of ``tree`` (the stdlib tree of ``source``) from now on."""
        self._module, self._source, self._lines = tree, source, None

    def module_tree(self, source: str) -> ast.Module | None:
        """The whole file's tree shared for ``source`` (None: none was): an analysis of the
        same text under another build reads the same tree."""
        return self._module if self._module is not None and self._source == source else None

    def unit_tree(self, text: str, line_offset: int | None) -> UnitTree:
        """The stdlib tree of ``text``, which is the file's from line ``line_offset + 1`` if
        ``line_offset`` is given (a unit: maybe wrapped in ``if 1:``); raises as
        ``ast.parse``, every time it is asked."""
        found = self._stdlib.get(text)
        if found is None:
            cut = None
            if self._module is not None and line_offset is not None:
                if self._lines is None:
                    self._lines = source_lines(self._source, keepends=True)
                cut = _cut_out(self._module, self._lines, text, line_offset)
            found = self._stdlib[text] = cut if cut is not None else _parse_kept(text)
        if isinstance(found, BaseException):
            raise found
        return found

    def checked_once(self, text: str, check: Callable[[], None]) -> None:
        """Run ``check()`` (which raises if the tree of ``text`` may not be walked) unless it
        passed for ``text`` already: every walk of a unit in the analysis (its own, its
        callers' for a helper, each other build's: ``driver.variants``) checks the same
        tree, and walking it was a hundredth of a cold lint of pypto-lib."""
        if text not in self._checked:
            check()
            self._checked.add(text)

    def concrete_module(self, text: str) -> cst.Module | None:
        """libcst's tree of ``text`` (None if libcst refuses it)."""
        if text not in self._concrete:
            self._concrete[text] = parse_or_none(text)
        return self._concrete[text]

    def made(self, text: str, tree: Callable[[], UnitTree]) -> Converted | None:
        """The tree made for ``text`` from its stdlib tree (which ``tree()`` gives); None
        where libcst's parse must serve instead.

        Made trees are kept across analyses by text (a server's edit changes one function;
        the helpers and callers around it are read again as they were): their nodes'
        places are offsets into the text, whatever line it starts on.
        """
        if text not in self._made:
            self._made[text] = _made_kept.get_or_make(text, lambda: _made(text, tree))
        return self._made[text]

    def made_so_far(self, text: str) -> Converted | None:
        """The tree made for ``text`` in this analysis, if one was (None: not yet, or not
        convertible)."""
        return self._made.get(text)


STDLIB_KEPT = 16  # stdlib trees of unit texts parsed alone, kept across analyses
_stdlib_kept: Kept[str, UnitTree] = Kept(STDLIB_KEPT)


def _parse_kept(text: str) -> UnitTree | BaseException:
    """``_parse(text)``, a tree kept across analyses: the texts parsed alone are those
    not cut from a file's tree (an imported helper, its callers; every unit in a language
    server), and the next analysis asks for the same ones again: pypto-lib's imported
    helpers were parsed again by each file that calls them. (A refusal is not kept: an
    exception raised again would carry every earlier raise's frames.)"""
    found = _stdlib_kept.get(text)
    if found is None:
        parsed = _parse(text)
        if isinstance(parsed, BaseException):
            return parsed
        _stdlib_kept.remember(text, parsed)
        found = parsed
    return found


def _parse(text: str) -> UnitTree | BaseException:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return UnitTree(ast.parse(text))
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError) as err:
        return err


_WRAPPER = "if 1:\n"


def _cut_out(module: ast.Module, lines: list[str], text: str, line_offset: int) -> UnitTree | None:
    """The unit's statements from ``module`` (the tree of the file whose ``lines`` these
    are), or None if the text is not exactly whole statements of that file at that place
    (then the text is parsed)."""
    wrapped = False
    body = text
    first = line_offset + 1
    count = line_count(body)
    if not _same_text(lines, first, count, body):
        if not text.startswith(_WRAPPER):
            return None
        wrapped, body, first = True, text[len(_WRAPPER) :], first + 1
        count = line_count(body)
        if not _same_text(lines, first, count, body):
            return None
    statements = _statements_within(module.body, first, first + count - 1)
    if not statements:
        return None
    if not wrapped:
        return UnitTree(ast.Module(body=statements, type_ignores=[]), line_offset)
    last = statements[-1]
    top = line_offset + 1  # the ``if 1:`` line, as the file's
    test = ast.Constant(
        value=1, kind=None, lineno=top, col_offset=3, end_lineno=top, end_col_offset=4
    )
    wrapper = ast.If(
        test=test,
        body=statements,
        orelse=[],
        lineno=top,
        col_offset=0,
        end_lineno=last.end_lineno,
        end_col_offset=last.end_col_offset,
    )
    return UnitTree(ast.Module(body=[wrapper], type_ignores=[]), line_offset)


def _same_text(lines: list[str], first: int, count: int, text: str) -> bool:
    """Whether ``text`` is the file's lines ``first`` to ``first + count - 1`` (a unit's
    text ends with a newline even where the file's last line does not)."""
    if first < 1 or count < 1 or first + count - 1 > len(lines):
        return False
    segment = "".join(lines[first - 1 : first - 1 + count])
    return segment == text or segment + "\n" == text


def _start(statement: ast.stmt) -> int:
    decorators = getattr(statement, "decorator_list", ())
    return min([statement.lineno, *(d.lineno for d in decorators)])


def _statements_within(body: list[ast.stmt], first: int, last: int) -> list[ast.stmt]:
    """The statements of ``body`` (or of a class in it) lying within lines ``first`` to
    ``last``; none if a statement straddles either end (not whole statements)."""
    inside: list[ast.stmt] = []
    for statement in body:
        start, end = _start(statement), statement.end_lineno or statement.lineno
        if end < first or start > last:
            continue
        if first <= start and end <= last:
            inside.append(statement)
        elif isinstance(statement, ast.ClassDef) and start < first and last <= end:
            return _statements_within(statement.body, first, last)
        else:
            return []
    return inside


def parse_or_none(text: str) -> cst.Module | None:
    try:
        return cst.parse_module(text)
    except Exception:
        return None


class NeedsConcreteTree(Exception):
    """The analysis asked a made tree for code it cannot give exactly (a comment inside an
    expression, a node rendered with whitespace it never had): decide the unit again on
    libcst's own parse."""


MADE_KEPT = 64  # made trees that outlive one analysis (a server re-analyses per edit)
_made_kept: Kept[str, Converted | None] = Kept(MADE_KEPT)


def _made(text: str, tree: Callable[[], UnitTree]) -> Converted | None:
    """The made tree of ``text``; None where libcst's parse must serve instead (a construct
    not made, a text Python refuses, or anything unforeseen: that path is exact anyway)."""
    try:
        unit = tree()
        return convert(unit.tree, text, unit.shift)
    except NotConvertible:
        return None
    except Exception:  # noqa: BLE001 - never worse than not making the tree
        return None
