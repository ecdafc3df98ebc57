"""SKW060 in every output format: the loop, the moved tpush and the lead, both orders."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import Run
from tests.cli.helpers import sarif_validator, write
from tests.kernels import FIFO_REORDER

KERNEL = FIFO_REORDER
LOOP, LEAD, MOVED = 8, 10, 13  # lines of the for, the lead tpush and the guarded tpush
MESSAGE = (
    "skewing reorders the FIFO to AIV: the tpush at line 13 (under `if n > 2`) is issued "
    "after the next 2 produces (lead at line 10, depth 2); the vector core receives tiles in "
    "another order than the source says"
)
# What one-line formats print (the message is in JSON, SARIF, the editor's hover).
HEADLINE = (
    "the vector core gets tiles out of order: the tpush at line 13 (under `if n > 2`) now "
    "follows 2 later produces (FIFO reordered by the skew at depth 2)"
)


def lint(run: Run, tmp_path: Path, output_format: str) -> str:
    write(tmp_path, {"k.py": KERNEL})
    result = run("--no-cache", "--output-format", output_format, "k.py")
    assert result.exit_code == 1, result.err  # a warning fails the run by default
    return result.out


def test_json_has_the_finding_with_related_places_and_the_hazard(run: Run, tmp_path: Path) -> None:
    items = json.loads(lint(run, tmp_path, "json"))
    assert [(d["kind"], d["code"]) for d in items] == [("loop", "SKW001"), ("hint", "SKW060")]
    hint = items[1]
    assert (hint["severity"], hint["message"], hint["line"]) == ("warning", MESSAGE, LOOP)
    assert [(r["line"], r["column"]) for r in hint["related"]] == [(MOVED, 17), (LEAD, 13)]
    assert items[0]["related"] == []
    (hazard,) = items[0]["hazards"]
    assert (hazard["fifo"], hazard["guard"], hazard["after_produces"]) == ("aiv", "if n > 2", 2)
    assert (hazard["moved"]["line"], hazard["lead"]["line"], hazard["messages"]) == (13, 10, 8)
    shown = [f"{m['label']}{m['index']}{'*' if m['moved'] else ''}" for m in hazard["skewed_order"]]
    assert shown == ["qt0", "qt1", "qt2", "qt3", "rt0*", "rt1*", "rt2*", "rt3*"]


def test_json_lines_carries_the_same_objects(run: Run, tmp_path: Path) -> None:
    lines = [json.loads(line) for line in lint(run, tmp_path, "json-lines").splitlines()]
    assert lines[1]["code"] == "SKW060" and len(lines[1]["related"]) == 2


def test_sarif_has_related_locations_for_the_moved_tpush_and_the_lead(
    run: Run, tmp_path: Path
) -> None:
    log = json.loads(lint(run, tmp_path, "sarif"))
    sarif_validator().validate(log)
    results = {r["ruleId"]: r for r in log["runs"][0]["results"]}
    hazard = results["SKW060"]
    assert hazard["level"] == "warning" and hazard["message"]["text"] == MESSAGE
    related = hazard["relatedLocations"]
    assert [loc["physicalLocation"]["region"]["startLine"] for loc in related] == [MOVED, LEAD]
    assert [loc["id"] for loc in related] == [0, 1]
    assert "tpush is issued after" in related[0]["message"]["text"]
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    assert rules[hazard["ruleIndex"]]["id"] == "SKW060"
    # the loop's own result still points at its lead only
    assert [loc["message"]["text"] for loc in results["SKW001"]["relatedLocations"]] == ["lead"]


def test_github_annotates_the_loop_with_the_lines_in_the_headline(run: Run, tmp_path: Path) -> None:
    lines = lint(run, tmp_path, "github").splitlines()
    assert lines[1] == (
        f"::warning file=k.py,line={LOOP},col=18,endLine={LOOP},endColumn=47,title=SKW060::{HEADLINE}"
    )


def test_concise_has_one_line(run: Run, tmp_path: Path) -> None:
    lines = lint(run, tmp_path, "concise").splitlines()
    assert lines[1] == f"k.py:{LOOP}:18: SKW060 {HEADLINE}"


def test_full_marks_the_moved_tpush_and_the_lead_and_shows_both_orders(
    run: Run, tmp_path: Path
) -> None:
    out = lint(run, tmp_path, "full")
    block = out[out.index("SKW060 [warning]") :]
    lines = block.splitlines()
    moved = next(k for k, line in enumerate(lines) if line.startswith(f"{MOVED} |"))
    assert "^^^^ this tpush is issued after later iterations' produces" in lines[moved + 1]
    lead = next(k for k, line in enumerate(lines) if line.startswith(f"{LEAD} |"))
    assert "the lead: the producer half runs ahead from here" in lines[lead + 1]
    assert "  = FIFO to AIV, source order: qt(0) [rt(0)] qt(1) [rt(1)] qt(2) [rt(2)] " in block
    assert "  = FIFO to AIV, after the skew: qt(0) qt(1) qt(2) qt(3) [rt(0)] [rt(1)] [rt(2)] " \
        "[rt(3)]\n" in block
