"""Which loops a variant changes, and what their report says about it."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from skewlsp.analysis.report.finish import Said, finished_report
from skewlsp.analysis.report.variants import Alternative, assumed_builds
from skewlsp.contract import (
    NOT_COMPILED,
    Assumption,
    CoreResult,
    Finding,
    Instance,
    LoopReport,
    SpaceBuffers,
    Span,
)

ASSUMED = Assumption("MODE", "fast")


def with_variants(
    reports: Sequence[LoopReport], alternatives: Sequence[Alternative]
) -> list[LoopReport]:
    """The reports as the driver's last step puts them together: each with what the
    variant step found of it."""
    found = assumed_builds(reports, alternatives)
    return [
        finished_report(report, Said(), builds)
        for report, builds in zip(reports, found, strict=True)
    ]


def report(line: int, code: str = "SKW011", **fields: object) -> LoopReport:
    span = Span(line, 5, line + 3, 1)
    return LoopReport(None, span, span, "left", code, f"{code} at {line}", **fields)  # type: ignore[arg-type]


def test_only_the_loops_another_value_changes_name_the_value_they_assumed() -> None:
    primary = [report(10), report(20)]
    other = [report(10), report(20, "SKW012")]
    found = with_variants(primary, [Alternative(ASSUMED, "slow", other)])
    assert found[0] == primary[0]
    assert found[1].assumes == (ASSUMED,)
    [variant] = found[1].variants
    assert (variant.variable, variant.value, variant.code, variant.message) == (
        "MODE", "slow", "SKW012", "SKW012 at 20"
    )


def test_a_copy_the_other_build_does_not_make_is_not_compiled_there() -> None:
    copy = Instance((("n", "4"),))
    primary = [report(10, instance=copy)]
    found = with_variants(primary, [Alternative(ASSUMED, None, [report(10)])])
    [variant] = found[0].variants
    assert (variant.verdict, variant.code) == ("not_compiled", NOT_COMPILED)
    assert variant.message == "this copy of the loop is not built with MODE unset"


def test_what_only_the_lowering_reads_is_not_in_a_report_so_never_a_difference() -> None:
    """The loads' sizes, the outlined scope and a load-time bound are the lowering passes'
    inputs (``lower_pipeline.loop_facts``), not part of what a report shows: two builds
    whose loads differ in size but lower alike give one verdict."""
    shown = {f.name for f in dataclasses.fields(LoopReport)}
    assert shown & {"slot_loads", "slot_scope", "load_time_bound"} == set()


def test_buffers_that_differ_only_in_bytes_name_the_value_but_are_not_another_verdict() -> None:
    """Another build's tile sizes change the bytes of a loop's ``memory`` record: the bytes
    shown hold for the assumed value, which the report names; with the same verdict and
    findings there is no variant to list (a memory code the other build gives or takes
    away is a finding, and so a variant)."""
    def split(stage_bytes: int, hints: tuple[Finding, ...] = ()) -> LoopReport:
        buffers = (SpaceBuffers("Vec", stage_bytes, 2, reason="fits alone"),)
        core = CoreResult("aiv", "left", "SKW010", "no boundary crossing", memory=buffers)
        return report(10, cores=(core,), memory=buffers, hints=hints)

    found = with_variants([split(32768)], [Alternative(ASSUMED, "slow", [split(16384)])])
    assert (found[0].assumes, found[0].variants) == ((ASSUMED,), ())
    slot_bound = (Finding("SKW080", "PH-MR-001: ...", Span(10, 30, 10, 37)),)
    found = with_variants([split(32768)], [Alternative(ASSUMED, "slow", [split(98304, slot_bound)])])
    assert [v.variable for v in found[0].variants] == ["MODE"]


def test_a_copy_is_the_same_copy_whichever_of_its_bindings_the_other_build_quotes() -> None:
    # pypto-lib deepseek_v4_pro/lm_head.py:211 at its call at line 327: not compiled at
    # --tp 2 (no binding chosen to quote), replicated at --tp 4 (none of them quoted): the
    # same copy, so its variant is the replicated verdict, not "not built".
    call = Span(327, 5, 331, 6)
    windows = (("hidden_window", "hidden_window"),)
    skipped = report(211, NOT_COMPILED, instance=Instance(windows, "lm_head_test", call))
    built = report(211, "SKW012", instance=Instance(windows, "lm_head_test", call, shown=()))
    found = with_variants([skipped], [Alternative(Assumption("--tp", "2"), "4", [built])])
    [variant] = found[0].variants
    assert (variant.label, variant.code, variant.message) == ("--tp 4", "SKW012", "SKW012 at 211")
