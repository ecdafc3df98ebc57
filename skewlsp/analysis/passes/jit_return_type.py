"""What a call of an ``@pl.jit.extern`` kernel returns, as ``pl.jit``'s specializer types
it: the tensor passed for the kernel's first ``pl.Out`` parameter.

An extern kernel is a signature-only stub (its body ``...``, its code a hand-written C++
source). The specializer writes it out as a declaration whose return type
``_infer_return_type`` infers: with no ``return`` to read, its last resort is the type of
the first parameter ``_classify_params`` counts as an output, the first ``pl.Out[...]``
one (a ``pl.InOut[...]`` is not one of those; with no ``pl.Out`` the declaration has no
return type). A bare ``pl.Tensor`` parameter of a dependency has the type of the
argument at its caller's *first* call of it (``_resolve_dep_call_metadata``: one
specialization for every call), so the name a call binds holds the tensor that first
call passes for that parameter, whatever the stub's ``->`` says (a bare ``pl.Tensor``).
The compile of tests/fixtures/memory/models/mem_llm/attended.py shows it: its extern's
first parameter is an FP32 ``pl.InOut``, and the slices of the result it loads are the
BF16 ``pl.Out`` argument's.

This module reads the stubs; ConvertTensorToTileOps' walk
(:mod:`.convert_tensor_to_tile_ops`) gives the names the calls bind their tensors, and
keeps "not known" where the argument is no name holding a known tensor.

Models: ``python/pypto/jit/specializer.py`` (``_infer_return_type``, ``_classify_params``,
``_render_external``) and ``python/pypto/jit/decorator.py`` (``_ExternKernelDecorator``,
``_resolve_dep_call_metadata``, ``_build_param_mapping``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import libcst as cst

from skewlsp.analysis.frontend import dsl
from skewlsp.analysis.frontend.scope import function_params
from skewlsp.analysis.source import parsing


@dataclass(frozen=True)
class FirstOut:
    """An extern kernel's first ``pl.Out`` parameter: its name and its position among the
    parameters (where a positional argument binds to it)."""

    name: str
    position: int


# An extern kernel's first ``pl.Out`` parameter, by the name a call spells it with (None:
# no extern kernel, or one with no ``pl.Out`` parameter).
ExternOuts = Callable[[str], FirstOut | None]


def extern_outs(function_text: Callable[[str], str | None]) -> ExternOuts:
    """The first ``pl.Out`` parameter of each extern kernel a module can call
    (``function_text``: the text of the function a name is, the module's own or one it
    imports; None: no function). Each stub is read once, when first asked for; a text
    without ``extern`` in it is not parsed."""
    found: dict[str, FirstOut | None] = {}

    def first_out(name: str) -> FirstOut | None:
        if name not in found:
            text = function_text(name)
            found[name] = _first_out(text) if text is not None and "extern" in text else None
        return found[name]

    return first_out


def returned_argument(call: cst.Call, out: FirstOut) -> cst.BaseExpression | None:
    """The argument ``call`` passes for ``out``, by position or keyword, as pl.jit pairs
    them (None: not passed, or not to be paired because of a ``*``/``**`` spread)."""
    if any(arg.star for arg in call.args):
        return None
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == out.name:
            return arg.value
    positional = dsl.positional(call)
    return positional[out.position].value if out.position < len(positional) else None


def _first_out(text: str) -> FirstOut | None:
    try:
        module = parsing.dedented_module(text)
    except Exception:  # a stub that does not parse types no call
        return None
    fn = next((s for s in module.body if isinstance(s, cst.FunctionDef)), None)
    if fn is None or not _is_extern(fn):
        return None
    for position, (name, param) in enumerate(function_params(fn)):
        if _is_out_tensor(param.annotation):
            return FirstOut(name, position)
    return None


def _is_extern(fn: cst.FunctionDef) -> bool:
    """``@pl.jit.extern(...)`` (or bare)."""
    return dsl.jit_decorated(fn, "extern")


def _is_out_tensor(annotation: cst.Annotation | None) -> bool:
    """``pl.Out[pl.Tensor...]`` (``_classify_params``' out parameter; not ``pl.InOut``)."""
    if annotation is None or not isinstance(annotation.annotation, cst.Subscript):
        return False
    path = dsl.dotted(annotation.annotation.value)
    is_out = path is not None and path[-1:] == ("Out",)
    return is_out and dsl.annotation_kind(annotation) == "Tensor"
