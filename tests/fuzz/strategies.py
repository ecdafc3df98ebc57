"""Hypothesis strategies: kernels built from the DSL's own vocabulary, and any Python at all.

``kernels()`` draws modules that look like pypto kernels (``pl.pipeline`` headers
with odd, huge, negative, symbolic or missing arguments; bodies mixing loads,
pushes, pops, ``if``s, ``pl.unroll`` and nested pipelines), so the fuzzer reaches
the decision procedure and the rewrite instead of stopping at "no loop here".
``python_in_a_loop()`` puts hypothesmith's grammar-valid programs inside a loop
body, so arbitrary syntax reaches the loop-body model too.
"""

from __future__ import annotations

import textwrap

from hypothesis import strategies as st

from tests.kernels import module

INTS = st.one_of(
    st.integers(-3, 20),
    st.sampled_from(
        [
            "10**9",
            "10**18",
            "2**63 - 1",
            "2**63",
            "2**64",
            "-2**63",
            "-2**64",
            "10**4000",
            "2**(2**40)",
            "-1",
            "0",
        ]
    ),
)
EXPRS = st.one_of(
    INTS.map(str),
    st.sampled_from(["N", "n", "HEADS", "M.x", "N * 2", "N // 0", "n + 1", "TILE - TILE", "1.5", "'8'", "None", "True", "[2]"]),
)

STAGE = st.one_of(
    st.just(""),
    EXPRS.map(lambda e: f", stage={e}"),
    st.sampled_from([", stage=1", ", stage=2", ", stage=3", ", stage=10**9", ", stage=-2", ", stage=0"]),
)


@st.composite
def headers(draw: st.DrawFn) -> str:
    """A loop header: ``pl.pipeline(...)`` most of the time, sometimes something else."""
    args = draw(st.lists(EXPRS, min_size=0, max_size=4))
    stage = draw(STAGE)
    func = draw(st.sampled_from(["pl.pipeline"] * 6 + ["pl.range", "pl.unroll", "pipeline", "pl.pipeline.x"]))
    extra = draw(st.sampled_from(["", "", ", init_values=(acc,)", ", foo=1", ", *xs", ", **kw"]))
    return f"{func}({', '.join(args)}{stage}{extra})"


SIMPLE_STATEMENTS = [
    "qa: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(q, [i * 16, 0], [16, 64])",
    "rs: pl.Tile[[16, 64], pl.FP32] = pl.tile.add(qa, qa)",
    "pl.tile.tpush_to_aiv(rs, split=0)",
    "pl.tile.tpush_to_aiv(qa, split=0)",
    "e: pl.Tile[[16, 64], pl.FP32] = pl.tile.tpop_from_aiv(split=0)",
    "oi: pl.Tile[[16, 64], pl.FP32] = pl.tile.add(e, e)",
    "pl.tile.store(oi, [i * 16, 0], out)",
    "s0 = pl.tile.tpop_from_aic(split=0)",
    "c0 = pl.tile.exp(s0)",
    "pl.tile.tpush_to_aic(c0, split=0)",
    "acc = pl.tile.add(acc, e)",
    "acc = acc + 1",
    "x += 1",
    "row: pl.Scalar[pl.INDEX] = i * TILE",
    "pl.tile.store(pl.tile.tpop_from_aiv(split=0), [0, 0], out)",
    "pl.yield_(acc)",
    "acc = pl.yield_(acc)",
    "pass",
    "break",
    "continue",
    "return",
    "del qa",
    "self.x = 1",
    "tpush_to_aiv(rs)",
    "pl.tile.tpush_to_aiv(*args)",
    "pl.tile.tpop_from_aiv(split=N)",
    "lambda: pl.tile.tpush_to_aiv(qa, split=0)",
]


def statements(depth: int) -> st.SearchStrategy[list[str]]:
    """A block of statements; compound ones nest up to ``depth`` levels."""
    simple = st.sampled_from(SIMPLE_STATEMENTS).map(lambda s: [s])
    if depth <= 0:
        return st.lists(simple, min_size=1, max_size=8).map(_flatten)
    inner = st.deferred(lambda: statements(depth - 1))
    compound = st.one_of(
        st.tuples(st.sampled_from(["if i == 0:", "if N > 4:", "if True:", "if n:", "while False:", "with ctx:"]), inner).map(_block),
        st.tuples(headers().map(lambda h: f"for j in {h}:"), inner).map(_block),
        st.tuples(st.sampled_from(["for j in pl.unroll(2):", "for j in pl.unroll(N):", "for j in pl.unroll(10**6):", "for j in pl.range(1):", "for (a, b) in pl.pipeline(4, stage=2):"]), inner).map(_block),
        st.tuples(st.just("try:"), inner).map(lambda pair: _block(pair) + ["except Exception:", "    pass"]),
    )
    return st.lists(st.one_of(simple, simple, compound), min_size=1, max_size=8).map(_flatten)


def _flatten(blocks: list[list[str]]) -> list[str]:
    return [line for block in blocks for line in block]


def _block(pair: tuple[str, list[str]]) -> list[str]:
    head, body = pair
    return [head, *("    " + line for line in body)]


PRELUDES = [
    "",
    "N = 8\nHEADS = 8\nTILE = 16",
    "N = 10**18",
    "N = -1\nN = 4",
    "from consts import N, HEADS, TILE",
    "from .consts import *",
    "import consts as M",
    "N: int = 2**64",
    "N = N",
    "global N",
]


@st.composite
def kernels(draw: st.DrawFn) -> str:
    """A whole module: prelude constants, one kernel function with one or two loops."""
    prelude = draw(st.sampled_from(PRELUDES))
    loops = []
    for _ in range(draw(st.integers(1, 2))):
        target = draw(st.sampled_from(["i", "i", "(i, acc)", "self.i", "_"]))
        header = draw(headers())
        body = draw(statements(2))
        loops.append(f"for {target} in {header}:\n" + textwrap.indent("\n".join(body), "    "))
    return module("acc = pl.tile.zeros()\n" + "\n".join(loops) + "\n", prelude=prelude)


def _python_grammar() -> st.SearchStrategy[str]:
    import hypothesmith  # (imported here: 0.5 s that collecting the tests need not pay)

    return hypothesmith.from_grammar()


# hypothesmith's grammar-valid Python. Building it costs about a second of CPU (a LALR parser
# of Python's grammar), so it is built once per process, at the first draw, not at import:
# every test module that wants arbitrary Python draws from this one.
PYTHON = st.deferred(_python_grammar)


@st.composite
def python_in_a_loop(draw: st.DrawFn) -> str:
    """A grammar-valid module from hypothesmith, pasted as the body of a ``pl.pipeline`` loop."""
    program = draw(PYTHON)
    body = program if program.strip() else "pass\n"
    header = draw(st.sampled_from(["pl.pipeline(0, 8, 1, stage=2)", "pl.pipeline(8, stage=4)", "pl.pipeline(0, N, 2, stage=2)"]))
    return (
        "import pypto.language as pl\n\n\n"
        "@pl.program\nclass Kernel:\n    @pl.function\n"
        "    def main(self, q, out):\n"
        f"        for i in {header}:\n"
        + textwrap.indent(body, " " * 12)
        + "\n"
    )
