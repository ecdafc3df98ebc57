"""The test kernels: one library for every test that needs a kernel's text.

- The module every kernel sits in (``module``), a loop (``loop``) and a kernel of one
  loop (``kernel``), built from bodies:
  ``PRODUCER`` (the lead pushes, then the body pops: a skewed loop),
  ``CONSUMER`` (the body pops first and the popped tile feeds the push: demoted, SKW020),
  ``LOCAL`` (no push or pop: left for LowerPipelineLoops, which replicates it: SKW011
  at ``LOCAL_PIPELINE``, trip 4 at stage=2) and
  ``FIFO_REORDER_BODY`` (a guarded tpush in the consumer half: SKW060 on a skew).
- Named kernels built from them, which the CLI, the server and the shared layer open:
  ``SKEWED``, ``STAGE3``, ``DEMOTED``, ``BOTH``, ``SKEWED_AND_LEFT``, ``IMPORTED``,
  ``FIFO_REORDER``, ``BUILT_TWICE_AND_INLINED``, ``COPIES_APART`` (copies of one loop
  with different verdicts and lowerings), ``SYNTAX_ERROR``, and ``SKEWED_REWRITE``, the
  rewrite of ``SKEWED`` written out by hand.
- Reading the report of a kernel: ``only_loop`` and ``loop_at``; its first function and
  the loop that function opens with, as libcst parses them: ``function_and_loop``.
- ``ATTENTION``: a mixed cube+vector loop, the compiler creates the messages.
- ``Shape`` and ``shapes()``: loop bodies drawn by hypothesis for the transform's
  equivalence checks (the kernels there are executed against a fake ``pl``).
- The realistic tree (tests/fixtures/realistic) and the verdict of each of its loops.
- Sweeps over every sample kernel (``examples/``, ``tests/fixtures/``), split in tiers:
  ``in_tiers`` and ``fast_tier``.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import libcst as cst
import pytest
from hypothesis import strategies as st

from skewlsp.analysis import analyze
from skewlsp.contract import LoopReport

# -- the module, a loop, a kernel ------------------------------------------------------------

TEMPLATE = """\
import pypto.language as pl
{prelude}

@pl.program
class Kernel:
    @pl.function
    def main(self, {params}):
"""
PARAMS = "q: pl.Tensor[[64, 64], pl.FP32], out: pl.Tensor[[64, 64], pl.FP32], n: pl.INDEX"
PIPELINE = "pl.pipeline(0, 8, 1, stage=2)"


def head(*, prelude: str = "", params: str = PARAMS) -> str:
    """The module up to the kernel's ``def`` line; ``prelude`` goes after the import."""
    prelude = textwrap.dedent(prelude).strip("\n")
    return TEMPLATE.format(prelude=prelude + "\n" if prelude else "", params=params)


def module(body: str, *, prelude: str = "", params: str = PARAMS) -> str:
    """A module whose kernel function's body is ``body`` (written at column 0)."""
    return head(prelude=prelude, params=params) + textwrap.indent(textwrap.dedent(body), " " * 8)


def loop(body: str, header: str = PIPELINE, target: str = "i") -> str:
    """``for target in header:`` over ``body`` (both written at column 0)."""
    return f"for {target} in {header}:\n" + textwrap.indent(textwrap.dedent(body), "    ")


def kernel(
    loop_body: str,
    header: str = PIPELINE,
    *,
    before: str = "",
    prelude: str = "",
    target: str = "i",
) -> str:
    """A module with one kernel whose function body is ``before`` then the loop."""
    return module(textwrap.dedent(before) + loop(loop_body, header, target), prelude=prelude)


PRODUCER = """\
qa: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(q, [i * 16, 0], [16, 64])
rs: pl.Tile[[16, 64], pl.FP32] = pl.tile.add(qa, qa)
pl.tile.tpush_to_aiv(rs, split=0)
e: pl.Tile[[16, 64], pl.FP32] = pl.tile.tpop_from_aiv(split=0)
oi: pl.Tile[[16, 64], pl.FP32] = pl.tile.add(e, e)
pl.tile.store(oi, [i * 16, 0], out)
"""

CONSUMER = """\
s0 = pl.tile.tpop_from_aic(split=0)
c0 = pl.tile.exp(s0)
pl.tile.tpush_to_aic(c0, split=0)
pl.tile.store(c0, [i * 16, 0], out)
"""

LOCAL = """\
t: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(q, [k * 16, 0], [16, 64])
pl.tile.store(t, [k * 16, 0], out)
"""
LOCAL_PIPELINE = "pl.pipeline(0, 4, 1, stage=2)"

# Issue 16's example, on the cube side: qt is the lead, rt is pushed back under a guard.
FIFO_REORDER_BODY = """\
qt = pl.tile.load(q, [i * 16, 0], [16, 64])
pl.tpush_to_aiv(qt, split=0)
rt = pl.tpop_from_aiv(split=0)
if n > 2:
    pl.tpush_to_aiv(rt, split=0)
pl.tile.store(rt, [i * 16, 0], out)
"""

# -- named kernels -----------------------------------------------------------------------------

SKEWED = kernel(PRODUCER)  # SKW001: depth 2, trip 8, the lead is the tpush (FOR_LINE + 3)
STAGE3 = kernel(PRODUCER, PIPELINE.replace("stage=2", "stage=3"))  # SKW001 and the SKW030 hint
# SKW020: the tpop (FOR_LINE + 1) feeds the push. Information: the module has no loop on
# the cube, so its producer is in another file (nothing here to edit).
DEMOTED = kernel(CONSUMER)
# SKW002, a warning: trip 3 gives depth 1, below the requested 2.
SHALLOW = kernel(PRODUCER, "pl.pipeline(0, 3, 1, stage=2)")
BOTH = module(loop(PRODUCER) + loop(CONSUMER))  # the demoted loop's `for` is SECOND_FOR_LINE
SKEWED_AND_LEFT = module(loop(PRODUCER) + loop(LOCAL, LOCAL_PIPELINE, "k"))  # SKW001, SKW011
IMPORTED = kernel(PRODUCER, "pl.pipeline(0, TRIP, 1, stage=2)", prelude="from consts import TRIP")
FIFO_REORDER = kernel(FIFO_REORDER_BODY, "pl.pipeline(0, 4, 1, stage=2)")  # SKW001 and SKW060
# A loop built twice (a module-level for) and an inline helper's loop, decided at its call
# (line 17): three copies, labelled `n = 4`, `n = 3` and by the call.
BUILT_TWICE_AND_INLINED = (
    "import pypto.language as pl\n"
    "for n in (4, 3):\n"
    "    @pl.program\n"
    "    class P:\n"
    "        @pl.function\n"
    "        def k(self, a: pl.Tensor[[64, 64], pl.FP16]):\n"
    "            for i in pl.pipeline(0, n, 1, stage=2):\n"
    "                pl.tile.tpush_to_aiv(pl.tile.load(a, [i, 0], [16, 64]), split=0)\n"
    "                e = pl.tile.tpop_from_aiv(split=0)\n"
    "@pl.jit.inline\n"
    "def h(a: pl.Tensor[[64, 64], pl.FP16], m: pl.Scalar[pl.INT32]):\n"
    "    for i in pl.pipeline(0, m, 1, stage=2):\n"
    "        pl.tile.tpush_to_aiv(pl.tile.load(a, [i, 0], [16, 64]), split=0)\n"
    "        e = pl.tile.tpop_from_aiv(split=0)\n"
    "@pl.jit\n"
    "def entry(a: pl.Tensor[[64, 64], pl.FP16]):\n"
    "    h(a, 4)\n"
)
# Copies of one loop that part ways: a builder called for two variants (its cube copy skews
# at depth 4 at `blocks = 16, stage = 5`, at depth 1 at `blocks = 3, stage = 2`), and an
# inline helper's loop left at both of its calls, lowered for a trip of 8 (4 iterations,
# no remainder) at the first and of 7 (3 iterations, then 1 copy) at the second.
COPIES_APART = """\
import pypto.language as pl

HIDDEN = 64
ROWS = 256
HEAD_TILE = 16


def build_attention(blocks: int, stage: int = 2):
    @pl.program
    class Attention:
        @pl.function
        def attend(
            self,
            q: pl.Tensor[[ROWS, HIDDEN], pl.BF16],
            kv: pl.Tensor[[HIDDEN, HIDDEN], pl.BF16],
            o: pl.Out[pl.Tensor[[ROWS, HIDDEN], pl.FP32]],
        ) -> pl.Tensor[[ROWS, HIDDEN], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                k = kv[0:HIDDEN, 0:HIDDEN]
                for hb in pl.pipeline(blocks, stage=stage):
                    h0 = hb * HEAD_TILE
                    s = pl.matmul(q[h0 : h0 + HEAD_TILE, 0:HIDDEN], k, b_trans=True, out_dtype=pl.FP32)
                    p = pl.cast(pl.exp(s), target_type=pl.BF16, mode="rint")
                    o[h0 : h0 + HEAD_TILE, 0:HIDDEN] = pl.matmul(p, k, out_dtype=pl.FP32)
            return o

    return Attention


DEEP = build_attention(16, stage=5)
SHORT = build_attention(3)


@pl.jit.inline
def stream_rows(a: pl.Tensor[[ROWS, HIDDEN], pl.FP32], out: pl.Tensor[[ROWS, HIDDEN], pl.FP32], n: pl.Scalar[pl.INDEX]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="rows"):
        for r in pl.pipeline(n, stage=2):
            t = pl.load(a, [r, 0], [1, HIDDEN])
            out = pl.store(pl.add(t, t), [r, 0], out)
    return out


@pl.jit
def even(a: pl.Tensor[[ROWS, HIDDEN], pl.FP32], out: pl.Out[pl.Tensor[[ROWS, HIDDEN], pl.FP32]]):
    out = stream_rows(a, out, 8)
    return out


@pl.jit
def odd(a: pl.Tensor[[ROWS, HIDDEN], pl.FP32], out: pl.Out[pl.Tensor[[ROWS, HIDDEN], pl.FP32]]):
    out = stream_rows(a, out, 7)
    return out
"""
COPIES_APART_BUILT_FOR = 20  # 1-based line of the builder's `for`
COPIES_APART_SPLICED_FOR = 37  # 1-based line of the helper's `for`
SYNTAX_ERROR = "import pypto.language as pl\n\nfor i in pl.pipeline(0, 4, stage=2)\n    pass\n"

FOR_LINE = 7  # 0-based LSP line of the first `for` in every named kernel above
SECOND_FOR_LINE = FOR_LINE + 1 + len(PRODUCER.splitlines())

# SKEWED's loop as SkewCrossCorePipeline rewrites it (depth 2, trip 8), written out by hand
# from the schedule in SKEW_RULES.md: produce 0 and 1, then three steady iterations that
# produce i, i+1 and consume i-2, i-1, then consume 6 and 7. The producer half is the
# statements up to the lead tpush, the consumer half the rest.
SKEWED_REWRITE = """\
# prologue: produce(0), produce(1)
qa_p0: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(q, [0, 0], [16, 64])
rs_p0: pl.Tile[[16, 64], pl.FP32] = pl.tile.add(qa_p0, qa_p0)
pl.tile.tpush_to_aiv(rs_p0, split=0)
qa_p1: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(q, [16, 0], [16, 64])
rs_p1: pl.Tile[[16, 64], pl.FP32] = pl.tile.add(qa_p1, qa_p1)
pl.tile.tpush_to_aiv(rs_p1, split=0)
# steady: produce(i), produce(i+1); consume(i-2), consume(i-1)
for i in pl.range(2, 8, 2):
    qa_p2: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(q, [i * 16, 0], [16, 64])
    rs_p2: pl.Tile[[16, 64], pl.FP32] = pl.tile.add(qa_p2, qa_p2)
    pl.tile.tpush_to_aiv(rs_p2, split=0)
    qa_p3: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(q, [(i + 1) * 16, 0], [16, 64])
    rs_p3: pl.Tile[[16, 64], pl.FP32] = pl.tile.add(qa_p3, qa_p3)
    pl.tile.tpush_to_aiv(rs_p3, split=0)
    e_c0: pl.Tile[[16, 64], pl.FP32] = pl.tile.tpop_from_aiv(split=0)
    oi_c0: pl.Tile[[16, 64], pl.FP32] = pl.tile.add(e_c0, e_c0)
    pl.tile.store(oi_c0, [(i - 2) * 16, 0], out)
    e_c1: pl.Tile[[16, 64], pl.FP32] = pl.tile.tpop_from_aiv(split=0)
    oi_c1: pl.Tile[[16, 64], pl.FP32] = pl.tile.add(e_c1, e_c1)
    pl.tile.store(oi_c1, [(i - 1) * 16, 0], out)
# epilogue: consume(6), consume(7)
e_c2: pl.Tile[[16, 64], pl.FP32] = pl.tile.tpop_from_aiv(split=0)
oi_c2: pl.Tile[[16, 64], pl.FP32] = pl.tile.add(e_c2, e_c2)
pl.tile.store(oi_c2, [96, 0], out)
e_c3: pl.Tile[[16, 64], pl.FP32] = pl.tile.tpop_from_aiv(split=0)
oi_c3: pl.Tile[[16, 64], pl.FP32] = pl.tile.add(e_c3, e_c3)
pl.tile.store(oi_c3, [112, 0], out)
"""

# -- reading a kernel's reports ------------------------------------------------------------------


def only_loop(source: str, path: str = "kernel.py") -> LoopReport:
    reports = analyze(source, path)
    assert len(reports) == 1, [r.message for r in reports]
    assert "internal error" not in reports[0].message, reports[0].message
    return reports[0]


def function_and_loop(source: str) -> tuple[cst.FunctionDef, cst.For]:
    """The first function of ``source`` and the loop its body opens with (libcst's
    parse): what a test of one pass hands the pass, as the walk would."""
    fn = next(s for s in cst.parse_module(source).body if isinstance(s, cst.FunctionDef))
    loop = fn.body.body[0]
    assert isinstance(loop, cst.For)
    return fn, loop


def loop_at(source: str, line_text: str) -> LoopReport:
    """The report of the loop whose ``for`` line contains ``line_text``."""
    lines = source.splitlines()
    wanted = next(i + 1 for i, line in enumerate(lines) if line_text in line)
    for report in analyze(source, "kernel.py"):
        if report.span.line == wanted:
            return report
    raise AssertionError(f"no loop at line {wanted}")


# -- a mixed cube+vector loop ------------------------------------------------------------------

# Format with ``heads`` (H: the trip is H // 32) and ``tail`` (the loop's last statements,
# e.g. ``ATTENTION_STORES``).
ATTENTION = """\
import pypto.language as pl

H = {heads}
QK_M_TILE = 32
HEAD_DIM = 64


@pl.jit
def attention(q_flat: pl.Tensor[[256, 64], pl.BF16], kv: pl.Tensor[[64, 64], pl.BF16],
              out_oi: pl.Tensor[[256, 64], pl.FP32], out_mi: pl.Tensor[[256, 1], pl.FP32]):
    with pl.spmd(1, name_hint="qk_pv"):
        qk_kv = kv[0:64, 0:HEAD_DIM]
        for hb in pl.pipeline(H // QK_M_TILE, stage=2):
            h0 = hb * QK_M_TILE
            q_tile = q_flat[h0 : h0 + QK_M_TILE, 0:HEAD_DIM]
            raw = pl.matmul(q_tile, qk_kv, b_trans=True, out_dtype=pl.FP32)
            scaled = pl.mul(raw, 0.125)
            mi = pl.row_max(scaled)
            ex = pl.exp(pl.row_expand_sub(scaled, mi))
            ex_bf16 = pl.cast(ex, target_type=pl.BF16, mode="rint")
            oi = pl.matmul(ex_bf16, qk_kv, out_dtype=pl.FP32)
{tail}
"""

ATTENTION_STORES = """\
            out_mi[h0 : h0 + QK_M_TILE, 0:1] = mi
            out_oi[h0 : h0 + QK_M_TILE, 0:HEAD_DIM] = oi
"""

# -- loop shapes for the transform's equivalence checks ----------------------------------------

# The kernels are run against tests/transform/fake_pl.py with these four arguments.
SHAPE_PARAMS = (
    "q: pl.Tensor[[64, 64], pl.FP32], kv: pl.Tensor[[64, 64], pl.FP32], "
    "out: pl.Tensor[[64, 64], pl.FP32], acc0: pl.Tile[[16, 64], pl.FP32]"
)
SHAPE_HEAD = head(params=SHAPE_PARAMS)


@dataclass(frozen=True)
class Shape:
    """One loop body shape; ``text()`` writes the kernel."""

    start: int = 0
    stop: int = 8
    step: int = 1
    stage: int = 2
    address: bool = False  # off = i * 16 in the producer
    reuse_address: bool = False  # the consumer reads off too (recomputed)
    index: str = "i * 16"
    producer_ops: int = 1
    unroll: bool = False
    direction: str = "aiv"
    consumer_first: bool = False  # pop before push: consumer role, demoted
    consumer_ops: int = 1
    iter_args: int = 0
    implicit: bool = False  # total = add(total, oi): carried without init_values
    guard: bool = False  # an if in the consumer reading the loop variable
    keyword_store: bool = False
    slices: bool = False
    read_after: bool = False  # a producer value read after the loop

    def text(self) -> str:
        names = [f"a{k}" for k in range(self.iter_args)]
        body = self._consumer(names) + self._producer() if self.consumer_first else (
            self._producer() + self._consumer(names)
        )
        if self.consumer_first:  # a consumer-role core: the popped tile feeds the push
            body = [line.replace("pl.tile.add(qa, qa)", "pl.tile.add(qa, e)") for line in body]
        if names:
            results = [f"r{k}" for k in range(len(names))]
            body.append(f"{', '.join(results)} = pl.yield_({', '.join(n + '_new' for n in names)})")
        lines = self._header(names) + [" " * 12 + line for line in body]
        returned = [f"r{k}" for k in range(len(names))]
        if self.implicit:
            returned.append("total")
        if self.read_after:
            returned.append("rs")
        lines.append(f"        return ({', '.join(returned)}{',' if returned else ''})")
        return SHAPE_HEAD + "\n".join(lines) + "\n"

    def _header(self, names: list[str]) -> list[str]:
        """The lines before the body: the implicit carry's load, then the loop header."""
        lines: list[str] = []
        if self.implicit:
            lines.append("        total = pl.tile.load(out, [0, 0], [16, 64])")
        target = "i" if not names else f"i, ({', '.join(names)},)"
        init = ""
        if names:
            init = f", init_values=({', '.join('acc0' for _ in names)},)"
        lines.append(
            f"        for {target} in pl.pipeline({self.start}, {self.stop}, {self.step}, "
            f"stage={self.stage}{init}):"
        )
        return lines

    def _producer(self) -> list[str]:
        index = self.index
        producer: list[str] = []
        if self.address:
            producer.append("off = i * 16  # address scalar")
            index = "off"
        if self.slices:
            producer.append("qa = pl.tile.add(q[i * 2 : i * 2 + 2, :], q[i, 0:4])")
        else:
            producer.append("# load this block's rows")
            producer.append(f"qa: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(q, [{index}, 0], [16, 64])")
        producer.append("rs = pl.tile.add(qa, qa)")
        for k in range(self.producer_ops):
            producer.append(f"rs = pl.tile.mul(rs, qa)  # op {k}")
        if self.unroll:
            producer.append("for j in pl.unroll(2):")
            producer.append("    rs = pl.tile.add(rs, j + i)")
        producer.append(f"pl.tile.tpush_to_{self.direction}(rs, split=0)")
        return producer

    def _consumer(self, names: list[str]) -> list[str]:
        consumer = [f"e = pl.tile.tpop_from_{self.direction}(split=0)", "oi = pl.tile.add(e, e)"]
        for k in range(self.consumer_ops):
            consumer.append(f"oi = pl.tile.mul(oi, e)  # op {k}")
        reuse = self.reuse_address and self.address
        if reuse:
            consumer.append("va = pl.tile.load(kv, [off, 0], [16, 64])")
            consumer.append("oi = pl.tile.add(oi, va)")
        for name in names:
            consumer.append(f"{name}_new = pl.tile.add({name}, oi)")
        if self.implicit:
            consumer.append("total = pl.tile.add(total, oi)")
        store_index = "off" if reuse else "(i + 1) * 16 - 16"
        store = (
            f"pl.tile.store(oi, offsets=[{store_index}, i], output_tensor=out)"
            if self.keyword_store
            else f"pl.tile.store(oi, [{store_index}, 0], out)"
        )
        if self.guard:
            return consumer + ["if i % 2 == 0:", f"    {store}", "else:", "    pl.tile.store(e, [i + 0, 1], out)"]
        return consumer + [store]


@st.composite
def shapes(draw) -> Shape:
    step = draw(st.sampled_from([1, 1, 2, 3, -1, -2]))
    start = draw(st.integers(-6, 6))
    trip = draw(st.integers(1, 13))
    ragged = draw(st.integers(0, abs(step) - 1))  # stop not on the step grid
    stop = start + trip * step - (ragged if step > 0 else -ragged)
    address = draw(st.booleans())
    consumer_first = draw(st.booleans()) and draw(st.booleans())
    return Shape(
        start=start,
        stop=stop,
        step=step,
        stage=draw(st.integers(1, 6)),
        address=address,
        reuse_address=address and not consumer_first and draw(st.booleans()),
        index=draw(st.sampled_from(["i * 16", "(i + 1) * 16 - 16", "i", "16 * i + 0"])),
        producer_ops=draw(st.integers(0, 2)),
        unroll=draw(st.booleans()),
        direction=draw(st.sampled_from(["aiv", "aic"])),
        consumer_first=consumer_first,
        consumer_ops=draw(st.integers(0, 2)),
        iter_args=draw(st.integers(0, 2)),
        implicit=draw(st.booleans()),
        guard=draw(st.booleans()),
        keyword_store=draw(st.booleans()),
        slices=draw(st.booleans()),
        read_after=draw(st.booleans()),
    )


# -- the realistic tree ----------------------------------------------------------------------------

# Each expectation is derived from the pass's rules (shared/spec/SKEW_RULES.md), not from
# skewlsp's output; the reason is written next to it. Every kernel of the tree compiles with
# the upstream compiler (e2d0f78ae, built locally), and its verdicts agree loop by loop.

REALISTIC = Path(__file__).resolve().parent / "fixtures" / "realistic"
REALISTIC_MODELS = REALISTIC / "models" / "tiny_llm"
PIPELINE_FOR = re.compile(r"^\s*for\b.*\bin\s+pl\.pipeline\(")


@dataclass(frozen=True)
class Expected:
    file: str
    line: int
    code: str
    depth: int | None
    trip: int | None
    cores: tuple[tuple[str, str, int | None], ...] = ()
    hints: tuple[str, ...] = ()  # findings reported next to the loop's own code


EXPECTED = [
    # QK -> softmax -> PV over SEQ_BLOCKS = 4096 // 1024 = 4 (config -> tiling -> attention):
    # the cube pushes QK first and pops the probabilities (producer, depth 2 at trip 4);
    # the vector pops the scores first and they feed the softmax (consumer role).
    Expected("attention.py", 23, "SKW001", 2, 4, (("aic", "SKW001", 2), ("aiv", "SKW020", None))),
    # Same shape over HEAD_TILES = 16 // 8 = 2: trip 2 < 2 x 2, the cube falls back to depth 1.
    Expected("attention.py", 47, "SKW002", 1, 2, (("aic", "SKW002", 1), ("aiv", "SKW020", None))),
    # Builder local rows = batch * 2 with batch's default DECODE_BATCH = 4: trip 8, depth 2.
    Expected("decode.py", 21, "SKW001", 2, 8),
    # odd_rows = 7: 7 % 2 != 0, so depth 1.
    Expected("decode.py", 27, "SKW002", 1, 7),
    # Pops first and the popped tile feeds the body: consumer role.
    Expected("decode.py", 36, "SKW020", None, 8),
    # Two tpush and two tpop per iteration.
    Expected("decode.py", 45, "SKW021", None, 8),
    # Under pl.unroll(2): the first copy runs 0..4 (each copy has trip 4).
    Expected("decode.py", 57, "SKW001", 2, 4),
    # Outer loop: cross-core only through its inner loop's depth-1 prologue/epilogue. The
    # inner steady loop's tpush is nested (not counted) and lands in the consumer half: after
    # the skew it follows the next 2 produces, so the FIFO to AIV is reordered (SKW060).
    Expected("decode.py", 64, "SKW001", 2, 4, hints=("SKW060",)),
    # Inner loop: trip 3, depth 1.
    Expected("decode.py", 65, "SKW002", 1, 3),
    # Stop from pl.dynamic("DECODE_ROWS"): a symbolic dimension, demoted.
    Expected("decode.py", 74, "SKW022", None, None),
    # stage=1 on a cross-core loop, trip ROWS_PER_BLOCK = 128 // 16 = 8.
    Expected("decode.py", 80, "SKW024", None, 8),
    # No message at all: left for LowerPipelineLoops, which replicates it: trip 8 at
    # stage=2, a main loop of 4 iterations and no remainder.
    Expected("decode.py", 86, "SKW011", None, 8),
    # RMSNorm: vector ops only, nothing crosses; trip 1024 // 256 = 4.
    # (The core's code is its skew verdict, left; the loop's is the lowering's: trip 4 at
    # stage=2, replicated with no remainder.)
    Expected("norm.py", 14, "SKW011", None, 4, (("aiv", "SKW010", None),)),
]

REWRITTEN = {"SKW001", "SKW002", "SKW020", "SKW021", "SKW022", "SKW024"}  # by the skew pass
# Left loops the lowering passes rewrite (SKW010, stage=1 or unknown, is not rewritten).
LOWERED = {"SKW011", "SKW012", "SKW013", "SKW014", "SKW015", "SKW016", "SKW017"}


def pipeline_lines() -> list[tuple[str, int]]:
    """Every ``for ... in pl.pipeline(`` line of the tree, found by text (not by skewlsp)."""
    found = []
    for path in sorted(REALISTIC_MODELS.glob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if PIPELINE_FOR.match(line):
                found.append((path.name, number))
    return found


# -- sweeps over every sample kernel -----------------------------------------------------------

ROOT = Path(__file__).resolve().parents[1]


def _fast_paths(paths: Iterable[Path]) -> set[Path]:
    """Of ``paths``, those a sweep reads in the fast tier: every example, and of each
    fixture tree (a folder of tests/fixtures) its first file holding a pipeline loop.
    An exhaustive sweep of ~50 files cost a fifth of the fast tier; one file per tree
    still meets each tree's constructs (builders, variants, lowerings, helpers), and the
    slow tier (.ci/run runs it) reads every file."""
    fast: set[Path] = set()
    trees: set[str] = set()
    for path in sorted(paths, key=str):
        parts = path.resolve().relative_to(ROOT).parts
        if parts[0] == "examples":
            fast.add(path)
        elif (
            parts[:2] == ("tests", "fixtures")
            and parts[2] not in trees
            and "pipeline(" in path.read_text(encoding="utf-8")
        ):
            trees.add(parts[2])
            fast.add(path)
    return fast


def in_tiers(paths: Iterable[Path], ids: Callable[[Path], str]) -> list[object]:
    """``paths`` as parameters of a sweep: those of :func:`fast_tier` in the fast tier,
    the rest marked ``slow``."""
    listed = list(paths)
    fast = _fast_paths(listed)
    return [
        pytest.param(path, id=ids(path), marks=() if path in fast else pytest.mark.slow)
        for path in listed
    ]


def fast_tier(paths: Iterable[Path]) -> list[Path]:
    """The sample kernels of ``paths`` a sweep reads in the fast tier, in their order."""
    listed = list(paths)
    fast = _fast_paths(listed)
    return [path for path in listed if path in fast]
