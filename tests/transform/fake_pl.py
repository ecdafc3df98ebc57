"""A recording stand-in for ``pypto.language``, to run the tests' own kernels in Python.

The transform never executes user code; the tests execute *their own*
fixtures twice (the original loop and the rewritten one) against this fake
and compare what happened. Tile ops build symbolic values (nested tuples),
stores and messages are recorded, and the peer core answers the k-th push
with the k-th pop, so a pop issued before its push fails loudly.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Tensor:
    name: str

    def __getitem__(self, key: Any) -> tuple:
        return ("view", self.name, _key(key))


def _key(key: Any) -> Any:
    if isinstance(key, slice):
        return ("slice", key.start, key.stop, key.step)
    if isinstance(key, tuple):
        return tuple(_key(k) for k in key)
    return key


def _freeze(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, tuple):
        return tuple(_freeze(v) for v in value)
    return value


class _Loop:
    """``pl.range`` / ``pl.pipeline`` / ``pl.unroll``: a Python range with iter-args."""

    def __init__(self, fake: FakePl, kind: str, args: tuple, init_values=None, **_kw: Any):
        self.fake = fake
        self.kind = kind
        self.bounds = tuple(args) if len(args) == 3 else None
        self.range = range(*args)
        self.values = list(init_values) if init_values is not None else None

    def __iter__(self):
        self.fake.stack.append(self)
        try:
            for i in self.range:
                self.fake.events.append(("iteration", self.kind, self.bounds, i))
                yield i if self.values is None else (i, tuple(self.values))
        finally:
            self.fake.stack.pop()
        self.fake.events.append(("loop_end", self.kind, self.bounds))


class _Namespace:
    def __init__(self, fake: FakePl, prefix: str) -> None:
        self._fake = fake
        self._prefix = prefix

    def __getattr__(self, name: str) -> Any:
        if name in ("tile", "system"):
            return _Namespace(self._fake, name)
        return self._fake.op(name)

    def __getitem__(self, _key: Any) -> Any:
        return self


@dataclass
class FakePl:
    events: list[tuple] = field(default_factory=list)
    stack: list[_Loop] = field(default_factory=list)
    pushes: list[Any] = field(default_factory=list)
    pops: int = 0
    sends: list[tuple[str, Any]] = field(default_factory=list)  # (receiving core, value)
    max_in_flight: int = 0
    peer_leads: bool = False  # a consumer-role core: the peer pushes first, on its own

    # -- the DSL surface ---------------------------------------------------------------
    def program(self, cls):
        return cls

    def function(self, fn=None, **_kw):
        return fn if fn is not None else (lambda f: f)

    def range(self, *args, **kw):
        return _Loop(self, "range", args, **kw)

    def pipeline(self, *args, stage: int, **kw):
        assert isinstance(stage, int) and stage >= 1
        return _Loop(self, "pipeline", args, **kw)

    def unroll(self, *args, **kw):
        return _Loop(self, "unroll", args, **kw)

    def yield_(self, *values):
        self.stack[-1].values = list(values)
        return values[0] if len(values) == 1 else tuple(values)

    @property
    def tile(self) -> _Namespace:
        return _Namespace(self, "tile")

    @property
    def system(self) -> _Namespace:
        return _Namespace(self, "system")

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        if name in ("Tensor", "Tile", "Scalar", "FP32", "INDEX", "FP16", "INT32"):
            return _Namespace(self, name)
        return self.op(name)

    # -- recording -----------------------------------------------------------------------
    def op(self, name: str):
        if name.startswith("tpush"):
            direction = name.rsplit("_", 1)[-1]

            def push(value, **kw):
                self.sends.append((direction, value))
                return self._push(value, **kw)

            return push
        if name.startswith("tpop"):
            return self._pop
        if name == "store":
            return self._store
        if name == "load":
            return lambda tensor, offsets, shape=None, **kw: (
                "load", _freeze(tensor), _freeze(offsets), _freeze(shape)
            )

        def call(*args, **kw):
            return (name, *(_freeze(a) for a in args), *sorted((k, _freeze(v)) for k, v in kw.items()))

        return call

    def _push(self, value, **_kw):
        self.pushes.append(value)
        self.events.append(("push", len(self.pushes) - 1, value))
        self.max_in_flight = max(self.max_in_flight, len(self.pushes) - self.pops)

    def _pop(self, **_kw):
        k = self.pops
        self.pops += 1
        self.events.append(("pop", k))
        if self.peer_leads:
            return ("peer", k)
        assert k < len(self.pushes), f"tpop #{k} issued before its tpush"
        return ("peer", k, self.pushes[k])

    def _store(self, value, offsets=None, destination=None, *args, output_tensor=None, **kw):
        destination = destination if destination is not None else output_tensor
        record = ("store", _freeze(destination), _freeze(offsets), _freeze(value))
        self.events.append(record)
        return ("stored", _freeze(destination), _freeze(offsets), _freeze(value))

    def sends_to(self, core: str) -> list[Any]:
        """What the peer ``core`` receives on its FIFO from this core, in order."""
        return [value for direction, value in self.sends if direction == core]

    def stores(self) -> list[tuple]:
        return [e for e in self.events if e[0] == "store"]

    def in_flight_at_iterations(self, bounds: tuple[int, int, int]) -> list[int]:
        """pushes - pops at the start of each iteration of the loop with these bounds."""
        out: list[int] = []
        pushes = pops = 0
        for event in self.events:
            if event[0] == "push":
                pushes += 1
            elif event[0] == "pop":
                pops += 1
            elif event[0] in ("iteration", "loop_end") and event[2] == bounds and event[1] == "range":
                out.append(pushes - pops)
        return out


def run_kernel(
    source: str, *args: Any, peer_leads: bool = False, cls: str = "Kernel", method: str = "main"
) -> tuple[FakePl, Any]:
    """Execute a test kernel's text against a fresh fake; returns the fake and the result."""
    fake = FakePl(peer_leads=peer_leads)
    text = "from __future__ import annotations\n" + source.replace(
        "import pypto.language as pl", "pl = __fake_pl__"
    )
    namespace: dict[str, Any] = {"__fake_pl__": fake}
    exec(compile(text, "<kernel>", "exec"), namespace)  # noqa: S102 - the tests' own fixture
    result = getattr(namespace[cls](), method)(*args)
    return fake, result
