"""The docs are true: what they quote is what skewlint prints, what they name exists.

- Every fenced block in the README and docs/ that starts with ``$ skewlint ...`` is run
  (from a copy of ``examples/``, where the documented commands run) and its output
  compared with the quoted text. A quoted line that is only ``...`` stands for any
  number of lines, one that ends in `` ...`` for a line that starts with the rest.
- Every relative link, and every ``*.md`` path quoted in backticks, names a file of
  this repository.
- docs/how-it-decides.md's depth table and the order of its decision table are
  skewlsp's own (``depth.py``, ``decide.py``).
"""

from __future__ import annotations

import ast
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from skewlsp.analysis.skew_cross_core_pipeline import decide as decide_module
from skewlsp.analysis.skew_cross_core_pipeline.depth import effective_depth, requested_depth
from skewlsp.contract import CODES

ROOT = Path(__file__).resolve().parents[1]
DOCS = sorted(
    [ROOT / "README.md", ROOT / "SECURITY.md", *(ROOT / "docs").glob("*.md")]
    + [ROOT / "benchmarks" / "README.md", ROOT / "tests" / "fuzz" / "README.md"]
    + [ROOT / "editors" / "vscode" / "README.md"]
)
FENCE = re.compile(r"^```[\w-]*\n(.*?)^```", re.MULTILINE | re.DOTALL)
LINK = re.compile(r"\]\(([^)\s]+)\)")
QUOTED_MD = re.compile(r"`([^`\s*<>]+\.md)(?:#[\w-]+)?`")
QUOTED_PY = re.compile(r"`([^`\s*<>$]+\.py)`")
# Files the docs name as a user's own, not ours: a kernel package's constants, and the
# pypto-lib kernels the benchmarks are measured on.
USERS_FILES = {
    "consts.py",
    "prefill_fwd.py",
    "qwen3_14b/prefill_fwd.py",
    # pypto-lib's, in benchmarks/README.md's account of the compiler check there
    *("hc_pre.py", "hc_post.py", "dspark_drafter.py", "prefill_cp_csa.py", "decode_csa.py"),
    *("prefill_attention_csa.py", "prefill_indexer.py", "decode_layer_a8w8.py"),
    *("decode_fwd.py", "decode_indexer.py", "decode_indexer_compressor.py"),
    *("qwen3_14b/decode_fwd.py", "deepseek_v4_pro/decode_indexer.py", "gate.py"),
    *("qkv_proj_rope.py", "lm_head.py", "decode_4d.py", "expert_routed.py", "mtp_projection.py"),
    *("moe.py", "decode_fwd_mtp.py", "decode_layer.py", "prefill_layer.py", "decode_o_proj.py"),
    *("qwen3_14b/contract.py", "decode_hca.py", "decode_swa.py", "prefill_hca.py"),
    "prefill_swa.py",
}
OUR_TREES = ("skewlsp", "tests", "examples", "benchmarks", "editors")


def documented_commands() -> list[tuple[str, str, str]]:
    """(where, command, quoted output) of every ``$ skewlint`` block."""
    found = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for match in FENCE.finditer(text):
            block = match.group(1)
            if not block.startswith("$ skewlint"):
                continue
            command, _, output = block.partition("\n")
            line = text.count("\n", 0, match.start()) + 1
            found.append((f"{doc.relative_to(ROOT)}:{line}", command[2:], output))
    return found


COMMANDS = documented_commands()


def matches(quoted: list[str], actual: list[str]) -> bool:
    """``quoted`` with its elisions (``...`` lines, `` ...`` endings) against ``actual``."""
    if not quoted:
        return not actual
    head, rest = quoted[0], quoted[1:]
    if head.strip() == "...":
        return any(matches(rest, actual[skip:]) for skip in range(len(actual) + 1))
    if not actual:
        return False
    prefix = head[: -len("...")] if head.endswith(" ...") else None
    same = actual[0].startswith(prefix) if prefix is not None else actual[0] == head
    return same and matches(rest, actual[1:])


def test_the_elisions_mean_what_they_say() -> None:
    assert matches(["a", "   ...", "d"], ["a", "b", "c", "d"])
    assert matches(["a", "...", "b"], ["a", "b"])
    assert matches(["x: help. ..."], ["x: help. More text."])
    assert not matches(["a", "d"], ["a", "b", "d"])
    assert not matches(["x: other ..."], ["x: help. More text."])


def test_the_docs_quote_commands_on_the_sample_kernels() -> None:
    where = {w.split(":")[0] for w, *_ in COMMANDS}
    assert {"README.md", "docs/cli.md", "docs/how-it-decides.md"} <= where


@pytest.mark.parametrize(("where", "command", "quoted"), COMMANDS, ids=[c[0] for c in COMMANDS])
def test_a_documented_command_prints_what_the_docs_quote(
    where: str, command: str, quoted: str, tmp_path: Path
) -> None:
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    args = shlex.split(command)
    assert args[0] == "skewlint", where
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("SKEWLINT_OUTPUT_FORMAT", "GITHUB_WORKSPACE", "CI_PROJECT_DIR")
    }
    env.update(XDG_CACHE_HOME=str(tmp_path / "cache"), NO_COLOR="1")
    run = subprocess.run(
        [sys.executable, "-m", "skewlsp.cli", *args[1:]],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode in (0, 1), run.stderr
    actual = (run.stdout + run.stderr).splitlines()
    expected = quoted.splitlines()
    assert matches(expected, actual), (
        f"{where}: `{command}` no longer prints what the docs quote; it prints:\n"
        + "\n".join(actual)
    )


def test_every_relative_link_and_quoted_doc_path_exists() -> None:
    missing = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for target in LINK.findall(text):
            if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
                continue
            path = (doc.parent / target.split("#", 1)[0]).resolve()
            if not path.exists():
                missing.append(f"{doc.relative_to(ROOT)}: link {target}")
        for quoted in QUOTED_MD.findall(text):
            if "/" not in quoted:
                continue
            here = (doc.parent / quoted).resolve()
            if not here.exists() and not (ROOT / quoted).exists():
                missing.append(f"{doc.relative_to(ROOT)}: `{quoted}`")
            elif ROOT not in here.parents and not (ROOT / quoted).exists():
                missing.append(f"{doc.relative_to(ROOT)}: `{quoted}` is outside the repository")
    assert missing == []


def test_every_python_file_the_docs_name_exists() -> None:
    """A path (``analysis/passes/simplify.py``) from the repository root or from the
    package; a bare name (``decide.py``) of some file of ours; upstream's under python/."""
    ours = {path.name for tree in OUR_TREES for path in (ROOT / tree).rglob("*.py")}
    missing = []
    for doc in DOCS:
        for quoted in QUOTED_PY.findall(doc.read_text(encoding="utf-8")):
            if quoted.startswith("python/") or quoted in USERS_FILES:
                continue  # pypto's own file, or the user's
            if "/" not in quoted:
                found = quoted in ours
            else:
                found = any((base / quoted).is_file() for base in (ROOT, ROOT / "skewlsp"))
            if not found:
                missing.append(f"{doc.relative_to(ROOT)}: `{quoted}`")
    assert missing == []


def test_every_code_the_docs_and_the_help_name_exists() -> None:
    texts = {str(doc.relative_to(ROOT)): doc.read_text(encoding="utf-8") for doc in DOCS}
    texts["skewlint --help"] = subprocess.run(
        [sys.executable, "-m", "skewlsp.cli", "--help"],
        capture_output=True, text=True, check=True,
    ).stdout
    named = {(where, code) for where, text in texts.items() for code in re.findall(r"SKW\d{3}", text)}
    assert len(named) > 20
    assert sorted((where, code) for where, code in named if code not in CODES) == []


EXPECTED = re.compile(r"^Expected: (.*?)$", re.MULTILINE)


@pytest.mark.parametrize("example", sorted((ROOT / "examples").glob("*.py")), ids=lambda p: p.name)
def test_an_example_gets_the_codes_its_docstring_expects(example: Path) -> None:
    """Each sample kernel says what to expect: its first code is the finding's, and every
    code it names is the finding's or one of its cores'."""
    said = EXPECTED.search(example.read_text(encoding="utf-8"))
    assert said is not None, f"{example.name} has no 'Expected:' line"
    named = re.findall(r"SKW\d{3}", said.group(1))
    assert named, said.group(0)
    run = subprocess.run(
        [sys.executable, "-m", "skewlsp.cli", "--no-cache", "--select", "ALL",
         "--output-format", "json", str(example)],
        capture_output=True, text=True, check=False,
    )
    findings = json.loads(run.stdout)
    assert len(findings) == 1, run.stdout
    found = findings[0]
    assert named[0] == found["code"]
    assert set(named) <= {found["code"], *(core["code"] for core in found["cores"])}


def test_the_docs_claim_only_the_ci_there_is() -> None:
    """skewlsp's CI is the script .ci/run; it has no hosted workflow to point at."""
    assert (ROOT / ".ci" / "run").is_file()
    if not (ROOT / ".github" / "workflows").exists():
        for doc in DOCS:
            assert "own workflow" not in doc.read_text(encoding="utf-8"), doc


HOW = (ROOT / "docs" / "how-it-decides.md").read_text(encoding="utf-8")


def test_the_depth_table_is_what_skewlsp_computes() -> None:
    rows = re.findall(r"^\| (\d+) \| (\d+) \| (\d+) \| (\d+) \|$", HOW, re.MULTILINE)
    assert len(rows) >= 6
    for stage, trip, requested, depth in (map(int, row) for row in rows):
        assert requested_depth(stage) == requested, (stage, trip)
        assert effective_depth(trip, requested) == depth, (stage, trip)


def test_the_decision_table_follows_the_order_of_decide_py() -> None:
    table = re.findall(r"^\| \d+ \| .* \| (SKW\d{3}) \|$", HOW, re.MULTILINE)
    source = Path(decide_module.__file__).read_text(encoding="utf-8")
    functions = {
        node.name: ast.get_source_segment(source, node) or ""
        for node in ast.parse(source).body
        if isinstance(node, ast.FunctionDef)
    }
    # The codes in the order the checks run: decide(), then the split of the body.
    in_code = re.findall(r'"(SKW\d{3})"', functions["decide"] + functions["_split"])
    assert set(table) <= set(CODES)
    assert list(dict.fromkeys(table)) == list(dict.fromkeys(in_code))


ARCHITECTURE = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
# A row of the table of the passes modelled: "| 02 UnrollLoops | `unroll_loops_pass.cpp` |
# `analysis/passes/unroll_loops.py` ...": the first module named is the pass's own.
PASS_ROW = re.compile(
    r"^\| (\d\d) (\w+) \| `(\w+\.cpp)`[^|]*\| `(analysis/[\w/]+?(?:\.py|/))`",
    re.MULTILINE,
)
CITED_PASS = re.compile(r"(\w+)_pass\.cpp")


def test_every_modelled_pass_has_a_row_and_a_module_named_after_it() -> None:
    """architecture.md's table of passes is what a maintainer following an upstream commit
    reads: each pass's own module is named after its ``*_pass.cpp`` and its docstring cites
    that file, the rows are in the compiler's order, and every pass a module of the
    analysis says it models has a row."""
    rows = PASS_ROW.findall(ARCHITECTURE)
    assert len(rows) >= 16
    numbers = [int(number) for number, *_ in rows]
    assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers)
    wrong = []
    for number, name, upstream, module in rows:
        path = ROOT / "skewlsp" / module
        if module.endswith("/"):
            path = path / "__init__.py"
        stem = upstream.removesuffix(".cpp").removesuffix("_pass")
        if not path.is_file():
            wrong.append(f"{number} {name}: no {module}")
            continue
        docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        if Path(module.rstrip("/")).stem != stem:
            wrong.append(f"{number} {name}: {module} is not named after {upstream}")
        if upstream not in docstring:
            wrong.append(f"{number} {name}: {module}'s docstring does not cite {upstream}")
    assert wrong == []
    in_table = {upstream.removesuffix(".cpp").removesuffix("_pass") for _, _, upstream, _ in rows}
    cited = {
        found
        for path in (ROOT / "skewlsp" / "analysis").rglob("*.py")
        for found in CITED_PASS.findall(
            ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        )
    }
    assert cited - in_table == set()
