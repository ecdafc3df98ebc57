"""``# skewlint: ignore[...]`` / ``file-ignore[...]`` comments, and SKW901 for unused ones."""

from __future__ import annotations

import io
import tokenize
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skewlsp.common.suppressions import _comments, parse_suppressions
from tests.cli.conftest import Run
from tests.cli.helpers import write
from tests.kernels import DEMOTED, FOR_LINE, SKEWED, STAGE3

FOR = DEMOTED.splitlines()[FOR_LINE]  # the `for` line, as every named kernel has it


def lint(run: Run, tmp_path: Path, source: str) -> list[tuple[str, int]]:
    write(tmp_path, {"k.py": source})
    return [(i["code"], i["line"]) for i in run("--output-format", "json", "k.py").json()]


def test_parse_codes_and_bare_forms() -> None:
    found = parse_suppressions(
        "x = 1  # skewlint: ignore[SKW020, SKW021]\n"
        "# skewlint: file-ignore\n"
        "s = '# skewlint: ignore'\n"  # inside a string: not a comment
        "y = 2  #skewlint:ignore\n"
    )
    assert [(s.line, s.file_level, s.codes) for s in found] == [
        (1, False, ("SKW020", "SKW021")), (2, True, ()), (4, False, ()),
    ]
    assert found[0].column == 8


def test_parse_survives_broken_code() -> None:
    found = parse_suppressions("def f(:\n    x = '''  # skewlint: ignore[SKW020]\n")
    assert [s.codes for s in found] == [("SKW020",)]


def test_ignore_on_the_for_line(run: Run, tmp_path: Path) -> None:
    source = DEMOTED.replace(FOR, FOR + "  # skewlint: ignore[SKW020]")
    assert lint(run, tmp_path, source) == []


def test_ignore_on_the_line_before(run: Run, tmp_path: Path) -> None:
    source = DEMOTED.replace(FOR, "        # skewlint: ignore[SKW020]\n" + FOR)
    assert lint(run, tmp_path, source) == []


def test_bare_ignore_hides_every_code_of_the_loop(run: Run, tmp_path: Path) -> None:
    stage3_for = FOR.replace("stage=2", "stage=3")
    source = STAGE3.replace(stage3_for, stage3_for + "  # skewlint: ignore")
    assert lint(run, tmp_path, source) == []


def test_ignore_of_another_code_hides_nothing_and_is_reported(run: Run, tmp_path: Path) -> None:
    source = DEMOTED.replace(FOR, FOR + "  # skewlint: ignore[SKW021]")
    assert lint(run, tmp_path, source) == [("SKW020", 8), ("SKW901", 8)]


def test_partly_used_suppression_reports_only_the_unused_codes(
    run: Run, tmp_path: Path
) -> None:
    write(tmp_path, {"k.py": DEMOTED.replace(FOR, FOR + "  # skewlint: ignore[SKW020,SKW021]")})
    [item] = run("--output-format", "json", "k.py").json()
    assert item["code"] == "SKW901" and item["kind"] == "suppression"
    assert "SKW021 not reported here" in item["message"] and "SKW020" not in item["message"]
    assert item["severity"] == "warning" and item["verdict"] is None


def test_unknown_code_in_a_suppression_is_reported(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"k.py": DEMOTED.replace(FOR, FOR + "  # skewlint: ignore[SKW020,SKW999]")})
    [item] = run("--output-format", "json", "k.py").json()
    assert "unknown code SKW999" in item["message"]


def test_a_comment_on_a_code_line_before_the_loop_does_not_apply(
    run: Run, tmp_path: Path
) -> None:
    source = DEMOTED.replace(FOR, "        x = 1  # skewlint: ignore[SKW020]\n" + FOR)
    assert lint(run, tmp_path, source) == [("SKW901", 8), ("SKW020", 9)]


def test_file_ignore_anywhere(run: Run, tmp_path: Path) -> None:
    assert lint(run, tmp_path, DEMOTED + "# skewlint: file-ignore[SKW03]\n") == [
        ("SKW020", 8), ("SKW901", 13)
    ]
    assert lint(run, tmp_path, DEMOTED + "# skewlint: file-ignore[SKW020]\n") == []
    assert lint(run, tmp_path, "# skewlint: file-ignore\n" + DEMOTED) == []


def test_unused_file_ignore_is_reported(run: Run, tmp_path: Path) -> None:
    assert lint(run, tmp_path, "# skewlint: file-ignore[SKW020]\n" + SKEWED) == [
        ("SKW901", 1), ("SKW001", 9)
    ]
    assert lint(run, tmp_path, "# skewlint: file-ignore\nx = 'pipeline'\n") == [("SKW901", 1)]


def test_unused_suppressions_can_be_switched_off(run: Run, tmp_path: Path) -> None:
    source = DEMOTED.replace(FOR, FOR + "  # skewlint: ignore[SKW021]")
    write(tmp_path, {"k.py": source})
    result = run("--ignore", "SKW901", "--output-format", "json", "k.py")
    assert [i["code"] for i in result.json()] == ["SKW020"]
    opted_out = source + "# skewlint: file-ignore[SKW901]\n"
    assert lint(run, tmp_path, opted_out) == [("SKW020", 8)]


def test_suppressing_a_code_disabled_by_config_is_not_unused(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"skewlint.toml": 'ignore = ["SKW020"]\n'})
    assert lint(run, tmp_path, DEMOTED.replace(FOR, FOR + "  # skewlint: ignore[SKW020]")) == []


# -- finding the comments: the same ones Python's tokenizer finds -----------------------------

PIECES = [
    "x = 1",
    "# skewlint: ignore",
    "y = 2  # skewlint: ignore[SKW002]",
    "s = '# skewlint: ignore'",
    's = "it\'s # skewlint: ignore"',
    "s = 'esc\\' # skewlint: ignore'",
    'b = rb"\\" # skewlint: not a comment"',
    'f = f"{x!r} # skewlint: ignore" # skewlint: file-ignore',
    "t = '''\n# skewlint: ignore\n''' # skewlint: ignore[SKW010]",
    't = """a\n  \'\'\' # skewlint: ignore\n"""',
    "u = 'continued \\\n# skewlint: ignore'",
    "v = [1,  # skewlint: ignore\n     2]",
    "w = 1 \\\n    + 2  # skewlint: ignore",
    "\tz = 3\t# skewlint:ignore",
    "é = 'ü'  # skewlint: ignore  ünïcode",
]


def tokenizer_comments(source: str) -> list[tuple[int, int, str, bool]]:
    """The reference: Python's own tokenizer."""
    lines = source.splitlines()
    found = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT and "skewlint" in token.string:
            row, col = token.start
            found.append((row, col, token.string, not lines[row - 1][:col].strip()))
    return found


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=12), st.sampled_from(["\n", "\r\n"]))
def test_comments_are_the_ones_the_tokenizer_finds(pieces: list[str], newline: str) -> None:
    source = ("\n".join(pieces) + "\n").replace("\n", newline)
    assert list(_comments(source)) == tokenizer_comments(source)


@pytest.mark.parametrize(
    "path", sorted(Path(__file__).resolve().parents[2].glob("examples/*.py")), ids=lambda p: p.name
)
def test_comments_of_the_sample_kernels_with_suppressions_added(path: Path) -> None:
    source = path.read_text(encoding="utf-8").replace(":\n", ":  # skewlint: ignore\n")
    assert list(_comments(source)) == tokenizer_comments(source)
    assert tokenizer_comments(source)


def test_a_suppression_in_a_large_file_is_found_on_its_line() -> None:
    source = "x = 1  # skewlint: ignore\n" + "y = 'z'  # not one\n" * 30_000
    assert [s.line for s in parse_suppressions(source)] == [1]


def test_a_prefix_suppresses_every_code_it_starts(run: Run, tmp_path: Path) -> None:
    """As ``select``/``ignore`` in the config accept prefixes, so do the comments."""
    assert lint(run, tmp_path, DEMOTED + "# skewlint: file-ignore[SKW02]\n") == []
    line = DEMOTED.replace(FOR, FOR + "  # skewlint: ignore[SKW0]")
    assert lint(run, tmp_path, line) == []


def test_an_unused_prefix_is_stale_and_an_unmatched_one_unknown(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"k.py": DEMOTED.replace(FOR, FOR + "  # skewlint: ignore[SKW02, SKW03, SKW7]")})
    found = run("--output-format", "json", "k.py").json()
    assert [(d["code"], d["message"]) for d in found] == [
        ("SKW901", "unused suppression in `# skewlint: ignore[...]`: SKW03 not reported here; "
                   "unknown code SKW7"),
    ]
