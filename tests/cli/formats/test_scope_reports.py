"""A report of an InCore scope with no pipeline loop (vector.py:48, whose tiles overflow
Vec: pypto e2d0f78ae stops in AllocateMemoryAddr, "Vec buffer usage (196608 bytes)
exceeds platform limit (188416 bytes)") in every format: at the scope's header, with no
loop field claimed."""

from __future__ import annotations

from pathlib import Path

from tests.cli.conftest import Run
from tests.cli.helpers import write

MEM_LLM = Path(__file__).resolve().parents[2] / "fixtures" / "memory" / "models" / "mem_llm"


def kernels(tmp_path: Path) -> None:
    write(tmp_path, {name: (MEM_LLM / name).read_text() for name in ("config.py", "helpers.py", "vector.py")})


def test_json_gives_the_scope_s_error_and_warning_at_its_with_and_no_loop(
    run: Run, tmp_path: Path
) -> None:
    kernels(tmp_path)
    found = run("--output-format", "json", "--select", "ALL", "--exit-zero", "vector.py").json()
    error, warning = [item for item in found if item["line"] == 48]
    assert (error["kind"], error["code"], error["severity"]) == ("scope", "SKW081", "error")
    assert (warning["kind"], warning["code"], warning["severity"]) == ("hint", "SKW082", "warning")
    assert (error["column"], error["end_line"], error["end_column"]) == (5, 48, 61)
    assert error["function"] == "three_wide_rows_at_once"
    assert error["message"].endswith(
        '("Vec buffer usage (196608 bytes) exceeds platform limit (188416 bytes)")'
    )
    for item in (error, warning):
        claimed = {key: item[key] for key in ("loop", "loop_var", "trip", "stage", "lowering")}
        assert claimed == dict.fromkeys(claimed)
        assert item["cores"] == []
        assert [(m["space"], m["cause"]) for m in item["memory"]] == [("Vec", "overflow")]


def test_sarif_claims_no_loop_property_for_the_scope(run: Run, tmp_path: Path) -> None:
    kernels(tmp_path)
    log = run("--output-format", "sarif", "--exit-zero", "vector.py").json()
    results = log["runs"][0]["results"]
    at_scope = [
        r for r in results if r["locations"][0]["physicalLocation"]["region"]["startLine"] == 48
    ]
    assert [r["ruleId"] for r in at_scope] == ["SKW081", "SKW082"]
    assert at_scope[0]["properties"] == {"kind": "scope", "verdict": "error"}


def test_full_marks_the_scope_s_header_and_says_no_loop_memory(run: Run, tmp_path: Path) -> None:
    kernels(tmp_path)
    out = run("--output-format", "full", "--exit-zero", "vector.py").out
    block = out[out.index("vector.py:48:5: SKW081") :]
    block = block[: block.index("\n\n")]
    assert "48 |     with pl.at(level=pl.Level.CORE_GROUP, name_hint=\"three\"):" in block
    assert "^" * 56 + " SKW081" in block
    assert "memory:" not in block  # (no stage: the message says the space and bytes)
