"""Constructs in a loop body that the DSL parser refuses: the kernel will not compile (SKW040).

Also whether the author wrote the cross-core messages by hand (then the mixed-kernel
model, which creates them, does not apply).
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from skewlsp.analysis.frontend import dsl
from skewlsp.analysis.frontend.scope import BUILTIN_CALLS
from skewlsp.analysis.frontend.values import code_of
from skewlsp.analysis.source.tree_text import MadeTrees
from skewlsp.analysis.source.walk import LEAVES, children

_MESSAGE_OPS = dsl.PUSH_OPS | dsl.POP_OPS
# Small statements met before their value in the walk (a statement's node comes before
# its children's).
_SMALL_STATEMENTS = frozenset(
    {cst.Expr, cst.Assign, cst.AnnAssign, cst.AugAssign, cst.Return}
)


def _is_message(node: cst.CSTNode) -> bool:
    """A cross-core op call (``pl.tpush_to_aiv(...)`` and kin): exact types and the op's
    last name first, since every node of a body is asked."""
    if type(node) is not cst.Call:
        return False
    func = node.func
    return (
        type(func) is cst.Attribute
        and func.attr.value in _MESSAGE_OPS
        and dsl.message_kind(node) is not None
    )


def _has_message(node: cst.CSTNode) -> bool:
    """Whether a subtree the error walk skips (a nested definition) sends a message."""
    stack: list[cst.CSTNode] = [node]
    while stack:
        current = stack.pop()
        if _is_message(current):
            return True
        stack.extend(children(current))
    return False


@dataclass(frozen=True)
class BodyChecks:
    """What one walk of a loop body finds before the loop is decided."""

    errors: list[str]  # constructs the DSL parser refuses: the kernel will not compile
    explicit_messages: bool  # the author wrote cross-core messages (anywhere in the body)
    # A message inside an expression (not a statement's whole value), which normalisation
    # flattens into a statement of its own; False spares it searching every expression.
    nested_messages: bool = True


def _auto_scope(fn: cst.FunctionDef | None) -> bool:
    """Kernels place runtime scopes automatically unless ``auto_scope=False`` is given."""
    if fn is None:
        return True
    for decorator in fn.decorators:
        if isinstance(decorator.decorator, cst.Call):
            arg = dsl.keyword(decorator.decorator, "auto_scope")
            if arg is not None and isinstance(arg.value, cst.Name) and arg.value.value == "False":
                return False
    return True


def check_body(
    loop: cst.For, aliases: dsl.Aliases, fn: cst.FunctionDef | None, made: MadeTrees | None
) -> BodyChecks:
    """Constructs in the body that the DSL parser refuses, and whether it sends messages
    itself (the mixed-kernel model, which creates them, then does not apply). ``made``:
    the trees the analysis made, which the errors quote code from."""
    errors: list[str] = []
    messages = False
    nested = False
    auto_scope = _auto_scope(fn)
    iterables: set[int] = set()
    statement_values: set[int] = set()  # what normalisation takes as a statement's value
    stack: list[cst.CSTNode] = [loop.body]
    while stack:
        node = stack.pop()
        kind = type(node)  # exact types (none of these libcst classes has subclasses): fast
        if kind in LEAVES:  # (a name, a number, a string: none is checked)
            continue
        if kind is cst.FunctionDef:  # not parsed as part of the kernel body...
            messages = messages or _has_message(node)  # ...but its messages count
            continue
        stack.extend(reversed(children(node)))
        if kind in _SMALL_STATEMENTS:
            statement_values.add(id(getattr(node, "value", None)))
        if kind is cst.For:
            assert isinstance(node, cst.For)
            iterables.add(id(node.iter))  # loop headers are checked by their attribute only
            _check_loop_header(node, aliases, errors, made)
        elif kind is cst.With and auto_scope:
            assert isinstance(node, cst.With)
            _check_hand_placed_scopes(node, errors)
        elif kind is cst.AugAssign:
            errors.append(
                "augmented assignment (`x += ...`) is not supported by the DSL parser: "
                "write `x = x + ...`"
            )
        elif kind is cst.Call:
            assert isinstance(node, cst.Call)
            message = _is_message(node)
            messages = messages or message
            nested = nested or (message and id(node) not in statement_values)
            if id(node) not in iterables:
                _check_call(node, message, errors, made)
    return BodyChecks(errors, messages, nested)


def _check_loop_header(
    loop: cst.For, aliases: dsl.Aliases, errors: list[str], made: MadeTrees | None
) -> None:
    if isinstance(loop.iter, cst.Call) and dsl.loop_kind(loop.iter, aliases) is None:
        errors.append(
            f"`for ... in {code_of(loop.iter.func, made)}(...)`: the DSL parser accepts only "
            "pl.range, pl.parallel, pl.unroll, pl.pipeline, pl.while_, pl.spmd and "
            "pl.split_aiv loops"
        )


def _check_hand_placed_scopes(node: cst.With, errors: list[str]) -> None:
    """A ``with pl.scope()`` without ``mode=``, which only a kernel that places its scopes
    by hand may write (the caller asks only about a kernel that does not)."""
    for item in node.items:
        call = item.item
        if (
            isinstance(call, cst.Call)
            and dsl.dotted(call.func) == ("pl", "scope")
            and dsl.keyword(call, "mode") is None
        ):
            errors.append(
                "a hand-placed AUTO `with pl.scope()` requires @pl.function(auto_scope=False)"
            )


def _check_call(
    node: cst.Call, message: bool, errors: list[str], made: MadeTrees | None
) -> None:
    """A call that is not a loop's header: an op spelled otherwise than ``pl.``, a Python
    builtin, or a ``tpush`` without its ``split=``."""
    root = dsl.foreign_op_root(node)
    if root is not None:
        errors.append(
            f"unsupported operation call `{code_of(node.func, made)}(...)`: the DSL parser "
            "only accepts operations spelled `pl.`"
        )
    if isinstance(node.func, cst.Name) and node.func.value in BUILTIN_CALLS:
        errors.append(f"unsupported function call `{node.func.value}(...)` inside a kernel")
    if (
        message
        and isinstance(node.func, cst.Attribute)  # (always, for a message)
        and node.func.attr.value in dsl.PUSH_OPS
        and dsl.keyword(node, "split") is None
    ):
        errors.append("tpush requires the keyword argument split=")
