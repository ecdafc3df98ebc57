"""The canonical split-K form AutoTileMatmulL0 matches (``MatchCanonicalSplitKAcc``),
read off the source: a create, the pipeline loop, one store, in one block."""

from __future__ import annotations

import textwrap

import libcst as cst

from skewlsp.analysis.passes.split_k_grid import SplitKLoop, split_k_loop

CANONICAL = """
def kernel(x, w, out):
    o0 = 0
    acc = pl.create_tensor([16, 256], dtype=pl.FP32)
    for kb in pl.pipeline(0, 8, stage=2):
        k0 = kb * 128
        a = x[:, k0 : k0 + 128]
        b = w[k0 : k0 + 128, o0 : o0 + 256]
        if k0 == 0:
            acc = pl.matmul(a, b, out_dtype=pl.FP32)
        else:
            acc = pl.matmul_acc(acc, a, b)
    out = pl.assemble(out, acc, [0, o0])
    return out
"""


def _found(source: str) -> SplitKLoop | None:
    fn = cst.parse_module(textwrap.dedent(source)).body[0]
    assert isinstance(fn, cst.FunctionDef)
    loop = next(s for s in fn.body.body if isinstance(s, cst.For))
    return split_k_loop(loop, fn)


def test_the_canonical_form_names_its_accumulator_and_operands() -> None:
    assert _found(CANONICAL) == SplitKLoop("acc", "a", "b", "FP32")


def test_a_store_written_as_a_slice_assignment_is_one_store() -> None:
    source = CANONICAL.replace("out = pl.assemble(out, acc, [0, o0])", "out[:, 0:256] = acc")
    assert _found(source) == SplitKLoop("acc", "a", "b", "FP32")


def test_a_result_read_again_is_not_the_form() -> None:
    source = CANONICAL.replace("    return out", "    y = pl.add(acc, acc)\n    return out")
    assert _found(source) is None


def test_tile_work_besides_the_two_loads_is_not_the_form() -> None:
    source = CANONICAL.replace("k0 = kb * 128", "k0 = pl.min(kb * 128, 896)")
    assert _found(source) is None


def test_transposed_operands_are_not_modelled() -> None:
    source = CANONICAL.replace("pl.matmul(a, b, out_dtype=pl.FP32)", "pl.matmul(a, b, b_trans=True)")
    assert _found(source) is None

