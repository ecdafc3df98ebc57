"""Kernel texts for the tests: hand-written cases and a hypothesis strategy of body shapes."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

HEADER = """import pypto.language as pl


@pl.program
class Kernel:
    @pl.function
    def main(self, q: pl.Tensor[[64, 64], pl.FP32], kv: pl.Tensor[[64, 64], pl.FP32], out: pl.Tensor[[64, 64], pl.FP32], acc0: pl.Tile[[16, 64], pl.FP32]):
"""


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
        return HEADER + "\n".join(lines) + "\n"

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
