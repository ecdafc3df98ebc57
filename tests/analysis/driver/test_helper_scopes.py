"""An inline helper's InCore scope, as the program of a kernel that sets its sizes compiles it.

tests/fixtures/memory/models/mem_gate is laid out like pypto-lib's deepseek_v4_pro:
gate.py's inline helper `gate` fills the pad columns of the scores in a scope of their own
(a [TOKENS, 1024] FP32 tile) beside a pipeline loop; layer.py's helper `moe` calls it;
prefill.py sets config.TOKENS = 48 before it imports the layer and calls `moe` in its
kernel (no pipeline loop in the file), decode.py does not. pypto e2d0f78ae, read with
benchmarks/compiler_check.py --callers: `prefill_gate` stops in AllocateMemoryAddr,
"Vec buffer usage (196608 bytes) exceeds platform limit (188416 bytes)"; `decode_gate`
and gate.py's own `gate_test` compile (64 KB).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from skewlsp.analysis.driver import analyze
from skewlsp.analysis.reuse.unit_cache import UnitCache
from skewlsp.common.resolver import RecordingResolver
from skewlsp.contract import LoopReport, Span

MEM_GATE = Path(__file__).resolve().parents[2] / "fixtures" / "memory" / "models" / "mem_gate"
STOP = '("Vec buffer usage (196608 bytes) exceeds platform limit (188416 bytes)")'


def scopes(path: Path, text: str | None = None, **options: object) -> list[LoopReport]:
    """The scope reports of an analysis of ``path`` (its text, or ``text``) in its package."""
    source = path.read_text() if text is None else text
    resolver = RecordingResolver((path.parent,))
    reports = analyze(source, str(path), resolver=resolver, **options)  # type: ignore[arg-type]
    return [report for report in reports if report.scope_only]


def test_a_helper_s_scope_a_driver_sizes_is_an_error_at_the_driver_s_call() -> None:
    [report] = scopes(MEM_GATE / "prefill.py")
    assert (report.code, report.verdict, report.function) == ("SKW081", "error", "prefill_gate")
    assert report.span == report.call_span == Span(22, 12, 22, 15)  # `moe` in `return moe(...)`
    assert report.message == (
        "the InCore scope of `gate` from `gate` (its line 20) inlined here through `moe`: "
        "the scope's Vec tiles overflow Vec: `full` 196608 B are live at once and need "
        f"196608 B of its 188416 B; AllocateMemoryAddr stops the compile {STOP}"
    )
    assert [(m.space, m.cause) for m in report.memory] == [("Vec", "overflow")]
    assert report.hints == ()  # (one tile alone too large: MemoryReuse does not warn)


def test_the_same_scope_in_a_program_that_sets_nothing_fits_and_says_nothing() -> None:
    assert scopes(MEM_GATE / "decode.py") == []
    assert scopes(MEM_GATE / "gate.py") == []  # its own test kernel: 64 KB
    assert scopes(MEM_GATE / "layer.py") == []  # a helper alone compiles nothing


def test_under_ptoas_nothing_is_said_of_the_scope() -> None:
    assert scopes(MEM_GATE / "prefill.py", planner="ptoas") == []


def test_a_call_inside_the_kernel_s_own_scope_is_not_followed() -> None:
    path = MEM_GATE / "prefill.py"
    text = path.read_text()
    nested = text.replace(
        "    return moe(bias, scores, scaled)",
        '    with pl.at(level=pl.Level.CORE_GROUP, name_hint="outer"):\n'
        "        scores = moe(bias, scores, scaled)\n"
        "    return scores",
    )
    assert nested != text
    assert scopes(path, nested) == []


def test_a_helper_whose_module_reads_nothing_the_driver_sets_is_not_read() -> None:
    # the driver sets another attribute of config: the gate's TOKENS stays 16
    path = MEM_GATE / "prefill.py"
    text = path.read_text()
    other = text.replace("config.TOKENS = config.PREFILL_TOKENS", "config.STEPS = 2")
    assert other != text
    assert scopes(path, other) == []


def test_every_call_that_splices_the_scope_in_is_reported() -> None:
    path = MEM_GATE / "prefill.py"
    text = path.read_text()
    twice = text.replace(
        "    return moe(bias, scores, scaled)",
        "    scores = moe(bias, scores, scaled)\n    return moe(bias, scores, scaled)",
    )
    assert twice != text
    assert [(r.span.line, r.function) for r in scopes(path, twice)] == [
        (22, "prefill_gate"),
        (23, "prefill_gate"),
    ]


# A kernel of the driver's own with a pipeline loop: the module has units, and a language
# server keeps its scopes' reports across edits (``edited_module.CachedUnits.scopes``).
OWN_LOOP = """

@pl.jit
def prefill_scale(
    bias: pl.Tensor[[BIAS_ROWS, EXPERTS], pl.FP32],
    scaled: pl.Out[pl.Tensor[[BIAS_ROWS, EXPERTS], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="scale"):
        for e in pl.pipeline(EXPERTS // 16, stage=2):
            b = bias[:, e * 16 : e * 16 + 16]
            scaled[:, e * 16 : e * 16 + 16] = pl.add(b, b)
    return scaled
"""


def test_an_edit_of_the_helper_s_module_is_seen_by_a_language_server_s_next_analysis(
    tmp_path: Path,
) -> None:
    # Nothing stale: the driver's text does not change, the config its gate reads does
    # (the pad made 512 columns wide: 96 KB at 48 rows), and the error goes with it.
    package = tmp_path / "mem_gate"
    shutil.copytree(MEM_GATE, package)
    driver = package / "prefill.py"
    text = driver.read_text() + OWN_LOOP
    cache = UnitCache()
    assert [r.code for r in scopes(driver, text, cache=cache)] == ["SKW081"]
    assert [r.code for r in scopes(driver, text, cache=cache)] == ["SKW081"]
    assert cache.scope_hits == 1  # (the second analysis was answered from the cache)
    config = package / "config.py"
    narrow = config.read_text().replace("SCORE_PAD = 1088", "SCORE_PAD = 576")
    assert narrow != config.read_text()
    config.write_text(narrow)
    assert scopes(driver, text, cache=cache) == []


def test_an_edit_of_the_driver_s_kernel_is_seen_by_a_language_server_s_next_analysis() -> None:
    driver = MEM_GATE / "prefill.py"
    text = driver.read_text() + OWN_LOOP
    cache = UnitCache()
    assert [r.span.line for r in scopes(driver, text, cache=cache)] == [22]
    moved = text.replace(
        "    return moe(bias, scores, scaled)",
        "    scores = moe(bias, scores, scaled)\n    return scores",
    )
    assert moved != text
    assert [r.span.line for r in scopes(driver, moved, cache=cache)] == [22]
    assert [r.span.column for r in scopes(driver, moved, cache=cache)] == [14]
