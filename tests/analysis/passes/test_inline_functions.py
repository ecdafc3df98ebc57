"""Issue 15, family 4: an ``@pl.jit.inline`` helper's loop is decided once per call.

Kernels: tests/fixtures/mixed/models/built_llm/inline_attention.py (a helper and
its callers in one module) and helpers.py (helpers whose callers live elsewhere).
Every expectation is derived by hand from the upstream compiler at e2d0f78ae
(hw-native-sys/pypto), with the fact it follows from next to it:

- InlineFunctions (docs/en/dev/passes/01-inline_functions.md, the first pass of the
  default pipeline) splices a fresh copy of the helper's body at every call, each
  formal parameter replaced by the caller's argument expression; the skew pass sees
  each copy as if written in the caller, inside the caller's scopes;
- the DSL parser reads ``stage=`` when it parses the helper, before any splicing,
  and accepts only a constant (python/pypto/language/parser/ast_parser.py:2704-2728);
  the pl.jit specializer writes a caller's specialized scalar into the helper's body
  when the caller passes it by name (python/pypto/jit/decorator.py:1355-1362,
  specializer.py:806-814), a literal argument is not forwarded;
- a top-level local assigned a constant is folded by Simplify; ``pl.RUNTIME`` leaves
  a jit scalar dynamic (decorator.py:1961-1966);
- the skew: depth max(2, stage - 1) lowered to the largest d with trip % d == 0 and
  trip >= 2d; dynamic bounds demote both cores; in attention the cube pushes first
  (skewed) and the vector pops first (consumer role, SKW020); without a split mode
  the vector body runs as two copies (expand_mixed_kernel_pass.cpp:1290-1292).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from skewlsp.analysis import UnitCache, analyze
from skewlsp.api import analyse
from skewlsp.common.resolver import resolve_module

ROOT = Path(__file__).resolve().parents[2] / "fixtures" / "mixed" / "models"
INLINE = ROOT / "built_llm" / "inline_attention.py"
HELPERS = ROOT / "built_llm" / "helpers.py"

SKEWED_CUBE = ("aic", "SKW001", 2, 1)


def _resolver(module: str, level: int, importing: str | None) -> str | None:
    return resolve_module(module, level, importing, [ROOT])


def _reports(path: Path) -> list:
    return analyse(path.read_text(), str(path), resolver=_resolver)


def _summary(report) -> tuple:
    instance = report.instance
    who = (instance.caller, instance.call.line, instance.bindings) if instance else None
    cores = tuple((c.core, c.code, c.depth, c.copies) for c in report.cores)
    return who, report.code, report.depth, report.trip, cores


def test_every_call_decides_its_own_copy_of_the_helper_loop() -> None:
    loop = [r for r in _reports(INLINE) if r.span.line == 17]
    assert [_summary(r) for r in loop] == [
        # PREFILL_BLOCKS = 256 // 32 = 8, a module constant: trip 8, depth 2 fits.
        (("prefill", 34, (("blocks", "8"),)), "SKW001", 2, 8, (SKEWED_CUBE, ("aiv", "SKW020", None, 2))),
        # blocks=3 by keyword: depth 2 needs trip >= 4 -> depth 1, in the same kernel.
        (
            ("prefill", 35, (("blocks", "3"),)),
            "SKW002",
            1,
            3,
            (("aic", "SKW002", 1, 1), ("aiv", "SKW020", None, 2)),
        ),
        # chunk_blocks = PREFILL_BLOCKS // 2, a top-level local: Simplify folds 4; the
        # caller's pl.at splits UP_DOWN: one vector copy.
        (("chunked", 48, (("blocks", "4"),)), "SKW001", 2, 4, (SKEWED_CUBE, ("aiv", "SKW020", None, 1))),
        # steps = pl.RUNTIME stays a runtime scalar: dynamic stop, demoted on both cores.
        (
            ("decode", 62, (("blocks", "steps"),)),
            "SKW022",
            None,
            None,
            (("aic", "SKW022", None, 1), ("aiv", "SKW022", None, 2)),
        ),
    ]


def test_each_copy_names_its_caller_in_its_message() -> None:
    loop = [r for r in _reports(INLINE) if r.span.line == 17]
    assert loop[0].message.startswith("called from `prefill` (line 34) with blocks = 8: ")
    assert loop[3].message.startswith("called from `decode` (line 62) with blocks = steps: ")


def test_the_call_site_says_what_the_inlined_loop_becomes() -> None:
    loop = [r for r in _reports(INLINE) if r.span.line == 17]
    remarks = [h for r in loop for h in r.hints if h.span.line != 17]
    # One remark per call, on the call, with the copy's own code, pointing back at the loop.
    assert [(h.span.line, h.span.column, h.code) for h in remarks] == [
        (34, 13, "SKW001"),
        (35, 13, "SKW002"),
        (48, 13, "SKW001"),
        (62, 13, "SKW022"),
    ]
    assert remarks[1].message.startswith(
        "the inlined loop of `attend_blocks` (line 17) is skewed at depth 1 here"
    )
    assert remarks[3].message.startswith("the inlined loop of `attend_blocks` (line 17) is demoted here")
    assert all(h.related[0].span.line == 17 for h in remarks) and len(remarks) == 4


def test_a_helper_without_a_caller_in_its_file_depends_on_the_call_site() -> None:
    reports = _reports(HELPERS)
    (alone,) = [r for r in reports if r.span.line == 15]
    assert (alone.verdict, alone.code, alone.instance, alone.dynamic_symbol) == (
        "unknown",
        "SKW050",
        None,
        "blocks",
    )
    assert "stop depends on the call site" in alone.message
    assert "no caller of `attend_rows` is in this file or in the files analysed with it" in (
        alone.message
    )


def test_a_helper_loop_that_uses_no_parameter_is_decided_once() -> None:
    # attend_fixed: trip 8 and its own pl.at scope, nothing from the caller.
    (fixed,) = [r for r in _reports(HELPERS) if r.span.line == 30]
    assert _summary(fixed) == (None, "SKW001", 2, 8, (SKEWED_CUBE, ("aiv", "SKW020", None, 2)))


STAGE_FROM_CALLER = '''\
import pypto.language as pl


@pl.jit.inline
def attend(
    q: pl.Tensor[[256, 64], pl.BF16],
    k: pl.Tensor[[64, 64], pl.BF16],
    o: pl.Tensor[[256, 64], pl.FP32],
    stages: pl.Scalar[pl.INT32],
):
    for hb in pl.pipeline(8, stage=stages):
        h0 = hb * 32
        s = pl.matmul(q[h0 : h0 + 32, 0:64], k, b_trans=True, out_dtype=pl.FP32)
        p = pl.cast(pl.exp(s), target_type=pl.BF16, mode="rint")
        o[h0 : h0 + 32, 0:64] = pl.matmul(p, k, out_dtype=pl.FP32)
    return o


@pl.jit
def forwarded(
    q: pl.Tensor[[256, 64], pl.BF16],
    kv: pl.Tensor[[64, 64], pl.BF16],
    o: pl.Tensor[[256, 64], pl.FP32],
    stages: pl.Scalar[pl.INT32] = 4,
):
    for b in pl.spmd(1, name_hint="fwd"):  # the for form: always an InCore scope
        o = attend(q, kv[0:64, 0:64], o, stages)
    return o


@pl.jit
def literal(
    q: pl.Tensor[[256, 64], pl.BF16],
    kv: pl.Tensor[[64, 64], pl.BF16],
    o: pl.Tensor[[256, 64], pl.FP32],
):
    for b in pl.spmd(1, name_hint="lit"):  # the for form: always an InCore scope
        o = attend(q, kv[0:64, 0:64], o, 4)
    return o
'''


def test_a_stage_parameter_counts_only_when_pl_jit_writes_it_into_the_helper() -> None:
    loop = [r for r in analyse(STAGE_FROM_CALLER) if r.span.line == 11]
    assert [(r.instance.caller, r.code, r.stage, r.depth) for r in loop] == [
        # The entry's specialized `stages` (4) is forwarded by name: stage 4, D = 3,
        # 8 % 3 != 0 -> depth 2.
        ("forwarded", "SKW002", 4, 2),
        # A literal argument is not forwarded: the parser sees a parameter in stage=.
        ("literal", "SKW040", None, None),
    ]


@pytest.mark.parametrize("argument", ["PREFILL_BLOCKS", "1"])
def test_editing_a_caller_re_decides_the_helper_from_the_cache(argument: str) -> None:
    source = INLINE.read_text()
    cache = UnitCache()
    analyze(source, str(INLINE), resolver=_resolver, cache=cache)
    edited = source.replace("o = attend_blocks(q, k, o, blocks=3)", f"o = attend_blocks(q, k, o, blocks={argument})")
    again = analyze(edited, str(INLINE), resolver=_resolver, cache=cache)
    assert again == analyze(edited, str(INLINE), resolver=_resolver)
    second = [r for r in again if r.span.line == 17][1]
    # PREFILL_BLOCKS is 8 (depth 2); 1 is a trip below 2 (demoted).
    assert second.code == {"PREFILL_BLOCKS": "SKW001", "1": "SKW023"}[argument]


HELPER_CALLS_HELPER = '''\
import pypto.language as pl


@pl.jit.inline
def inner(a: pl.Tensor[[64, 64], pl.FP16], m: pl.Scalar[pl.INT32]):
    for i in pl.pipeline(0, m, 1, stage=2):
        pl.tile.tpush_to_aiv(pl.tile.load(a, [i, 0], [16, 64]), split=0)
        e = pl.tile.tpop_from_aiv(split=0)


@pl.jit.inline
def outer(a: pl.Tensor[[64, 64], pl.FP16], n: pl.Scalar[pl.INT32]):
    inner(a, n)
'''


def test_a_helper_called_by_a_helper_depends_on_the_outer_helpers_callers() -> None:
    # `n` is spliced in by each caller of `outer` (none here): not a runtime scalar, unknown.
    (report,) = analyse(HELPER_CALLS_HELPER)
    assert (report.instance.caller, report.code, report.verdict) == ("outer", "SKW050", "unknown")
    assert "`n` is a parameter of the inline helper `outer`" in report.message


DECODE_STEPS = ROOT / "built_llm" / "decode_steps.py"


def test_a_call_of_an_imported_helper_reports_the_spliced_loop_at_the_call() -> None:
    # decode_steps.py imports attend_rows and attend_fixed from helpers.py.
    reports = {(r.span.line, r.span.column): r for r in _reports(DECODE_STEPS)}
    calls = [reports[(18, 13)], reports[(19, 13)], reports[(30, 9)]]
    assert [(r.code, r.depth, r.trip, r.instance.caller) for r in calls] == [
        # attend_rows(q, k, o, 8): trip 8 in the caller's pl.at scope -> depth 2.
        ("SKW001", 2, 8, "decode_steps"),
        # attend_rows(q, k, o, 2): trip 2 < 2 x depth 2 -> depth 1.
        ("SKW002", 1, 2, "decode_steps"),
        # attend_fixed: its own pl.at scope and trip 8, nothing from the caller.
        ("SKW001", 2, 8, "decode_fixed"),
    ]
    assert [tuple((c.core, c.code, c.depth, c.copies) for c in r.cores) for r in calls[:2]] == [
        (SKEWED_CUBE, ("aiv", "SKW020", None, 2)),
        (("aic", "SKW002", 1, 1), ("aiv", "SKW020", None, 2)),
    ]
    # The loop lives in helpers.py (its line 15): the report says where, by its own name.
    assert calls[0].message.startswith(
        "the loop of `attend_rows` from `helpers` (its line 15) inlined here: "
    )
    # The file's own loop keeps its single verdict (vector only: left), and
    # LowerPipelineLoops replicates it: trip 256 // 32 = 8 at stage=2, no remainder.
    assert reports[(40, 9)].code == "SKW011"


def test_a_call_of_an_imported_helper_has_no_preview_here() -> None:
    from skewlsp.api import PreviewUnavailable, preview

    with pytest.raises(PreviewUnavailable, match="written in another module"):
        preview(DECODE_STEPS.read_text(), 18, path=str(DECODE_STEPS), resolver=_resolver)


def test_without_a_resolver_an_imported_helper_is_not_followed() -> None:
    reports = analyse(DECODE_STEPS.read_text(), str(DECODE_STEPS))
    assert [(r.span.line, r.code) for r in reports] == [(40, "SKW010")]


def test_editing_the_argument_of_an_imported_helper_re_decides_its_call() -> None:
    source = DECODE_STEPS.read_text()
    cache = UnitCache()
    analyze(source, str(DECODE_STEPS), resolver=_resolver, cache=cache)
    # The argument moves: 2 -> 1 (trip 1 < 2: demoted). Only that line changes.
    edited = source.replace("o = attend_rows(q, k, o, 2)", "o = attend_rows(q, k, o, 1)")
    again = analyze(edited, str(DECODE_STEPS), resolver=_resolver, cache=cache)
    assert [r.code for r in again if r.span.line == 19] == ["SKW023"]
    assert again == analyze(edited, str(DECODE_STEPS), resolver=_resolver)


def test_an_edit_in_one_caller_decides_only_that_callers_copy_again() -> None:
    # Each copy of the helper is kept by what its call gives it: editing `chunked`
    # changes the helper's unit (its callers are part of it), but not what `prefill`
    # and `decode` pass, so their three copies are reused; `chunked`'s is decided again.
    source = INLINE.read_text()
    cache = UnitCache()
    analyze(source, str(INLINE), resolver=_resolver, cache=cache)
    edited = source.replace("chunk_blocks = PREFILL_BLOCKS // 2", "chunk_blocks = PREFILL_BLOCKS // 4")
    again = analyze(edited, str(INLINE), resolver=_resolver, cache=cache)
    assert cache.site_hits == 3
    assert again == analyze(edited, str(INLINE), resolver=_resolver)
    chunked = [r for r in again if r.instance and r.instance.caller == "chunked"]
    assert [(r.trip, r.code) for r in chunked] == [(2, "SKW002")]  # 8 // 4: depth 1


def test_a_changed_module_constant_decides_every_copy_again() -> None:
    source = INLINE.read_text()
    cache = UnitCache()
    analyze(source, str(INLINE), resolver=_resolver, cache=cache)
    edited = source.replace("PREFILL_BLOCKS = ROWS // HEAD_TILE", "PREFILL_BLOCKS = 1 + 1")
    again = analyze(edited, str(INLINE), resolver=_resolver, cache=cache)
    assert cache.site_hits == 0
    assert again == analyze(edited, str(INLINE), resolver=_resolver)


HELPERS = ROOT / "built_llm" / "helpers.py"


def _project(path: str | None) -> list[tuple[str, str]]:
    """Every other module of the fixture package, as a linter's run would offer them."""
    return [(str(p), p.read_text()) for p in sorted(ROOT.rglob("*.py")) if str(p) != path]


def test_a_helper_called_from_other_modules_is_decided_for_each_of_those_calls() -> None:
    # decode_steps.py calls attend_rows twice (blocks 8 and 2): its stop is the caller's
    # argument, so each call decides a copy. attend_fixed's loop needs nothing from its
    # caller (decode_fixed): its one verdict stands, decided here.
    reports = analyse(
        HELPERS.read_text(), str(HELPERS), resolver=_resolver, importers=_project
    )
    copies = [r for r in reports if r.instance is not None]
    summary = [
        (r.span.line, r.code, r.depth, r.instance.caller, Path(r.instance.call_path).name)
        for r in copies
    ]
    assert summary == [
        (15, "SKW001", 2, "decode_steps", "decode_steps.py"),
        (15, "SKW002", 1, "decode_steps", "decode_steps.py"),
    ]
    assert [r.instance.call.line for r in copies] == [18, 19]
    assert [(r.span.line, r.code) for r in reports if r.instance is None] == [(30, "SKW001")]
    assert reports[0].message.startswith(
        "called from `decode_steps` in decode_steps.py (line 18) with blocks = 8: cube: skewed"
    )
    # The remark at each call is the caller's file's: none lands in the helper's file.
    assert all(r.hints == () for r in reports)


def test_without_callers_in_the_project_the_helper_loop_depends_on_the_call_site() -> None:
    alone = analyse(HELPERS.read_text(), str(HELPERS), resolver=_resolver, importers=lambda p: [])
    assert [(r.span.line, r.code) for r in alone] == [(15, "SKW050"), (30, "SKW001")]
    assert "no caller of `attend_rows` is in this file" in alone[0].message


def test_a_module_importing_another_module_of_the_same_name_is_not_a_caller() -> None:
    # A caller whose `helpers` import resolves elsewhere (here: nowhere) is not counted.
    stranger = "from .helpers import attend_rows\n\ndef k(q, k, o):\n    attend_rows(q, k, o, 4)\n"
    elsewhere = [("/elsewhere/pkg/kernel.py", stranger)]
    reports = analyse(
        HELPERS.read_text(), str(HELPERS), resolver=_resolver, importers=lambda p: elsewhere
    )
    assert [(r.span.line, r.code) for r in reports] == [(15, "SKW050"), (30, "SKW001")]
