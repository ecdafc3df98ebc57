"""LoopReport <-> plain JSON data, for the on-disk cache.

JSON rather than pickle so that a cache file can never run code when it is
read; decoding is tolerant (unknown keys dropped, missing keys defaulted) and
any mismatch simply makes the entry a cache miss.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from skewlsp.analysis.report import (
    CoreResult,
    Edit,
    FifoHazard,
    FifoMessage,
    Finding,
    Instance,
    LoopReport,
    Related,
    Span,
)

_SPAN_FIELDS = ("span", "call_span", "lead", "offending", "stage_span")
_LINE_RANGES = ("producer_lines", "consumer_lines")
_REPORT_FIELDS = frozenset(f.name for f in dataclasses.fields(LoopReport))


def report_to_data(report: LoopReport) -> dict[str, Any]:
    return dataclasses.asdict(report)


def _span(data: Any) -> Span | None:
    return None if data is None else Span(**data)


def report_from_data(data: dict[str, Any]) -> LoopReport:
    """Rebuild a report; raises (KeyError/TypeError/ValueError) on data of another shape."""
    values = {k: v for k, v in data.items() if k in _REPORT_FIELDS}
    for key in _SPAN_FIELDS:
        if key in values:
            values[key] = _span(values[key])
    for key in _LINE_RANGES:
        if key in values:
            values[key] = tuple((int(a), int(b)) for a, b in values[key])
    if "hints" in values:
        values["hints"] = tuple(
            Finding(
                h["code"],
                h["message"],
                Span(**h["span"]),
                tuple(Related(Span(**r["span"]), r["message"]) for r in h.get("related", ())),
                _edit(h.get("fix")),
            )
            for h in values["hints"]
        )
    if "hazards" in values:
        values["hazards"] = tuple(_hazard(h) for h in values["hazards"])
    if "cores" in values:
        values["cores"] = tuple(CoreResult(**c) for c in values["cores"])
    if values.get("instance") is not None:
        values["instance"] = _instance(values["instance"])
    if "args" in values:
        values["args"] = tuple((str(a), str(b)) for a, b in values["args"])
    return LoopReport(**values)


def _edit(data: dict[str, Any] | None) -> Edit | None:
    return None if data is None else Edit(Span(**data["span"]), str(data["text"]))


def _hazard(data: dict[str, Any]) -> FifoHazard:
    values = dict(data)
    for key in ("moved", "lead"):
        values[key] = Span(**values[key])
    for key in ("source_order", "skewed_order"):
        values[key] = tuple(FifoMessage(**m) for m in values.get(key, ()))
    return FifoHazard(**values)


def _instance(data: dict[str, Any]) -> Instance:
    return Instance(
        tuple((str(a), str(b)) for a, b in data["bindings"]),
        str(data.get("caller", "")),
        _span(data.get("call")),
    )
