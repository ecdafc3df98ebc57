"""Deciding a module again under the other builds its configuration declares.

An analysis assumes one build (``frontend.assumed``: the environment and command line
the kernel is imported under) and records what its modules read of it. For each
variable read whose module declares other values (``frontend.declared_choices``: a
tuple of supported values, a dict of presets, a literal comparison), or that the build
sets (then unset is the other value), the whole module is analysed again with that one
variable changed, and every loop whose report changes says so (``report.variants``'
:class:`~skewlsp.analysis.report.variants.Assumed`, put on its report with the rest of
its record at the driver's last step, where each report is put together). The
other variables keep their assumed values: the builds are varied one variable at a
time, not in every combination.

A module that reads nothing of the build costs nothing more; one that does costs one
analysis per other value (its trees, and what is read off them alone, shared: the
state's ``syntactic`` facts; its values folded again), at most :data:`MAX_VARIANTS`.

Every unit is walked again, even one whose first walk read nothing of the variable
varied (the build records each unit's reads, ``Build.open``/``close``, as the server's
unit cache does to charge a hit). Reusing such a unit's models would not pay: of
pypto-lib's 33 modules decided again, each of the 37 units walked again had read in its
first walk the variable the other build varies, directly or through a config constant
folded from it, and so had 121 of their 132 loops in the loop's own decision (measured
2026-12-06: benchmarks/README.md, "Cache layers").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from skewlsp.analysis.frontend.assumed import AssumedRead
from skewlsp.analysis.report.variants import NOT_ASSUMED, Alternative, Assumed, assumed_builds
from skewlsp.contract import ARGV, ARGV_UNKNOWN, Assumption, Assumptions, LoopReport, is_option

AssumedReads = frozenset[AssumedRead]
# Other builds a module is decided under, at most (a dict of twenty presets is decided
# under the first eight values in order).
MAX_VARIANTS = 8


def variant_builds(
    reports: list[LoopReport],
    read: AssumedReads,
    assumptions: Assumptions,
    again: Callable[[Assumptions], list[LoopReport]],
    source: str | None = None,
) -> list[Assumed]:
    """Per loop of ``reports`` (the module's, finished), what another declared value of
    what the analysis ``read`` changes of it (``again``: the module's finished reports
    under another build). The command line's options are varied only where ``source``
    (the module analysed) reads them itself."""
    alternatives: list[Alternative] = []
    own = frozenset(one for one in read if one.module is None or one.module == source)
    for assumed, choices in _choices(own) if assumptions.variants else ():
        for value in choices:
            if len(alternatives) == MAX_VARIANTS:
                break
            others = again(assumptions.varied(assumed.variable, value))
            alternatives.append(Alternative(assumed, value, others))
    if not alternatives:
        return [NOT_ASSUMED] * len(reports)
    return assumed_builds(reports, alternatives)


def _choices(read: AssumedReads) -> list[tuple[Assumption, tuple[str | None, ...]]]:
    """Each variable read with choices: what it was assumed to be, and its other values
    (those of every module that read it, in order; unset last)."""
    by_variable: dict[str, list[AssumedRead]] = {}
    for one in read:
        if one.choices:
            by_variable.setdefault(one.variable, []).append(one)
    if any(is_option(variable) for variable in by_variable) and ARGV in by_variable:
        # The options read off the command line are its variables: deciding it empty as
        # well would decide one of their values again (not knowing it is another thing).
        unknown = [
            replace(one, choices=(ARGV_UNKNOWN,))
            for one in by_variable.pop(ARGV)
            if ARGV_UNKNOWN in one.choices
        ]
        if unknown:
            by_variable[ARGV] = unknown
    found: list[tuple[Assumption, tuple[str | None, ...]]] = []
    for variable in sorted(by_variable):
        reads = sorted(by_variable[variable], key=lambda r: repr(r.value))
        first = reads[0]
        values = {value for one in reads for value in one.choices}
        named = [v for v in values if v is not None and v != ARGV_UNKNOWN]
        ordered: list[str | None] = [*sorted(named, key=_in_order)]
        if None in values:
            ordered.append(None)
        if ARGV_UNKNOWN in values:
            ordered.append(ARGV_UNKNOWN)
        found.append((Assumption(variable, first.value, first.configured), tuple(ordered)))
    return found


def _in_order(value: str) -> tuple[int, int, str]:
    """Numbers in their order (``--tp 4`` before ``--tp 16``), then the other values."""
    number = value.lstrip("-").isdigit()
    return (0, int(value), "") if number else (1, 0, value)
