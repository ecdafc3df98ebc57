"""UnrollLoops: a ``pl.unroll`` loop in a pipeline body written out, one copy per value.

The compiler unrolls before ConvertToSSA and long before the skew pass, so the skew pass
sees each copy's statements side by side at the top level of the body, each copy's
variable a constant (``Stmt.bindings``, ``Stmt.origin``). The count must be known when the
kernel is parsed; a count only the module's load knows makes the number of messages
unknown (``BodyContext.unknowns``).

Models: ``src/ir/transforms/unroll_loops_pass.cpp`` (pass doc 02).
"""

from __future__ import annotations

from dataclasses import replace

import libcst as cst

from skewlsp.analysis.frontend.constants import Opaque
from skewlsp.analysis.frontend.names import body_statements
from skewlsp.analysis.passes.body import (
    Block,
    BodyContext,
    Stmt,
    compound,
    const_trip,
    loop_bounds,
)
from skewlsp.analysis.source.walk import walk

# Unrolled copies beyond this are not modelled one by one (the compiler would, but
# such a body is far outside anything that reaches the skew pass in practice).
MAX_UNROLL_TRIP = 1024


def unroll(stmt: cst.For, ctx: BodyContext, block: Block) -> list[Stmt]:
    """UnrollLoops runs first: one copy of the body per iteration, the variable a literal
    (each copy walked by ``block``, the body walk).

    Its bounds must be constants when the kernel is *parsed*: literals and module
    constants only (a local is not folded yet), else the kernel does not compile.
    """
    call = stmt.iter
    assert isinstance(call, cst.Call)
    parse_ctx = ctx if ctx.parse_time_lookup is None else replace(ctx, lookup=ctx.parse_time_lookup)
    shape = const_trip(call, parse_ctx)
    if shape is None or not isinstance(stmt.target, cst.Name):
        bounds = loop_bounds(call, parse_ctx)
        opaque = [b for b in bounds or () if isinstance(b, Opaque)]
        if opaque:  # a constant we cannot see: the copies are real, their count unknown
            if _names_a_cross_core_op(stmt.body):
                ctx.unknowns.append(opaque[0].symbol)  # the count decides the messages
        else:
            ctx.errors.append("pl.unroll() requires compile-time constant integer bounds")
        return [compound(stmt)]
    start, _stop, step, trip = shape
    if trip > MAX_UNROLL_TRIP:
        ctx.errors.append(
            f"pl.unroll() trip {trip} exceeds the maximum allowed ({MAX_UNROLL_TRIP})"
        )
        return [compound(stmt)]
    var = stmt.target.value
    out: list[Stmt] = []
    for k in range(trip):
        value = start + k * step
        copy = block(body_statements(stmt.body), ctx.with_value(var, value))
        out.extend(
            replace(s, origin=f"{var}={value}", bindings=((var, value), *s.bindings)) for s in copy
        )
    return out


_CROSS_CORE_WORDS = ("tpush", "tpop", "matmul", "gemv")


def _names_a_cross_core_op(block: cst.BaseSuite) -> bool:
    """Whether a name in ``block`` says tpush, tpop, matmul or gemv (an op, a helper, a
    tile named after one). Names, not the block's code: a made tree's block has no
    code of its own to cut, and a comment saying "matmul" is no op."""
    return any(
        type(node) is cst.Name and any(word in node.value for word in _CROSS_CORE_WORDS)
        for node in walk(block)
    )
