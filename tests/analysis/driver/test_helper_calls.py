"""An imported inline helper's copy at its call, and whether the calling file sizes it.

tests/fixtures/memory/models/mem_moe: prefill.py sets config.TOKENS = 48 before it
imports scale.py, whose helper `scale_rows` reads TOKENS; pypto e2d0f78ae gives the copy
`prefill_scaled` compiles PH-MR-001 Vec 1 of 2 (49152 B per stage), the copies scale.py's
own kernel makes 2 of 2 (16384 B). A copy the calling file sizes is listed at the call
(``HelperLoop.sized_by_caller``); what decides it is kept by a language server, so an
edit of either file must be seen by its next analysis.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from skewlsp.analysis.driver import analyze
from skewlsp.analysis.reuse.unit_cache import UnitCache
from skewlsp.common.resolver import RecordingResolver
from skewlsp.contract import HelperLoop, LoopReport

MEM_MOE = Path(__file__).resolve().parents[2] / "fixtures" / "memory" / "models" / "mem_moe"
WRITE = "config.TOKENS = config.PREFILL_TOKENS"


def at_call(path: Path, text: str, cache: UnitCache) -> LoopReport:
    """The copy of scale.py's loop reported at prefill.py's call (line 19)."""
    reports = analyze(text, str(path), resolver=RecordingResolver((path.parent,)), cache=cache)
    (copy,) = [report for report in reports if report.span.line == 19]
    return copy


def vec(report: LoopReport) -> tuple[int, int, int | None]:
    (memory,) = report.cores[0].memory
    return memory.stage_bytes, memory.requested, memory.achieved


def test_a_copy_the_caller_sizes_names_the_helper_s_loop_and_says_so(tmp_path: Path) -> None:
    package = tmp_path / "mem_moe"
    shutil.copytree(MEM_MOE, package)
    driver = package / "prefill.py"
    copy = at_call(driver, driver.read_text(), UnitCache())
    assert copy.instance is not None
    assert copy.instance.helper_loop == HelperLoop("scale_rows", "scale", 15, True)
    assert vec(copy) == (49152, 2, 1)


def test_a_driver_edited_to_set_nothing_makes_the_copy_the_helper_module_s_again(
    tmp_path: Path,
) -> None:
    package = tmp_path / "mem_moe"
    shutil.copytree(MEM_MOE, package)
    driver = package / "prefill.py"
    text, cache = driver.read_text(), UnitCache()
    assert at_call(driver, text, cache).instance.helper_loop.sized_by_caller  # type: ignore[union-attr]
    unset = text.replace(WRITE, "PREFILL = config.PREFILL_TOKENS")
    assert unset != text
    copy = at_call(driver, unset, cache)
    assert copy.instance is not None and copy.instance.helper_loop is not None
    assert not copy.instance.helper_loop.sized_by_caller
    assert vec(copy) == (16384, 2, 2)  # (config's own 16 rows)


def test_a_helper_edited_to_read_nothing_the_driver_sets_is_no_longer_sized_by_it(
    tmp_path: Path,
) -> None:
    package = tmp_path / "mem_moe"
    shutil.copytree(MEM_MOE, package)
    driver, helper = package / "prefill.py", package / "scale.py"
    text, cache = driver.read_text(), UnitCache()
    assert at_call(driver, text, cache).instance.helper_loop.sized_by_caller  # type: ignore[union-attr]
    # the helper's rows become a constant of its own (16): nothing prefill.py sets is read
    own = helper.read_text().replace(
        "from config import STEPS, TOKENS, WIDTH", "from config import STEPS, WIDTH\nTOKENS = 16"
    )
    helper.write_text(own)
    copy = at_call(driver, text, cache)
    assert copy.instance is not None and copy.instance.helper_loop is not None
    assert not copy.instance.helper_loop.sized_by_caller
    assert vec(copy) == (16384, 2, 2)
