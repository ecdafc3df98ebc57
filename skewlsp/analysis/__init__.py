"""The pure analysis layer: source text in, one report per ``pl.pipeline`` loop out."""

from .codes import CODES, SEVERITY_RANK, ReasonCode, docs_url, severity_of
from .engine import LoopModel, analyze, analyze_models
from .report import CoreResult, Finding, LoopReport, Span
from .unit_cache import UnitCache

__all__ = [
    "CODES",
    "SEVERITY_RANK",
    "CoreResult",
    "Finding",
    "LoopModel",
    "LoopReport",
    "ReasonCode",
    "Span",
    "UnitCache",
    "analyze",
    "analyze_models",
    "docs_url",
    "severity_of",
]
