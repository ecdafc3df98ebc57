"""What pl.jit gives a bare ``pl.Tensor`` parameter of a function it compiles as a
dependency (``jit_tensor_params.bare_param_tensors``).

From pypto e2d0f78ae ``python/pypto/jit/decorator.py``: ``_resolve_dep_call_metadata``
pairs the caller's first call's arguments with the parameters (by position, then by
keyword) and gives each the metadata its argument holds there; an entry compiled from a
bare signature stops ("cannot specialize from the signature because parameter ... has a
bare 'pl.Tensor' annotation"). The compile of tests/fixtures/memory/models/mem_llm/
hosted.py through its host entry loads [16, 128] and [128, 256] BF16 slices of the
helper's bare `x` and `w`.
"""

from __future__ import annotations

import textwrap

import libcst as cst

from skewlsp.analysis.passes.convert_tensor_to_tile_ops import Tensor
from skewlsp.analysis.passes.jit_tensor_params import bare_param_tensors

FUNCTIONS = {
    "helper": """\
@pl.jit.inline
def helper(x: pl.Tensor, w: pl.Tensor, n: pl.Scalar[pl.INDEX], y: pl.Tensor[[4, 4], pl.FP32]):
    return x
""",
    "entry": """\
@pl.jit
def entry(a: pl.Tensor, b: pl.Tensor):
    t = pl.create_tensor([16, 64], dtype=pl.FP16)
    first = helper(t, w=b, n=3, y=a)
    second = helper(a, b, 4, a)
    return first
""",
    "host": """\
@pl.jit.host
def host(a: pl.Tensor[[16, 1024], pl.BF16], b: pl.Tensor[[1024, 256], pl.BF16]):
    return entry(a, b)
""",
}


def _fn(name: str) -> cst.FunctionDef:
    fn = cst.parse_module(FUNCTIONS[name]).body[0]
    assert isinstance(fn, cst.FunctionDef)
    return fn


def _shapes(found: dict[str, Tensor]) -> dict[str, tuple[str, str | None]]:
    code = cst.Module([]).code_for_node
    return {n: (code(t.shape) if t.shape is not None else "?", t.dtype) for n, t in found.items()}


def test_an_inline_helper_s_bare_tensors_are_its_caller_s_arguments_at_the_first_call():
    # `t` bound in the caller, `b` the caller's own bare tensor, typed by the host's call
    found = bare_param_tensors(_fn("helper"), FUNCTIONS, "entry")
    assert _shapes(found) == {"x": ("[16, 64]", "FP16"), "w": ("[1024, 256]", "BF16")}


def test_a_jit_entry_s_bare_tensors_are_the_host_s_arguments():
    found = bare_param_tensors(_fn("entry"), FUNCTIONS, None)
    assert _shapes(found) == {"a": ("[16, 1024]", "BF16"), "b": ("[1024, 256]", "BF16")}


def test_without_one_host_calling_it_nothing_is_known():
    alone = {name: text for name, text in FUNCTIONS.items() if name != "host"}
    assert bare_param_tensors(_fn("entry"), alone, None) == {}
    assert "x" in bare_param_tensors(_fn("helper"), alone, "entry")  # `t` is the caller's own
    assert "w" not in bare_param_tensors(_fn("helper"), alone, "entry")
    two = {**FUNCTIONS, "other": textwrap.dedent(FUNCTIONS["host"]).replace("def host", "def other")}
    assert bare_param_tensors(_fn("entry"), two, None) == {}
    assert bare_param_tensors(_fn("helper"), FUNCTIONS, "missing") == {}
