"""InlineFunctions at one call: the helper's body as the compiler clones it there
(``inline_functions.splice``).

From ``src/ir/transforms/inline_functions_pass.cpp`` (pypto e2d0f78ae): CloneInlineBody
seeds each parameter with the call's argument and each variable the body binds with a
fresh ``<name>_inline<N>`` one; SpliceInlineCallAsAssign turns the trailing ``return v``
into ``lhs = v``; a return left anywhere else is rejected ("contains a non-trailing
ReturnStmt"). The dump after InlineFunctions of
tests/fixtures/lowering/models/lower_llm/inline_scores.py shows
``s = pl.tensor.matmul(pl.tensor.slice(q, [16, 128], [h0, 0]), kv, ...)`` in the loop.
"""

from __future__ import annotations

import inspect
import textwrap
from pathlib import Path

import libcst as cst
import pytest

from skewlsp.analysis.passes.inline_functions.splice import (
    _PASSED_ON,
    _substituted,
    declared_returns,
    helper_splicer,
    splice,
)

HELPERS = textwrap.dedent("""\
    @pl.jit.inline
    def scores(q, kv, h0, rows=16):
        t = q[h0 : h0 + rows, :]
        w = pl.matmul(t, kv, b_trans=True, out_dtype=pl.FP32)
        return w
    """)


def _helper(text: str = HELPERS) -> cst.FunctionDef:
    fn = cst.parse_module(text).body[0]
    assert isinstance(fn, cst.FunctionDef)
    return fn


def _call(text: str) -> cst.Call:
    call = cst.parse_expression(text)
    assert isinstance(call, cst.Call)
    return call


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node).strip()


def test_the_body_reads_the_arguments_and_binds_fresh_names() -> None:
    spliced = splice(_call("scores(q_all, kv, h * 16, rows=8)"), _helper(), 3)
    assert spliced is not None
    assert spliced.helper == "scores"
    assert [_code(s) for s in spliced.statements] == [
        "t_inline3 = q_all[h * 16 : h * 16 + 8, :]",
        "w_inline3 = pl.matmul(t_inline3, kv, b_trans=True, out_dtype=pl.FP32)",
    ]
    assert spliced.value is not None and _code(spliced.value) == "w_inline3"


def test_a_parameter_not_passed_takes_its_default() -> None:
    spliced = splice(_call("scores(q, kv, 0)"), _helper(), 1)
    assert spliced is not None
    assert _code(spliced.statements[0]) == "t_inline1 = q[0 : 0 + 16, :]"


def test_an_early_return_or_a_spread_argument_is_not_spliced() -> None:
    early = _helper(textwrap.dedent("""\
        @pl.jit.inline
        def scores(q, kv):
            if q:
                return kv
            return q
        """))
    assert splice(_call("scores(a, b)"), early, 1) is None
    assert splice(_call("scores(*args)"), _helper(), 1) is None
    assert splice(_call("scores(q, kv)"), _helper(), 1) is None  # h0 has no value


def _statement(text: str) -> cst.BaseSmallStatement:
    line = cst.parse_statement(text)
    assert isinstance(line, cst.SimpleStatementLine)
    return line.body[0]


def test_only_a_statement_that_is_a_call_of_one_of_the_module_s_inline_helpers_is_spliced() -> None:
    """HandleTopLevelInlineCall: ``x = f()``, ``f()`` or ``return f()``; a call inside an
    expression or stored into a slice is left a call."""
    plain = "def scores(q, kv, h0):\n    return pl.matmul(q, kv)\n"
    inline = helper_splicer({"scores": HELPERS})
    for spliced in ("s = scores(q, kv, 0)", "a, b = scores(q, kv, 0)", "scores(q, kv, 0)",
                    "return scores(q, kv, 0)", "s: pl.Tensor = scores(q, kv, 0)"):
        assert inline(_statement(spliced), 1) is not None, spliced
    for left in ("o[0:16, :] = scores(q, kv, 0)", "e = pl.exp(scores(q, kv, 0))",
                 "s = other(q, kv, 0)", "s = pl.scores(q, kv, 0)", "x = y = scores(q, kv, 0)"):
        assert inline(_statement(left), 1) is None, left
    assert helper_splicer({"scores": plain})(_statement("s = scores(q, kv, 0)"), 1) is None


def test_the_declared_return_of_a_module_s_inline_helper_types_its_call() -> None:
    """The DSL parser types a call by the callee's ``->`` annotation (``ast_parser.py``,
    ``return_types``); only an inline helper's call is spliced, so only its is read."""
    typed = textwrap.dedent("""\
        @pl.jit.inline
        def rows(x: pl.Tensor[[16, 128], pl.FP32]) -> tuple[pl.Tensor[[16, 128], pl.BF16], int]:
            return pl.cast(x, target_type=pl.BF16), 0
        """)
    kernel = "@pl.jit\ndef rows(x) -> pl.Tensor[[16, 128], pl.BF16]:\n    return x\n"
    returns = declared_returns({"rows": typed, "kernel": kernel, "scores": HELPERS})
    found = returns("rows")
    assert found is not None
    assert _code(found.annotation) == "tuple[pl.Tensor[[16, 128], pl.BF16], int]"
    assert returns("kernel") is None  # not an inline helper
    assert returns("scores") is None  # no annotation written
    assert returns("missing") is None


def test_a_declared_return_is_read_past_brackets_and_colons_in_the_signature_s_comments() -> None:
    commented = textwrap.dedent("""\
        @pl.jit.inline(auto_scope=False)
        def rows(  # noqa: PLR0913 (one bracket: ) and a colon
            x: pl.Tensor[[16, 128], pl.FP32],  # [16 rows: see ( above
        ) -> pl.Tensor[[16, 128], pl.BF16]:
            return pl.cast(x, target_type=pl.BF16)
        """)
    found = declared_returns({"rows": commented})("rows")
    assert found is not None
    assert _code(found.annotation) == "pl.Tensor[[16, 128], pl.BF16]"


class _LibcstSubstitute(cst.CSTTransformer):
    """libcst's own way of writing the copy: a transformer replacing each mapped name but
    an attribute's and a keyword's (what the splice made before it made nodes itself)."""

    def __init__(self, names: dict[str, cst.BaseExpression]) -> None:
        super().__init__()
        self.names = names

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.Attribute:
        return updated_node.with_changes(attr=original_node.attr)

    def leave_Arg(self, original_node: cst.Arg, updated_node: cst.Arg) -> cst.Arg:
        return updated_node.with_changes(keyword=original_node.keyword)

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
        return self.names.get(original_node.value, updated_node)


def _node_ids(node: cst.CSTNode) -> set[int]:
    ids = {id(node)}
    for child in node.children:
        ids |= _node_ids(child)
    return ids


def test_a_copy_is_the_one_libcsts_transformer_makes_node_for_node() -> None:
    """Every statement of every function in the fixtures, each of its names mapped (to a
    fresh name, or to a call's argument expression): the copy equals libcst's, its nodes
    are new but for the same ones (the replacements, an attribute's and a keyword's
    name), and it prints the same code."""
    root = Path(__file__).resolve().parents[2] / "fixtures"
    compared = 0
    for path in sorted(root.rglob("*.py")):
        try:
            module = cst.parse_module(path.read_text(encoding="utf-8"))
        except cst.ParserSyntaxError:
            continue
        for fn in (s for s in module.body if isinstance(s, cst.FunctionDef)):
            argument = cst.parse_expression("(x[0] + y.z)")
            names: dict[str, cst.BaseExpression] = {}
            for index, name in enumerate(sorted({n.value for n in _names(fn.body)})):
                names[name] = argument if index % 2 else cst.Name(f"{name}_inline7")
            for stmt in fn.body.body:
                try:
                    theirs = stmt.visit(_LibcstSubstitute(names))
                except cst.CSTValidationError:  # (a class's name made an expression)
                    with pytest.raises(cst.CSTValidationError):
                        _substituted(stmt, names)
                    continue
                ours = _substituted(stmt, names)
                assert isinstance(theirs, cst.CSTNode)
                assert ours.deep_equals(theirs), path
                assert _code(ours) == _code(theirs)
                original = _node_ids(stmt)
                assert _node_ids(ours) & original == _node_ids(theirs) & original, path
                compared += 1
    assert compared > 300


def _names(node: cst.CSTNode) -> list[cst.Name]:
    if isinstance(node, cst.Name):
        return [node]
    return [name for child in node.children for name in _names(child)]


def test_the_leaves_a_copy_passes_on_are_those_libcsts_transformer_passes_on() -> None:
    kept = {
        kind
        for kind in vars(cst).values()
        if inspect.isclass(kind)
        and issubclass(kind, cst.CSTNode)
        and not inspect.isabstract(kind)
        and kind._visit_and_replace_children.__qualname__.startswith("BaseLeaf.")
    }
    assert kept == set(_PASSED_ON)
