"""The random kernels the compiler check is run on: the same seed writes the same files,
every kernel is one the linter reads as pypto (a loop decided, none unreadable), and the
sizes reach the capacities the memory passes decide on."""

from __future__ import annotations

import ast
import json
from pathlib import Path

from benchmarks.random_kernels import write_kernels
from tests.cli.conftest import Run, run, user_cache

__all__ = ["run", "user_cache"]  # the CLI, run in-process (fixtures)


def test_a_seed_writes_the_same_modules_and_another_seed_other_ones(tmp_path: Path) -> None:
    first = [p.read_text() for p in write_kernels(tmp_path / "a", seed=5, files=2, kernels=3)]
    again = [p.read_text() for p in write_kernels(tmp_path / "b", seed=5, files=2, kernels=3)]
    other = [p.read_text() for p in write_kernels(tmp_path / "c", seed=6, files=2, kernels=3)]
    assert first == again
    assert first != other


def test_every_kernel_is_a_jit_function_with_one_scope_and_a_pipeline_loop(
    tmp_path: Path,
) -> None:
    paths = write_kernels(tmp_path, seed=1, files=4, kernels=6)
    functions = [
        node
        for path in paths
        for node in ast.parse(path.read_text()).body
        if isinstance(node, ast.FunctionDef)
    ]
    assert len(functions) == 24
    for function in functions:
        assert ast.unparse(function.decorator_list[0]) == "pl.jit"
        (scope,) = function.body[:-1]
        assert isinstance(scope, ast.With)
        assert "pl.pipeline(" in ast.unparse(scope)


def test_the_linter_decides_every_loop_and_finds_memory_at_the_capacities(
    run: Run, tmp_path: Path
) -> None:
    write_kernels(tmp_path / "models" / "rk", seed=1, files=4, kernels=6)
    result = run("--output-format", "json", "--exit-zero", "--no-cache", "--select", "ALL",
                 str(tmp_path / "models"))  # fmt: skip
    items = json.loads(result.out)
    loops = [i for i in items if i["kind"] == "loop"]
    assert len(loops) >= 24
    assert [i for i in items if i["code"] in ("SKW050", "SKW900", "SKW902")] == []
    codes = {i["code"] for i in items if i["kind"] == "hint"}
    assert {"SKW080", "SKW081"} <= codes


def test_the_skewed_family_writes_loops_the_skew_pass_rewrites(run: Run, tmp_path: Path) -> None:
    write_kernels(tmp_path / "models" / "rk", seed=1, files=1, kernels=4, family="skewed")
    result = run("--output-format", "json", "--exit-zero", "--no-cache", "--select", "ALL",
                 str(tmp_path / "models"))  # fmt: skip
    loops = [i for i in json.loads(result.out) if i["kind"] == "loop"]
    assert [i["verdict"] for i in loops] == ["skewed"] * 4


def test_the_attention_family_computes_between_the_matmuls_and_may_set_the_ring_s_depth(
    run: Run, tmp_path: Path
) -> None:
    paths = write_kernels(
        tmp_path / "models" / "rk", seed=1, files=2, kernels=6, family="attention"
    )
    text = "".join(path.read_text() for path in paths)
    assert "pl.row_max(s)" in text and "cross_core_slot(slot_num=" in text
    assert "b = bias[:, :]" in text and "side[i * " in text
    result = run("--output-format", "json", "--exit-zero", "--no-cache", "--select", "ALL",
                 str(tmp_path / "models"))  # fmt: skip
    loops = [i for i in json.loads(result.out) if i["kind"] == "loop"]
    assert [i["verdict"] for i in loops] == ["skewed"] * 12


def test_the_ahead_family_writes_loops_whose_vector_copy_the_skew_runs_ahead(
    run: Run, tmp_path: Path
) -> None:
    paths = write_kernels(tmp_path / "models" / "rk", seed=1, files=1, kernels=6, family="ahead")
    text = "".join(path.read_text() for path in paths)
    assert "pl.rsqrt(pl.row_sum(pl.mul(xi, xi)))" in text and "pl.exp(proj)" in text
    result = run("--output-format", "json", "--exit-zero", "--no-cache", "--select", "ALL",
                 str(tmp_path / "models"))  # fmt: skip
    loops = [i for i in json.loads(result.out) if i["kind"] == "loop"]
    cores = [[(c["core"], c["verdict"]) for c in i["cores"]] for i in loops]
    assert cores == [[("aic", "demoted"), ("aiv", "skewed")]] * 6
