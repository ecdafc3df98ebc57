"""LoopReport <-> plain JSON data, for the on-disk cache.

JSON rather than pickle so that a cache file can never run code when it is
read. A cattrs converter does both directions from the contract's type hints, so a
field added to or removed from a contract class needs nothing here. Decoding is
tolerant as cattrs is by default (unknown keys dropped, missing fields given their
defaults); any other mismatch raises, and the cache takes it for a miss.
"""

from __future__ import annotations

from typing import Any

import cattrs

from skewlsp.contract import LoopReport

# JSON has no tuples: an assumed value that was a tuple of strings comes back a list.
_ASSUMED_VALUE = str | tuple[str, ...] | None


def _assumed_value(value: Any, _: object) -> str | tuple[str, ...] | None:
    if isinstance(value, list):
        return tuple(str(item) for item in value)
    if value is None or isinstance(value, str):
        return value
    raise TypeError(f"an assumed value is a string, a list of strings or null, not {value!r}")


def _converter() -> cattrs.Converter:
    """The cache's converter (without detailed validation: a bad entry is only a miss)."""
    converter = cattrs.Converter(detailed_validation=False)
    converter.register_structure_hook(_ASSUMED_VALUE, _assumed_value)
    return converter


# A type-keyed memo: the converter writes one function per contract class the first
# time it meets the class, and never changes it (docs/architecture.md lists it).
_CONVERTER = _converter()


def report_to_data(report: LoopReport) -> dict[str, Any]:
    return _CONVERTER.unstructure(report)


def plain_data(record: object) -> Any:
    """A contract record (a dataclass, at any depth) as plain JSON data: what
    ``dataclasses.asdict`` gives, from the converter's function for the record's class
    (asdict deep-copies every value as it goes: 6x slower on a loop's memory records,
    about 1% of a cold JSON lint of pypto-lib)."""
    return _CONVERTER.unstructure(record)


def report_from_data(data: dict[str, Any]) -> LoopReport:
    """Rebuild a report; raises ValueError on data of another shape.

    cattrs' errors differ across its versions (a Literal it refuses is a bare
    ``Exception`` before 24.1, a ``CattrsError`` since; a missing field a ``KeyError``):
    the cache needs only to know the entry is unusable.
    """
    try:
        return _CONVERTER.structure(data, LoopReport)
    except Exception as error:  # noqa: BLE001 - see above: every way of not fitting
        raise ValueError(f"not a cached report: {type(error).__name__}: {error}") from None
