"""The DSL's names as the parser reads them off the tree."""

from __future__ import annotations

import libcst as cst
import pytest

from skewlsp.analysis.frontend.dsl import jit_decorated


def _function(code: str) -> cst.FunctionDef:
    fn = cst.parse_module(code).body[0]
    assert isinstance(fn, cst.FunctionDef)
    return fn


@pytest.mark.parametrize(
    ("decorator", "kind"),
    [
        ("@pl.jit.inline", "inline"),
        ("@pl.jit.inline()", "inline"),
        ("@pypto.language.jit.host", "host"),
        ('@pl.jit.extern(source="k.cpp")', "extern"),
    ],
)
def test_a_jit_decorator_bare_or_called_marks_its_kind(decorator: str, kind: str) -> None:
    assert jit_decorated(_function(f"{decorator}\ndef f():\n    pass\n"), kind)


@pytest.mark.parametrize(
    "decorator", ["@pl.jit", "@pl.jit.host", "@inline", "@pl.function", "@jit_inline"]
)
def test_another_decorator_is_not_an_inline_helper(decorator: str) -> None:
    assert not jit_decorated(_function(f"{decorator}\ndef f():\n    pass\n"), "inline")
