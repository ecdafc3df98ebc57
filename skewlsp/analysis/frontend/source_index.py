"""A cheap, whole-module index built with the stdlib parser.

libcst is the source of truth for loop analysis, but parsing a whole
2,000-line kernel with it (and resolving positions) costs seconds. The stdlib
``ast`` parser costs milliseconds, so it does the module-wide work: it finds
syntax errors, module constants, imports, and the few *units* (functions or
top-level statements) that contain ``pipeline`` loops. Only those units are
handed to libcst, so the cost follows the loops, not the file size.
"""

from __future__ import annotations

import ast
import bisect
import functools
import re
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace

from skewlsp.analysis.frontend.text_search import called_names, mentions_pipeline_loop
from skewlsp.analysis.frontend.top_level import (
    ATTRIBUTE_WRITE,
    AttributeWrite,
    ImportedModule,
    ImportedName,
    attribute_writes,
    collect_imports,
    segment,
)
from skewlsp.analysis.source import layout
from skewlsp.analysis.source.lines import source_lines


@dataclass(frozen=True)
class SyntaxProblem:
    """Where and why the stdlib parser refused the file (1-based line and column)."""

    message: str
    line: int
    column: int


# How many inline helpers deep a caller's own callers are followed (a helper calling a
# helper calling a helper...).
MAX_HELPER_CHAIN = 4


@dataclass(frozen=True)
class Unit:
    """A slice of the module that holds pipeline loops, parsed on its own by libcst.

    ``text`` is parseable as a module by itself: an indented unit is wrapped in
    ``if 1:`` so that columns stay exactly those of the file; ``line_offset``
    maps the unit's lines back to the file's.
    """

    text: str
    line_offset: int
    qualname: str
    # For an ``@pl.jit.inline`` helper: the module's top-level functions that call it
    # (their text and line offset), since each call decides the helper's loops anew; a
    # caller that is an inline helper too has its own callers here.
    callers: tuple[Unit, ...] = ()
    # The text the analysis last saw when only comments changed since (a language server's
    # edits): the loops' verdicts and places are that text's. None: ``text`` itself.
    cache_text: str | None = None

    @property
    def cache_key(self) -> tuple[str, int]:
        """What this unit's results depend on: its text up to comments, and its place."""
        return (self.cache_text or self.text, self.line_offset)


@dataclass
class ModuleIndex:
    syntax_problem: SyntaxProblem | None = None
    constant_sources: dict[str, str] = field(default_factory=dict)
    class_sources: Mapping[str, str] = field(default_factory=dict)
    function_sources: Mapping[str, str] = field(default_factory=dict)
    # Where each top-level function starts (0-based line of its first decorator or ``def``).
    function_offsets: Mapping[str, int] = field(default_factory=dict)
    # Line ranges where an edit can change more than one unit's text (imports, module
    # constants, the classes and functions they use); None: rebuild on every edit.
    sensitive_lines: tuple[tuple[int, int], ...] | None = None
    imported: dict[str, ImportedName] = field(default_factory=dict)
    # ``import config``: the modules bound at the top level, and the attributes of theirs
    # it sets while it loads (``config.TP = TP_SIZE``), in order (:mod:`.import_order`).
    modules: dict[str, ImportedModule] = field(default_factory=dict)
    attribute_writes: tuple[AttributeWrite, ...] = ()
    pl_aliases: frozenset[str] = frozenset()
    pipeline_names: frozenset[str] = frozenset()
    imports_pypto: bool = False
    units: list[Unit] = field(default_factory=list)
    # The whole text is known to parse (set once checked; an incremental update inside a
    # unit keeps it, since the unit's own parse then covers the edited text).
    known_to_parse: bool = False


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][\w, ]*(?::[^=]+)?=(?!=)")
_PYPTO_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+pypto|import[ \t]+pypto)[^\n]*$", re.MULTILINE)
# A top-level binding this long is a data table, not configuration: its value is kept as
# text and never parsed here (a 2-million-element list makes a tree of gigabytes, and the
# analysis folds a constant only if a loop reads it).
LARGE_BINDING = 64 * 1024
_SIMPLE_BINDING = re.compile(r"([A-Za-z_]\w*)[ \t]*(?::[^=\n]+)?=(?!=)")
_CHAINED = re.compile(r"[A-Za-z_][\w.]*[ \t]*=(?!=)")


@dataclass(frozen=True)
class _Unparsed:
    """A large ``NAME = value`` block: the name it binds and the value's text."""

    name: str
    value: str


def build_index(source: str, tree: ast.Module | None = None) -> ModuleIndex:
    """Index ``source`` from its layout, parsing only small blocks; never raises.

    Falls back to the exact whole-module index when anything looks off, so a
    surprising layout costs time, never correctness. With ``tree`` (the stdlib tree
    of ``source``, which a batch run parses anyway), blocks are read from it instead.
    """
    try:
        return _fast_index(source, tree)
    except (SyntaxError, ValueError, RecursionError, _LayoutSurprise):
        return build_exact_index(source, tree)


@functools.lru_cache(maxsize=64)
def imported_module_index(source: str) -> ModuleIndex:
    """:func:`build_index` of a module another one imports, memoised by its text.

    A package's config and helper modules are imported by every kernel in it, and were
    indexed again for each. Such an index is only read (its constants, classes and
    helper units), never updated, so one serves every importer.
    """
    return build_index(source)


class BlockTexts(Mapping[str, str]):
    """Source texts of top-level blocks, cut out of the file only when asked for.

    A large kernel file has thousands of functions; only the few a constant
    calls or builds are ever read.
    """

    def __init__(self, page: layout.Layout, blocks: dict[str, layout.Block]) -> None:
        self._page = page
        self._blocks = blocks

    def __getitem__(self, name: str) -> str:
        return self._page.text(self._blocks[name])

    def __iter__(self) -> Iterator[str]:
        return iter(self._blocks)

    def __len__(self) -> int:
        return len(self._blocks)


class _LayoutSurprise(Exception):
    """The text splitter met something it does not model; use the exact index."""


def _fast_index(source: str, tree: ast.Module | None) -> ModuleIndex:
    page = layout.Layout(source)
    lines = page.lines
    blocks_of = _BlocksOfTree(tree.body) if tree is not None else None
    index = ModuleIndex()
    imports: list[ast.stmt] = []
    writes: list[ast.stmt] = []
    big: list[AttributeWrite] = []  # (a data table set on a module: kept as text)
    constants: list[ast.stmt | _Unparsed] = []
    class_blocks: dict[str, layout.Block] = {}
    function_blocks: dict[str, layout.Block] = {}
    sensitive: list[tuple[int, int]] = []
    for block in page.blocks(1, len(lines), 0):
        header = block.header
        if header.startswith(("import ", "from ")):
            imports.extend(_statements(lines, block, blocks_of))
            sensitive.append((block.first, block.last))
        elif _ASSIGNMENT.match(header):
            large = _large_binding(page, block)
            constants.extend(
                [large] if large is not None else _statements(lines, block, blocks_of)
            )
            sensitive.append((block.first, block.last))
        elif ATTRIBUTE_WRITE.match(header):
            large = _large_binding(page, block, ATTRIBUTE_WRITE)
            if large is None:
                writes.extend(_statements(lines, block, blocks_of))
            else:
                alias, attr = large.name.split(".")
                big.append(AttributeWrite(alias, attr, large.value, block.first))
            sensitive.append((block.first, block.last))
        elif header.startswith("class "):
            name = header[6:].split("(")[0].split(":")[0].strip()
            class_blocks[name] = block
        elif header.startswith("def "):
            function_blocks[header[4:].split("(")[0].strip()] = block
    for match in _PYPTO_IMPORT.finditer(source):
        line = match.group().strip()
        if line.endswith(("(", "\\")):
            raise _LayoutSurprise(line)
        imports.extend(_import_line(line))
    _with_imports(index, ast.Module(body=imports, type_ignores=[]))
    # (``x = config.X = 1`` is a constant's block: its writes are read there too)
    parsed = [*writes, *(stmt for stmt in constants if isinstance(stmt, ast.stmt))]
    index.attribute_writes = tuple(
        sorted([*attribute_writes(parsed, lines), *big], key=lambda write: write.line)
    )
    index.constant_sources = _module_constants(constants, lines)
    index.class_sources = BlockTexts(page, class_blocks)
    index.function_sources = BlockTexts(page, function_blocks)
    index.function_offsets = {name: b.first - 1 for name, b in function_blocks.items()}
    used = set(_IDENTIFIER.findall(" ".join(index.constant_sources.values())))
    for blocks in (class_blocks, function_blocks):
        sensitive.extend((b.first, b.last) for name, b in blocks.items() if name in used)
    index.sensitive_lines = tuple(sorted(sensitive))
    hits = page.lines_containing("pipeline")
    units = list(_layout_units(page, 1, len(lines), 0, "", index.pipeline_names, hits))
    index.units = _with_callers(
        units, lambda: {n: (page.text(b), b.first - 1) for n, b in function_blocks.items()}
    )
    return index


def _import_line(line: str) -> tuple[ast.stmt, ...]:
    """The statements of one ``import pypto...`` line."""
    return tuple(ast.parse(line).body)


INLINE_DECORATOR = re.compile(r"^[ \t]*@[ \t]*[\w.]*\bjit\.inline\b", re.MULTILINE)


def is_inline_helper_unit(unit: Unit) -> bool:
    """A top-level function unit decorated ``@pl.jit.inline`` (read off its text)."""
    head = unit.text[: unit.text.find("def ")]
    return (
        "." not in unit.qualname
        and not unit.text.startswith("if 1:")
        and INLINE_DECORATOR.search(head) is not None
    )


def _with_callers(
    units: list[Unit], functions: Callable[[], Mapping[str, tuple[str, int]]]
) -> list[Unit]:
    """Give each top-level ``@pl.jit.inline`` helper unit the functions that call it.

    A caller is found by its text (``helper(``): a function that only mentions the
    name is parsed for nothing, never missed. ``functions`` is asked only when the
    module has an inline helper with loops.
    """
    known: Mapping[str, tuple[str, int]] | None = None
    found: list[Unit] = []
    for unit in units:
        if not is_inline_helper_unit(unit):
            found.append(unit)
            continue
        if known is None:
            known = functions()
        found.append(replace(unit, callers=_callers_of(unit.qualname, known, (unit.qualname,))))
    return found


def _callers_of(
    name: str, known: Mapping[str, tuple[str, int]], chain: tuple[str, ...]
) -> tuple[Unit, ...]:
    """The functions that call ``name``; a caller that is an inline helper itself comes
    with its own callers (``chain``: the helpers on the way, never followed twice),
    since where those call it decides where its body, and this call, is spliced."""
    callee = (name,)
    callers: list[Unit] = []
    for other, (text, offset) in known.items():
        if other in chain or not called_names(callee, text):
            continue
        caller = Unit(text if text.endswith("\n") else text + "\n", offset, other)
        if len(chain) < MAX_HELPER_CHAIN and is_inline_helper_unit(caller):
            caller = replace(caller, callers=_callers_of(other, known, (*chain, other)))
        callers.append(caller)
    return tuple(callers)


def _large_binding(
    page: layout.Layout, block: layout.Block, binding: re.Pattern[str] | None = None
) -> _Unparsed | None:
    """``NAME = value`` (``binding``: another target's pattern, ``config.NAME``) over
    :data:`LARGE_BINDING` characters, split without a parser."""
    if sum(len(line) for line in page.lines[block.first - 1 : block.last]) < LARGE_BINDING:
        return None
    text = page.text(block)
    match = (binding or _SIMPLE_BINDING).match(text)
    if match is None:
        return None
    value = text[match.end() :].strip()
    if _CHAINED.match(value):  # ``A = B = ...``: let the parser say what is bound
        return None
    return _Unparsed(match.group(1) if binding is None else match.group().rstrip(" \t="), value)


class _BlocksOfTree:
    """The module tree's top-level statements, looked up by the lines of a block."""

    def __init__(self, body: list[ast.stmt]) -> None:
        self._body = body
        self._starts = [_first_line(stmt) for stmt in body]

    def within(self, first: int, last: int) -> list[ast.stmt] | None:
        """The statements lying within lines ``first`` to ``last`` (None: one straddles
        either end, so the block is not whole statements)."""
        i = bisect.bisect_left(self._starts, first)
        if i > 0 and (self._body[i - 1].end_lineno or 0) >= first:
            return None
        found = []
        while i < len(self._body) and self._starts[i] <= last:
            stmt = self._body[i]
            if (stmt.end_lineno or stmt.lineno) > last:
                return None
            found.append(stmt)
            i += 1
        return found


def _first_line(stmt: ast.stmt) -> int:
    decorators = getattr(stmt, "decorator_list", ())
    return min([stmt.lineno, *(d.lineno for d in decorators)])


def _statements(
    lines: list[str], block: layout.Block, tree: _BlocksOfTree | None
) -> list[ast.stmt]:
    """A top-level block's statements: from the module's tree if given and the block is
    whole statements of it (the nodes its own parse would give), else parsed."""
    if tree is not None:
        found = tree.within(block.first, block.last)
        if found:
            return found
    return _parse_block(lines, block)


def _parse_block(lines: list[str], block: layout.Block) -> list[ast.stmt]:
    """Parse one top-level block; its nodes keep the file's line numbers."""
    text = "\n" * (block.first - 1) + "".join(lines[block.first - 1 : block.last])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(text).body


def _layout_units(
    page: layout.Layout,
    first: int,
    last: int,
    indent: int,
    prefix: str,
    bare: frozenset[str],
    hits: list[int],
):
    for block in page.blocks(first, last, indent):
        i = bisect.bisect_left(hits, block.first)
        if i == len(hits) or hits[i] > block.last:
            continue
        text = page.text(block)
        header = block.header
        if header.startswith("class "):
            inner = page.body_indent(block)
            if inner is None:
                raise _LayoutSurprise(header)
            name = header[6:].split("(")[0].split(":")[0].strip()
            yield from _layout_units(
                page, block.first, block.last, inner, f"{prefix}{name}.", bare, hits
            )
            continue
        if not mentions_pipeline_loop(text, bare):
            continue
        if not text.endswith("\n"):
            text += "\n"
        name = header
        if header.startswith(("def ", "async def ")):
            name = header.split("def ", 1)[1].split("(")[0].strip()
        if block.indent > 0:
            yield Unit("if 1:\n" + text, block.first - 2, prefix + name)
        else:
            yield Unit(text, block.first - 1, prefix + name)


def may_hold_pipeline_loops(source: str) -> bool:
    """Whether ``source`` seems to hold a ``pipeline`` loop (read off its text: a loop over
    a renamed bare ``pipeline`` is missed, a loop inside a string is not)."""
    return mentions_pipeline_loop(source, frozenset())


def parse_whole(source: str) -> ast.Module | SyntaxProblem:
    """The stdlib tree of the whole file, or why Python would refuse to import it."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(source)
    except SyntaxError as err:
        return _syntax_problem(err)
    except (ValueError, RecursionError, MemoryError, OverflowError) as err:
        reason = (
            "too deeply nested"
            if isinstance(err, RecursionError)
            else (str(err) or type(err).__name__)
        )
        return SyntaxProblem(f"cannot parse: {reason}", 1, 1)


MAX_PARSED_BLOCKS = 20_000  # block texts remembered as parsing (a language server's edits)


def _uncovered_code(lines: Sequence[str], blocks: Sequence[layout.Block]) -> bool:
    """Whether a line that is neither blank nor a comment lies outside every block (the
    layout reads blocks off top-level heads: what it skips must be parsed another way)."""
    line = 1
    for block in [*blocks, layout.Block(len(lines) + 1, len(lines) + 1, 0, "")]:
        for text in lines[line - 1 : block.first - 1]:
            stripped = text.strip()
            if stripped and not stripped.startswith("#"):
                return True
        line = max(line, block.last + 1)
    return False


def syntax_problem(
    source: str,
    parsed: set[str] | None = None,
    on_parsed: Callable[[str, ast.Module], None] | None = None,
) -> SyntaxProblem | None:
    """Why Python would refuse to import ``source``, or None.

    With ``parsed`` (top-level block texts already known to parse, kept by the caller
    across edits), only the blocks not seen before are parsed: an edit costs the block
    it touched. A block that does not parse on its own (an ``else:`` the layout split
    from its ``if``) sends the question to the whole-file parse, which decides.
    ``on_parsed(text, tree)`` is given each block parsed here (the function an edit
    touched is often a unit that needs its stdlib tree too).
    """
    if parsed is None:
        whole = parse_whole(source)
        return whole if isinstance(whole, SyntaxProblem) else None
    page = layout.Layout(source)
    blocks = page.blocks(1, len(page.lines), 0)
    if _uncovered_code(page.lines, blocks):  # e.g. an indented first line, a lone decorator
        whole = parse_whole(source)
        return whole if isinstance(whole, SyntaxProblem) else None
    fresh: list[str] = []
    for block in blocks:
        text = page.text(block)
        if text in parsed:
            continue
        tree = parse_whole(text)
        if isinstance(tree, SyntaxProblem):
            whole = parse_whole(source)
            return whole if isinstance(whole, SyntaxProblem) else None
        if on_parsed is not None:
            on_parsed(text, tree)
        fresh.append(text)
    if len(parsed) + len(fresh) > MAX_PARSED_BLOCKS:
        parsed.clear()
    parsed.update(fresh)
    return None


def build_exact_index(source: str, parsed: ast.Module | None = None) -> ModuleIndex:
    """Index ``source`` with the stdlib parser: exact, and the judge of syntax errors.

    ``parsed``: the stdlib tree of ``source``, if the caller has it.
    """
    tree = parsed if parsed is not None else parse_whole(source)
    if isinstance(tree, SyntaxProblem):
        return ModuleIndex(syntax_problem=tree)
    lines = source_lines(source, keepends=True)
    index = ModuleIndex()
    _with_imports(index, tree)
    index.attribute_writes = attribute_writes(tree.body, lines)
    index.constant_sources = _module_constants(tree.body, lines)
    functions: dict[str, str] = {}
    classes: dict[str, str] = {}
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.ClassDef)) and stmt.end_lineno is not None:
            first = min([stmt.lineno, *(d.lineno for d in stmt.decorator_list)])
            text = "".join(lines[first - 1 : stmt.end_lineno])
            (functions if isinstance(stmt, ast.FunctionDef) else classes)[stmt.name] = text
    index.function_sources = functions
    index.class_sources = classes
    starts = {
        stmt.name: min([stmt.lineno, *(d.lineno for d in stmt.decorator_list)]) - 1
        for stmt in tree.body
        if isinstance(stmt, ast.FunctionDef)
    }
    index.function_offsets = starts
    units = list(_units(tree.body, lines, "", index.pipeline_names))
    index.units = _with_callers(
        units, lambda: {n: (functions[n], starts[n]) for n in functions if n in starts}
    )
    return index


def _syntax_problem(err: SyntaxError) -> SyntaxProblem:
    line = err.lineno or 1
    column = err.offset or 1
    return SyntaxProblem(err.msg or "invalid syntax", max(line, 1), max(column, 1))


def _with_imports(index: ModuleIndex, tree: ast.Module) -> None:
    found = collect_imports(tree)
    index.imported, index.modules = found.names, found.modules
    index.pl_aliases, index.pipeline_names = found.pl_aliases, found.pipeline_names
    index.imports_pypto = found.imports_pypto


def _module_constants(body: Sequence[ast.stmt | _Unparsed], lines: list[str]) -> dict[str, str]:
    """Top-level ``NAME = expr`` bindings, last one wins (as at decoration time)."""
    found: dict[str, str] = {}
    for stmt in body:
        if isinstance(stmt, _Unparsed):
            found[stmt.name] = stmt.value
        elif isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                _bind_target(target, stmt.value, lines, found)
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            _bind_target(stmt.target, stmt.value, lines, found)
        elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
            found.pop(stmt.target.id, None)
    return found


def _bind_target(
    target: ast.expr, value: ast.expr, lines: list[str], found: dict[str, str]
) -> None:
    if isinstance(target, ast.Name):
        text = segment(lines, value)
        if text is not None:
            found[target.id] = text
        else:
            found.pop(target.id, None)
    elif isinstance(target, (ast.Tuple, ast.List)):
        values = value.elts if isinstance(value, (ast.Tuple, ast.List)) else None
        for i, element in enumerate(target.elts):
            if values is not None and len(values) == len(target.elts):
                _bind_target(element, values[i], lines, found)
            elif isinstance(element, ast.Name):
                found.pop(element.id, None)


def _has_pipeline_loop(node: ast.AST, bare_names: frozenset[str]) -> bool:
    for child in ast.walk(node):
        if isinstance(child, (ast.For, ast.AsyncFor)) and isinstance(child.iter, ast.Call):
            func = child.iter.func
            if isinstance(func, ast.Attribute) and func.attr == "pipeline":
                return True
            if isinstance(func, ast.Name) and (func.id == "pipeline" or func.id in bare_names):
                return True
    return False


def _units(body: list[ast.stmt], lines: list[str], prefix: str, bare_names: frozenset[str]):
    for stmt in body:
        if isinstance(stmt, ast.ClassDef):
            yield from _units(stmt.body, lines, f"{prefix}{stmt.name}.", bare_names)
            continue
        if not _has_pipeline_loop(stmt, bare_names):
            continue
        first = stmt.lineno
        decorators = getattr(stmt, "decorator_list", [])
        if decorators:
            first = min(first, *(d.lineno for d in decorators))
        last = stmt.end_lineno or stmt.lineno
        name = getattr(stmt, "name", f"<line {stmt.lineno}>")
        text = "".join(lines[first - 1 : last])
        if not text.endswith("\n"):
            text += "\n"
        if stmt.col_offset > 0:
            yield Unit("if 1:\n" + text, first - 2, prefix + name)
        else:
            yield Unit(text, first - 1, prefix + name)
