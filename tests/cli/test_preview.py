"""``skewlint preview PATH:LINE``, ``--preview`` and the preview in ``full``: the real
transform, from the same analysis (and the same imported constants) as the lint."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

from tests.cli.conftest import Run
from tests.cli.helpers import write
from tests.kernels import BUILT_TWICE_AND_INLINED, CONSUMER, DEMOTED, IMPORTED, SKEWED, loop

# DEMOTED's loop as the demotion rewrites it: the same body under pl.range.
DEMOTED_REWRITE = textwrap.indent(loop(CONSUMER, "pl.range(0, 8, 1)"), " " * 8)
# What every preview starts with: the verdict and code, why, what the rewrite changes.
DEMOTED_HEADER = textwrap.indent(
    "# demoted (SKW020: consumer role: a tile produced by the lead half feeds the body)\n"
    "# why: loop not skewed: consumer role: `s0` from the lead half feeds the body\n"
    "# what changes: only the header: `pl.pipeline` becomes `pl.range` (no stage=2); "
    "the body is as written, its iterations run one after another\n",
    " " * 8,
)
HEADER_STARTS = ("# demoted (", "# skewed (", "# left (", "# why: ", "# what changes: ")


def _code(preview: str) -> str:
    """A preview without its header."""
    lines = preview.splitlines(keepends=True)
    while lines and lines[0].lstrip().startswith(HEADER_STARTS + ("# this copy: ",)):
        lines.pop(0)
    return "".join(lines)



def test_preview_prints_the_demoted_loop(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"k.py": DEMOTED})
    result = run("preview", "k.py:10")  # a line inside the loop's body
    assert result.exit_code == 0, result.err
    assert result.out == DEMOTED_HEADER + DEMOTED_REWRITE


def test_preview_of_a_skewed_loop_has_its_schedule(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"k.py": SKEWED})
    result = run("preview", "k.py:8")
    assert result.exit_code == 0, result.err
    assert "prologue" in result.out and "epilogue" in result.out
    assert "for i in pl.range(2, 8, 2):" in result.out  # trip 8, depth 2


def test_preview_reads_imported_constants_like_the_lint(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"k.py": IMPORTED, "consts.py": "TRIP = 6\n"})
    [item] = run("--output-format", "json", "k.py").json()
    assert (item["code"], item["trip"], item["depth"]) == ("SKW001", 6, 2)
    result = run("preview", "k.py:9")
    assert result.exit_code == 0, result.err
    assert "for i in pl.range(2, 6, 2):" in result.out


def test_preview_flag_uses_imported_constants(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"k.py": IMPORTED, "consts.py": "TRIP = 6\n"})
    [item] = run("--preview", "--output-format", "json", "k.py").json()
    assert item["preview_error"] is None
    assert "for i in pl.range(2, 6, 2):" in item["preview"]


def test_full_output_shows_the_preview_of_an_imported_bound(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"k.py": IMPORTED, "consts.py": "TRIP = 6\n"})
    out = run("--preview", "k.py").out
    assert "preview:\n" in out and "for i in pl.range(2, 6, 2):" in out


def test_preview_without_a_loop_on_that_line_exits_2(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"k.py": DEMOTED})
    result = run("preview", "k.py:2")
    assert result.exit_code == 2
    assert result.err == "skewlint: error: k.py:2: no pl.pipeline loop spans this line\n"


# DEMOTED without its tpush: one-directional, left by the skew pass (trip 8 at stage=2).
LEFT = DEMOTED.replace("            pl.tile.tpush_to_aic(c0, split=0)\n", "")
LEFT_STAGE1 = LEFT.replace("stage=2", "stage=1")


def test_preview_of_a_left_loop_at_stage_1_says_why(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"k.py": LEFT_STAGE1})
    result = run("preview", "k.py:8")
    assert result.exit_code == 2
    assert result.err.startswith(
        "skewlint: error: k.py:8: left as a pipeline loop: stage=1: nothing replicated"
    )


def test_preview_of_a_left_loop_at_stage_2_is_its_replicated_copies(
    run: Run, tmp_path: Path
) -> None:
    # LowerPipelineLoops: trip 8 at stage=2 is a main loop 0..8 of stride 2 (kept as a
    # stage=1 pipeline) whose body is the copies at i and i + 1; no remainder.
    write(tmp_path, {"k.py": LEFT})
    result = run("preview", "k.py:8")
    assert result.exit_code == 0, result.err
    lines = [line.strip() for line in _code(result.out).splitlines()]
    # above the lowered loop, why it has no buffer assignment: its body loads nothing
    # (it pops its tile from the other core)
    assert lines[0] == "# buffers of the loads: not modelled (no load of its body is known)"
    assert lines[1] == "for i in pl.pipeline(0, 8, 2, stage=1):"
    assert [line for line in lines if "store(" in line] == [
        "pl.tile.store(c0, [i * 16, 0], out)",
        "pl.tile.store(c0, [(i + 1) * 16, 0], out)",
    ]


def test_preview_flag_records_why_a_left_loop_has_none(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"k.py": LEFT_STAGE1})
    [item] = run(
        "--preview", "--extend-select", "SKW010", "--output-format", "json", "k.py"
    ).json()
    assert item["code"] == "SKW010"
    assert item["preview"] is None
    assert item["preview_error"].startswith("left as a pipeline loop: stage=1: nothing replicated")
    write(tmp_path, {"k.py": LEFT})
    [item] = run(
        "--preview", "--extend-select", "SKW011", "--output-format", "json", "k.py"
    ).json()
    assert item["code"] == "SKW011"
    assert item["preview"].lstrip().startswith("# left (SKW011: replicated")
    assert _code(item["preview"]).lstrip().startswith(
        "# buffers of the loads: not modelled (no load of its body is known)\n"
        "        for i in pl.pipeline(0, 8, 2, stage=1):"
    )
    assert item["preview_error"] is None


def test_preview_flag_adds_the_preview_to_json(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"k.py": DEMOTED})
    [item] = run("--preview", "--output-format", "json", "k.py").json()
    assert item["preview"] == DEMOTED_HEADER + DEMOTED_REWRITE
    assert item["preview_error"] is None


def test_bad_target_exits_2(run: Run, tmp_path: Path) -> None:
    assert "expected PATH:LINE" in run("preview", "k.py").err
    assert "no such file" in run("preview", "nope.py:3").err




def test_the_header_of_a_copy_names_it_and_is_indented_like_its_code(
    run: Run, tmp_path: Path
) -> None:
    write(tmp_path, {"k.py": BUILT_TWICE_AND_INLINED})
    for line, indent, label in (
        (7, 12, "n = 4"),
        (12, 4, "called from `entry` (line 17) with m = 4"),
    ):
        result = run("preview", f"k.py:{line}")
        assert result.exit_code == 0, result.err
        lines = result.out.splitlines()
        assert lines[0] == " " * indent + "# skewed (SKW001: loop skewed)"
        header = lines[: lines.index(" " * indent + "# prologue: produce(0), produce(1)")]
        assert len(header) == 3 and label in header[1]
        assert all(text[:indent].isspace() for text in lines if text.strip())


def test_preview_of_a_stage_above_the_trip_labels_every_copy_the_first_included(
    run: Run, tmp_path: Path
) -> None:
    # trip 8 at stage=16 (SKW014): no main loop, 8 copies written out, each under its label
    write(tmp_path, {"k.py": LEFT.replace("stage=2", "stage=16")})
    result = run("preview", "k.py:8")
    assert result.exit_code == 0, result.err
    labels = [line.strip() for line in _code(result.out).splitlines() if "remainder copy" in line]
    assert labels == [f"# remainder copy {j}: i = {j}" for j in range(8)]


MEM_LLM = Path(__file__).resolve().parents[1] / "fixtures" / "memory" / "models" / "mem_llm"


def test_preview_of_a_replicated_loop_names_each_copys_buffer(run: Run, tmp_path: Path) -> None:
    # tests/fixtures/memory short.py query_and_key_rows: the compiler kept the four 64 KB
    # loads of the two copies in four buffers (mem_vec_3..6), then AllocateMemoryAddr
    # stopped the compile ("Vec buffer usage (262144 bytes) exceeds platform limit").
    shutil.copytree(MEM_LLM, tmp_path / "mem_llm")
    result = run("preview", "mem_llm/short.py:32")
    assert result.exit_code == 0, result.err
    assert _code(result.out).startswith(
        "        # buffers of the loads on the vector (AIV) core (MemoryReuse,"
        " AllocateMemoryAddr):\n"
        "        #   copy 0: qi in Vec buffer 0 (65536 B), ki in Vec buffer 1 (65536 B)\n"
        "        #   copy 1: qi in Vec buffer 2 (65536 B), ki in Vec buffer 3 (65536 B)\n"
        "        #   no offsets: the loads overflow Vec and AllocateMemoryAddr stops the"
        " compile\n"
        "        for i in pl.pipeline(0, 4, 2, stage=1):\n"
    )
