"""How pypto DSL calls are spelled in source, and which of them matter to the pass.

The DSL parser works on the syntax tree, not on Python bindings: an operation
call is accepted only when its root name is literally ``pl``, while the loop
header is resolved through the module's imports, so ``lang.pipeline(...)``
works but ``lang.tile.load(...)`` does not (SKEW_RULES.md section 6).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import libcst as cst

OP_ROOT = "pl"
PUSH_OPS = frozenset({"tpush_to_aiv", "tpush_to_aic"})
POP_OPS = frozenset({"tpop_from_aiv", "tpop_from_aic"})
# Namespaces under ``pl`` in which the cross-core ops exist.
MESSAGE_NAMESPACES = frozenset({(), ("tile",), ("system",)})
MessageKind = Literal["push", "pop"]  # a cross-core op call's direction
LOOP_KINDS = frozenset(
    {"pipeline", "range", "parallel", "unroll", "spmd", "while_", "split_aiv"}
)


@dataclass(frozen=True)
class Aliases:
    """The names the module bound to ``pypto.language`` and to its ``pipeline``."""

    modules: frozenset[str]
    bare_pipeline: frozenset[str]


def dotted(expr: cst.BaseExpression) -> tuple[str, ...] | None:
    """``pl.tile.load`` -> ("pl", "tile", "load"); None for anything not a plain dotted name.

    The one- and two-name shapes (``range``, ``pl.x``) are most of the calls
    every pass asks about, so they are answered without the list and reversal.
    """
    if type(expr) is cst.Attribute:
        inner = expr.value
        if type(inner) is cst.Name:
            return (inner.value, expr.attr.value)
    elif type(expr) is cst.Name:
        return (expr.value,)
    else:
        return None
    parts: list[str] = []
    while type(expr) is cst.Attribute:  # (exact types: faster than an ABC's isinstance)
        parts.append(expr.attr.value)
        expr = expr.value
    if type(expr) is not cst.Name:
        return None
    parts.append(expr.value)
    return tuple(reversed(parts))


def jit_decorated(fn: cst.FunctionDef, kind: str | None) -> bool:
    """``@pl.jit.<kind>`` on ``fn``, bare or called (``inline``, ``host``, ``extern``,
    ``incore``); ``kind`` None: ``@pl.jit`` itself."""
    wanted = ("jit",) if kind is None else ("jit", kind)
    for decorator in fn.decorators:
        node = decorator.decorator
        path = dotted(node.func if isinstance(node, cst.Call) else node)
        if path is not None and path[-len(wanted) :] == wanted:
            return True
    return False


def loop_kind(call: cst.Call, aliases: Aliases) -> str | None:
    """The DSL loop kind of an iterable call (``pipeline``, ``range``, ...), or None.

    A bare name is never a DSL loop (the parser refuses Python's ``range``);
    a bare ``pipeline`` imported from pypto.language is recognised so that it
    can be reported as the error it is.
    """
    path = dotted(call.func)
    if path is None:
        return None
    if len(path) == 1:
        return "bare_pipeline" if path[0] in aliases.bare_pipeline else None
    # The parser checks only the attribute name of a loop header, never its root.
    if path[-1] in LOOP_KINDS:
        return path[-1]
    return None


def op_name(call: cst.Call) -> tuple[str, ...] | None:
    """The op path below ``pl`` of a DSL operation call (``("tile", "add")``), else None."""
    path = dotted(call.func)
    if path is None or len(path) < 2 or path[0] != OP_ROOT:
        return None
    return path[1:]


# Roots the DSL parser dispatches on: ops (`pl`), distributed ops (`pld`) and kernel calls.
ACCEPTED_ROOTS = frozenset({OP_ROOT, "pld", "self"})


def foreign_op_root(call: cst.Call) -> str | None:
    """The root of an attribute call the DSL parser refuses ("Unsupported operation call").

    Every ``X.y(...)`` inside a kernel is parsed as an op call and dispatched only
    when ``X`` is literally ``pl`` (or ``pld``, or ``self`` for kernel calls);
    ``X.yield_(...)`` is the one exception, recognised by its name alone.
    """
    path = dotted(call.func)
    if path is None or len(path) < 2 or path[0] in ACCEPTED_ROOTS or path[-1] == "yield_":
        return None
    return path[0]


def message_kind(call: cst.Call) -> MessageKind | None:
    """ "push" or "pop" for a cross-core op call, None otherwise."""
    name = op_name(call)
    if not name:
        return None
    namespace, leaf = name[:-1], name[-1]
    if namespace not in MESSAGE_NAMESPACES:
        return None
    if leaf in PUSH_OPS:
        return "push"
    if leaf in POP_OPS:
        return "pop"
    return None


def is_yield(call: cst.Call) -> bool:
    return op_name(call) in (("yield_",),)


def keyword(call: cst.Call, name: str) -> cst.Arg | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg
    return None


def positional(call: cst.Call) -> list[cst.Arg]:
    return [arg for arg in call.args if arg.keyword is None and not arg.star]


def argument(call: cst.Call, position: int | None, name: str) -> cst.BaseExpression | None:
    """The argument ``name`` of ``call``, written by name or at ``position`` (None: only
    by name), as a Python call binds it."""
    written = keyword(call, name)
    if written is not None:
        return written.value
    args = positional(call)
    return args[position].value if position is not None and position < len(args) else None


def is_true(arg: cst.Arg | None) -> bool:
    """A keyword argument written ``True`` (``b_trans=True``)."""
    return arg is not None and isinstance(arg.value, cst.Name) and arg.value.value == "True"


def annotation_kind(annotation: cst.Annotation | None) -> str | None:
    """ "Tile" or "Tensor" for ``pl.Tile[...]`` / ``pl.Tensor[...]`` annotations, else None.

    Checked on the tree, not on generated text: this runs for every annotated
    assignment of a kernel, on the typing hot path.
    """
    if annotation is None:
        return None
    return _annotated_kind(annotation.annotation)


def _annotated_kind(node: cst.BaseExpression) -> str | None:
    """The kind under any direction wrapper: ``pl.Out[pl.Tensor[...]]`` is a tensor in GM."""
    if isinstance(node, cst.Subscript):
        path = dotted(node.value)
        if path and path[-1] in ("Out", "InOut", "In") and len(node.slice) == 1:
            inner = node.slice[0].slice
            return _annotated_kind(inner.value) if isinstance(inner, cst.Index) else None
        node = node.value
    path = dotted(node)
    if path and path[-1] in ("Tile", "Tensor"):
        return path[-1]
    return None
