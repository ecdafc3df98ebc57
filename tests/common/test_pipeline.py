"""From loop reports to findings: one finding per loop, severities an author can act on.

Run through the real CLI on a package laid out as a kernel repository
(``tests/fixtures/first_hour/models/pair_llm``: a config module, an inline helper and
its callers, a hand-written cube/vector program, a mixed kernel).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import Run

PACKAGE = Path(__file__).resolve().parents[1] / "fixtures" / "first_hour" / "models" / "pair_llm"


@pytest.fixture
def models(tmp_path: Path) -> Path:
    shutil.copytree(PACKAGE, tmp_path / "models" / "pair_llm")
    return tmp_path / "models"


def _lint(run: Run, models: Path, *args: str) -> list[dict[str, Any]]:
    result = run("--output-format", "json", "--exit-zero", "--no-cache", *args, ".", cwd=models)
    assert result.exit_code == 0, result.err
    return result.json()


def _at(items: list[dict[str, Any]], name: str, line: int) -> dict[str, Any]:
    (found,) = [i for i in items if i["filename"].endswith(name) and i["line"] == line]
    return found


def test_a_consumer_whose_peer_loop_skews_is_information_and_points_at_the_peer(
    run: Run, models: Path
) -> None:
    items = _lint(run, models)
    consumer = _at(items, "flash_pair.py", 37)
    assert (consumer["code"], consumer["severity"]) == ("SKW020", "information")
    assert consumer["message"].endswith(
        "(overlap from the cube's skew: the cube's skewed loop at line 24)"
    )
    assert [r["line"] for r in consumer["related"]] == [24]


def test_a_consumer_without_a_skewed_peer_of_its_trip_stays_a_warning(
    run: Run, models: Path
) -> None:
    consumer = _at(_lint(run, models), "lonely_consumer.py", 24)
    assert (consumer["code"], consumer["severity"]) == ("SKW020", "warning")
    assert "overlap" not in consumer["message"]
    assert consumer["related"] == []


def test_a_severity_the_user_configures_for_the_code_wins(run: Run, models: Path) -> None:
    (models / "pyproject.toml").write_text('[tool.skewlint.severity]\nSKW020 = "error"\n')
    consumer = _at(_lint(run, models), "flash_pair.py", 37)
    assert consumer["severity"] == "error"


def test_an_inline_helper_loop_called_twice_is_one_finding_under_its_strictest_copy(
    run: Run, models: Path
) -> None:
    items = _lint(run, models)
    helper_loops = [i for i in items if i["filename"].endswith("helpers.py")]
    assert [(i["line"], i["code"], i["severity"]) for i in helper_loops] == [
        (18, "SKW002", "warning")
    ]
    (loop,) = helper_loops
    assert [(c["code"], c["instance"]["call"]["line"]) for c in loop["copies"]] == [
        ("SKW001", 19),
        ("SKW002", 20),
    ]
    # The calls are in another module: no finding there, each named by the message.
    assert [i for i in items if i["filename"].endswith("decode.py")] == []
    assert "(line 19)" in loop["message"] and "(line 20)" in loop["message"]


def test_a_per_core_code_named_on_the_loop_is_a_used_suppression(run: Run, models: Path) -> None:
    items = _lint(run, models)
    assert [i["code"] for i in items if i["filename"].endswith("mixed_ack.py")] == ["SKW001"]
    before = (models / "pair_llm" / "mixed_ack.py").read_text()
    fixed = run("--fix", "--exit-zero", "--no-cache", ".", cwd=models)
    assert fixed.exit_code == 0, fixed.err
    assert (models / "pair_llm" / "mixed_ack.py").read_text() == before


def test_a_per_core_code_no_core_has_is_still_an_unused_suppression(
    run: Run, models: Path
) -> None:
    path = models / "pair_llm" / "mixed_ack.py"
    path.write_text(path.read_text().replace("ignore[SKW020]", "ignore[SKW021]"))
    items = _lint(run, models)
    unused = [i for i in items if i["filename"].endswith("mixed_ack.py") and i["code"] == "SKW901"]
    assert [u["message"] for u in unused] == [
        "unused suppression in `# skewlint: ignore[...]`: SKW021 not reported here"
    ]


def test_a_run_does_not_fail_on_the_overlap_the_author_wanted(run: Run, models: Path) -> None:
    # What is left is skewed loops and the consumer of one: nothing to act on.
    for name in ("lonely_consumer.py", "helpers.py", "decode.py"):
        (models / "pair_llm" / name).unlink()
    result = run("--no-cache", "--output-format", "concise", ".", cwd=models)
    assert result.exit_code == 0, result.out
    assert "flash_pair.py:37:9: SKW020" in result.out
    (models / "pair_llm" / "lonely_consumer.py").write_text(
        (PACKAGE / "lonely_consumer.py").read_text()
    )
    again = run("--no-cache", "--output-format", "concise", ".", cwd=models)
    assert again.exit_code == 1


def test_a_consumer_of_a_tile_from_a_producer_in_another_file_is_information(
    run: Run, models: Path
) -> None:
    # The vector half alone: its cube producer lives in another module, so no edit of this
    # file gives the loop its overlap (the producer's skew does).
    (models / "pair_llm" / "vector_half.py").write_text(
        '"""The vector half of an exchange whose cube half is in another module."""\n\n'
        "import pypto.language as pl\n\n"
        "from .config import HEADS\n\n\n"
        "@pl.program\n"
        "class VectorHalf:\n"
        "    @pl.function(type=pl.FunctionType.AIV)\n"
        "    def consume(self, scale: pl.Tensor[[16, 16], pl.FP32]):\n"
        "        for h in pl.pipeline(0, HEADS, 1, stage=2):\n"
        "            scores: pl.Tile[[16, 16], pl.FP32] = pl.tile.tpop_from_aic(split=0)\n"
        "            doubled: pl.Tile[[16, 16], pl.FP32] = pl.tile.add(scores, scores)\n"
        "            pl.tile.tpush_to_aic(doubled, split=0)\n"
        "            pl.system.tfree_to_aic(scores, split=0)\n"
    )
    consumer = _at(_lint(run, models), "vector_half.py", 12)
    assert (consumer["code"], consumer["severity"]) == ("SKW020", "information")


def test_a_consumer_carrying_a_value_it_computes_itself_stays_a_warning(
    run: Run, models: Path
) -> None:
    # The value fed to the body is this core's own (a tile it loads before it sends):
    # loading it again in the other half is an edit here.
    (models / "pair_llm" / "own_value.py").write_text(
        '"""A vector loop whose body reads a tile its send half loads."""\n\n'
        "import pypto.language as pl\n\n"
        "from .config import HEADS\n\n\n"
        "@pl.program\n"
        "class OwnValue:\n"
        "    @pl.function(type=pl.FunctionType.AIV)\n"
        "    def consume(self, x: pl.Tensor[[128, 16], pl.FP32]):\n"
        "        for h in pl.pipeline(0, HEADS, 1, stage=2):\n"
        "            a: pl.Tile[[16, 16], pl.FP32] = pl.tile.load(x, [h * 16, 0], [16, 16])\n"
        "            pl.tile.tpush_to_aic(a, split=0)\n"
        "            back: pl.Tile[[16, 16], pl.FP32] = pl.tile.tpop_from_aic(split=0)\n"
        "            both: pl.Tile[[16, 16], pl.FP32] = pl.tile.add(back, a)\n"
        "            pl.tile.store(both, [h * 16, 0], x)\n"
    )
    consumer = _at(_lint(run, models), "own_value.py", 12)
    assert (consumer["code"], consumer["severity"]) == ("SKW020", "warning")


def test_the_vector_side_example_does_not_fail_the_run(run: Run) -> None:
    examples = Path(__file__).resolve().parents[2] / "examples"
    result = run("--no-cache", "--output-format", "concise", "flash_attention_vector.py", cwd=examples)
    assert result.exit_code == 0, result.out
    assert "flash_attention_vector.py:15:9: SKW020" in result.out
