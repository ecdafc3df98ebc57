"""Which names a piece of source reads and which it (re)binds.

These are the def/use facts the SSA-based pass sees, recovered from source:
subscript stores rebind the tensor they write (``t[a:b] = x`` is
``t = assemble(t, x, ...)``), augmented assignment reads and rebinds, and a
nested block counts as defining whatever it assigns.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterable, Iterator, Sequence

import libcst as cst

from .walk import children, walk


def reads_of(node: cst.CSTNode | None) -> list[str]:
    """Every name an expression reads, in source order (attribute names and keywords excluded)."""
    if node is None:
        return []
    reads: list[str] = []
    stack = [node]
    while stack:
        current = stack.pop()
        kind = type(current)  # exact types: these libcst classes have no subclasses
        if kind is cst.Name:
            reads.append(current.value)  # type: ignore[attr-defined]
        elif kind is cst.Attribute or kind is cst.Arg:
            stack.append(current.value)  # type: ignore[attr-defined]
        elif kind is not cst.Annotation:
            stack.extend(reversed(children(current)))
    return reads


def target_effects(target: cst.BaseExpression) -> tuple[list[str], list[str]]:
    """(defs, reads) of an assignment target."""
    if isinstance(target, cst.Name):
        return [target.value], []
    if isinstance(target, (cst.Tuple, cst.List)):
        defs: list[str] = []
        reads: list[str] = []
        for element in target.elements:
            d, r = target_effects(element.value)
            defs += d
            reads += r
        return defs, reads
    if isinstance(target, cst.StarredElement):
        return target_effects(target.value)
    if isinstance(target, cst.Subscript):
        base = target.value
        reads = [name for element in target.slice for name in reads_of(element)]
        if isinstance(base, cst.Name):
            return [base.value], [base.value, *reads]
        return [], reads_of(base) + reads
    return [], reads_of(target)


def small_statement_effects(stmt: cst.BaseSmallStatement) -> tuple[list[str], list[str]]:
    """(defs, reads) of one small statement, reads in evaluation order."""
    if isinstance(stmt, cst.Assign):
        reads = reads_of(stmt.value)
        defs: list[str] = []
        for target in stmt.targets:
            d, r = target_effects(target.target)
            defs += d
            reads += r
        return defs, reads
    if isinstance(stmt, cst.AnnAssign):
        if stmt.value is None:
            return [], []
        d, r = target_effects(stmt.target)
        return d, reads_of(stmt.value) + r
    if isinstance(stmt, cst.AugAssign):
        d, r = target_effects(stmt.target)
        own = [stmt.target.value] if isinstance(stmt.target, cst.Name) else []
        return d, own + r + reads_of(stmt.value)
    if isinstance(stmt, (cst.Import, cst.ImportFrom)):
        return [], []
    return [], reads_of(stmt)


def block_effects(statements: Sequence[cst.CSTNode]) -> tuple[list[str], list[str]]:
    """(defs, external reads) of a block: a read is external unless the block bound it before."""
    defined: set[str] = set()
    defs: list[str] = []
    external: list[str] = []
    for stmt in statements:
        d, r = statement_effects(stmt)
        external += [name for name in r if name not in defined]
        defined.update(d)
        defs += d
    return defs, external


# While a unit is analysed, each statement's effects are computed once: the function
# body, each loop body and each top-level statement ask again for the same nested
# statements. libcst nodes hash by identity, so they key the memo themselves; a context
# variable scopes it to one unit's analysis in whichever thread runs it (a language
# server analyses documents in worker threads).
_Effects = tuple[tuple[str, ...], tuple[str, ...]]
_MEMO: contextvars.ContextVar[dict[cst.CSTNode, _Effects] | None] = contextvars.ContextVar(
    "statement_effects_memo", default=None
)


@contextlib.contextmanager
def memoised_effects() -> Iterator[None]:
    """Within this block (one unit's analysis), ``statement_effects`` answers each node once."""
    token = _MEMO.set({})
    try:
        yield
    finally:
        _MEMO.reset(token)


def statement_effects(stmt: cst.CSTNode) -> tuple[list[str], list[str]]:
    """(defs, external reads) of any statement, compound ones included."""
    memo = _MEMO.get()
    if memo is None:
        return _statement_effects(stmt)
    found = memo.get(stmt)
    if found is None:
        defs, reads = _statement_effects(stmt)
        found = memo[stmt] = (tuple(defs), tuple(reads))
    return list(found[0]), list(found[1])  # callers extend what they get


def _statement_effects(stmt: cst.CSTNode) -> tuple[list[str], list[str]]:
    if isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
        return block_effects(stmt.body)
    if isinstance(stmt, cst.BaseSmallStatement):
        return small_statement_effects(stmt)
    if isinstance(stmt, cst.If):
        reads = reads_of(stmt.test)
        defs, inner = block_effects(_body(stmt.body))
        reads += inner
        if stmt.orelse is not None:
            d, r = statement_effects(stmt.orelse)
            defs += d
            reads += r
        return defs, reads
    if isinstance(stmt, cst.Else):
        return block_effects(_body(stmt.body))
    if isinstance(stmt, cst.For):
        target_defs, _ = target_effects(stmt.target)
        defs, inner = block_effects(_body(stmt.body))
        loop_names = set(target_defs)
        reads = reads_of(stmt.iter) + [n for n in inner if n not in loop_names]
        if stmt.orelse is not None:
            d, r = statement_effects(stmt.orelse)
            defs += d
            reads += r
        return defs, reads
    if isinstance(stmt, cst.While):
        defs, inner = block_effects(_body(stmt.body))
        return defs, reads_of(stmt.test) + inner
    if isinstance(stmt, cst.With):
        reads: list[str] = []
        bound: list[str] = []
        for item in stmt.items:
            reads += reads_of(item.item)
            if item.asname is not None:
                bound += target_effects(item.asname.name)[0]
        defs, inner = block_effects(_body(stmt.body))
        return bound + defs, reads + [n for n in inner if n not in bound]
    if isinstance(stmt, cst.Try):
        defs, reads = block_effects(_body(stmt.body))
        for handler in stmt.handlers:
            d, r = block_effects(_body(handler.body))
            defs += d
            reads += r
        for extra in (stmt.orelse, stmt.finalbody):
            if extra is not None:
                d, r = block_effects(_body(extra.body))
                defs += d
                reads += r
        return defs, reads
    if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
        return [stmt.name.value], []
    return [], reads_of(stmt)


def _body(suite: cst.BaseSuite) -> Sequence[cst.CSTNode]:
    if isinstance(suite, cst.IndentedBlock):
        return suite.body
    if isinstance(suite, cst.SimpleStatementSuite):
        return suite.body
    return []


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
        if isinstance(current, cst.Subscript):
            return True
        if isinstance(current, cst.Call):
            func = current.func
            if not (
                isinstance(func, cst.Attribute)
                and isinstance(func.value, cst.Name)
                and func.value.value == "pl"
                and func.attr.value in SCALAR_EXPRESSION_OPS
            ):
                return True
    return False
