"""The pure analysis layer: source text in, one report per ``pl.pipeline`` loop out.

The engine (and libcst behind it) is imported on first use, not with the package:
a linter run answered entirely from its cache, or ``skewlint --version``, never
needs it, and importing libcst costs more than such a run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .codes import CODES, SEVERITY_RANK, ReasonCode, docs_url, severity_of
from .report import (
    CoreResult,
    Edit,
    FifoHazard,
    FifoMessage,
    Finding,
    Instance,
    LoopReport,
    Related,
    Resolver,
    Span,
    loop_at,
)

if TYPE_CHECKING:
    from .engine import LoopModel, analyze, analyze_models
    from .imports import shared_imported_modules
    from .unit_cache import UnitCache
    from .unit_parses import concrete_trees

_LAZY = {
    "LoopModel": "engine",
    "analyze": "engine",
    "analyze_models": "engine",
    "UnitCache": "unit_cache",
    "concrete_trees": "unit_parses",
    "shared_imported_modules": "imports",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "CODES",
    "SEVERITY_RANK",
    "CoreResult",
    "Edit",
    "FifoHazard",
    "FifoMessage",
    "Finding",
    "Instance",
    "LoopModel",
    "LoopReport",
    "ReasonCode",
    "Related",
    "Resolver",
    "Span",
    "UnitCache",
    "analyze",
    "analyze_models",
    "concrete_trees",
    "docs_url",
    "loop_at",
    "severity_of",
    "shared_imported_modules",
]
