"""A verdict that holds for one build: the value it assumed, and the loop under the others.

The driver decides a module again under each other value its modules declare for a
variable its analysis read (``driver.variants``). A loop whose report (what it
shows: the inputs of the lowering passes are not in it, their outcome is) is the
same under every value is left as it was: it does not depend on the variable, even if
its module imports the config that reads it. A loop whose report changes names the value
it was decided with (:class:`~skewlsp.contract.Assumption`) and lists what it is under
each value that changes it (:class:`~skewlsp.contract.Variant`), in one report: this
step hands on an :class:`Assumed` per loop, which :mod:`.finish` puts on its report.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields, replace

from skewlsp.contract import (
    ARGV_UNKNOWN,
    NOT_COMPILED,
    Assumption,
    CoreResult,
    Instance,
    LoopReport,
    Span,
    Variant,
    is_option,
)


@dataclass(frozen=True)
class Alternative:
    """The module's reports when ``variable`` is ``value`` (None: unset, or for
    ``sys.argv`` no arguments) instead of what the analysis assumed (``assumed``)."""

    assumed: Assumption
    value: str | None
    reports: Sequence[LoopReport]


@dataclass(frozen=True)
class Assumed:
    """What one loop's report says of the builds: the values it assumed that another value
    changes (``assumes``), and the loop under each value that changes what it shows
    (``variants``). The report is put together from it in :mod:`.finish`."""

    assumes: tuple[Assumption, ...] = ()
    variants: tuple[Variant, ...] = ()


NOT_ASSUMED = Assumed()


def assumed_builds(
    reports: Sequence[LoopReport], alternatives: Sequence[Alternative]
) -> list[Assumed]:
    """Per loop of ``reports``: the value it assumed, if another value changes its report,
    and the loop under each value that changes what it shows (a copy the other build
    does not make is reported as not compiled there); :data:`NOT_ASSUMED` for a loop
    no other value changes."""
    by_key = [_by_key(alternative.reports) for alternative in alternatives]
    found: list[Assumed] = []
    seen: dict[tuple[Span, Instance | None], int] = {}
    for report in reports:
        key = _key(report)
        nth = seen[key] = seen.get(key, -1) + 1  # the same loop reported twice: in order
        assumes: list[Assumption] = []
        variants: list[Variant] = []
        for alternative, others in zip(alternatives, by_key, strict=True):
            same_place = others.get(key, [])
            other = same_place[nth] if nth < len(same_place) else None
            if other == report:
                continue
            if alternative.value == ARGV_UNKNOWN:
                # The command line not known: the loop names the one it assumed, unless an
                # option of it already does; that build is no verdict of its own.
                if not any(is_option(a.variable) for a in assumes):
                    assumes.append(alternative.assumed)
                continue
            # Anything the value changes names it (the buffers' bytes too); only another
            # verdict or finding is a variant of its own.
            if alternative.assumed not in assumes:
                assumes.append(alternative.assumed)
            if other is None or _shown(other) != _shown(report):
                variants.append(_variant(alternative, report, other))
        found.append(Assumed(tuple(assumes), tuple(variants)) if assumes else NOT_ASSUMED)
    return found


# What a variant does not tell apart: the buffers' bytes (``memory``, and which copy uses
# which buffer, ``buffers``: another build's tile sizes change them while the verdict and
# findings stay; a memory code another build gives or takes away is a finding, and so a
# difference).
_BYTES = frozenset({"memory", "buffers"})


def _shown(report: LoopReport) -> tuple[object, ...]:
    """What a variant tells apart: the report's values but its buffers' bytes."""
    return tuple(
        tuple(_shown_core(core) for core in report.cores) if f.name == "cores"
        else getattr(report, f.name)
        for f in fields(report)
        if f.name not in _BYTES
    )


def _shown_core(core: CoreResult) -> tuple[object, ...]:
    return tuple(getattr(core, f.name) for f in fields(core) if f.name not in _BYTES)


def _by_key(
    reports: Sequence[LoopReport],
) -> dict[tuple[Span, Instance | None], list[LoopReport]]:
    found: dict[tuple[Span, Instance | None], list[LoopReport]] = {}
    for report in reports:
        found.setdefault(_key(report), []).append(report)
    return found


def _key(report: LoopReport) -> tuple[Span, Instance | None]:
    """Which copy of which loop a report is: its place and the copy's values and call (not
    which of them its messages quote, which depends on what the build made of the loop)."""
    instance = report.instance
    return report.span, replace(instance, shown=None) if instance is not None else None


def _variant(alternative: Alternative, report: LoopReport, other: LoopReport | None) -> Variant:
    variable, value = alternative.assumed.variable, alternative.value
    if other is None and report.scope_only:
        # (a scope is reported only where its tiles overflow: no report is no overflow
        # found, not a scope left unbuilt)
        message = "no overflow is found here (the tiles fit, or are not all known)"
        return Variant(variable, value, "unknown", "", message)
    if other is None:
        unbuilt = Variant(variable, value, "not_compiled", NOT_COMPILED, "").label
        message = f"this copy of the loop is not built with {unbuilt}"
        return Variant(variable, value, "not_compiled", NOT_COMPILED, message)
    return Variant(variable, value, other.verdict, other.code, other.message, other.depth)
