"""Findings first: loops the skew pass leaves, whose lowering deserves no warning
(SKW010-SKW013, SKW015-SKW017), are counted in one line, not listed, unless the user
selects them (``--extend-select SKW01``, ``select = ["ALL"]``, the code)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import Run
from tests.cli.helpers import write
from tests.kernels import DEMOTED, FOR_LINE

# DEMOTED without its tpush: no longer cross-core, so left on line 8; trip 8 at stage=2,
# so LowerPipelineLoops replicates it with no remainder (SKW011).
LEFT = DEMOTED.replace("            pl.tile.tpush_to_aic(c0, split=0)\n", "")


def codes(run: Run, *args: str) -> list[str]:
    return [item["code"] for item in run("--output-format", "json", *args).json()]


def test_left_loops_are_counted_in_the_summary_not_listed(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"a.py": LEFT, "b.py": LEFT, "c.py": DEMOTED})
    result = run("--output-format", "concise", ".")
    lines = result.out.splitlines()
    assert lines[0].startswith("c.py:8:9: SKW020 loop not skewed")
    assert lines[1:] == [
        "Found 1 diagnostic (1 information).",
        "2 loops left as pipeline loops, not shown: 2 replicated (SKW011); "
        "`--extend-select SKW01` lists them.",
    ]


def test_what_the_lowering_does_is_counted_per_code_in_one_line(run: Run, tmp_path: Path) -> None:
    # stage=1: nothing replicated (SKW010); trip 7 at stage=2: 3 iterations and one copy
    # after them (SKW012); trip 1 at stage=2: the stage is above the trip, a warning that
    # is listed (SKW014), not counted.
    write(tmp_path, {"a.py": LEFT, "b.py": LEFT.replace("stage=2", "stage=1"),
                     "c.py": LEFT.replace("(0, 8, 1, stage=2)", "(0, 7, 1, stage=2)"),
                     "d.py": LEFT.replace("(0, 8, 1, stage=2)", "(0, 1, 1, stage=2)")})
    lines = run("--output-format", "concise", ".").out.splitlines()
    assert lines[0].startswith("d.py:8:9: SKW014 [*] ")  # stage=1, on literal bounds: safe
    assert lines[1:] == [
        "Found 1 diagnostic (1 warning).",
        "[*] 1 fixable with the `--fix` option.",
        "3 loops left as pipeline loops, not shown: 1 replicated (SKW011), "
        "1 with a remainder (SKW012), 1 stage=1 or unknown (SKW010); "
        "`--extend-select SKW01` lists them.",
    ]
    assert codes(run, "--extend-select", "SKW01", ".") == ["SKW011", "SKW010", "SKW012", "SKW014"]


def test_only_left_loops_say_no_diagnostics_and_count_them(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"a.py": LEFT})
    result = run("--output-format", "full", "a.py")
    assert result.exit_code == 0
    assert result.out == (
        "No diagnostics in 1 file.\n"
        "1 loop left as a pipeline loop, not shown: 1 replicated (SKW011); "
        "`--extend-select SKW01` lists it.\n"
    )


def test_machine_formats_leave_them_out(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"a.py": LEFT, "c.py": DEMOTED})
    assert codes(run, ".") == ["SKW020"]


def test_extend_select_lists_them(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"a.py": LEFT, "c.py": DEMOTED})
    assert codes(run, "--extend-select", "SKW01", ".") == ["SKW011", "SKW020"]
    assert codes(run, "--extend-select", "SKW011", ".") == ["SKW011", "SKW020"]
    result = run("--extend-select", "SKW01", "--output-format", "concise", ".")
    assert "not shown" not in result.out and result.out.startswith("a.py:8:9: SKW011 ")


def test_select_all_or_the_code_in_the_config_lists_them(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"all/pyproject.toml": '[tool.skewlint]\nselect = ["ALL"]\n', "all/a.py": LEFT,
                     "one/skewlint.toml": 'select = ["SKW011"]\n', "one/a.py": LEFT,
                     "ext/skewlint.toml": 'extend-select = ["SKW01"]\n', "ext/a.py": LEFT,
                     "other/skewlint.toml": 'select = ["SKW02"]\n', "other/a.py": LEFT})
    assert codes(run, "all") == ["SKW011"]
    assert codes(run, "one") == ["SKW011"]
    assert codes(run, "ext") == ["SKW011"]
    assert codes(run, "other") == []
    assert codes(run, "--select", "ALL", "other") == ["SKW011"]


def test_ignored_left_loops_are_not_counted_either(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"a.py": LEFT})
    assert run("--ignore", "SKW011", "a.py").out == "No diagnostics in 1 file.\n"


def test_counted_loops_never_fail_the_run(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"a.py": LEFT})
    assert run("--fail-on", "hint", "a.py").exit_code == 0
    assert run("--fail-on", "hint", "--extend-select", "SKW011", "a.py").exit_code == 1


def test_a_suppression_of_a_counted_code_is_used(run: Run, tmp_path: Path) -> None:
    header = LEFT.splitlines()[FOR_LINE]
    write(tmp_path, {"a.py": LEFT.replace(header, header + "  # skewlint: ignore[SKW011]")})
    result = run("--output-format", "concise", "a.py")
    assert result.out == "No diagnostics in 1 file.\n"  # hidden by the comment: not counted


def test_show_settings_says_what_is_only_counted(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"a.py": LEFT})
    out = run("--show-settings", "a.py").out
    counted = "SKW010, SKW011, SKW012, SKW013, SKW015, SKW016, SKW017"
    assert f"counted in the summary, not listed: {counted}\n" in out
    out = run("--show-settings", "--extend-select", "SKW011", "a.py").out
    assert "counted in the summary, not listed: SKW010, SKW012, SKW013, SKW015" in out
    out = run("--show-settings", "--extend-select", "SKW01", "a.py").out
    assert "counted in the summary, not listed: -" in out


def test_statistics_count_them_marked_as_not_listed(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"a.py": LEFT, "b.py": LEFT, "c.py": DEMOTED})
    lines = run("--statistics", ".").out.splitlines()
    assert lines[0] == (
        "2\tSKW011\t[hint]\treplicated: stage copies of the body per iteration (counted, not listed)"
    )
    assert lines[1].startswith("1\tSKW020\t[information]\t") and "not listed" not in lines[1]
    assert "2\tleft" in lines and "1\tdemoted" in lines
    data = json.loads(run("--statistics", "--output-format", "json", ".").out)
    assert [(c["code"], c["count"], c["listed"]) for c in data["codes"]] == [
        ("SKW011", 2, False), ("SKW020", 1, True)
    ]
    assert data["verdicts"] == {"demoted": 1, "left": 2}
    listed = json.loads(run("--statistics", "--extend-select", "SKW011", "--output-format", "json", ".").out)
    assert [(c["code"], c["listed"]) for c in listed["codes"]] == [("SKW011", True), ("SKW020", True)]
