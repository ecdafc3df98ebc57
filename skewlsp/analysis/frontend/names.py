"""Which names a piece of source reads and which it (re)binds.

These are the def/use facts the SSA-based pass sees, recovered from source:
subscript stores rebind the tensor they write (``t[a:b] = x`` is
``t = assemble(t, x, ...)``), augmented assignment reads and rebinds, and a
nested block counts as defining whatever it assigns.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import cast

import libcst as cst

from skewlsp.analysis.source.walk import names_under, walk


def reads_of(node: cst.CSTNode | None) -> list[str]:
    """Every name an expression reads, in source order (attribute names and keywords excluded)."""
    if node is None:
        return []
    # (an attribute's name and a keyword are no reads; an annotation's names are types)
    return names_under(node, _VALUE_ONLY, _NOT_READ)


# (exact types: these libcst classes have no subclasses)
_VALUE_ONLY = frozenset({cst.Attribute, cst.Arg})
_NOT_READ = frozenset({cst.Annotation})


def _no_reads(node: cst.CSTNode | None) -> list[str]:
    """What the effects functions read in place of :func:`reads_of` when only the
    names bound are asked for: reading every expression is most of their cost."""
    return []


_Reader = Callable[[cst.CSTNode | None], list[str]]


def target_effects(target: cst.BaseExpression) -> tuple[list[str], list[str]]:
    """(defs, reads) of an assignment target."""
    return _target_effects(target, reads_of)


def _target_effects(target: cst.BaseExpression, read: _Reader) -> tuple[list[str], list[str]]:
    # (exact types: an ABC's failed isinstance is slow)
    if type(target) is cst.Name:
        return [target.value], []
    if type(target) is cst.Tuple or type(target) is cst.List:
        defs: list[str] = []
        reads: list[str] = []
        for element in target.elements:
            d, r = _target_effects(element.value, read)
            defs += d
            reads += r
        return defs, reads
    if isinstance(target, cst.StarredElement):
        return _target_effects(target.value, read)
    if isinstance(target, cst.Subscript):
        base = target.value
        reads = [name for element in target.slice for name in read(element)]
        if isinstance(base, cst.Name):
            return [base.value], [base.value, *reads]
        return [], read(base) + reads
    return [], read(target)


def binding_of(
    small: cst.CSTNode | None,
) -> tuple[cst.BaseExpression | None, cst.BaseExpression | None, cst.Annotation | None]:
    """``target = value`` or ``target: annotation = value`` with one target: (target, value,
    annotation); (None, None, None) for any other statement (several targets included)."""
    if isinstance(small, cst.Assign) and len(small.targets) == 1:
        return small.targets[0].target, small.value, None
    if isinstance(small, cst.AnnAssign):
        return small.target, small.value, small.annotation
    return None, None, None


def small_statement_effects(stmt: cst.BaseSmallStatement) -> tuple[list[str], list[str]]:
    """(defs, reads) of one small statement, reads in evaluation order."""
    return _small_effects(stmt, reads_of)


def _small_effects(stmt: cst.BaseSmallStatement, read: _Reader) -> tuple[list[str], list[str]]:
    if type(stmt) is cst.Assign:
        reads = read(stmt.value)
        defs: list[str] = []
        for target in stmt.targets:
            d, r = _target_effects(target.target, read)
            defs += d
            reads += r
        return defs, reads
    if isinstance(stmt, cst.AnnAssign):
        if stmt.value is None:
            return [], []
        d, r = _target_effects(stmt.target, read)
        return d, read(stmt.value) + r
    if isinstance(stmt, cst.AugAssign):
        d, r = _target_effects(stmt.target, read)
        own = [stmt.target.value] if isinstance(stmt.target, cst.Name) else []
        return d, own + r + read(stmt.value)
    if isinstance(stmt, (cst.Import, cst.ImportFrom)):
        return [], []
    return [], read(stmt)


def block_effects(statements: Sequence[cst.CSTNode]) -> tuple[list[str], list[str]]:
    """(defs, external reads) of a block: a read is external unless the block bound it before."""
    return _block_effects(statements, reads_of)


def block_defs(statements: Sequence[cst.CSTNode]) -> list[str]:
    """The names a block binds, as :func:`block_effects` lists them, without reading the
    expressions: what a scope needs of the statements around a loop."""
    return _block_effects(statements, _no_reads)[0]


def _block_effects(
    statements: Sequence[cst.CSTNode], read: _Reader
) -> tuple[list[str], list[str]]:
    defined: set[str] = set()
    defs: list[str] = []
    external: list[str] = []
    for stmt in statements:
        d, r = _effects(stmt, read)
        external += [name for name in r if name not in defined]
        defined.update(d)
        defs += d
    return defs, external


def statement_effects(stmt: cst.CSTNode) -> tuple[list[str], list[str]]:
    """(defs, external reads) of any statement, compound ones included."""
    return _effects(stmt, reads_of)


def statement_defs(stmt: cst.CSTNode) -> list[str]:
    """The names any statement binds, as :func:`statement_effects` lists them."""
    return _effects(stmt, _no_reads)[0]


def _effects(stmt: cst.CSTNode, read: _Reader) -> tuple[list[str], list[str]]:
    kind = type(stmt)  # exact types first: an ABC's isinstance costs a call when it fails
    if kind is cst.SimpleStatementLine or kind is cst.SimpleStatementSuite:
        return _block_effects(cast("cst.SimpleStatementLine", stmt).body, read)  # (either)
    if kind in _SMALL or isinstance(stmt, cst.BaseSmallStatement):
        return _small_effects(cast(cst.BaseSmallStatement, stmt), read)  # (_SMALL's are)
    if type(stmt) is cst.If:
        return _if_effects(stmt, read)
    if type(stmt) is cst.Else:
        return _block_effects(_body(stmt.body), read)
    if type(stmt) is cst.For:
        return _for_effects(stmt, read)
    if isinstance(stmt, cst.While):
        defs, inner = _block_effects(_body(stmt.body), read)
        return defs, read(stmt.test) + inner
    if isinstance(stmt, cst.With):
        return _with_effects(stmt, read)
    if isinstance(stmt, cst.Try):
        return _try_effects(stmt, read)
    if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
        return [stmt.name.value], []
    return [], read(stmt)


def _if_effects(stmt: cst.If, read: _Reader) -> tuple[list[str], list[str]]:
    reads = read(stmt.test)
    defs, inner = _block_effects(_body(stmt.body), read)
    reads += inner
    if stmt.orelse is not None:
        d, r = _effects(stmt.orelse, read)
        defs += d
        reads += r
    return defs, reads


def _for_effects(stmt: cst.For, read: _Reader) -> tuple[list[str], list[str]]:
    """The loop's own target is bound inside it: the body's reads of it are not external."""
    target_defs, _ = _target_effects(stmt.target, read)
    defs, inner = _block_effects(_body(stmt.body), read)
    loop_names = set(target_defs)
    reads = read(stmt.iter) + [n for n in inner if n not in loop_names]
    if stmt.orelse is not None:
        d, r = _effects(stmt.orelse, read)
        defs += d
        reads += r
    return defs, reads


def _with_effects(stmt: cst.With, read: _Reader) -> tuple[list[str], list[str]]:
    """The ``as`` names are bound before the body: its reads of them are not external."""
    reads: list[str] = []
    bound: list[str] = []
    for item in stmt.items:
        reads += read(item.item)
        if item.asname is not None:
            bound += _target_effects(item.asname.name, read)[0]
    defs, inner = _block_effects(_body(stmt.body), read)
    return bound + defs, reads + [n for n in inner if n not in bound]


def _try_effects(stmt: cst.Try, read: _Reader) -> tuple[list[str], list[str]]:
    defs, reads = _block_effects(_body(stmt.body), read)
    for handler in stmt.handlers:
        d, r = _block_effects(_body(handler.body), read)
        defs += d
        reads += r
    for extra in (stmt.orelse, stmt.finalbody):
        if extra is not None:
            d, r = _block_effects(_body(extra.body), read)
            defs += d
            reads += r
    return defs, reads


def _body(suite: cst.BaseSuite) -> Sequence[cst.CSTNode]:
    if type(suite) is cst.IndentedBlock or type(suite) is cst.SimpleStatementSuite:
        return suite.body
    return []


# The small statements (exact types, for dispatch without an ABC's isinstance).
_SMALL = frozenset(
    {cst.Assign, cst.AnnAssign, cst.AugAssign, cst.Expr, cst.Return, cst.Pass, cst.Break,
     cst.Continue, cst.Import, cst.ImportFrom, cst.Assert, cst.Raise, cst.Del, cst.Global,
     cst.Nonlocal}
)


def compound_suites(stmt: cst.BaseCompoundStatement) -> list[cst.BaseSuite]:
    """A compound statement's suites in order: its body, then each ``elif``/``else`` (or a
    loop's ``else``) down its ``orelse`` chain."""
    suites = [stmt.body]
    orelse = getattr(stmt, "orelse", None)
    while orelse is not None:
        suites.append(orelse.body)
        orelse = getattr(orelse, "orelse", None)
    return suites


def body_statements(suite: cst.BaseSuite) -> Sequence[cst.CSTNode]:
    """The statements of a suite, whether indented or on the header line."""
    return _body(suite)


def unique(names: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(names))


# Spellings the DSL parser turns into scalar expressions (Min, Max, Cast, ConstInt),
# not into op calls, when their operands are scalars.
SCALAR_EXPRESSION_OPS = frozenset({"min", "max", "cast", "const"})


def has_call(node: cst.CSTNode | None) -> bool:
    """True when an expression contains an op call or a subscript read (both calls in IR).

    ``pl.min``/``pl.max``/``pl.cast``/``pl.const`` of scalars are plain scalar
    arithmetic to the compiler, so they do not count.
    """
    if node is None:
        return False
    for current in walk(node):
        if type(current) is cst.Subscript:
            return True
        if type(current) is cst.Call:
            func = current.func
            if not (
                isinstance(func, cst.Attribute)
                and isinstance(func.value, cst.Name)
                and func.value.value == "pl"
                and func.attr.value in SCALAR_EXPRESSION_OPS
            ):
                return True
    return False
