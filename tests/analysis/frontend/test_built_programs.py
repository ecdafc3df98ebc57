"""Issue 15, family 6: programs built by module-level Python (``for`` and ``if``).

The kernels are in tests/fixtures/mixed/models/built_llm/variants.py. Every
expectation is derived by hand from the upstream compiler at e2d0f78ae
(hw-native-sys/pypto), with the fact it follows from next to it:

- ``@pl.program`` and ``@pl.function`` parse the class when Python defines it,
  capturing the caller frame's globals at that moment
  (python/pypto/language/parser/decorator.py:945-946, 1149-1150): a program in a
  module-level ``for`` is compiled once per iteration with that iteration's value;
- a ``@pl.jit`` kernel is specialized at its first call, reading the function's
  live ``__globals__`` (python/pypto/jit/specializer.py:2102, visit_Name at :806-840):
  the module-level loop has finished by then, its variable holds the last value;
- a branch Python does not take never defines its class: nothing is compiled;
- the skew itself: depth max(2, stage - 1) lowered to the largest d with
  trip % d == 0 and trip >= 2d; trip < 2 demotes; in an attention loop the cube
  pushes the scores first (producer, skewed) and the vector pops them first
  (consumer role, SKW020), dual AIV dispatch without a split mode (two copies).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from skewlsp.api import analyse
from skewlsp.common.resolver import resolve_module
from skewlsp.contract import NOT_COMPILED, Assumption, Assumptions

ROOT = Path(__file__).resolve().parents[2] / "fixtures" / "mixed" / "models"
VARIANTS = ROOT / "built_llm" / "variants.py"

CONSUMER_VECTOR = ("aiv", "SKW020", None, 2)


def _resolver(module: str, level: int, importing: str | None) -> str | None:
    return resolve_module(module, level, importing, [ROOT])


@pytest.fixture(scope="module")
def reports() -> list:
    return analyse(VARIANTS.read_text(), str(VARIANTS), resolver=_resolver)


def _at(reports: list, line: int) -> list:
    return [r for r in reports if r.span.line == line]


def _summary(report) -> tuple:
    bindings = report.instance.bindings if report.instance is not None else None
    cores = tuple((c.core, c.code, c.depth, c.copies) for c in report.cores)
    return bindings, report.code, report.depth, report.trip, cores


def test_one_verdict_per_iteration_of_a_module_level_for(reports: list) -> None:
    # BLOCK_VARIANTS = (8, 3, 1) in the config module: three programs.
    assert [_summary(r) for r in _at(reports, 23)] == [
        # trip 8, stage 2: depth 2 fits (8 % 2 == 0, 8 >= 4).
        ((("blocks", "8"),), "SKW001", 2, 8, (("aic", "SKW001", 2, 1), CONSUMER_VECTOR)),
        # trip 3: depth 2 needs trip >= 4 -> falls back to depth 1.
        ((("blocks", "3"),), "SKW002", 1, 3, (("aic", "SKW002", 1, 1), CONSUMER_VECTOR)),
        # trip 1 < 2: demoted on both cores (still split).
        (
            (("blocks", "1"),),
            "SKW023",
            None,
            1,
            (("aic", "SKW023", None, 1), ("aiv", "SKW023", None, 2)),
        ),
    ]


def test_each_iteration_is_named_in_its_message(reports: list) -> None:
    messages = [r.message for r in _at(reports, 23)]
    assert [m.split(":")[0] for m in messages] == ["blocks = 8", "blocks = 3", "blocks = 1"]


def test_a_tuple_target_binds_every_name_of_the_iteration(reports: list) -> None:
    # ("shallow", 2): stage 2, trip 6 -> depth 2. ("deep", 4): D = 3, 6 % 3 == 0, 6 >= 6.
    assert [_summary(r) for r in _at(reports, 44)] == [
        (
            (("name", "'shallow'"), ("depth_stage", "2")),
            "SKW001",
            2,
            6,
            (("aic", "SKW001", 2, 1), CONSUMER_VECTOR),
        ),
        (
            (("name", "'deep'"), ("depth_stage", "4")),
            "SKW001",
            3,
            6,
            (("aic", "SKW001", 3, 1), CONSUMER_VECTOR),
        ),
    ]


def test_the_branch_python_takes_is_decided_as_usual(reports: list) -> None:
    # ATTN_MODE = os.environ.get("ATTN_MODE", "fast").lower(): "fast" in an empty
    # environment, so the `if` branch defines FastAttention: trip 8 -> depth 2.
    assert [_summary(r) for r in _at(reports, 65)] == [
        (None, "SKW001", 2, 8, (("aic", "SKW001", 2, 1), CONSUMER_VECTOR))
    ]


def test_the_else_of_a_true_condition_is_never_compiled(reports: list) -> None:
    (report,) = _at(reports, 85)
    assert (report.verdict, report.code, report.cores) == ("not_compiled", NOT_COMPILED, ())
    assert 'if ATTN_MODE == "fast"` is true' in report.message


def test_an_unset_environment_variable_is_false(reports: list) -> None:
    # os.environ.get("ATTN_DEBUG") is None in an empty environment.
    (report,) = _at(reports, 106)
    assert (report.verdict, report.code) == ("not_compiled", NOT_COMPILED)
    assert 'os.environ.get("ATTN_DEBUG")` is false' in report.message


def test_a_condition_that_cannot_be_evaluated_keeps_its_branch(reports: list) -> None:
    # `__name__` is "__main__" when the file runs as a script: both are possible.
    assert [_summary(r) for r in _at(reports, 127)] == [
        (None, "SKW001", 2, 8, (("aic", "SKW001", 2, 1), CONSUMER_VECTOR))
    ]


def test_a_jit_kernel_in_a_loop_sees_the_last_value(reports: list) -> None:
    # Specialized at its first call: rows_per_block is 96 by then, 256 // 96 = 2,
    # trip 2 < 2 x depth 2 -> depth 1. One kernel, one verdict (16 would give trip 16).
    assert [_summary(r) for r in _at(reports, 145)] == [
        (None, "SKW002", 1, 2, (("aic", "SKW002", 1, 1), CONSUMER_VECTOR))
    ]


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        # range() of constants: one program per value.
        ("for n in range(2, 5, 2):", ["n = 2", "n = 4"]),
        # A module constant that folds to a list.
        ("for n in SIZES:", ["n = 4", "n = 3"]),
        # One iteration: one verdict, no label (as if written out).
        ("for n in [4]:", [None]),
    ],
)
def test_iterables_that_fold(header: str, expected: list) -> None:
    source = (
        "import pypto.language as pl\n"
        "SIZES = [4, 3]\n"
        f"{header}\n"
        "    @pl.program\n"
        "    class P:\n"
        "        @pl.function\n"
        "        def k(self, a: pl.Tensor[[64, 64], pl.FP16]):\n"
        "            for i in pl.pipeline(0, n, 1, stage=2):\n"
        "                pl.tile.tpush_to_aiv(pl.tile.load(a, [i, 0], [16, 64]), split=0)\n"
        "                e = pl.tile.tpop_from_aiv(split=0)\n"
    )
    labels = [r.instance.label if r.instance else None for r in analyse(source)]
    assert labels == expected


def test_an_iterable_that_does_not_fold_keeps_the_unknown_verdict() -> None:
    source = (
        "import pypto.language as pl\n"
        "for n in load_sizes():\n"
        "    @pl.program\n"
        "    class P:\n"
        "        @pl.function\n"
        "        def k(self, a: pl.Tensor[[64, 64], pl.FP16]):\n"
        "            for i in pl.pipeline(0, n, 1, stage=2):\n"
        "                pl.tile.tpush_to_aiv(pl.tile.load(a, [i, 0], [16, 64]), split=0)\n"
        "                e = pl.tile.tpop_from_aiv(split=0)\n"
    )
    (report,) = analyse(source)
    assert (report.code, report.dynamic_symbol, report.instance) == ("SKW050", "n", None)


def test_a_loop_over_nothing_compiles_nothing() -> None:
    source = (
        "import pypto.language as pl\n"
        "for n in ():\n"
        "    @pl.program\n"
        "    class P:\n"
        "        @pl.function\n"
        "        def k(self, a: pl.Tensor[[64, 64], pl.FP16]):\n"
        "            for i in pl.pipeline(0, 4, 1, stage=2):\n"
        "                pl.tile.tpush_to_aiv(pl.tile.load(a, [i, 0], [16, 64]), split=0)\n"
        "                e = pl.tile.tpop_from_aiv(split=0)\n"
    )
    (report,) = analyse(source)
    assert (report.code, report.verdict) == (NOT_COMPILED, "not_compiled")
    assert "runs zero times" in report.message


def test_every_copy_of_a_loop_has_its_own_preview_and_a_refusal_does_not_stop_the_rest() -> None:
    # A not-compiled loop (no rewrite: refused) comes before loops that preview.
    from skewlsp.api import LoopPreview, previews

    found = previews(VARIANTS.read_text(), str(VARIANTS), resolver=_resolver)
    by_copy = {
        (r.span.line, r.instance.bindings if r.instance else None): p for r, p in found
    }
    assert not isinstance(by_copy[(85, None)], LoopPreview)
    assert isinstance(by_copy[(127, None)], LoopPreview)
    # blocks = 8: depth 2, the steady loop steps by 2 up to 8; blocks = 3: depth 1, to 3.
    assert "pl.range(2, 8, 2)" in by_copy[(23, (("blocks", "8"),))].rewritten
    assert "pl.range(1, 3, 1)" in by_copy[(23, (("blocks", "3"),))].rewritten


BUILDERS = ROOT / "built_llm" / "builders.py"


def test_a_builder_called_twice_when_the_module_loads_builds_two_programs() -> None:
    # Checked with the compiler (e2d0f78): build_attention() and build_attention(6, stage=4)
    # each build a program; the default call skews at depth 2 (trip 8), the second at
    # depth 3 (stage 4, trip 6); its half loop has trip 3: depth 1.
    found = analyse(BUILDERS.read_text(), str(BUILDERS), resolver=_resolver)
    assert [_summary(r) for r in _at(found, 22)] == [
        ((("blocks", "8"), ("stage", "2")), "SKW001", 2, 8, (("aic", "SKW001", 2, 1), CONSUMER_VECTOR)),
        ((("blocks", "6"), ("stage", "4")), "SKW001", 3, 6, (("aic", "SKW001", 3, 1), CONSUMER_VECTOR)),
    ]
    assert [(r.code, r.depth, r.trip) for r in _at(found, 27)] == [
        ("SKW001", 2, 4),
        ("SKW002", 1, 3),
    ]
    assert _at(found, 22)[1].message.startswith("blocks = 6, stage = 4: cube: skewed at depth 3")


def test_a_builder_called_once_is_decided_with_that_call_and_no_label() -> None:
    # build_single(blocks=3): one program, trip 3 (not the default 8): depth 1.
    found = analyse(BUILDERS.read_text(), str(BUILDERS), resolver=_resolver)
    (single,) = _at(found, 49)
    assert (single.instance, single.code, single.depth, single.trip) == (None, "SKW002", 1, 3)


def test_a_call_the_analysis_cannot_match_to_the_parameters_is_not_counted() -> None:
    import libcst as cst

    from skewlsp.analysis.frontend.closures import builder_calls

    fn = cst.parse_statement("def build(blocks: int = 8, stage: int = 2):\n    pass\n")
    sources = {
        "A": "build(4)",
        "B": "build(*sizes)",
        "C": "build(tiles=3)",
        "D": "other(5)",
        "E": "build(stage=4, blocks=2)",
    }
    found = builder_calls(fn, sources)
    assert [{k: cst.Module([]).code_for_node(v) for k, v in f.items()} for f in found] == [
        {"blocks": "4"},
        {"stage": "4", "blocks": "2"},
    ]


def test_editing_a_builder_call_decides_its_program_again_through_the_function_cache() -> None:
    from skewlsp.analysis import UnitCache, analyze

    source = BUILDERS.read_text()
    cache = UnitCache()
    analyze(source, str(BUILDERS), resolver=_resolver, cache=cache)
    edited = source.replace("build_attention(6, stage=4)", "build_attention(12, stage=4)")
    again = analyze(edited, str(BUILDERS), resolver=_resolver, cache=cache)
    assert [(r.trip, r.depth) for r in again if r.span.line == 22] == [(8, 2), (12, 3)]
    assert again == analyze(edited, str(BUILDERS), resolver=_resolver)


def test_a_variable_the_build_sets_defines_the_program_and_names_itself_in_its_verdict() -> None:
    # os.environ.get("ATTN_DEBUG") is "1" in a build that sets it: DebugAttention exists,
    # trip 8 -> depth 2; unset, it does not (the other build its verdict is reported under).
    assumed = Assumptions.of({"ATTN_DEBUG": "1"})
    reports = analyse(VARIANTS.read_text(), str(VARIANTS), resolver=_resolver, assumptions=assumed)
    (report,) = _at(reports, 106)
    assert (report.code, report.depth) == ("SKW001", 2)
    assert report.assumes == (Assumption("ATTN_DEBUG", "1", configured=True),)
    assert [(v.variable, v.value, v.code) for v in report.variants] == [
        ("ATTN_DEBUG", None, NOT_COMPILED)
    ]


def test_a_mode_the_build_sets_takes_the_other_branch_of_a_module_level_if() -> None:
    assumed = Assumptions.of({"ATTN_MODE": "Exact"})  # lowered by the config: "exact"
    reports = analyse(VARIANTS.read_text(), str(VARIANTS), resolver=_resolver, assumptions=assumed)
    assert [(r.code, r.depth) for r in _at(reports, 65)] == [(NOT_COMPILED, None)]
    assert [(r.code, r.depth) for r in _at(reports, 85)] == [("SKW001", 2)]  # trip 4


def test_a_loop_no_assumed_value_decides_names_none(reports: list) -> None:
    # BLOCK_VARIANTS and HEAD_TILE are plain numbers: no build changes these loops.
    assert [r.assumes for r in _at(reports, 23)] == [(), (), ()]
