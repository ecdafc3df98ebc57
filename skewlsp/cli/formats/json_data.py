"""The JSON object for one diagnostic: the machine contract shared by json and json-lines.

Keys are only ever added, never renamed or removed; tools depend on them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from skewlsp.cli.codec import plain_data
from skewlsp.common.diagnostic import Diagnostic
from skewlsp.common.rules_page import docs_url
from skewlsp.contract import (
    CODES,
    BufferAssignment,
    CoreResult,
    FifoHazard,
    FifoMessage,
    Instance,
    LoopReport,
    Lowering,
    SpaceBuffers,
    Span,
)


def span_data(span: Span | None) -> dict[str, int] | None:
    if span is None:
        return None
    return {
        "line": span.line,
        "column": span.column,
        "end_line": span.end_line,
        "end_column": span.end_column,
    }


def _message_data(message: FifoMessage) -> dict[str, Any]:
    return {"label": message.label, "index": message.index, "moved": message.moved}


def hazard_data(hazard: FifoHazard) -> dict[str, Any]:
    """One FIFO the skew reorders (SKW060), with both orders of its first messages."""
    return {
        "fifo": hazard.direction,
        "moved": span_data(hazard.moved),
        "lead": span_data(hazard.lead),
        "guard": hazard.guard,
        "after_produces": hazard.after_produces,
        "depth": hazard.depth,
        "source_order": [_message_data(m) for m in hazard.source_order],
        "skewed_order": [_message_data(m) for m in hazard.skewed_order],
        "messages": hazard.messages,
    }


def instance_data(instance: Instance | None) -> dict[str, Any] | None:
    """Which compiled copy of the loop (module-level for iteration, inline helper caller)."""
    if instance is None:
        return None
    return {
        "bindings": {name: value for name, value in instance.bindings},
        "caller": instance.caller or None,
        "call": span_data(instance.call),
        "call_path": instance.call_path,
        # (the imported helper's loop a copy reported at its call is; ``null`` elsewhere)
        "helper_loop": plain_data(instance.helper_loop) if instance.helper_loop else None,
    }


def assumed_data(report: LoopReport | None) -> dict[str, Any]:
    """``assumes`` and ``variants``: the values of the environment (or ``sys.argv``) the
    verdict was decided with and that decide it, and the loop under each other value
    that changes its report."""
    if report is None:
        return {"assumes": {}, "variants": []}
    return {
        "assumes": {
            a.variable: list(a.value) if isinstance(a.value, tuple) else a.value
            for a in report.assumes
        },
        "variants": [
            {
                "environment": {v.variable: v.value},
                "verdict": v.verdict,
                "code": v.code,
                "depth": v.depth,
                "message": v.message,
            }
            for v in report.variants
        ],
    }


def lowering_data(lowering: Lowering | None) -> dict[str, Any] | None:
    """What the lowering passes make of a left loop (or of one core's copy);
    ``second_lane`` only where the second vector lane's copy is lowered otherwise, a
    record of the same form."""
    return _lowering_data(plain_data(lowering)) if lowering is not None else None


def _lowering_data(data: dict[str, Any]) -> dict[str, Any]:
    """One lowering's record with ``second_lane`` left out where it is not said."""
    if data["second_lane"] is None:
        del data["second_lane"]
    else:
        data["second_lane"] = _lowering_data(data["second_lane"])
    return data


def memory_data(memory: Sequence[SpaceBuffers]) -> list[dict[str, Any]]:
    """What MemoryReuse and AllocateMemoryAddr give a loop's loads, per memory space
    (``ir_depth`` only where it is said: the IR keeps more stages apart than
    ``achieved``; ``k_loops`` only where a K loop's two depths are said, each K loop's
    ``buffers`` a record of the same form; ``lane`` only on a second lane's record,
    ``remainder`` only on the record of the copies after the main loop)."""
    return [_space_data(plain_data(space)) for space in memory]


def _space_data(data: dict[str, Any]) -> dict[str, Any]:
    """One space's record with the keys of what is not said left out."""
    if data["ir_depth"] is None:
        del data["ir_depth"]
    if data["lane"] is None:
        del data["lane"]
    if not data["remainder"]:
        del data["remainder"]
    if data["k_loops"]:
        data["k_loops"] = [
            dict(k_loop, buffers=_space_data(k_loop["buffers"])) for k_loop in data["k_loops"]
        ]
    else:
        del data["k_loops"]
    return data


def buffers_data(buffers: BufferAssignment | None) -> dict[str, Any] | None:
    """Which copy's load is in which buffer (``loads``), or why the memory passes did not
    model the loop (``why``); None when they never saw it."""
    return plain_data(buffers) if buffers is not None else None


def cores_data(cores: Sequence[CoreResult]) -> list[dict[str, Any]]:
    """Each core's copy of a split loop: the loop's, and each copy's of a loop built several
    times (one shape for both, so a tool reads them alike)."""
    return [
        {
            "core": c.core,
            "verdict": c.verdict,
            "code": c.code,
            "reason": c.reason,
            "depth": c.depth,
            "requested_depth": c.requested_depth,
            "trip": c.trip,
            "copies": c.copies,
            "pushes": c.pushes,
            "pops": c.pops,
            "lowering": lowering_data(c.lowering),
            "memory": memory_data(c.memory),
            "buffers": buffers_data(c.buffers),
        }
        for c in cores
    ]


def diagnostic_data(
    diagnostic: Diagnostic, *, preview: bool = False, docs: str | None = None
) -> dict[str, Any]:
    """``url``: the code's page under ``docs`` (the ``docs-url`` template), else the rules
    page installed with skewlsp (a ``file:`` URI)."""
    report = diagnostic.report
    span = diagnostic.span
    # (a scope without a loop claims no loop field: they are null, its header is ``line``)
    loop = report if report is not None and not report.scope_only else None
    data: dict[str, Any] = {
        "kind": diagnostic.kind,
        "filename": diagnostic.filename,
        "line": span.line,
        "column": span.column,
        "end_line": span.end_line,
        "end_column": span.end_column,
        "code": diagnostic.code,
        "severity": diagnostic.severity,
        "message": diagnostic.message,
        "headline": diagnostic.headline,  # the short line (concise may drop its call)
        "url": docs_url(diagnostic.code, docs),
        "verdict": report.verdict if report else None,
        "function": report.function if report else None,
        "loop_var": loop.loop_var if loop else None,
        "depth": loop.depth if loop else None,
        "requested_depth": loop.requested_depth if loop else None,
        "trip": loop.trip if loop else None,
        "stage": loop.stage if loop else None,
        "start": loop.start if loop else None,
        "stop": loop.stop if loop else None,
        "step": loop.step if loop else None,
        "dynamic_symbol": loop.dynamic_symbol if loop else None,
        "lead": span_data(loop.lead) if loop else None,
        "offending": span_data(loop.offending) if loop else None,
        "loop": span_data(loop.span) if loop else None,
        "cores": cores_data(report.cores if report else ()),
        # The loop's advice, on the loop's record only: a hint's own edit is its fix_edit.
        "fix": report.fix_hint if report and diagnostic.kind == "loop" else None,
        # How the fix applies: "safe" (--fix), "unsafe" (--fix --unsafe-fixes), "advice" (a
        # human's change: no edit); and the edit, checked again before --fix writes it.
        "fix_applicability": diagnostic.applicability,
        "fix_edit": (
            {**(span_data(diagnostic.fix.span) or {}), "text": diagnostic.fix.text}
            if diagnostic.fix is not None
            else None
        ),
        "lowering": lowering_data(loop.lowering) if loop else None,
        "memory": memory_data(report.memory if report else ()),
        "buffers": buffers_data(report.buffers if report else None),
        "compiler_id": CODES[diagnostic.code].compiler_id if diagnostic.code in CODES else None,
        # a memory finding's own space record (one of ``memory``'s or its cores')
        "record": memory_data((diagnostic.record,))[0] if diagnostic.record else None,
        "related": [
            {"message": r.message, **(span_data(r.span) or {})} for r in diagnostic.related
        ],
        "hazards": [hazard_data(h) for h in (report.hazards if report else ())],
        "instance": instance_data(report.instance) if report else None,
        # Every copy of a loop Python builds several times, with its own verdict, cores and
        # lowering (the finding's own are the strictest copy's).
        "copies": [
            {
                "code": copy.code,
                "verdict": copy.verdict,
                "depth": copy.depth,
                "message": copy.message,
                "instance": instance_data(copy.instance),
                "cores": cores_data(copy.cores),
                "lowering": lowering_data(copy.lowering),
                "memory": memory_data(copy.memory),
                "buffers": buffers_data(copy.buffers),
                **assumed_data(copy),
            }
            for copy in diagnostic.copies
        ],
        **assumed_data(report),
    }
    if preview:
        data["preview"] = diagnostic.preview
        data["preview_error"] = diagnostic.preview_error
    return data
