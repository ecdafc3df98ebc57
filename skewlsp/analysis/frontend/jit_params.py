"""What ``pl.jit`` does to a kernel's parameters before the DSL parser sees it.

When a ``@pl.jit`` entry is compiled from its annotations, every scalar
parameter (``pl.Scalar[dtype]`` or a bare dtype) takes its value from its
default, and the specializer writes that value into the body as a literal:
a loop bound that uses it is a compile-time constant. A default of
``pl.RUNTIME`` leaves the parameter a runtime scalar. Sub-functions are not
specialized this way: an ``@pl.jit.incore`` function is a separate InCore
kernel whose scalar arguments are passed at run time.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from skewlsp.analysis.frontend import dsl
from skewlsp.analysis.frontend.constants import Const, Folded, Folder
from skewlsp.analysis.frontend.scope import function_params
from skewlsp.analysis.source.tree_text import MadeTrees

# dtype names a bare-dtype scalar annotation may use (``n: pl.INT32 = 8``).
_SCALAR_DTYPES = frozenset(
    {
        "INT8",
        "INT16",
        "INT32",
        "INT64",
        "UINT8",
        "UINT16",
        "UINT32",
        "UINT64",
        "INDEX",
        "BOOL",
        "FP16",
        "FP32",
        "BF16",
    }
)


def _decorator_path(decorator: cst.Decorator) -> tuple[str, ...] | None:
    node = decorator.decorator
    if isinstance(node, cst.Call):
        node = node.func
    return dsl.dotted(node)


def is_jit_entry(fn: cst.FunctionDef) -> bool:
    """``@pl.jit`` or ``@pl.jit(...)``: the entry the specializer binds scalars for."""
    return any(_decorator_path(d) in (("pl", "jit"), ("jit",)) for d in fn.decorators)


def _is_scalar(annotation: cst.Annotation | None) -> bool:
    if annotation is None:
        return False
    node = annotation.annotation
    if isinstance(node, cst.Subscript):
        path = dsl.dotted(node.value)
        return path is not None and path[-1] == "Scalar"
    path = dsl.dotted(node)
    return path is not None and path[-1] in _SCALAR_DTYPES


def _is_runtime(expr: cst.BaseExpression) -> bool:
    path = dsl.dotted(expr)
    return path is not None and path[-1] == "RUNTIME"


def specialized_params(
    fn: cst.FunctionDef, lookup: Callable[[str], Folded | None], made: MadeTrees | None
) -> dict[str, Folded]:
    """The scalar parameters of a ``@pl.jit`` entry that become literals, with their values.

    ``lookup`` resolves names in a default (defaults are evaluated when Python
    defines the function, so module constants count); ``made``: the trees the analysis
    made (``fn`` may be one's).
    """
    if not is_jit_entry(fn):
        return {}
    values: dict[str, Folded] = {}
    for name, param in function_params(fn):
        if param.default is None or not _is_scalar(param.annotation):
            continue
        if _is_runtime(param.default):
            continue
        folded = Folder(lookup, made).fold(param.default)
        if isinstance(folded, Const):
            values[name] = folded
    return values
