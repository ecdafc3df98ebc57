"""What a call of an ``@pl.jit.extern`` kernel returns (``jit_return_type``), and the
names ConvertTensorToTileOps' walk gives it (``convert_tensor_to_tile_ops.surroundings``).

From pypto e2d0f78ae ``python/pypto/jit/specializer.py``: ``_infer_return_type`` types a
stub with no ``return`` by its first ``pl.Out`` parameter (``_classify_params``: not a
``pl.InOut`` one), whose bare ``pl.Tensor`` takes the type of the argument at the
caller's first call (``decorator.py``, ``_resolve_dep_call_metadata``). The compile of
tests/fixtures/memory/models/mem_llm/attended.py loads [16, 128] BF16 slices of the
result of a call whose first parameter is an FP32 [16, 4, 256] ``pl.InOut``: the BF16
``pl.Out`` argument's type.
"""

from __future__ import annotations

import libcst as cst

from skewlsp.analysis.passes.convert_tensor_to_tile_ops import Tensor, surroundings
from skewlsp.analysis.passes.jit_return_type import FirstOut, extern_outs, returned_argument

STUBS = {
    "attention": """\
@pl.jit.extern(core_type="mixed", aic_source=_ENTRY, aiv_source=_ENTRY)
def attention(
    query: pl.InOut[pl.Tensor],
    keys: pl.Tensor,
    out: pl.Out[pl.Tensor],
    scratch: pl.Out[pl.Tensor],
    n: pl.Scalar[pl.INDEX],
) -> pl.Tensor: ...
""",
    "in_place": """\
@pl.jit.extern(source="rotate.cpp", core_type="aiv")
def in_place(x: pl.InOut[pl.Tensor], n: pl.Scalar[pl.INDEX]) -> pl.Tensor: ...
""",
    "incore": """\
@pl.jit.incore
def incore(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    return out
""",
}

KERNEL = """\
@pl.jit.inline
def layer(q: pl.Tensor[[16, 4, 256], pl.FP32], k: pl.Tensor[[256, 128], pl.BF16]):
    attn = pl.create_tensor([16, 512], dtype=pl.BF16)
    other = pl.create_tensor([16, 256], dtype=pl.BF16)
    scratch = pl.create_tensor([2, 16, 128], dtype=pl.FP32)
    attn_tnd = pl.reshape(attn, [16, 4, 128])
    attended = attention(q, k, attn_tnd, scratch, 8)
    by_keyword = attention(q, k, n=8, scratch=scratch, out=attn_tnd)
    elsewhere = attention(q, k, other, scratch, 8)
    sliced = attention(q, k, attn[0:8, :], scratch, 8)
    rotated = in_place(q, 8)
    stored = incore(k, other)
    for kb in pl.pipeline(8, stage=2):
        pass
"""


def _tensors_at_the_loop(text: str = KERNEL) -> dict[str, Tensor]:
    fn = cst.parse_module(text).body[0]
    assert isinstance(fn, cst.FunctionDef)
    (found,) = surroundings(fn, False, None, outs=extern_outs(STUBS.get)).values()
    return found.tensors


def _shape(tensor: Tensor) -> tuple[str, str | None]:
    assert tensor.shape is not None
    return cst.Module([]).code_for_node(tensor.shape), tensor.dtype


def test_an_extern_kernel_s_result_is_its_first_out_parameter_not_an_inout_before_it() -> None:
    assert extern_outs(STUBS.get)("attention") == FirstOut("out", 2)


def test_a_kernel_with_no_out_parameter_or_one_that_is_no_extern_types_no_call() -> None:
    outs = extern_outs(STUBS.get)
    assert outs("in_place") is None  # a pl.InOut alone: the declaration returns nothing
    assert outs("incore") is None  # a body of its own, whose `return` types it
    assert outs("missing") is None


def test_the_argument_is_paired_with_the_parameter_by_position_or_keyword() -> None:
    out = FirstOut("out", 2)

    def argument(text: str) -> str | None:
        call = cst.parse_expression(text)
        assert isinstance(call, cst.Call)
        found = returned_argument(call, out)
        return cst.Module([]).code_for_node(found) if found is not None else None

    assert argument("attention(q, k, o, s, 8)") == "o"
    assert argument("attention(q, k, n=8, out=o)") == "o"
    assert argument("attention(q, k)") is None
    assert argument("attention(*args)") is None


def test_the_name_a_call_binds_holds_the_tensor_its_first_call_passes_as_out() -> None:
    tensors = _tensors_at_the_loop()
    assert _shape(tensors["attended"]) == ("[16, 4, 128]", "BF16")
    assert _shape(tensors["by_keyword"]) == ("[16, 4, 128]", "BF16")


def test_a_call_passing_another_tensor_or_no_named_one_binds_no_tensor() -> None:
    tensors = _tensors_at_the_loop()
    assert "elsewhere" not in tensors  # the one specialization is the first call's
    assert "sliced" not in tensors
    assert "rotated" not in tensors and "stored" not in tensors


def test_a_first_call_the_walk_does_not_meet_leaves_every_call_not_known() -> None:
    text = KERNEL.replace(
        "    attended = attention(q, k, attn_tnd, scratch, 8)\n",
        "    attended = pl.reshape(attention(q, k, other, scratch, 8), [16, 256])\n",
    )
    tensors = _tensors_at_the_loop(text)
    assert "attended" not in tensors  # (a reshape of a result not known)
    assert "by_keyword" not in tensors  # `attn_tnd`, but the first call passed `other`


def test_a_first_call_made_for_its_effects_types_the_later_ones() -> None:
    text = KERNEL.replace(
        "    attended = attention(q, k, attn_tnd, scratch, 8)\n",
        "    attention(q, k, attn_tnd, scratch, 8)\n",
    )
    assert _shape(_tensors_at_the_loop(text)["by_keyword"]) == ("[16, 4, 128]", "BF16")


def test_without_the_extern_stubs_the_names_hold_no_tensor() -> None:
    fn = cst.parse_module(KERNEL).body[0]
    assert isinstance(fn, cst.FunctionDef)
    (found,) = surroundings(fn, False, None).values()
    assert "attended" not in found.tensors and "attn_tnd" in found.tensors
