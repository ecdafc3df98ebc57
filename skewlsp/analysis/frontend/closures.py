"""What a program or function defined inside another function sees of it.

The DSL parser compiles a kernel wherever Python defines it and captures the
enclosing function's values at the point of definition: a builder's locals and
its parameters (called with their defaults when compiled by default).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import libcst as cst

from skewlsp.analysis.frontend.names import binding_of, statement_defs
from skewlsp.analysis.frontend.scope import function_params
from skewlsp.analysis.frontend.values import Dynamic, Folded, Opaque, code_of
from skewlsp.analysis.source.tree_text import MadeTrees

# An enclosing function's locals as its inner definitions see them: the expression each
# name was last bound to (kept as a node: most functions define nothing inside, so the
# texts are rendered only when a definition asks, see ``seen_inside``), and the names
# that cannot be folded.
Closure = tuple[dict[str, cst.BaseExpression], dict[str, Folded]]


def parameter_values(
    fn: cst.FunctionDef,
    name: str,
    arguments: Mapping[str, cst.BaseExpression] | None = None,
) -> Closure:
    """A function's parameters as a function defined inside it sees them.

    ``arguments``: what one module-level call of the builder passes. Without a call
    we see, a builder is taken as called with its defaults (``build_program()``, the
    way a script compiles the kernel), so a parameter with a default has that value;
    one without a default comes from a caller we do not see.
    """
    sources: dict[str, cst.BaseExpression] = {}
    hidden: dict[str, Folded] = {}
    for param_name, param in function_params(fn):
        if arguments is not None and param_name in arguments:
            sources[param_name] = arguments[param_name]
        elif param.default is not None:
            sources[param_name] = param.default
        else:
            hidden[param_name] = Opaque(
                param_name, f"`{param_name}` is a parameter of `{name}`, set by its caller"
            )
    return sources, hidden


def builder_calls(
    fn: cst.FunctionDef, module_sources: Mapping[str, str]
) -> list[dict[str, cst.BaseExpression]]:
    """The arguments of each module-level ``NAME = builder(...)``, in source order.

    Python builds the programs inside the builder once per call it makes while the
    module loads; a call whose arguments cannot be matched to the parameters (``*args``,
    an unknown keyword) is not counted.
    """
    params = [param_name for param_name, _ in function_params(fn)]
    head = f"{fn.name.value}("
    found: list[dict[str, cst.BaseExpression]] = []
    for text in module_sources.values():
        if not text.lstrip().startswith(head):
            continue
        try:
            call = cst.parse_expression(text)
        except cst.ParserSyntaxError:
            continue
        if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Name):
            continue
        arguments: dict[str, cst.BaseExpression] = {}
        for position, arg in enumerate(call.args):
            if arg.star:
                break
            key = arg.keyword.value if arg.keyword is not None else (
                params[position] if position < len(params) else None
            )
            if key is None or key not in params:
                break
            arguments[key] = arg.value
        else:
            found.append(arguments)
    return found


def capture_locals(
    stmt: cst.CSTNode,
    sources: dict[str, cst.BaseExpression],
    hidden: dict[str, Folded],
    defs: Sequence[str] | None = None,
) -> None:
    """Record one top-level statement's bindings for the functions defined after it
    (``defs``: the names a compound ``stmt`` binds, when the caller has them already)."""
    if isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
        for small in stmt.body:
            target, value, _ = binding_of(small)
            if isinstance(target, cst.Name) and value is not None:
                sources[target.value] = value
                hidden.pop(target.value, None)
                continue
            for defined in statement_defs(small):
                sources.pop(defined, None)
                hidden[defined] = Dynamic(defined, f"`{defined}` is not a compile-time constant")
        return
    if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
        return  # a definition binds a program or helper, never a number
    for defined in statement_defs(stmt) if defs is None else defs:
        sources.pop(defined, None)
        hidden[defined] = Dynamic(defined, f"`{defined}` is assigned inside a branch or loop")


def seen_inside(
    closure: Closure, made: MadeTrees | None
) -> tuple[dict[str, str], dict[str, Folded]]:
    """The texts to fold and the unfoldable names, for a definition made at this point
    (``made``: the trees the analysis made, which the values' texts are cut from)."""
    sources, hidden = closure
    return {name: code_of(value, made) for name, value in sources.items()}, hidden
