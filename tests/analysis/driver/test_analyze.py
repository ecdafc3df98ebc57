"""What :func:`skewlsp.analysis.driver.analyze` leaves behind once its reports are dropped."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest

from skewlsp.analysis.driver import analyze
from skewlsp.common.resolver import RecordingResolver

MEM_LLM = Path(__file__).parents[2] / "fixtures" / "memory" / "models" / "mem_llm"


@pytest.fixture
def collector_off() -> Iterator[None]:
    """The cyclic garbage collector stopped (what it would find is what is counted)."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@pytest.mark.usefixtures("collector_off")
def test_an_analysis_is_freed_by_reference_counting_alone() -> None:
    # vector.py imports its sizes from config.py and calls an inline helper of helpers.py
    # (whose callers are walked again for it): the walks, the modules' constants and the
    # resolver that read them. Held in reference cycles, every tree of the analysis
    # waited for the collector (a million objects on pypto-lib, whose one collection
    # walked every object the batch kept); freed as they are dropped, none is left.
    path = MEM_LLM / "vector.py"
    reports = analyze(path.read_text(), str(path), resolver=RecordingResolver((MEM_LLM,)))
    assert len(reports) == 5  # its four loops, and the scope at line 48 that overflows Vec
    del reports

    left = gc.collect()

    # (what is left: the few cycles the standard library makes, e.g. ``ast.literal_eval``'s
    # recursive closure, three objects per call)
    assert left < 100
