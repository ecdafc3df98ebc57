"""What ``pl.jit`` gives a bare ``pl.Tensor`` parameter of a function it compiles as a
dependency: the type of the argument at the function's call.

A ``@pl.jit`` entry compiled from its annotations needs a shape for every tensor
parameter ("cannot specialize from the signature because parameter ... has a bare
'pl.Tensor' annotation"); a function it calls (an ``@pl.jit.inline`` helper, or a
``@pl.jit`` entry a ``@pl.jit.host`` function calls) may leave its tensors bare: the
JIT reads the caller's *first* call of it (``_extract_call_args_for_dep``), pairs the
arguments with the parameters by position or keyword (``_build_param_mapping``) and
gives each bare parameter the metadata the argument holds there, the caller's own
parameters' and the tensors its body binds before the call
(``_resolve_dep_call_metadata``, ``_extract_local_tensor_metas``). Models:
``python/pypto/jit/decorator.py``; the tensors at the call are ConvertTensorToTileOps'
walk's (:func:`~skewlsp.analysis.passes.convert_tensor_to_tile_ops.tensors_at`).

Followed: an inline helper's copy from the caller whose call it is; a function no
helper copy names a caller for, from the one ``@pl.jit.host`` function of its module
that calls it (two or none: not known), each caller's bare parameters from its own
caller likewise, a few levels up. An argument that is no name holding a tensor there
leaves its parameter not known.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import Protocol, TypeVar

import libcst as cst

from skewlsp.analysis.frontend import dsl
from skewlsp.analysis.frontend.scope import function_params
from skewlsp.analysis.passes.convert_tensor_to_tile_ops import (
    Returns,
    Tensor,
    first_call,
    is_bare,
    tensors_at,
)
from skewlsp.analysis.passes.jit_return_type import ExternOuts
from skewlsp.analysis.source import parsing

_LEVELS = 3  # callers followed up from the function (a chain, not a search)
_T = TypeVar("_T")


class Memo(Protocol):
    """What keeps a value made once per analysis (``AnalysisState.syntactic_fact``)."""

    def __call__(self, key: Hashable, make: Callable[[], _T]) -> _T: ...


def bare_param_tensors(
    fn: cst.FunctionDef,
    functions: Mapping[str, str],
    caller: str | None,
    returns: Returns | None = None,
    memo: Memo | None = None,
    level: int = 0,
    outs: ExternOuts | None = None,
) -> dict[str, Tensor]:
    """The tensors of the bare ``pl.Tensor`` parameters of ``fn``, a module function
    (``functions``: the module's top-level functions' texts by name), from its first call
    in ``caller`` (None: in the module's one ``@pl.jit.host`` function calling it); the
    parameters not known are left out (``outs``: the extern kernels the caller may call,
    whose results its tensors include). Nothing is parsed for a function with none, and
    each caller's text once per ``memo``."""

    def parse(text: str) -> cst.FunctionDef | None:
        return memo((function_of, text), lambda: function_of(text)) if memo else function_of(text)

    bare = [param for param, p in function_params(fn) if is_bare(p.annotation)]
    if not bare or level > _LEVELS:
        return {}
    name = fn.name.value
    if caller is None:
        hosts = [n for n, text in functions.items() if "jit.host" in text and name in text]
        hosts = [n for n in hosts if n != name and _is_host(parse(functions[n]))]
        if len(hosts) != 1:
            return {}
        caller = hosts[0]
    text = functions.get(caller)
    outer = parse(text) if text is not None else None
    call = first_call(outer, name) if outer is not None else None
    if outer is None or call is None:
        return {}
    given = bare_param_tensors(outer, functions, None, returns, memo, level + 1, outs)
    tensors = tensors_at(outer, call, returns, given, outs)
    if tensors is None:
        return {}
    arguments = _arguments(fn, call)
    unknown = Tensor(None, None)  # (a bare tensor of the caller's, not typed either)
    return {
        param: tensors[arg]
        for param in bare
        if (arg := arguments.get(param)) is not None and tensors.get(arg, unknown) != unknown
    }


def function_of(text: str) -> cst.FunctionDef | None:
    """The function a module's top-level function text defines (None: it does not parse)."""
    try:
        module = parsing.dedented_module(text)
    except Exception:  # a function that does not parse types no parameter
        return None
    return next((s for s in module.body if isinstance(s, cst.FunctionDef)), None)


def _is_host(fn: cst.FunctionDef | None) -> bool:
    """``@pl.jit.host`` (bare or called)."""
    return fn is not None and dsl.jit_decorated(fn, "host")


def _arguments(fn: cst.FunctionDef, call: cst.Call) -> dict[str, str]:
    """Each parameter of ``fn`` a name is passed for at ``call``, and that name."""
    params = [param for param, _ in function_params(fn)]
    found: dict[str, str] = {}
    for index, arg in enumerate(a for a in call.args if a.keyword is None):
        if index < len(params) and not arg.star and isinstance(arg.value, cst.Name):
            found[params[index]] = arg.value.value
    for arg in call.args:
        if arg.keyword is not None and isinstance(arg.value, cst.Name):
            found[arg.keyword.value] = arg.value.value
    return found
