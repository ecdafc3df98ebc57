"""A loop Python builds several times is one finding; JSON ``copies[]`` carries each copy's
per-core verdicts and lowering, so a dashboard sees the copies that part ways.

The kernel (tests/kernels.py ``COPIES_APART``): a builder called for two variants whose
cube copy skews at depth 4 (trip 16, stage 5) and at depth 1 (trip 3, stage 2), and an
inline helper's loop left at two calls, with trips 8 and 7 at stage 2.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.conftest import Run
from tests.cli.helpers import write
from tests.kernels import COPIES_APART, COPIES_APART_BUILT_FOR, COPIES_APART_SPLICED_FOR

CORE_KEYS = [
    "core", "verdict", "code", "reason", "depth", "requested_depth", "trip", "copies",
    "pushes", "pops", "lowering", "memory", "buffers",
]
LOWERING_KEYS = [
    "verdict", "code", "reason", "stage", "main_trip", "main_start", "main_stop", "stride",
    "tail", "branches", "buffers", "tail_buffers", "nested", "copies", "declined", "slots",
]


def _loop(items: list[dict], line: int) -> dict:
    [loop] = [i for i in items if i["kind"] == "loop" and i["line"] == line]
    return loop


@pytest.fixture
def found(run: Run, tmp_path: Path) -> list[dict]:
    write(tmp_path, {"k.py": COPIES_APART})
    return run("--no-cache", "--extend-select", "SKW01", "--output-format", "json", "k.py").json()


def test_each_builder_variant_carries_its_own_cores(found: list[dict]) -> None:
    loop = _loop(found, COPIES_APART_BUILT_FOR)
    copies = loop["copies"]
    assert [c["instance"]["bindings"] for c in copies] == [
        {"blocks": "16", "stage": "5"},
        {"blocks": "3", "stage": "2"},
    ]
    assert [
        [(k["core"], k["verdict"], k["code"], k["depth"], k["requested_depth"], k["trip"])
         for k in c["cores"]]
        for c in copies
    ] == [
        [("aic", "skewed", "SKW001", 4, 4, 16), ("aiv", "demoted", "SKW020", None, 4, 16)],
        [("aic", "skewed", "SKW002", 1, 2, 3), ("aiv", "demoted", "SKW020", None, 2, 3)],
    ]
    assert [[k["copies"] for k in c["cores"]] for c in copies] == [[1, 2], [1, 2]]
    assert copies[1]["cores"][0]["reason"] == "depth 1 (requested 2: trip 3 < 2 x depth 2)"
    assert [c["lowering"] for c in copies] == [None, None]  # skewed: not lowered


def test_each_helper_call_carries_its_own_lowering(found: list[dict]) -> None:
    loop = _loop(found, COPIES_APART_SPLICED_FOR)
    copies = loop["copies"]
    assert [(c["instance"]["caller"], c["code"]) for c in copies] == [
        ("even", "SKW011"), ("odd", "SKW012")
    ]
    lowered = [c["lowering"] for c in copies]
    assert [(w["code"], w["stage"], w["main_trip"], w["main_start"], w["main_stop"], w["tail"])
            for w in lowered] == [("SKW011", 2, 4, 0, 8, 0), ("SKW012", 2, 3, 0, 6, 1)]
    assert [(w["buffers"], w["tail_buffers"], w["copies"]) for w in lowered] == [
        (2, 0, 2), (2, 1, 3)
    ]
    # the one (vector) core's copy is lowered the same way as the loop's copy
    assert [[(k["core"], k["code"], k["lowering"]["main_trip"], k["lowering"]["tail"])
             for k in c["cores"]] for c in copies] == [
        [("aiv", "SKW010", 4, 0)], [("aiv", "SKW010", 3, 1)]
    ]


def test_a_copy_has_the_shape_of_the_loop(found: list[dict]) -> None:
    built, spliced = _loop(found, COPIES_APART_BUILT_FOR), _loop(found, COPIES_APART_SPLICED_FOR)
    assert list(built["cores"][0]) == CORE_KEYS and list(spliced["lowering"]) == LOWERING_KEYS
    for loop in (built, spliced):
        for copy in loop["copies"]:
            assert list(copy) == [
                "code", "verdict", "depth", "message", "instance", "cores", "lowering",
                "memory", "buffers", "assumes", "variants",
            ]
            assert [list(core) for core in copy["cores"]] == [CORE_KEYS] * len(loop["cores"])
    assert [list(c["lowering"]) for c in spliced["copies"]] == [LOWERING_KEYS] * 2


def test_the_finding_is_the_strictest_copy(found: list[dict]) -> None:
    loop = _loop(found, COPIES_APART_BUILT_FOR)
    assert (loop["code"], loop["depth"]) == ("SKW002", 1)
    assert loop["cores"] == loop["copies"][1]["cores"]


def test_json_lines_carries_the_same_copies(run: Run, tmp_path: Path, found: list[dict]) -> None:
    listed = run("--no-cache", "--extend-select", "SKW01", "--output-format", "json-lines", "k.py")
    lines = listed.out.splitlines()
    assert [json.loads(line)["copies"] for line in lines] == [i["copies"] for i in found]
    assert json.loads(lines[0])["copies"][0]["cores"][0]["depth"] == 4


def test_the_other_machine_formats_keep_their_shape(run: Run, tmp_path: Path) -> None:
    # one result per finding, the copies' cores and lowering are JSON's alone
    write(tmp_path, {"k.py": COPIES_APART})
    sarif = json.loads(run("--no-cache", "--output-format", "sarif", "k.py").out)
    [result] = sarif["runs"][0]["results"]
    assert sorted(result) == [
        "level", "locations", "message", "properties", "relatedLocations", "ruleId", "ruleIndex"
    ]
    assert result["properties"] == {
        "kind": "loop", "verdict": "skewed", "depth": 1, "requestedDepth": 2, "trip": 3,
        "stage": 2,
    }
    [issue] = json.loads(run("--no-cache", "--output-format", "gitlab", "k.py").out)
    assert sorted(issue) == ["check_name", "description", "fingerprint", "location", "severity"]
    github = run("--no-cache", "--output-format", "github", "k.py").out.splitlines()
    assert [line.split("::")[1] for line in github] == [
        "warning file=k.py,line=20,col=17,endLine=20,endColumn=59,title=SKW002"
    ]
    junit = run("--no-cache", "--output-format", "junit", "k.py").out
    assert junit.count("<testcase ") == 1 and "cores" not in junit
