"""A fast walk over libcst trees (and one over the stdlib's).

libcst's visitors (and ``CSTNode.children``) rebuild every node they pass
through, which costs several microseconds per node: on a kernel they were
most of the analysis time. The analysis only reads trees, so it walks the
dataclass fields directly. Children come in field order, which for the nodes
we look at is source order.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Callable, Iterator, Sequence

import libcst as cst

# Leaves whose one code field holds their text (a str; the others are parentheses): no
# children, so none are looked for.
_FIELDS: dict[type, tuple[str, ...]] = {
    kind: () for kind in (cst.Name, cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString)
}
# Leaf-only node families with nothing the analysis looks for inside.
_SKIPPED = (
    cst.BaseParenthesizableWhitespace,
    cst.Comma,
    cst.LeftParen,
    cst.RightParen,
    cst.LeftSquareBracket,
    cst.RightSquareBracket,
    cst.EmptyLine,
    cst.TrailingWhitespace,
    cst.Newline,
    cst.Comment,
    cst.Semicolon,
    cst.Colon,
    cst.AssignEqual,
    cst.Dot,
)


# Fields that only ever hold whitespace, punctuation or blank lines (by libcst's naming).
_PUNCTUATION_FIELDS = frozenset(
    {
        "lpar",
        "rpar",
        "lbracket",
        "rbracket",
        "lbrace",
        "rbrace",
        "comma",
        "semicolon",
        "colon",
        "equal",
        "star_tok",
        "leading_lines",
        "lines_after_decorators",
        "trailing_whitespace",
        "header",
        "footer",
        "newline",
        "relative",
    }
)


def _field_names(node: cst.CSTNode) -> tuple[str, ...]:
    """The fields of ``node``'s type that can hold code, looked up once per type."""
    kind = type(node)
    names = _FIELDS.get(kind)
    if names is None:
        names = tuple(
            field.name
            for field in dataclasses.fields(kind)
            if field.name not in _PUNCTUATION_FIELDS and not field.name.startswith("whitespace")
        )
        _FIELDS[kind] = names
    return names


# Per concrete type: is it a node worth walking into? (ABC isinstance checks are slow.)
_WALKED: dict[type, bool] = {}


def _walked(kind: type) -> bool:
    found = _WALKED.get(kind)
    if found is None:
        found = issubclass(kind, cst.CSTNode) and not issubclass(kind, _SKIPPED)
        _WALKED[kind] = found
    return found


def children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The child nodes of ``node`` that can hold code (whitespace and punctuation skipped).

    A list rather than a generator: the analysis asks for the children of every node
    it walks (close to a million times on a large kernel), and a generator's setup,
    like a call per field to ask whether its type is walked, cost more than the loop.
    """
    names = _FIELDS.get(type(node))
    if names is None:
        names = _field_names(node)
    found: list[cst.CSTNode] = []
    walked = _WALKED
    for name in names:
        value = getattr(node, name)
        kind = type(value)
        if kind is list or kind is tuple:
            for item in value:
                keep = walked.get(type(item))
                if keep is None:
                    keep = _walked(type(item))
                if keep:
                    found.append(item)
        else:
            keep = walked.get(kind)
            if keep is None:
                keep = _walked(kind)
            if keep:
                found.append(value)
    return found


# Nodes with no children to look for (a name, a number, a string): not asked for them.
LEAVES = frozenset(kind for kind, names in _FIELDS.items() if not names)


def walk(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Every node under ``node`` (itself included), parents before children, in source order."""
    stack = [node]
    leaves = LEAVES
    while stack:
        current = stack.pop()
        yield current
        if type(current) not in leaves:
            stack.extend(reversed(children(current)))


def walk_outside(node: cst.CSTNode, skipped: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """:func:`walk` of ``node`` without ``skipped`` and what is under it (in the same
    order): for a question about a scope outside one of its loops, asked without walking
    the loop twice (once to know its nodes, once to pass them)."""
    stack = [node]
    leaves = LEAVES
    while stack:
        current = stack.pop()
        if current is skipped:
            continue
        yield current
        if type(current) not in leaves:
            stack.extend(reversed(children(current)))


def stdlib_children(node: ast.AST) -> list[ast.AST]:
    """``ast.iter_child_nodes(node)`` as a list, without a generator per node."""
    found: list[ast.AST] = []
    for name in node._fields:
        value = getattr(node, name, None)
        if type(value) is list:
            found.extend(item for item in value if isinstance(item, ast.AST))
        elif isinstance(value, ast.AST):
            found.append(value)
    return found


def stdlib_nodes(node: ast.AST) -> list[ast.AST]:
    """Every node under ``node`` (itself included), in ``ast.walk``'s order (breadth
    first), as a list made in one loop.

    ``ast.walk`` calls a generator function per node (``iter_child_nodes``), and each
    call pushes a frame on CPython 3.11's frame stack. When a scan runs where that stack
    crosses the end of one of its 16 KiB chunks, every such push maps a fresh chunk and
    its return unmaps it (6-7 us of CPU each on this VM, against ~0.05 us for a push
    that fits): scanning a pypto-lib config module's tree for its variable's operands
    did so 2,900 times in a cold lint (benchmarks/README.md, "The frame stack's
    chunks"). This loop calls nothing per node.
    """
    found = [node]
    append, tree_node = found.append, ast.AST
    index = 0
    while index < len(found):
        current = found[index]
        index += 1
        for name in current._fields:
            value = getattr(current, name, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, tree_node):
                        append(item)
            elif isinstance(value, tree_node):
                append(value)
    return found


def nodes_of(node: cst.CSTNode, kinds: frozenset[type]) -> list[cst.CSTNode]:
    """The nodes under ``node`` (itself included) whose type is exactly one of ``kinds``,
    in :func:`walk`'s order.

    What most walks look for is a few node types (calls, bindings) among thousands of
    nodes: a list made in one loop, with no generator resumed per node, no call per node
    for its children and no leaf pushed that is not looked for, costs less than half of
    :func:`walk` and a test per node."""
    found: list[cst.CSTNode] = []
    stack = [node]
    pop, push = stack.pop, stack.append
    skipped = LEAVES.difference(kinds)
    walked, fields = _WALKED, _FIELDS
    while stack:
        current = pop()
        kind = type(current)
        if kind in kinds:
            found.append(current)
        names = fields.get(kind)
        if names is None:
            names = _field_names(current)
        for name in reversed(names):
            value = getattr(current, name)
            value_kind = type(value)
            if value_kind is list or value_kind is tuple:
                for item in reversed(value):
                    item_kind = type(item)
                    if item_kind in skipped:
                        continue
                    keep = walked.get(item_kind)
                    if keep is None:
                        keep = _walked(item_kind)
                    if keep:
                        push(item)
            elif value_kind not in skipped:
                keep = walked.get(value_kind)
                if keep is None:
                    keep = _walked(value_kind)
                if keep:
                    push(value)
    return found


_CALL = frozenset({cst.Call})

# How a pass finds the calls under a node: :func:`calls_in`, or the analysis's kept fact
# of it (a driver's, for the passes that read the same statements for every copy).
CallsOf = Callable[[cst.CSTNode], Sequence[cst.Call]]


def calls_in(node: cst.CSTNode) -> list[cst.Call]:
    """The calls under ``node`` (itself included), in :func:`walk`'s order: what most
    walks look for (:func:`nodes_of`)."""
    return nodes_of(node, _CALL)  # type: ignore[return-value]  # (only calls kept)


def names_under(
    node: cst.CSTNode, value_only: frozenset[type], skipped: frozenset[type]
) -> list[str]:
    """The names under ``node`` (itself included), in :func:`walk`'s order, going only
    into the ``value`` of a node of a type in ``value_only`` and not into one in
    ``skipped``: the reads of an expression (``frontend.names.reads_of``), asked of
    almost every statement of a kernel, in one loop with no call per node."""
    found: list[str] = []
    stack = [node]
    pop, push = stack.pop, stack.append
    walked, fields, name_kind = _WALKED, _FIELDS, cst.Name
    while stack:
        current = pop()
        kind = type(current)
        if kind is name_kind:
            found.append(current.value)  # type: ignore[attr-defined]  # (a Name)
            continue
        if kind in value_only:
            push(current.value)  # type: ignore[attr-defined]  # (each has a value)
            continue
        if kind in skipped:
            continue
        names = fields.get(kind)
        if names is None:
            names = _field_names(current)
        # (nodes_of's loop over the children, written out again: a function called per
        # node would cost what the one loop saves)
        for name in reversed(names):
            value = getattr(current, name)
            value_kind = type(value)
            if value_kind is list or value_kind is tuple:
                for item in reversed(value):
                    keep = walked.get(type(item))
                    if keep is None:
                        keep = _walked(type(item))
                    if keep:
                        push(item)
            else:
                keep = walked.get(value_kind)
                if keep is None:
                    keep = _walked(value_kind)
                if keep:
                    push(value)
    return found
