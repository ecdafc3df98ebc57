"""One analysis's state (``frontend.state``): what its stages, and the module decided
again under another build, share."""

from __future__ import annotations

from dataclasses import replace

import libcst as cst

from skewlsp.analysis.frontend.assumed import Build
from skewlsp.analysis.frontend.names import body_statements
from skewlsp.analysis.frontend.state import AnalysisState
from skewlsp.contract import Assumptions


def test_a_fact_of_the_trees_alone_is_made_once_for_every_build() -> None:
    """The driver decides a module again under another build with the state's trees and
    a fresh set of value facts; what is read off the trees alone is not read again."""
    state = AnalysisState()
    made: list[str] = []

    def sides() -> str:
        made.append("walked")
        return f"walk {len(made)}"

    assert state.syntactic_fact(("sides", "k"), sides) == "walk 1"
    other_build = replace(state, build=Build(Assumptions()), facts={})
    assert other_build.syntactic_fact(("sides", "k"), sides) == "walk 1"
    assert other_build.syntactic_fact(("sides", "other"), sides) == "walk 2"
    assert made == ["walked", "walked"]


HELPER = """\
@pl.jit.inline
def shift_rows(x: pl.Tensor[[64, 64], pl.FP32], rows: int):
    for i in pl.pipeline(rows, stage=2):
        x = pl.exp(x)
    return x
"""


def _loop_of_made_tree(state: AnalysisState, text: str = HELPER) -> cst.For:
    """The pipeline loop of ``text``'s one function, in the tree the analysis made."""
    module = state.analysis_module(text, lambda: state.parses.unit_tree(text, None))
    assert module is not None
    function = module.body[0]
    assert isinstance(function, cst.FunctionDef)
    loop = body_statements(function.body)[0]
    assert isinstance(loop, cst.For)
    return loop


def test_a_fact_of_a_made_tree_s_nodes_alone_is_kept_with_the_tree_for_the_next_analysis() -> None:
    """An imported helper's tree is made once for a batch (kept by text); so are the
    facts read off its nodes alone, whichever module's analysis walks it next."""
    first, second = AnalysisState(), AnalysisState()
    loop = _loop_of_made_tree(first)
    made: list[str] = []

    def matmuls() -> str:
        made.append("read")
        return f"read {len(made)}"

    assert first.syntactic_fact(("matmuls", loop), matmuls, of=(loop,)) == "read 1"
    assert _loop_of_made_tree(second) is loop
    assert second.syntactic_fact(("matmuls", loop), matmuls, of=(loop,)) == "read 1"
    # not said to be read off the tree alone, or read off a node of libcst's tree as well
    assert second.syntactic_fact(("folded", loop), matmuls) == "read 2"
    parsed = cst.parse_module(HELPER)
    assert second.syntactic_fact(("mixed", loop), matmuls, of=(loop, parsed)) == "read 3"
    assert first.syntactic_fact(("folded", loop), matmuls) == "read 4"
    assert first.syntactic_fact(("mixed", loop), matmuls, of=(loop, parsed)) == "read 5"


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


def test_the_calls_under_a_line_are_its_statements_in_order_kept_for_every_build() -> None:
    line = cst.parse_statement("a = pl.exp(pl.add(x, y)); b = f(a)\n")
    assert isinstance(line, cst.SimpleStatementLine)
    state = AnalysisState()
    assert [_code(call) for call in state.calls_in(line)] == [
        "pl.exp(pl.add(x, y))",
        "pl.add(x, y)",
        "f(a)",
    ]
    first = state.calls_in(line.body[0])
    other_build = replace(state, build=Build(Assumptions()), facts={})
    assert other_build.calls_in(line.body[0]) is first  # (kept, not walked again)


def test_the_calls_of_an_edited_text_are_its_own() -> None:
    """A language server's edit makes another tree: its nodes have calls of their own, in
    this analysis and in the next one (a made tree's are kept with it)."""
    first, second = AnalysisState(), AnalysisState()
    loop = _loop_of_made_tree(first)
    assert [_code(call) for call in first.calls_in(loop.body)] == ["pl.exp(x)"]
    edited = HELPER.replace("pl.exp(x)", "pl.add(x, pl.neg(x))")
    again = _loop_of_made_tree(second, edited)
    assert [_code(call) for call in second.calls_in(again.body)] == ["pl.add(x, pl.neg(x))", "pl.neg(x)"]
    assert [_code(call) for call in second.calls_in(_loop_of_made_tree(second).body)] == [
        "pl.exp(x)"
    ]


KERNEL = """\
@pl.jit
def kernel(a: pl.Tensor[[64, 64], pl.FP32], n: int):
    t: pl.Tile[[64, 64], pl.FP32] = pl.load(a, [0, 0])
    for i in pl.range(n):
        b = shift_rows(t, 4)
    return b
"""


def test_the_names_a_function_and_its_statements_bind_are_kept_with_its_made_tree() -> None:
    """The unit walk builds a kernel's scopes from them, and InlineFunctions its scopes at
    the calls of each helper it calls, in every analysis that reads the kernel: read once
    for all of them."""
    first, second = AnalysisState(), AnalysisState()
    module = first.analysis_module(KERNEL, lambda: first.parses.unit_tree(KERNEL, None))
    assert module is not None
    kernel = module.body[0]
    assert isinstance(kernel, cst.FunctionDef)
    params, bound, tiles = first.function_names(kernel)
    assert params == {"a", "n"}
    assert bound == {"a", "n", "t", "b"}  # (a loop's variable is the loop's, not the body's)
    assert tiles == {"a", "t"}
    loop = body_statements(kernel.body)[1]
    assert first.statement_binds(loop) == (["b"], frozenset({"b"}))
    assert second.analysis_module(KERNEL, lambda: second.parses.unit_tree(KERNEL, None)) is module
    assert second.function_names(kernel) is first.function_names(kernel)  # (not read again)
    assert second.statement_binds(loop) is first.statement_binds(loop)
