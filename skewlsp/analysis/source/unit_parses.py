"""The stdlib and libcst parses of unit texts, shared within one analysis of a module.

A function can be parsed for two reasons in one analysis: it holds loops (a
unit), and it calls an ``@pl.jit.inline`` helper (a caller, parsed to find the
call sites). Both parsers gave it a tree each time: on pypto-lib's kernels the
callers were parsed again with libcst 72 times and with ``ast`` 104 times, a
tenth of a cold run. Inside :func:`shared_unit_parses`, a text is parsed at
most once by each parser; outside, every call parses (nothing is kept).
Both kinds of trees are read, never changed, by the analysis.

A batch run also parses the whole file with ``ast`` (Python refuses a file for a
syntax error anywhere in it). Given that tree (:func:`share_module_tree`), a
unit's stdlib tree is cut out of it instead of parsed again: the same statement
nodes, whose line numbers are then the file's, not the unit text's
(:class:`UnitTree` says by how much).

The analysis reads libcst-shaped trees built from the stdlib trees
(:mod:`cst_from_ast`; on pypto-lib's units 0.6 s where libcst's parse took 2.7 s).
A rewrite needs libcst's own (:func:`concrete_trees`), and so does any unit whose
analysis asks a made tree for code it cannot give (:class:`NeedsConcreteTree`).
"""

from __future__ import annotations

import ast
import contextlib
import contextvars
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

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


@dataclass
class _Parses:
    stdlib: dict[str, UnitTree | BaseException] = field(default_factory=dict)
    concrete: dict[str, cst.Module | None] = field(default_factory=dict)
    module: ast.Module | None = None  # the whole file's tree, when the caller has it
    source: str = ""
    lines: list[str] | None = None  # the file's, with their ends (split on first use)
    facts: dict[object, object] = field(default_factory=dict)  # see analysis_facts
    made: dict[str, Converted | None] = field(default_factory=dict)  # None: not convertible
    made_trees: list[Converted] = field(default_factory=list)  # made in this analysis
    # id -> (the made node, kept alive while its id is a key; the original; replacements)
    replaced: dict[int, tuple[cst.CSTNode, cst.CSTNode, dict[int, str]]] = field(
        default_factory=dict
    )


_SHARED: contextvars.ContextVar[_Parses | None] = contextvars.ContextVar(
    "unit_parses", default=None
)


@contextlib.contextmanager
def shared_unit_parses() -> Iterator[None]:
    """Share the parses of unit texts until the block ends (one module's analysis).

    Nested use keeps the outer scope's parses (an imported helper analysed while
    its importer is).
    """
    if _SHARED.get() is not None:
        yield
        return
    token = _SHARED.set(_Parses())
    try:
        yield
    finally:
        _SHARED.reset(token)


def share_parsed_text(text: str, tree: ast.Module) -> None:
    """``tree`` is ``ast.parse(text)``: a unit with that text takes it instead of parsing."""
    shared = _SHARED.get()
    if shared is not None and text not in shared.stdlib:
        shared.stdlib[text] = UnitTree(tree)


def analysis_facts() -> dict[object, object] | None:
    """A dict that lives as long as the current analysis of a module (None outside one):
    for facts derived from the shared trees that several questions ask again (a caller's
    calls, asked once per helper it calls)."""
    shared = _SHARED.get()
    return shared.facts if shared is not None else None


def share_module_tree(tree: ast.Module, source: str) -> None:
    """Cut unit trees out of ``tree`` (the stdlib tree of ``source``) until the scope ends."""
    shared = _SHARED.get()
    if shared is not None:
        shared.module, shared.source, shared.lines = tree, source, None


def stdlib_tree(text: str) -> ast.Module:
    """``ast.parse(text)`` with its warnings silenced; raises what it raises, every time."""
    found = unit_tree(text, None)
    if found.shift:  # cut out of the module's tree: not what parsing the text gives
        return _parse(text).tree
    return found.tree


def unit_tree(text: str, line_offset: int | None) -> UnitTree:
    """The stdlib tree of ``text``, which is the file's from line ``line_offset + 1`` if
    ``line_offset`` is given (a unit: maybe wrapped in ``if 1:``); raises as ``ast.parse``."""
    shared = _SHARED.get()
    found = shared.stdlib.get(text) if shared is not None else None
    if found is None:
        cut = None
        if shared is not None and shared.module is not None and line_offset is not None:
            cut = _cut_out(shared, text, line_offset)
        found = cut if cut is not None else _parse_kept(text)
        if shared is not None:
            shared.stdlib[text] = found
    if isinstance(found, BaseException):
        raise found
    return found


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


def _cut_out(shared: _Parses, text: str, line_offset: int) -> UnitTree | None:
    """The unit's statements from the module's tree, or None if the text is not exactly
    whole statements of that file at that place (then the text is parsed)."""
    if shared.lines is None:
        shared.lines = source_lines(shared.source, keepends=True)
    lines = shared.lines
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
    assert shared.module is not None
    statements = _statements_within(shared.module.body, first, first + count - 1)
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


def concrete_module(text: str) -> cst.Module | None:
    """libcst's tree of ``text`` (None if libcst refuses it), parsed if not shared yet."""
    shared = _SHARED.get()
    if shared is None:
        return parse_or_none(text)
    if text in shared.concrete:
        return shared.concrete[text]
    found = shared.concrete[text] = parse_or_none(text)
    return found


class NeedsConcreteTree(Exception):
    """The analysis asked a made tree for code it cannot give exactly (a comment inside an
    expression, a node rendered with whitespace it never had): decide the unit again on
    libcst's own parse."""


_CONCRETE: contextvars.ContextVar[bool] = contextvars.ContextVar("concrete_trees", default=False)


@contextlib.contextmanager
def concrete_trees() -> Iterator[None]:
    """Give the analysis libcst's own trees until the block ends (a rewrite prints nodes
    of the tree the analysis read, with the whitespace and comments of the text)."""
    token = _CONCRETE.set(True)
    try:
        yield
    finally:
        _CONCRETE.reset(token)


def making_trees() -> bool:
    """Whether the analysis running now reads trees made from the stdlib's."""
    return not _CONCRETE.get() and _SHARED.get() is not None


MADE_KEPT = 64  # made trees that outlive one analysis (a server re-analyses per edit)
_made_kept: Kept[str, Converted | None] = Kept(MADE_KEPT)


def analysis_module(text: str, tree: Callable[[], UnitTree]) -> cst.Module | None:
    """The tree the analysis reads for ``text`` (whose stdlib tree ``tree()`` gives): made
    from that tree within an analysis of a module, libcst's where it cannot be made or
    concrete trees are asked for.

    Made trees are kept across analyses by text (a server's edit changes one function;
    the helpers and callers around it are read again as they were): their nodes' places
    are offsets into the text, whatever line it starts on.
    """
    shared = _SHARED.get()
    if shared is None or _CONCRETE.get():
        return concrete_module(text)
    if text in shared.made:
        found = shared.made[text]
    else:
        found = _made_kept.get_or_make(text, lambda: _made(text, tree))
        shared.made[text] = found
        if found is not None:
            shared.made_trees.append(found)
    if found is None:
        return concrete_module(text)
    return found.module


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


def made_facts(text: str) -> dict[object, object] | None:
    """The facts kept with the made tree of ``text`` in this analysis (None: not made)."""
    shared = _SHARED.get()
    found = shared.made.get(text) if shared is not None and not _CONCRETE.get() else None
    return found.facts if found is not None else None


def made_trees() -> Sequence[Converted]:
    """The trees made in the analysis running now (none outside one)."""
    shared = _SHARED.get()
    return shared.made_trees if shared is not None else ()


def note_replaced(made: cst.CSTNode, original: cst.CSTNode, replacements: dict[int, str]) -> None:
    """``made`` is ``original`` with the nodes keyed by id in ``replacements`` read as those
    names: its code is the original's with theirs replaced (see ``tree_text``)."""
    shared = _SHARED.get()
    if shared is not None and not _CONCRETE.get() and is_made(original):
        shared.replaced[id(made)] = (made, original, dict(replacements))  # as they are now


def replaced_node(node: cst.CSTNode) -> tuple[cst.CSTNode, dict[int, str]] | None:
    """What :func:`note_replaced` said ``node`` was made from (None: nothing)."""
    shared = _SHARED.get()
    found = shared.replaced.get(id(node)) if shared is not None else None
    return (found[1], found[2]) if found is not None else None


def is_made(node: cst.CSTNode) -> bool:
    """Whether ``node`` is a node of a tree made in this analysis (not libcst's parse)."""
    key = id(node)
    return any(key in made.shapeless or key in made.ranges for made in made_trees())
