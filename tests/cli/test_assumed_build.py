"""The build skewlint assumes the kernels are imported under: ``--env``, ``--argv`` and the
config's ``environment``/``argv``/``variants``, in every output and in the cache key.

The kernels are tests/fixtures/variants (see tests/analysis/driver/test_variants.py for
the verdicts): decode.py's head loop is skewed at depth 2 for DUO_VARIANT=full (the
default) and at depth 1 for lite; its other loops do not depend on the variant.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.cli.conftest import Run
from tests.cli.helpers import write

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "variants"
HEADS = 25


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    shutil.copytree(FIXTURE, tmp_path / "repo")
    return tmp_path / "repo"


def heads(run: Run, tree: Path, *args: str) -> dict:
    options = ("--output-format", "json", "--select", "ALL", "--exit-zero")
    result = run(*options, *args, "models", cwd=tree)
    assert result.exit_code == 0, result.err
    [item] = [i for i in result.json() if i["filename"].endswith("decode.py") and i["line"] == HEADS]
    return item


def test_by_default_the_variable_is_unset_and_named_with_the_verdict_it_decides(
    run: Run, tree: Path
) -> None:
    item = heads(run, tree)
    assert (item["code"], item["depth"]) == ("SKW001", 2)
    assert item["assumes"] == {"DUO_VARIANT": "full"}
    assert item["variants"] == [
        {
            "environment": {"DUO_VARIANT": "lite"},
            "verdict": "skewed",
            "code": "SKW002",
            "depth": 1,
            "message": item["variants"][0]["message"],
        }
    ]
    assert "trip 2 < 2 x depth 2" in item["variants"][0]["message"]


def test_a_loop_no_variable_decides_has_empty_keys(run: Run, tree: Path) -> None:
    result = run("--output-format", "json", "--select", "ALL", "models", cwd=tree)
    others = [i for i in result.json() if i["filename"].endswith("decode.py") and i["line"] != HEADS]
    assert [(i["assumes"], i["variants"]) for i in others] == [({}, []), ({}, [])]


def test_env_decides_the_loop_as_editing_the_config_s_default_does(run: Run, tree: Path) -> None:
    by_env = heads(run, tree, "--env", "DUO_VARIANT=lite")
    config = tree / "models" / "duo_llm" / "config.py"
    config.write_text(config.read_text().replace('VARIANT_ENV, "full")', 'VARIANT_ENV, "lite")'))
    by_edit = heads(run, tree)
    assert (by_env["code"], by_env["depth"]) == ("SKW002", 1)
    drop = ("assumes", "variants")
    assert {k: v for k, v in by_env.items() if k not in drop} == {
        k: v for k, v in by_edit.items() if k not in drop
    }
    assert by_env["assumes"] == {"DUO_VARIANT": "lite"}
    assert [v["environment"] for v in by_env["variants"]] == [{"DUO_VARIANT": "full"}]


def test_argv_is_split_like_a_shell_and_parsed_as_the_config_parses_it(
    run: Run, tree: Path
) -> None:
    item = heads(run, tree, "--argv", "--seed 3 --variant lite")
    assert (item["code"], item["depth"]) == ("SKW002", 1)
    assert item["assumes"] == {"sys.argv": ["--seed", "3", "--variant", "lite"]}
    assert [v["environment"] for v in item["variants"]] == [{"sys.argv": None}]


def test_the_config_s_environment_and_argv_are_assumed(run: Run, tree: Path) -> None:
    write(tree, {"skewlint.toml": '[environment]\nDUO_VARIANT = "lite"\n'})
    assert heads(run, tree)["code"] == "SKW002"
    write(tree, {"skewlint.toml": 'argv = ["--variant=lite"]\n'})
    assert heads(run, tree)["code"] == "SKW002"
    assert heads(run, tree, "--argv", "")["code"] == "SKW001"  # none: replaces the config's


def test_variants_false_decides_only_the_assumed_build(run: Run, tree: Path) -> None:
    write(tree, {"skewlint.toml": "variants = false\n"})
    item = heads(run, tree)
    assert (item["code"], item["assumes"], item["variants"]) == ("SKW001", {}, [])


def test_skewlint_s_own_environment_never_decides_a_verdict(
    run: Run, tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DUO_VARIANT", "lite")
    assert heads(run, tree)["code"] == "SKW001"


def test_env_without_a_value_is_refused_with_the_spelling_that_passes_the_shell_s(
    run: Run, tree: Path
) -> None:
    result = run("--env", "DUO_VARIANT", "models", cwd=tree)
    assert result.exit_code == 2
    assert "expected NAME=VALUE" in result.err and '--env DUO_VARIANT="$DUO_VARIANT"' in result.err


def test_a_cached_result_is_never_served_for_another_build(run: Run, tree: Path) -> None:
    def cached(*args: str) -> dict:
        result = run("--output-format", "json", *args, "models/duo_llm/decode.py", cwd=tree)
        return next(i for i in result.json() if i["line"] == HEADS)

    assert cached()["code"] == "SKW001"
    assert cached("--env", "DUO_VARIANT=lite")["code"] == "SKW002"
    assert cached()["code"] == "SKW001"


def test_the_full_format_says_which_value_the_verdict_assumed_and_what_the_other_gives(
    run: Run, tree: Path
) -> None:
    out = run("--output-format", "full", "models/duo_llm/decode.py", cwd=tree).out
    assert "  = assuming `DUO_VARIANT` unset: `full`\n" in out
    assert "  = with DUO_VARIANT=lite: SKW002 cube: skewed at depth 1" in out


def test_show_settings_prints_the_build_and_the_memory_planner(run: Run, tree: Path) -> None:
    write(tree, {"skewlint.toml": 'memory-planner = "ptoas"\nargv = ["--tp", "4"]\n'})
    out = run("--show-settings", "--env", "A=1", "models", cwd=tree).out
    assert "memory-planner = 'ptoas'\n" in out
    assert "environment = {'A': '1'}\n" in out
    assert "argv = ['--tp', '4']\n" in out
    assert "variants = true\n" in out


def test_a_preview_is_the_rewrite_of_the_assumed_build(run: Run, tree: Path) -> None:
    target = f"models/duo_llm/decode.py:{HEADS}"
    full = run("preview", target, cwd=tree).out
    lite = run("preview", "--env", "DUO_VARIANT=lite", target, cwd=tree).out
    assert "# prologue: produce(0), produce(1)\n" in full  # depth 2
    assert "# prologue: produce(0)\n" in lite  # depth 1


def test_skw070_s_help_names_both_ways_to_assume_the_build_that_compiles_the_loop() -> None:
    # A branch chosen by an environment variable, or by an option read off the command
    # line (pypto-lib's `--tp`): the help names the option of each.
    from skewlsp.contract import CODES

    assert CODES["SKW070"].fix == (
        "Nothing to fix if the branch is meant for another configuration; to see its "
        "verdicts, assume the build that selects it (`--env NAME=VALUE` or `--argv ARGS`, "
        "or `environment` or `argv` in the configuration) or change the constant."
    )


SHARDED = Path(__file__).resolve().parents[1] / "fixtures" / "memory" / "models" / "mem_llm"


def test_an_option_read_off_argv_is_named_in_the_full_format_and_json_with_its_variants(
    run: Run,
) -> None:
    # mem_llm/sharded.py reads `--tp` at import (2 when not given) and allows (2, 4, 8).
    full = run("--no-cache", "--exit-zero", "--select", "ALL", str(SHARDED / "sharded.py"))
    lines = full.out.splitlines()
    tail = lines.index(next(line for line in lines if ":63:13: SKW070" in line))
    details = lines[tail : tail + 12]
    assert "  = assuming `--tp` not given: `2`" in details
    assert any(line.startswith("  = with --tp 8: SKW012 ") for line in details)
