"""The memory passes over an InCore scope that holds no pipeline loop.

The compiler lays out and places every outlined function's tiles, not only those of a
function with a ``pl.pipeline`` loop: an InCore scope whose tiles overflow a space stops
the compile whether or not it holds one. The figures below are pypto e2d0f78ae's for
tests/fixtures/memory/models/mem_llm/vector.py's ``three_wide_rows_at_once`` (its
``with pl.at`` at line 48): "[MemoryReuse] capacity-gated reuse could not fit memory
space Vec at any double-buffering depth; fell back to the legacy packing (which also
overflows" at vector.py:48, then AllocateMemoryAddr: "Vec buffer usage (196608 bytes)
exceeds platform limit (188416 bytes)".
"""

from __future__ import annotations

from pathlib import Path

from skewlsp.analysis.driver import analyze, analyze_models
from skewlsp.analysis.reuse.unit_cache import UnitCache
from skewlsp.common.resolver import RecordingResolver
from skewlsp.common.wording import assumed_lines
from skewlsp.contract import Span, loop_at

MEM_LLM = Path(__file__).resolve().parents[2] / "fixtures" / "memory" / "models" / "mem_llm"


def reports_of(text: str, path: Path = MEM_LLM / "kernel.py", planner: str = "pypto"):
    models = analyze_models(
        text, str(path), resolver=RecordingResolver((MEM_LLM,)), planner=planner
    )
    return [model.report for model in models]


def vector_reports(planner: str = "pypto"):
    path = MEM_LLM / "vector.py"
    return reports_of(path.read_text(), path, planner)


def test_a_scope_with_no_pipeline_loop_that_overflows_vec_is_an_error_at_its_with():
    [report] = [r for r in vector_reports() if r.function == "three_wide_rows_at_once"]
    assert (report.code, report.verdict, report.scope_only) == ("SKW081", "error", True)
    assert report.span == report.call_span == Span(48, 5, 48, 61)
    assert report.message == (
        "the scope's Vec tiles overflow Vec: x (load) 65536 B, y (load) 65536 B, "
        "z (load) 65536 B are live at once and need 196608 B of its 188416 B; "
        "AllocateMemoryAddr stops the compile "
        '("Vec buffer usage (196608 bytes) exceeds platform limit (188416 bytes)")'
    )
    assert [(m.space, m.cause) for m in report.memory] == [("Vec", "overflow")]
    # no loop is claimed: no loop variable, trip, stage, lowering, core or preview
    assert (report.loop_var, report.trip, report.stage, report.lowering) == ("", None, None, None)
    assert report.cores == () and report.stage_span is None


def test_its_legacy_packing_warning_is_said_at_the_same_with_in_the_compilers_words():
    [report] = [r for r in vector_reports() if r.function == "three_wide_rows_at_once"]
    [warning] = report.hints
    assert (warning.code, warning.span) == ("SKW082", Span(48, 5, 48, 61))
    assert (
        '"capacity-gated reuse could not fit memory space Vec at any double-buffering '
        'depth; fell back to the legacy packing (which also overflows'
    ) in warning.message
    assert warning.buffers is not None and warning.buffers.cause == "legacy"


def test_a_scope_report_is_no_loop_for_a_preview_or_a_fix():
    reports = vector_reports()
    assert loop_at(reports, 48) is None


def test_the_loops_of_the_file_are_reported_as_before_and_no_other_scope_is():
    reports = vector_reports()
    assert sorted((r.span.line, r.code) for r in reports if r.scope_only) == [(48, "SKW081")]
    [wide] = [r for r in reports if r.span.line == 25]  # four_stages_of_wide_rows' loop
    assert not wide.scope_only
    assert [h.code for h in wide.hints] == ["SKW082", "SKW081"]


def test_under_ptoas_nothing_is_said_of_the_scope():
    # ptoas places the buffers: pypto runs neither MemoryReuse nor AllocateMemoryAddr
    assert [r for r in vector_reports("ptoas") if r.scope_only] == []


FITS = '''\
import pypto.language as pl

from config import NARROW, ROWS, WIDE


@pl.jit
def two_rows_fit(
    a: pl.Tensor[[ROWS, NARROW], pl.FP32],
    b: pl.Tensor[[ROWS, NARROW], pl.FP32],
    out: pl.Out[pl.Tensor[[ROWS, NARROW], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="two"):
        x = a[:, :]
        y = b[:, :]
        out[:, :] = pl.add(x, y)  # three 32 KB tiles: 96 KB
    return out


@pl.jit
def rows_of_a_loop(a: pl.Tensor[[4 * ROWS, WIDE], pl.FP32], out: pl.Out[pl.Tensor[[4 * ROWS, WIDE], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="loop"):
        for i in pl.pipeline(4, stage=2):
            t = a[i * ROWS : i * ROWS + ROWS, :]
            out[i * ROWS : i * ROWS + ROWS, :] = pl.add(t, t)
    return out
'''


def test_a_scope_whose_tiles_fit_gives_nothing():
    reports = reports_of(FITS)
    assert [r.span.line for r in reports] == [22]
    assert not any(r.scope_only for r in reports)


THREE_WIDE = (MEM_LLM / "vector.py").read_text()


def test_a_scope_whose_tiles_are_not_all_known_gives_nothing():
    # an op whose tiles are not modelled (op_conversion), so nothing is said
    text = THREE_WIDE.replace(
        "        z = c[:, :]  # three",
        "        y = pl.scatter(y, y)\n        z = c[:, :]  # three",
    )
    assert "pl.scatter(y, y)" in text
    assert not any(r.scope_only for r in reports_of(text, MEM_LLM / "vector.py"))


def test_an_if_simplify_folds_is_read_as_the_branch_that_runs():
    # `if ROWS > 8` (ROWS is 16): Fold A keeps the branch, whose tile joins the three
    text = THREE_WIDE.replace(
        "        z = c[:, :]  # three",
        "        if ROWS > 8:\n            y = pl.add(y, y)\n        z = c[:, :]  # three",
    )
    assert "if ROWS > 8" in text
    (report,) = [r for r in reports_of(text, MEM_LLM / "vector.py") if r.scope_only]
    assert (report.code, report.verdict) == ("SKW081", "error")  # (as without the `if`)


def test_a_tile_alone_larger_than_vec_stops_the_compile_without_the_warning():
    # MemoryReuse does not warn when one buffer alone exceeds the space (an impossible
    # allocation, not a lost depth); AllocateMemoryAddr still stops the compile
    text = FITS.replace("ROWS, NARROW]", "ROWS, 4 * WIDE]")  # 256 KB tiles
    [scope] = [r for r in reports_of(text) if r.scope_only]
    assert (scope.span.line, scope.function, scope.code) == (12, "two_rows_fit", "SKW081")
    assert scope.hints == ()


def test_an_incore_function_is_reported_at_its_def():
    # the tiles of three_wide_rows_at_once's scope, as an InCore function's own body
    # (writing its pl.Out in place: a `return` is a statement op_conversion does not
    # model, and then nothing is said; not compiled, the tiles are vector.py:48's)
    text = THREE_WIDE.replace(
        '@pl.jit\ndef three_wide_rows_at_once(', '@pl.jit.incore\ndef three_wide_rows_at_once('
    ).replace('    with pl.at(level=pl.Level.CORE_GROUP, name_hint="three"):\n', "    if True:\n")
    text = text.replace("    if True:\n        x", "    x").replace("\n        y = b", "\n    y = b")
    text = text.replace("\n        z = c", "\n    z = c")
    text = text.replace(
        "\n        out[:, :] = pl.add(pl.add(x, y), z)\n    return out\n",
        "\n    out[:, :] = pl.add(pl.add(x, y), z)\n",
    )
    assert "@pl.jit.incore\ndef three_wide_rows_at_once(" in text and "    x = a[:, :]\n" in text
    assert "z)\n\n\n@pl.jit\ndef four_widened" in text
    [scope] = [r for r in reports_of(text, MEM_LLM / "vector.py") if r.scope_only]
    assert (scope.code, scope.span) == ("SKW081", Span(42, 1, 42, 28))
    assert "need 196608 B of its 188416 B" in scope.message


def test_an_inline_helper_s_scope_is_its_callers_and_is_not_read_alone():
    text = FITS.replace("@pl.jit\ndef two_rows_fit", "@pl.jit.inline\ndef two_rows_fit")
    text = text.replace("ROWS, NARROW]", "ROWS, 4 * WIDE]")
    assert "@pl.jit.inline\ndef two_rows_fit" in text
    assert not any(r.scope_only for r in reports_of(text))


def test_a_language_server_s_analysis_gives_the_scope_on_every_edit():
    path = MEM_LLM / "vector.py"
    cache = UnitCache()
    for text in (path.read_text(), path.read_text() + "\n# an edit\n"):
        reports = analyze(text, str(path), resolver=RecordingResolver((MEM_LLM,)), cache=cache)
        assert [(r.span.line, r.code) for r in reports if r.scope_only] == [(48, "SKW081")]


def test_a_language_server_s_edit_of_a_unit_reuses_the_scopes_and_an_edit_of_one_decides_it_again():
    # An edit inside a function holding a loop leaves the loop-less scopes as they were:
    # their reports come from the cache (the stage was two thirds of such an edit's CPU).
    # An edit of the scope's own function decides it again: three 64 KB tiles made 32 KB
    # fit Vec, and the error is gone.
    path = MEM_LLM / "vector.py"
    text = path.read_text()
    cache = UnitCache()

    def scopes(source: str) -> list[tuple[int, str]]:
        reports = analyze(source, str(path), resolver=RecordingResolver((MEM_LLM,)), cache=cache)
        return [(r.span.line, r.code) for r in reports if r.scope_only]

    assert scopes(text) == [(48, "SKW081")]
    assert cache.scope_hits == 0
    unit_edit = text.replace("# a 32 KB load and its sum, twice", "# a 32 KB load, summed twice")
    assert unit_edit != text
    assert scopes(unit_edit) == [(48, "SKW081")]
    assert cache.scope_hits == 1
    narrow = "a: pl.Tensor[[ROWS, MIDDLE], pl.BF16],"
    halved = unit_edit.replace("a: pl.Tensor[[ROWS, WIDE], pl.FP32],", narrow)
    assert halved != unit_edit
    assert scopes(halved) == []


# beside.py's rows_then_three_wide: a `pl.at` scope holding a pipeline loop that fits
# (line 24) and, beside it, a scope with no loop of three 64 KB tiles (line 27). pypto
# e2d0f78ae outlines both and stops in AllocateMemoryAddr on the second: "Vec buffer
# usage (196608 bytes) exceeds platform limit (188416 bytes)", after MemoryReuse's
# "capacity-gated reuse could not fit memory space Vec at any double-buffering depth;
# fell back to the legacy packing (which also overflows" at beside.py:27.
BESIDE = MEM_LLM / "beside.py"


def test_a_loop_less_scope_beside_a_pipeline_loop_s_scope_is_an_error_at_its_with():
    reports = reports_of(BESIDE.read_text(), BESIDE)
    [scope] = [r for r in reports if r.scope_only]
    assert (scope.function, scope.code, scope.verdict) == ("rows_then_three_wide", "SKW081", "error")
    assert scope.span == Span(27, 5, 27, 61)
    assert "need 196608 B of its 188416 B" in scope.message
    assert scope.message.endswith(
        '("Vec buffer usage (196608 bytes) exceeds platform limit (188416 bytes)")'
    )
    [warning] = scope.hints
    assert (warning.code, warning.span) == ("SKW082", Span(27, 5, 27, 61))


def test_the_scope_holding_the_loop_is_the_loop_s_and_is_not_reported_as_a_scope():
    reports = reports_of(BESIDE.read_text(), BESIDE)
    assert sorted((r.span.line, r.scope_only) for r in reports) == [(24, False), (27, True)]


def test_a_language_server_s_edit_of_the_loop_less_scope_beside_a_loop_decides_it_again():
    # the function holds a loop (a unit): the scope's report must still follow its edits
    cache = UnitCache()

    def scopes(source: str) -> list[tuple[int, str]]:
        reports = analyze(
            source, str(BESIDE), resolver=RecordingResolver((MEM_LLM,)), cache=cache
        )
        return [(r.span.line, r.code) for r in reports if r.scope_only]

    text = BESIDE.read_text()
    assert scopes(text) == [(27, "SKW081")]
    # three 32 KB tiles in the scope: 96 KB fit Vec
    narrow = text.replace("pl.Tensor[[ROWS, WIDE], pl.FP32]", "pl.Tensor[[ROWS, NARROW], pl.FP32]")
    assert narrow.count("[ROWS, NARROW]") == 4
    assert scopes(narrow) == []
    assert scopes(text) == [(27, "SKW081")]



PADDED_CONFIG = """import os

# Switch with PAD_MODE={prefill,decode}; prefill is the default.
PAD_MODE = os.environ.get("PAD_MODE", "prefill").lower()
ROWS = 16 if PAD_MODE == "decode" else 48
"""
PADDED = """import pypto.language as pl

from config import ROWS

WIDTH = 1024


@pl.jit
def pad(out: pl.Out[pl.Tensor[[ROWS, WIDTH], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="pad"):
        out[:, :] = pl.full([ROWS, WIDTH], dtype=pl.FP32, value=0.0)
    return out


@pl.jit
def rows(x: pl.Tensor[[4 * ROWS, 64], pl.FP32], out: pl.Out[pl.Tensor[[4 * ROWS, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="rows"):
        for i in pl.pipeline(4, stage=2):
            t = x[i * ROWS : i * ROWS + ROWS, :]
            out[i * ROWS : i * ROWS + ROWS, :] = pl.add(t, t)
    return out
"""


def test_a_build_under_which_the_scope_fits_is_named_as_no_overflow_not_as_unbuilt(
    tmp_path: Path,
) -> None:
    # 48 rows of 1024 FP32 (196608 B) overflow Vec; with PAD_MODE=decode, 16
    # rows (65536 B) fit and the scope has no report: that build says so, not that the
    # scope is not built under it. (A kernel's scopes are read in a file with a loop.)
    (tmp_path / "config.py").write_text(PADDED_CONFIG)
    path = tmp_path / "pad.py"
    path.write_text(PADDED)
    reports = analyze(PADDED, str(path), resolver=RecordingResolver((tmp_path,)))
    [report] = [r for r in reports if r.scope_only]
    assert (report.code, report.scope_only) == ("SKW081", True)
    [variant] = report.variants
    assert (variant.verdict, variant.code, variant.message) == (
        "unknown",
        "",
        "no overflow is found here (the tiles fit, or are not all known)",
    )
    assert assumed_lines(report)[1] == (
        f"with {variant.label}: no overflow is found here (the tiles fit, or are not all known)"
    )
