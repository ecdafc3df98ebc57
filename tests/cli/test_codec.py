"""The cache codec rebuilds reports from JSON data: same values, and a bad entry raises."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

import skewlsp.analysis
from skewlsp.cli.cache import Cache, cache_key
from skewlsp.cli.codec import report_from_data, report_to_data
from skewlsp.contract import CoreResult, Lowering, Span
from tests.kernels import COPIES_APART, STAGE3


def _data() -> dict:
    [report] = skewlsp.analysis.analyze(STAGE3, "k.py")
    return json.loads(json.dumps(report_to_data(report)))


def test_rebuilt_reports_equal_hash_and_compare_like_built_ones() -> None:
    [report] = skewlsp.analysis.analyze(STAGE3, "k.py")
    rebuilt = report_from_data(json.loads(json.dumps(report_to_data(report))))
    assert rebuilt == report and hash(rebuilt) == hash(report)
    assert type(rebuilt.span) is Span and rebuilt.span == report.span
    assert rebuilt.span < Span(rebuilt.span.line + 1, 1, 1, 1)  # order=True still works
    with pytest.raises(AttributeError):
        rebuilt.code = "SKW999"  # still frozen


def test_unknown_keys_are_dropped_and_missing_defaults_filled() -> None:
    data = _data()
    data["from_a_later_version"] = 1
    del data["fix_hint"]
    rebuilt = report_from_data(data)
    assert rebuilt.fix_hint is None
    assert not hasattr(rebuilt, "from_a_later_version")


def test_a_missing_required_field_is_an_error() -> None:
    data = _data()
    del data["verdict"]
    with pytest.raises(ValueError):
        report_from_data(data)


@pytest.mark.parametrize(
    "damage",
    [
        lambda d: d.update(span=[1, 1, 2, 2]),  # a span of another shape
        lambda d: d["span"].pop("end_column"),
        lambda d: d.pop("code"),
        lambda d: d.update(core="gpu"),
        lambda d: d.update(assumes=[{"variable": "X", "value": 3}]),
    ],
)
def test_an_entry_of_another_shape_is_a_cache_miss(tmp_path, damage) -> None:
    cache = Cache(tmp_path / "c")
    key = cache_key(b"x", "k.py", (), "pypto", "code")
    data = _data()
    damage(data)
    cache.write_json(cache._entry(key), {"deps": [], "reports": [data]})
    assert cache.get(key, "k.py", ()) is None


def test_a_verdict_no_report_can_have_is_a_value_error() -> None:
    data = _data()
    data["verdict"] = "half-skewed"
    with pytest.raises(ValueError):
        report_from_data(data)


def test_an_assumed_value_of_another_type_is_a_value_error() -> None:
    data = _data()
    data["assumes"] = [{"variable": "MODE", "value": {"not": "a string"}}]
    with pytest.raises(ValueError):
        report_from_data(data)


def test_the_stored_shape_is_the_dataclasses_own() -> None:
    # what cache format 8 stores: a change here needs a new format in cli/cache.py
    from dataclasses import asdict

    [report] = skewlsp.analysis.analyze(STAGE3, "k.py")
    assert json.dumps(report_to_data(report)) == json.dumps(asdict(report))


def test_a_lowered_loop_and_its_core_copies_come_back_whole() -> None:
    # a replicated left loop (with a remainder), and a mixed loop whose vector copy is left
    from pathlib import Path

    fixtures = Path(__file__).resolve().parents[1] / "fixtures"
    sources = [
        STAGE3.replace("stage=3", "stage=3").replace("pl.tile.tpush_to_aiv", "pl.tile.add"),
        (fixtures / "mixed" / "models" / "mixed_llm" / "nested.py").read_text(),
    ]
    reports = [r for source in sources for r in skewlsp.analysis.analyze(source, "k.py")]
    lowered = [r for r in reports if r.lowering or any(c.lowering for c in r.cores)]
    assert len(lowered) >= 2
    for report in lowered:
        assert report_from_data(json.loads(json.dumps(report_to_data(report)))) == report


def test_the_copies_of_a_loop_come_back_with_their_own_cores_and_lowering() -> None:
    # the cache holds every copy's report, so the JSON `copies[]` of a warm run is a cold one's
    built_deep, built_short, even, odd = skewlsp.analysis.analyze(COPIES_APART, "k.py")
    assert [[c.depth for c in r.cores] for r in (built_deep, built_short)] == [[4, None], [1, None]]
    assert [(r.lowering.main_trip, r.lowering.tail) for r in (even, odd)] == [(4, 0), (3, 1)]
    reports = [built_deep, built_short, even, odd]
    data = json.loads(json.dumps([report_to_data(r) for r in reports]))  # as the cache stores it
    assert [report_from_data(d) for d in data] == reports


def test_what_a_verdict_assumed_and_its_variants_are_rebuilt() -> None:
    from dataclasses import replace

    from skewlsp.contract import ARGV, Assumption, Variant

    [report] = skewlsp.analysis.analyze(STAGE3, "k.py")
    report = replace(
        report,
        assumes=(Assumption("MODE", "pro"), Assumption(ARGV, ("--variant", "flash"), True)),
        variants=(Variant("MODE", None, "skewed", "SKW002", "depth 1", 1),),
    )
    rebuilt = report_from_data(json.loads(json.dumps(report_to_data(report))))
    assert rebuilt == report and hash(rebuilt) == hash(report)


def test_a_second_lane_s_lowering_inside_a_core_s_lowering_comes_back() -> None:
    # (a Lowering holding a Lowering: the converter follows the contract's type hints)
    second = Lowering("replicated", "SKW016", "declined", stage=2, main_trip=1, declined="no loads")
    first = Lowering("rotated", "SKW015", "rotated", stage=2, slots=("x",), second_lane=second)
    [report] = skewlsp.analysis.analyze(STAGE3, "k.py")
    vector = CoreResult("aiv", "left", "SKW010", "left", copies=2, lowering=first)
    report = replace(report, cores=(vector,))
    rebuilt = report_from_data(json.loads(json.dumps(report_to_data(report))))
    assert rebuilt == report
    assert rebuilt.cores[0].lowering is not None
    assert rebuilt.cores[0].lowering.second_lane == second
