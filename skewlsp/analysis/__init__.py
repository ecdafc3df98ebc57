"""The pure analysis layer: source text in, one report per ``pl.pipeline`` loop out.

Laid out as the compiler's own pipeline, each stage a sub-package in the order the
compiler works (``docs/architecture.md`` draws it):

- :mod:`.source`: text to trees, positions and lines (nothing pypto-specific);
- :mod:`.frontend`: what pypto's DSL parser sees (programs, ``pl.jit`` entries,
  builder functions, imports, constant folding, the op registry);
- :mod:`.passes`: the passes before the skew pass that change what it sees, one
  module (or package) per upstream pass;
- :mod:`.skew_cross_core_pipeline`: the skew pass itself (decision, depth, FIFO order);
- :mod:`.report`: from decisions to :class:`skewlsp.contract.LoopReport`;
- :mod:`.reuse`: what a language server keeps from one edit to the next;
- :mod:`.driver`: runs them on one module.

The driver (and libcst behind it) is imported on first use, not with the package:
a linter run answered entirely from its cache, or ``skewlint --version``, never
needs it, and importing libcst costs more than such a run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from skewlsp.analysis.driver import LoopModel, analyze, analyze_models
    from skewlsp.analysis.frontend.imports import SharedModules
    from skewlsp.analysis.reuse.unit_cache import UnitCache

_LAZY = {
    "LoopModel": "driver",
    "analyze": "driver",
    "analyze_models": "driver",
    "UnitCache": "reuse.unit_cache",
    "SharedModules": "frontend.imports",
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
    "LoopModel",
    "SharedModules",
    "UnitCache",
    "analyze",
    "analyze_models",
]
