"""A mixed loop's preview is the skewed core's function, with the compiler's messages written out."""

from __future__ import annotations

import textwrap

import libcst as cst

from skewlsp.analysis import analyze
from skewlsp.api import preview as preview_at
from tests.kernels import ATTENTION, ATTENTION_STORES


def test_cube_function_of_an_attention_loop_is_previewed_with_implicit_messages() -> None:
    source = ATTENTION.format(heads=128, tail=ATTENTION_STORES)
    (report,) = analyze(source, "attention.py")
    preview = preview_at(source, report.line).rewritten
    cst.parse_module(textwrap.dedent(preview))
    assert "# the compiler's cube (AIC) function for this loop" in preview
    assert preview.count("pl.tile.tpush_to_aiv(raw_p") == 4  # 2 prologue + 2 steady
    assert preview.count("= pl.tile.tpop_from_aiv(split=0)") == 4  # 2 steady + 2 epilogue
    assert "pl.system.tfree_to_aiv(ex_bf16_c0)" in preview
    assert "pl.row_max" not in preview and "pl.exp" not in preview  # vector work is elsewhere
    assert "for hb in pl.range(2, 4, 2):" in preview
