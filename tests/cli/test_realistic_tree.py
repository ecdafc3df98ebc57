"""skewlint end to end on a kernel tree laid out like a real model repository."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.conftest import Run
from tests.kernels import EXPECTED, LOWERED, REALISTIC, REALISTIC_MODELS, REWRITTEN, pipeline_lines


def skewlint(*args: str, cwd: Path = REALISTIC) -> subprocess.CompletedProcess[str]:
    options = [] if args[0] == "preview" else ["--no-cache"]
    return subprocess.run(
        [sys.executable, "-m", "skewlsp.cli", *options, *args],
        capture_output=True, text=True, check=False, cwd=cwd,
    )


@pytest.fixture(scope="module")
def loops() -> dict[tuple[str, int], dict]:
    result = skewlint("--output-format", "json", "--select", "ALL", "--exit-zero", "models")
    assert result.returncode == 0, result.stderr
    items = json.loads(result.stdout)
    hints: dict[tuple[str, int], list[str]] = {}
    loops = {}
    for item in items:
        key = (item["filename"].rsplit("/", 1)[-1], item["line"])
        if item["kind"] == "loop":
            loops[key] = item
        elif item["loop"]["line"] <= item["line"] <= item["loop"]["end_line"]:
            hints.setdefault(key, []).append(item["code"])
        # else: a remark at an inline helper's call (test_the_call_of_an_inline_helper_...)
    for key, codes in hints.items():
        loops[key]["hint_codes"] = tuple(codes)
    return loops


def test_every_pipeline_loop_of_the_tree_has_a_report(loops: dict) -> None:
    lines = pipeline_lines()
    assert len(lines) == len(EXPECTED) == 13
    assert sorted(loops) == lines


@pytest.mark.parametrize("expected", EXPECTED, ids=lambda e: f"{e.file}:{e.line}")
def test_each_loop_gets_the_verdict_the_rules_give(loops: dict, expected) -> None:
    item = loops[(expected.file, expected.line)]
    assert (item["code"], item["depth"], item["trip"]) == (expected.code, expected.depth, expected.trip), item["message"]
    assert tuple((c["core"], c["code"], c["depth"]) for c in item.get("cores", [])) == expected.cores
    assert item.get("hint_codes", ()) == expected.hints


@pytest.mark.parametrize(
    "expected",
    [e for e in EXPECTED if e.code in REWRITTEN | LOWERED],
    ids=lambda e: f"{e.file}:{e.line}",
)
def test_every_skewed_demoted_or_lowered_loop_previews_from_the_command_line(
    run: Run, expected
) -> None:
    # In this process (the rest of the file runs skewlint as a process of its own).
    where = f"{REALISTIC_MODELS.relative_to(REALISTIC)}/{expected.file}:{expected.line}"
    result = run("preview", where, cwd=REALISTIC)
    assert result.exit_code == 0, result.err
    if expected.code in LOWERED:  # replicated (both are trip T at stage=2, T even):
        # a main loop 0..T of stride 2, kept as a stage=1 pipeline, its body two copies
        assert f"pl.pipeline(0, {expected.trip}, 2, stage=1):" in result.out
        assert "# copy 0:" in result.out and "# copy 1:" in result.out
        assert "# copy 2:" not in result.out and "remainder" not in result.out
    elif expected.depth:  # skewed: the schedule is written out
        assert "# prologue" in result.out and "# epilogue" in result.out
    else:  # demoted: the same loop as a sequential pl.range loop
        assert "pl.range(" in result.out and "pl.pipeline(" not in result.out


def test_the_full_format_previews_every_rewritten_loop(loops: dict) -> None:
    result = skewlint("--output-format", "json", "--select", "ALL", "--exit-zero", "--preview", "models")
    items = json.loads(result.stdout)
    previewed = {
        (i["filename"].rsplit("/", 1)[-1], i["line"]) for i in items if i["kind"] == "loop" and i["preview"]
    }
    assert previewed == {(e.file, e.line) for e in EXPECTED if e.code in REWRITTEN | LOWERED}


def test_an_inline_helper_loop_is_one_finding_at_the_loop_pointing_at_its_call() -> None:
    # attention_block (an @pl.jit.inline helper) is called once, by attention_heads at
    # line 56: its loop (line 23, trip 4, stage 2) skews at depth 2 in that copy. The
    # linter lists the loop once, at the loop; the call is a related place, not a finding.
    result = skewlint("--output-format", "json", "--exit-zero", "models/tiny_llm/attention.py")
    items = json.loads(result.stdout)
    assert [i for i in items if i["line"] == 56] == []
    (loop,) = [i for i in items if i["kind"] == "loop" and i["line"] == 23]
    assert (loop["code"], loop["instance"]["caller"]) == ("SKW001", "attention_heads")
    assert loop["related"][0]["line"] == 56


HEADLINE_LIMIT = 160  # ruff's habit: a headline a terminal shows on one or two lines
CODE = re.compile(r"\bSKW\d{3}\b")
FINDING = re.compile(r"^(?P<where>\S+:\d+:\d+:) (?P<code>SKW\d{3}) (\[\w+\] )?(?P<headline>.*)$")


def _findings(text: str) -> list[re.Match[str]]:
    return [m for m in map(FINDING.match, text.splitlines()) if m is not None]


def test_every_concise_line_is_one_code_and_a_short_headline() -> None:
    result = skewlint("--output-format", "concise", "--select", "ALL", "--exit-zero", "models")
    found = _findings(result.stdout)
    assert len(found) >= 12, result.stdout
    too_long = [m.group(0) for m in found if len(m.group("headline")) > HEADLINE_LIMIT]
    assert too_long == []
    two_codes = [m.group(0) for m in found if CODE.findall(m.group("headline"))]
    assert two_codes == []


def test_a_concise_line_names_the_helper_s_call_only_while_it_stays_within_160(
    tmp_path: Path,
) -> None:
    # attention.py:23 is attention_block's loop, decided at its one call (line 56).
    short = skewlint("--output-format", "concise", "--exit-zero", "models/tiny_llm/attention.py")
    assert (
        "models/tiny_llm/attention.py:23:9: SKW001 called from `attention_heads` (line 56): "
        "cube: runs 2 iterations ahead (skewed at depth 2)"
    ) in short.stdout.splitlines()
    # The same tree under a long folder name: the call no longer fits, the verdict stays.
    folder = "a_checkout_folder_whose_name_alone_takes_up_most_of_a_terminal_line"
    shutil.copytree(REALISTIC, tmp_path / folder)
    path = f"{folder}/models/tiny_llm/attention.py"
    deep = skewlint("--output-format", "concise", "--exit-zero", path, cwd=tmp_path)
    line = f"{path}:23:9: SKW001 cube: runs 2 iterations ahead (skewed at depth 2)"
    assert line in deep.stdout.splitlines()
    assert len(line) <= 160


def _blocks(text: str) -> list[tuple[str, list[str]]]:
    """Each finding of ``full`` output: its code and its lines."""
    blocks: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        head = FINDING.match(line)
        if head is not None:
            blocks.append((head.group("code"), [line]))
        elif blocks:
            blocks[-1][1].append(line)
    return blocks


def test_a_left_loop_s_full_finding_names_one_code() -> None:
    # A loop the skew pass left (SKW010) and the lowering replicates is one finding under
    # the lowering's code: its core lines say SKW011, not SKW010 as well.
    result = skewlint("--select", "ALL", "--exit-zero", "models")
    left = [(code, lines) for code, lines in _blocks(result.stdout) if code.startswith("SKW01")]
    assert len(left) >= 2
    others = [(code, sorted(set(CODE.findall("\n".join(lines))) - {code})) for code, lines in left]
    assert [(code, extra) for code, extra in others if extra] == []


def test_a_run_prints_each_code_s_help_once() -> None:
    result = skewlint("--select", "ALL", "--exit-zero", "models")
    blocks = _blocks(result.stdout)
    helped = [code for code, lines in blocks if any(" = help: " in line for line in lines)]
    codes = {code for code, _ in blocks}
    assert {"SKW002", "SKW011"} <= codes and len(blocks) > len(codes)
    assert sorted(helped) == sorted(set(helped))  # once per code
    assert {"SKW002", "SKW021"} <= set(helped)  # and still once
