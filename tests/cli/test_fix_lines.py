"""Every ``fix`` line is applied by ``--fix`` or labelled as advice a human must follow.

A ``stage=`` edit is offered only once the changed loop, decided (or lowered) again,
gives the promised verdict; one whose loop reads a deployment constant (``T = B * S``)
bakes that constant's value into the kernel, so it is unsafe: ``--fix`` leaves it unless
``--unsafe-fixes`` is given, as ruff does, and its line names where the constant is set.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from skewlsp.api import analyse
from skewlsp.common.fixes import apply_edits
from skewlsp.common.resolver import RecordingResolver
from skewlsp.contract import loop_at
from tests.cli.conftest import Run
from tests.cli.helpers import write

CONFIG = """\
\"\"\"Deployment sizes.\"\"\"

DECODE_BATCH = 2
DECODE_SEQ = 4
T = DECODE_BATCH * DECODE_SEQ
TOKEN_TILE = 8
"""

QUANT = """\
\"\"\"Quantise the decode tokens, one tile of tokens per step.\"\"\"

import pypto.language as pl

from .config import T, TOKEN_TILE


@pl.program
class Quant:
    @pl.function(type=pl.FunctionType.AIV)
    def quant(self, x: pl.Tensor[[8, 16], pl.FP32]):
        for qt in pl.pipeline(0, T, TOKEN_TILE, stage=2):
            t: pl.Tile[[8, 16], pl.FP32] = pl.tile.load(x, [qt, 0], [8, 16])
            pl.tile.store(t, [qt, 0], x)
"""

LITERAL = QUANT.replace("pl.pipeline(0, T, TOKEN_TILE, stage=2)", "pl.pipeline(0, 8, 8, stage=2)")

ODD = """\
\"\"\"A cube loop whose trip comes from a tile constant.\"\"\"

import pypto.language as pl

ROWS = 96
QK_M_TILE = 32


@pl.program
class Odd:
    @pl.function
    def qk(self, a: pl.Tensor[[96, 64], pl.FP16]):
        for i in pl.pipeline(0, ROWS // QK_M_TILE, 1, stage=2):
            t: pl.Tile[[32, 64], pl.FP16] = pl.tile.load(a, [i * 32, 0], [32, 64])
            pl.tile.tpush_to_aiv(t, split=0)
            r: pl.Tile[[32, 64], pl.FP16] = pl.tile.tpop_from_aiv(split=0)
            pl.tile.store(r, [i * 32, 0], a)
"""


def _package(root: Path, quant: str = QUANT) -> Path:
    write(root, {"q/__init__.py": "", "q/config.py": CONFIG, "q/quant.py": quant})
    return root / "q" / "quant.py"


def test_a_stage_fix_on_a_deployment_constant_is_unsafe_and_names_the_constant(
    run: Run, tmp_path: Path
) -> None:
    _package(tmp_path)
    result = run("--no-cache", ".")
    assert (
        "  = unsafe fix (`--unsafe-fixes`): stage=1 gives the same single copy (nothing to "
        "replicate); T = DECODE_BATCH * DECODE_SEQ (config.py:5) = 8, TOKEN_TILE (config.py:6)"
        " = 8: stage=1 bakes this deployment's trip into the kernel\n"
    ) in result.out
    assert (
        "No fixes available (1 hidden fix can be enabled with the `--unsafe-fixes` option)."
        in result.out
    )


# quant.py sets config.T (line 6) before its `from config import T`.
WRITTEN = QUANT.replace(
    "from .config import T, TOKEN_TILE",
    "import config\nconfig.T = config.DECODE_BATCH * 4\nfrom config import T, TOKEN_TILE",
)


def test_a_constant_the_program_sets_before_importing_it_is_named_where_it_is_set(
    run: Run, tmp_path: Path
) -> None:
    # config's own T is DECODE_BATCH * DECODE_SEQ: the value baked in, and the place
    # named, are the write's.
    assert WRITTEN != QUANT
    _package(tmp_path, WRITTEN)
    result = run("--no-cache", ".")
    assert (
        "T = config.DECODE_BATCH * 4 (quant.py:6) = 8, TOKEN_TILE (config.py:6) = 8: stage=1 "
        "bakes this deployment's trip into the kernel\n"
    ) in result.out


SHADOWED = """\
\"\"\"A module-level T that the kernel's own local T shadows.\"\"\"

import pypto.language as pl

from .config import DECODE_BATCH, DECODE_SEQ, TOKEN_TILE

T = 64


@pl.program
class Quant:
    @pl.function(type=pl.FunctionType.AIV)
    def quant(self, x: pl.Tensor[[8, 16], pl.FP32]):
        T = DECODE_BATCH * DECODE_SEQ
        for qt in pl.pipeline(0, T, TOKEN_TILE, stage=2):
            t: pl.Tile[[8, 16], pl.FP32] = pl.tile.load(x, [qt, 0], [8, 16])
            pl.tile.store(t, [qt, 0], x)
"""


def test_a_fix_line_names_the_assignment_the_bound_was_read_from(
    run: Run, tmp_path: Path
) -> None:
    # The loop reads the function's own T (line 14, 2 * 4 = 8), not the module's T = 64.
    _package(tmp_path, SHADOWED)
    result = run("--no-cache", ".")
    assert "T = DECODE_BATCH * DECODE_SEQ (quant.py:14) = 8" in result.out
    assert "quant.py:7" not in result.out


def test_fix_leaves_an_unsafe_fix_and_says_nothing_was_fixed(run: Run, tmp_path: Path) -> None:
    path = _package(tmp_path)
    before = run("--no-cache", "--output-format", "concise", ".")
    result = run("--no-cache", "--fix", "--output-format", "concise", ".")
    assert path.read_text() == QUANT
    assert result.err == (
        "No fixes available (1 hidden fix can be enabled with the `--unsafe-fixes` option).\n"
    )
    assert result.exit_code == before.exit_code == 1


def test_unsafe_fixes_applies_it_and_the_loop_gets_the_promised_code(
    run: Run, tmp_path: Path
) -> None:
    path = _package(tmp_path)
    result = run("--no-cache", "--fix", "--unsafe-fixes", "--output-format", "json", ".")
    assert "pl.pipeline(0, T, TOKEN_TILE, stage=1)" in path.read_text()
    assert result.err == "Fixed 1 issue.\n"
    assert result.json() == []  # SKW010, a hint not listed by default
    assert result.exit_code == 0


def test_a_stage_fix_on_literal_bounds_is_safe(run: Run, tmp_path: Path) -> None:
    path = _package(tmp_path, LITERAL)
    concise = run("--no-cache", "--output-format", "concise", ".")
    assert "q/quant.py:12:9: SKW014 [*] stage=2 but the loop runs once" in concise.out
    assert "[*] 1 fixable with the `--fix` option." in concise.out
    result = run("--no-cache", "--fix", ".")
    assert "pl.pipeline(0, 8, 8, stage=1)" in path.read_text()
    assert result.err == "Fixed 1 issue.\n"


def test_advice_is_labelled_and_fix_says_nothing_was_fixable(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"odd.py": ODD})
    full = run("--no-cache", "odd.py")
    assert (
        "  = advice (a human's change, not applied by `--fix`): a trip of 4 would give depth 2\n"
    ) in full.out
    result = run("--no-cache", "--fix", "odd.py")
    assert (tmp_path / "odd.py").read_text() == ODD
    assert result.err == "No fixes available (1 fix line is advice for a human).\n"
    assert result.exit_code == full.exit_code


def test_json_says_how_each_fix_applies(run: Run, tmp_path: Path) -> None:
    _package(tmp_path)
    write(tmp_path, {"odd.py": ODD})
    items = {
        i["filename"]: i
        for i in run("--no-cache", "--output-format", "json", "--exit-zero", ".").json()
    }
    quant, odd = items["q/quant.py"], items["odd.py"]
    assert quant["fix_applicability"] == "unsafe"
    assert quant["fix_edit"] == {
        "line": 12,
        "column": 55,
        "end_line": 12,
        "end_column": 56,
        "text": "1",
    }
    assert (odd["fix_applicability"], odd["fix_edit"]) == ("advice", None)


def test_sarif_carries_only_the_fixes_that_apply(run: Run, tmp_path: Path) -> None:
    _package(tmp_path)
    write(tmp_path, {"lit/__init__.py": "", "lit/config.py": CONFIG, "lit/quant.py": LITERAL})
    log = run("--no-cache", "--output-format", "sarif", "--exit-zero", ".").json()
    results = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]: r
        for r in log["runs"][0]["results"]
    }
    assert "fixes" not in results["q/quant.py"]
    (fix,) = results["lit/quant.py"]["fixes"]
    (change,) = fix["artifactChanges"]
    assert change["replacements"][0]["insertedContent"] == {"text": "1"}


REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow
@pytest.mark.parametrize(("tree", "least"), [("examples", 0), ("tests/fixtures", 1)])
def test_every_offered_stage_fix_gives_its_promised_verdict(
    run: Run, tmp_path: Path, tree: str, least: int
) -> None:
    """Each loop fix the analysis offers on the sample trees, made in the file and the file
    decided again, gives its loop the code it promised; ``--fix --unsafe-fixes`` writes
    them all (none is dropped by its own check)."""
    root = tmp_path / "tree"
    shutil.copytree(REPO / tree, root)
    offered = 0
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        resolver = RecordingResolver([path.parent])
        for report in analyse(text, str(path), resolver=resolver):
            fix = report.stage_fix
            if fix is None or report.instance is not None or report.assumes:
                continue
            offered += 1
            edited, applied = apply_edits(text, [fix.edit])
            assert applied == 1
            again = loop_at(analyse(edited, str(path), resolver=resolver), report.span.line)
            assert again is not None and again.code == fix.promised, (path, report.line)
    assert offered >= least  # (the examples have none: odd_trip's depth 1 has no stage fix)
    result = run(
        "--no-cache",
        "--fix",
        "--unsafe-fixes",
        "--select",
        "ALL",
        "--exit-zero",
        "--output-format",
        "json",
        ".",
        cwd=root,
    )
    assert [i for i in result.json() if i["fix_edit"] is not None and i["kind"] == "loop"] == []


def test_diff_with_nothing_to_apply_says_why(run: Run, tmp_path: Path) -> None:
    _package(tmp_path)
    result = run("--no-cache", "--fix", "--diff", ".")
    assert (result.exit_code, result.out) == (0, "")
    assert result.err == (
        "No fixes available (1 hidden fix can be enabled with the `--unsafe-fixes` option).\n"
    )
    shown = run("--no-cache", "--diff", "--unsafe-fixes", ".")
    assert "+        for qt in pl.pipeline(0, T, TOKEN_TILE, stage=1):" in shown.out
    assert shown.exit_code == 1
