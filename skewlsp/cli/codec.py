"""LoopReport <-> plain JSON data, for the on-disk cache.

JSON rather than pickle so that a cache file can never run code when it is
read; decoding is tolerant (unknown keys dropped, missing keys defaulted) and
any mismatch simply makes the entry a cache miss.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from skewlsp.contract import (
    Assumption,
    CoreResult,
    Edit,
    FifoHazard,
    FifoMessage,
    Finding,
    Instance,
    LoopReport,
    Lowering,
    Origin,
    Related,
    SlotLoad,
    Span,
    StageFix,
    Variant,
)

_SPAN_FIELDS = ("span", "call_span", "lead", "offending", "stage_span", "stage_value")
_LINE_RANGES = ("producer_lines", "consumer_lines")


class _Shape:
    """A frozen dataclass's field names, defaults and required names, worked out once.

    A warm run rebuilds every cached report; the generated ``__init__`` of a frozen
    dataclass sets each field through ``object.__setattr__``, which cost more than
    reading the entry. :meth:`make` fills the instance's ``__dict__`` in one step
    instead (none of these classes has slots or a ``__post_init__``), with the same
    checks ``__init__`` would make: unknown keys dropped, missing defaults filled, a
    missing required field a ``KeyError``.
    """

    def __init__(self, cls: type) -> None:
        self.cls = cls
        fields = dataclasses.fields(cls)
        self.names = frozenset(f.name for f in fields)
        self.defaults = {
            f.name: f.default for f in fields if f.default is not dataclasses.MISSING
        }
        self.required = self.names - self.defaults.keys()
        # Filling __dict__ skips __init__: only for plain frozen dataclasses (a class that
        # later gains slots or a __post_init__ is built through its __init__ again).
        self.plain = not hasattr(cls, "__post_init__") and "__slots__" not in vars(cls)

    def make(self, data: dict[str, Any]) -> Any:
        keys = data.keys()
        if not self.required <= keys:
            raise KeyError(sorted(self.required - keys))
        values = dict(self.defaults)
        if keys <= self.names:
            values.update(data)
        else:
            values.update((k, v) for k, v in data.items() if k in self.names)
        if not self.plain:
            return self.cls(**values)
        made = object.__new__(self.cls)
        made.__dict__.update(values)
        return made


_REPORT = _Shape(LoopReport)
_SPAN = _Shape(Span)
_CORE = _Shape(CoreResult)
_HAZARD = _Shape(FifoHazard)
_MESSAGE = _Shape(FifoMessage)
_SLOT_LOAD = _Shape(SlotLoad)
_VARIANT = _Shape(Variant)
_ORIGIN = _Shape(Origin)


def report_to_data(report: LoopReport) -> dict[str, Any]:
    return dataclasses.asdict(report)


def _span(data: Any) -> Span | None:
    return None if data is None else _SPAN.make(data)


def report_from_data(data: dict[str, Any]) -> LoopReport:
    """Rebuild a report; raises (KeyError/TypeError/ValueError/AttributeError) on another shape."""
    values = dict(data)
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
                _SPAN.make(h["span"]),
                tuple(Related(_SPAN.make(r["span"]), r["message"]) for r in h.get("related", ())),
                _edit(h.get("fix")),
            )
            for h in values["hints"]
        )
    if "hazards" in values:
        values["hazards"] = tuple(_hazard(h) for h in values["hazards"])
    if "cores" in values:
        values["cores"] = tuple(
            _CORE.make(
                {**c, "body": tuple(c.get("body", ())), "lowering": _lowering(c.get("lowering"))}
            )
            for c in values["cores"]
        )
    if values.get("lowering") is not None:
        values["lowering"] = _lowering(values["lowering"])
    if values.get("instance") is not None:
        values["instance"] = _instance(values["instance"])
    if values.get("overlap") is not None:
        overlap = values["overlap"]
        values["overlap"] = Related(_SPAN.make(overlap["span"]), overlap["message"])
    if values.get("slot_loads") is not None:
        values["slot_loads"] = tuple(_SLOT_LOAD.make(load) for load in values["slot_loads"])
    if "args" in values:
        values["args"] = tuple((str(a), str(b)) for a, b in values["args"])
    _rebuild_stage_fix(values)
    if "assumes" in values:
        values["assumes"] = tuple(_assumption(a) for a in values["assumes"])
    if "variants" in values:
        values["variants"] = tuple(_VARIANT.make(v) for v in values["variants"])
    return _REPORT.make(values)


def _rebuild_stage_fix(values: dict[str, Any]) -> None:
    """A report's ``stage_fix`` and ``bounds_read``, rebuilt in place."""
    fix = values.get("stage_fix")
    if fix is not None:
        edit = _edit(fix["edit"])
        assert edit is not None
        values["stage_fix"] = StageFix(edit, str(fix["promised"]), fix["applicability"])
    if "bounds_read" in values:
        values["bounds_read"] = tuple(_ORIGIN.make(o) for o in values["bounds_read"])


def _assumption(data: dict[str, Any]) -> Assumption:
    value = data["value"]
    return Assumption(
        str(data["variable"]),
        tuple(str(v) for v in value) if isinstance(value, list) else value,
        bool(data.get("configured", False)),
    )


def _lowering(data: dict[str, Any] | None) -> Lowering | None:
    if data is None:
        return None
    return Lowering(**{**data, "slots": tuple(data.get("slots", ()))})


def _edit(data: dict[str, Any] | None) -> Edit | None:
    return None if data is None else Edit(_SPAN.make(data["span"]), str(data["text"]))


def _hazard(data: dict[str, Any]) -> FifoHazard:
    values = dict(data)
    for key in ("moved", "lead"):
        values[key] = _SPAN.make(values[key])
    for key in ("source_order", "skewed_order"):
        values[key] = tuple(_MESSAGE.make(m) for m in values.get(key, ()))
    return _HAZARD.make(values)


def _instance(data: dict[str, Any]) -> Instance:
    return Instance(
        tuple((str(a), str(b)) for a, b in data["bindings"]),
        str(data.get("caller", "")),
        _span(data.get("call")),
        None if data.get("call_path") is None else str(data["call_path"]),
        None if data.get("shown") is None else tuple(str(name) for name in data["shown"]),
    )
