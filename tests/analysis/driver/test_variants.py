"""A verdict decided for one build, and the loop under the other builds its config declares.

The kernels are in tests/fixtures/variants/models/duo_llm (laid out like pypto-lib's
deepseek_v4_pro); prefill.py calls an inline helper twice, once with a block count the
variant decides. config.py picks the preset with DUO_VARIANT (or --variant), from
SUPPORTED_VARIANTS = ("full", "lite"), through a dict of presets keyed by it; norm.py
reads DUO_NORM_IMPL and compares it with "split". The expectations follow the skew
rules: depth max(2, stage - 1) lowered to the largest d with trip % d == 0 and
trip >= 2d; the head loop runs HEADS // 16 times (full: 64 // 16 = 4, depth 2; lite:
32 // 16 = 2, depth 1).
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from skewlsp.api import Assumptions, UnitCache, analyse
from skewlsp.common.resolver import resolve_module
from skewlsp.contract import ARGV, Assumption, LoopReport

MODELS = Path(__file__).resolve().parents[2] / "fixtures" / "variants" / "models"
DECODE = MODELS / "duo_llm" / "decode.py"
NORM = MODELS / "duo_llm" / "norm.py"
HEADS, SCALE, BATCH = 25, 36, 47  # the loops of decode.py
PREFILL = MODELS / "duo_llm" / "prefill.py"
# prefill.py: the helper's loop, and the calls splicing a copy of it (HEADS // 16 blocks,
# then HEAD_DIM // 16: 64 in both variants)
HELPER_LOOP, BY_HEADS, BY_HEAD_DIM = 20, 37, 39
FULL = Assumption("DUO_VARIANT", "full")
LITE = Assumptions.of({"DUO_VARIANT": "lite"})


def lint(path: Path, root: Path = MODELS, **options: object) -> dict[int, LoopReport]:
    return {report.span.line: report for report in lint_all(path, root, **options)}


def lint_all(path: Path, root: Path = MODELS, **options: object) -> list[LoopReport]:
    def resolver(module: str, level: int, importing: str | None) -> str | None:
        return resolve_module(module, level, importing, [root])

    return analyse(path.read_text(), str(path), resolver=resolver, **options)  # type: ignore[arg-type]


def copies_by_call(path: Path, **options: object) -> dict[int, LoopReport]:
    """The reports of the copies of an inline helper's loop, by the line of their call."""
    reports = lint_all(path, **options)
    assert {r.span.line for r in reports} == {HELPER_LOOP}
    return {r.instance.call.line: r for r in reports if r.instance and r.instance.call}


def verdicts(reports: dict[int, LoopReport]) -> dict[int, tuple[str, int | None]]:
    return {line: (r.code, r.depth) for line, r in reports.items()}


def test_the_default_build_names_the_variable_only_in_the_verdict_it_decides() -> None:
    reports = lint(DECODE)
    assert verdicts(reports) == {HEADS: ("SKW001", 2), SCALE: ("SKW011", None), BATCH: ("SKW011", None)}
    assert reports[HEADS].assumes == (FULL,)
    # The other loops read HEAD_DIM and DECODE_BATCH: the same in both variants, so the
    # variable is not named though their module imports the config that reads it.
    assert (reports[SCALE].assumes, reports[BATCH].assumes) == ((), ())
    assert (reports[SCALE].variants, reports[BATCH].variants) == ((), ())


def test_the_loop_under_each_other_declared_variant_is_in_its_report() -> None:
    [variant] = lint(DECODE)[HEADS].variants
    assert (variant.variable, variant.value, variant.verdict, variant.code, variant.depth) == (
        "DUO_VARIANT", "lite", "skewed", "SKW002", 1
    )
    assert "requested 2: trip 2 < 2 x depth 2" in variant.message


def test_of_two_copies_of_a_helper_s_loop_only_the_one_the_variant_changes_names_it() -> None:
    by_call = copies_by_call(PREFILL)
    shown = {line: (r.code, r.depth, r.instance.bindings) for line, r in by_call.items()}  # type: ignore[union-attr]
    assert shown == {BY_HEADS: ("SKW001", 2, (("blocks", "4"),)), BY_HEAD_DIM: ("SKW001", 2, (("blocks", "4"),))}
    assert by_call[BY_HEADS].assumes == (FULL,)
    # lite splices 2 blocks at that call: another copy, so this one is not built there
    assert [(v.value, v.code) for v in by_call[BY_HEADS].variants] == [("lite", "SKW070")]
    assert (by_call[BY_HEAD_DIM].assumes, by_call[BY_HEAD_DIM].variants) == ((), ())


def test_each_copy_of_a_helper_s_loop_under_the_other_build_is_decided_with_its_values() -> None:
    lite = copies_by_call(PREFILL, assumptions=LITE)
    shown = {line: (r.code, r.depth, r.instance.bindings) for line, r in lite.items()}  # type: ignore[union-attr]
    assert shown == {BY_HEADS: ("SKW002", 1, (("blocks", "2"),)), BY_HEAD_DIM: ("SKW001", 2, (("blocks", "4"),))}
    assert "requested 2: trip 2 < 2 x depth 2" in lite[BY_HEADS].message
    assert lite[BY_HEADS].assumes == (Assumption("DUO_VARIANT", "lite", configured=True),)
    assert [(v.value, v.code) for v in lite[BY_HEADS].variants] == [("full", "SKW070")]
    # the copy no variant changes is the same report whichever build is assumed
    assert lite[BY_HEAD_DIM] == copies_by_call(PREFILL)[BY_HEAD_DIM]


def test_a_variable_set_in_the_build_decides_as_editing_the_default_would(tmp_path: Path) -> None:
    edited = tmp_path / "models"
    shutil.copytree(MODELS, edited)
    config = edited / "duo_llm" / "config.py"
    config.write_text(config.read_text().replace('get(VARIANT_ENV, "full")', 'get(VARIANT_ENV, "lite")'))
    by_edit = lint(edited / "duo_llm" / "decode.py", edited)
    by_build = lint(DECODE, assumptions=Assumptions.of({"DUO_VARIANT": "lite"}))
    assert verdicts(by_build) == {HEADS: ("SKW002", 1), SCALE: ("SKW011", None), BATCH: ("SKW011", None)}

    def plain(report: LoopReport) -> LoopReport:
        return replace(report, path=None, assumes=(), variants=())

    assert {k: plain(r) for k, r in by_build.items()} == {k: plain(r) for k, r in by_edit.items()}
    assert by_build[HEADS].assumes == (Assumption("DUO_VARIANT", "lite", configured=True),)
    assert [(v.value, v.code) for v in by_build[HEADS].variants] == [("full", "SKW001")]


def test_a_variant_chosen_on_the_command_line_is_parsed_as_the_config_parses_it() -> None:
    for argv in (["--variant", "lite"], ["--seed=3", "--variant=LITE"]):
        reports = lint(DECODE, assumptions=Assumptions.of({}, argv))
        assert verdicts(reports)[HEADS] == ("SKW002", 1), argv
        assert reports[HEADS].assumes == (Assumption(ARGV, tuple(argv), configured=True),)
        assert [(v.variable, v.code) for v in reports[HEADS].variants] == [(ARGV, "SKW001")]


def test_a_bad_command_line_gives_an_honest_unknown_not_the_default() -> None:
    reports = lint(DECODE, assumptions=Assumptions.of({}, ["--variant"]))  # raises at import
    assert reports[HEADS].verdict == "unknown"


def test_two_variables_that_decide_one_loop_are_both_named() -> None:
    [report] = lint(NORM).values()
    assert report.assumes == (Assumption("DUO_NORM_IMPL", "fused"), FULL)
    # fused: 4096 // 256 = 16 -> 8 pairs; split: 4096 // 512 = 8; lite: 2048 // 256 = 8.
    assert [(v.variable, v.value, v.code) for v in report.variants] == [
        ("DUO_NORM_IMPL", "split", "SKW011"),
        ("DUO_VARIANT", "lite", "SKW011"),
    ]
    assert "main loop 0..8 step 2 (4 iterations)" in report.variants[0].message


def test_without_variants_the_build_is_still_assumed_and_nothing_else_decided() -> None:
    reports = lint(DECODE, assumptions=Assumptions.of({"DUO_VARIANT": "lite"}, variants=False))
    assert verdicts(reports)[HEADS] == ("SKW002", 1)
    assert all(not r.assumes and not r.variants for r in reports.values()) and reports


@pytest.mark.parametrize("build", [Assumptions(), Assumptions.of({"DUO_VARIANT": "lite"})])
def test_a_server_s_cached_units_keep_naming_what_their_verdict_assumed(build: Assumptions) -> None:
    cache = UnitCache()
    first = lint(DECODE, cache=cache, assumptions=build)
    misses = cache.misses
    again = lint(DECODE, cache=cache, assumptions=build)
    assert cache.misses == misses and cache.hits > 0  # every unit answered from the cache
    assert again == first
    assert again[HEADS].variants


def test_a_server_s_cache_answers_each_build_with_its_own_verdicts() -> None:
    cache = UnitCache()
    lint(DECODE, cache=cache)
    lite = lint(DECODE, cache=cache, assumptions=Assumptions.of({"DUO_VARIANT": "lite"}))
    assert verdicts(lite)[HEADS] == ("SKW002", 1)


def test_a_kernel_that_reads_nothing_of_the_build_is_decided_once(tmp_path: Path) -> None:
    kernel = tmp_path / "plain.py"
    text = DECODE.read_text().replace("from config import ACTIVE as M\n", "")
    text = text.replace("M.num_attention_heads", "64").replace("M.head_dim", "64")
    kernel.write_text(text.replace("from config import DECODE_BATCH", "DECODE_BATCH = 4"))
    with_config, plain = UnitCache(), UnitCache()
    lint(DECODE, cache=with_config)
    lint(kernel, root=tmp_path, cache=plain)
    assert (with_config.misses, plain.misses) == (4, 2)  # two units, under one or two builds


# A kernel whose head-tile count is an option read off the command line at import, with no
# value the module allows declared (no tuple it is checked against, no argparse choices).
UNDECLARED = '''\
import sys

import pypto.language as pl


def _parse_int_argv(name, default):
    for i, tok in enumerate(sys.argv):
        if tok == name and i + 1 < len(sys.argv):
            return int(sys.argv[i + 1])
    return default


HEAD_TILES = _parse_int_argv("--head-tiles", 4)


@pl.jit
def scale(x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="heads"):
        for hb in pl.pipeline(HEAD_TILES, stage=2):
            r0 = hb * 16
            out[r0 : r0 + 16, 0:64] = pl.exp(x[r0 : r0 + 16, 0:64])
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="rows"):
        for rb in pl.pipeline(4, stage=2):
            r0 = rb * 16
            out[r0 : r0 + 16, 0:64] = pl.mul(x[r0 : r0 + 16, 0:64], 2.0)
    return out
'''


def test_an_option_with_no_declared_value_names_the_command_line_in_the_loops_it_decides() -> None:
    reports = {r.span.line: r for r in analyse(UNDECLARED, "heads.py")}
    heads, rows = reports[19], reports[23]
    assert heads.assumes == (Assumption(ARGV, ()),)
    assert Assumption(ARGV, ()).text == "assuming no arguments"
    assert heads.variants == ()  # (no other build is declared: none is listed)
    assert (rows.assumes, rows.variants) == ((), ())


def test_an_option_s_numbers_are_decided_in_their_order_the_rest_of_the_command_line_kept() -> None:
    from skewlsp.analysis.driver.variants import variant_builds
    from skewlsp.analysis.frontend.assumed import AssumedRead

    decided: list[tuple[str, ...]] = []

    def again(build: Assumptions) -> list[LoopReport]:
        decided.append(build.argv)
        return []

    read = frozenset({AssumedRead("--tp", "2", False, ("16", "4", "8"))})
    variant_builds([], read, Assumptions.of({}, ["--dp", "4"]), again)
    assert decided == [("--dp", "4", "--tp", "4"), ("--dp", "4", "--tp", "8"), ("--dp", "4", "--tp", "16")]
