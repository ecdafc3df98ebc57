"""Deep nesting and 5 MB files: no crash, no runaway, at most a few seconds of CPU per MB.

Each case runs ``analyze`` (and ``preview_loop``) in a child process with a CPU
limit (``RLIMIT_CPU``), so a native stack overflow or a runaway loop fails this
one test instead of the run. The limit is generous on purpose: the goal is one
second per MB, the assertion is five (plus one for starting the interpreter).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fuzz.harness import EXAMPLES, LONG_RUN, Isolated, analyze_isolated

pytestmark = pytest.mark.slow  # fuzzing: the slow tier (pytest -m slow)

KERNEL = EXAMPLES["odd_trip.py"]
LAST_BODY_LINE = "            pl.tile.store(oi, [i * 16, 0], out)\n"
MB = 1_000_000
SECONDS_PER_MB = 5

# What examples/odd_trip.py's loop gets (its docstring: trip 3, depth 2 infeasible -> 1).
ODD_TRIP_LOOP = {"line": 13, "verdict": "skewed", "code": "SKW002", "depth": 1, "trip": 3}


def in_loop_body(statement: str) -> str:
    """The skewed example kernel with one more statement in its loop body."""
    return KERNEL.replace(LAST_BODY_LINE, LAST_BODY_LINE + "            " + statement + "\n")


def assert_analysed(
    source: str, tmp_path: Path, *, preview: bool = True, cpu_seconds: float | None = None
) -> Isolated:
    """Analyse (and preview) ``source`` in a CPU-capped child; returns what it reported."""
    megabytes = max(len(source.encode("utf-8", "surrogatepass")) / MB, 0.2)
    limit = cpu_seconds if cpu_seconds is not None else 1 + SECONDS_PER_MB * megabytes
    return analyze_isolated(source, tmp_path, cpu_seconds=limit, preview=preview)


def without_preview(report: dict) -> dict:
    return {key: value for key, value in report.items() if key != "preview"}


def assert_odd_trip_previewed(result: Isolated, *, min_lines: int) -> None:
    """The example's loop, and nothing else, reported as the example says, with a preview
    of at least ``min_lines`` lines that parses."""
    [report] = result.reports
    assert without_preview(report) == ODD_TRIP_LOOP
    assert report["preview"]["syntax_error"] is None, report["preview"]
    assert report["preview"]["lines"] >= min_lines, report["preview"]


# -- deep nesting (10,000 levels) -----------------------------------------------------------

NESTED_OUTSIDE_ANY_LOOP = {
    "parentheses at module level": "X = " + "(" * 10_000 + "1" + ")" * 10_000,
    "unclosed parentheses at module level": "X = " + "(" * 10_000,
    "nested ifs (indentation) at module level": "".join(
        " " * k + "if X:\n" for k in range(10_000)
    ) + " " * 10_000 + "pass",
}


# CPython refuses both (more than 200 nested parentheses; an unclosed one): so does the
# analysis, with SKW900 on the line of the assignment (the kernel above it ends at line 19).
@pytest.mark.parametrize(
    "name", ["parentheses at module level", "unclosed parentheses at module level"]
)
def test_deep_nesting_outside_a_kernel_function_is_a_syntax_error_not_a_crash(
    name: str, tmp_path: Path
) -> None:
    result = assert_analysed(KERNEL + "\n" + NESTED_OUTSIDE_ANY_LOOP[name] + "\n", tmp_path)
    [report] = result.reports
    assert (report["line"], report["verdict"], report["code"]) == (21, "error", "SKW900")
    assert report["preview"] == {"refused": "no pl.pipeline loop spans this line"}


def test_ten_thousand_nested_ifs_at_module_level_are_a_syntax_error(tmp_path: Path) -> None:
    """CPython refuses more than 100 indentation levels anywhere in the file: SKW900, next to
    the verdicts of the loops that parsed (as for a syntax error in another function)."""
    source = KERNEL + "\n" + NESTED_OUTSIDE_ANY_LOOP["nested ifs (indentation) at module level"]
    result = assert_analysed(source + "\n", tmp_path)
    assert [(r["verdict"], r["code"]) for r in result.reports][-1] == ("error", "SKW900")
    assert [r["code"] for r in result.reports][:-1] == ["SKW002"]


def test_a_hundred_nested_ifs_in_a_loop_body_are_analysed(tmp_path: Path) -> None:
    ifs = "".join(" " * (12 + 4 * k) + "if i:\n" for k in range(95)) + " " * 392 + "pass\n"
    result = assert_analysed(KERNEL.replace(LAST_BODY_LINE, LAST_BODY_LINE + ifs), tmp_path)
    # the ifs sit in the consumer half: once in the steady loop, once in the epilogue
    assert_odd_trip_previewed(result, min_lines=2 * 96)


NESTED_IN_A_LOOP_BODY = {
    "parentheses": "x = " + "(" * 10_000 + "1" + ")" * 10_000,
    "a chain of additions": "x = " + "+".join(["i"] * 10_000),
    "a power tower in stage=": None,  # built below: it is in the header, not the body
}
if LONG_RUN:
    NESTED_IN_A_LOOP_BODY |= {
        "brackets": "x = " + "[" * 10_000 + "]" * 10_000,
        "unary minus": "x = " + "-" * 10_000 + "1",
        "attribute access": "x = q" + ".a" * 10_000,
        "calls": "x = f" + "()" * 10_000,
    }

STAGE_POWER_TOWER = KERNEL.replace("stage=2", "stage=" + "**".join(["2"] * 5_000))


# What each is reported as. CPython refuses 10,000 nested brackets, a 10,000-deep unary
# minus and a 5,000-deep power tower as syntax errors (SKW900 alone: nothing parses). A
# 10,000-term sum, attribute chain or call chain gets through the tokenizer but CPython's
# compiler gives up on it ("maximum recursion depth exceeded during compilation"), so the
# file cannot be imported: SKW900 for the file, and the loop keeps the analysis's own
# conditional verdict (its depth guard gives up too); no preview while the file does not parse.
NO_LOOP = "no pl.pipeline loop spans this line"
# The loop's own verdict says the analysis gave up; its preview is refused for the file.
TOO_DEEP = (
    "the file does not parse (syntax error: cannot parse: too deeply nested, line 1); "
    "fix it to preview its loops"
)
NESTED_IN_A_LOOP_BODY_EXPECTED = {  # (verdict, code, the preview's refusal) per report
    "parentheses": [("error", "SKW900", NO_LOOP)],
    "a chain of additions": [("error", "SKW900", NO_LOOP), ("unknown", "SKW050", TOO_DEEP)],
    "a power tower in stage=": [("error", "SKW900", NO_LOOP)],
    "brackets": [("error", "SKW900", NO_LOOP)],
    "unary minus": [("error", "SKW900", NO_LOOP)],
    "attribute access": [("error", "SKW900", NO_LOOP), ("unknown", "SKW050", TOO_DEEP)],
    "calls": [("error", "SKW900", NO_LOOP), ("unknown", "SKW050", TOO_DEEP)],
}


@pytest.mark.parametrize("name", sorted(NESTED_IN_A_LOOP_BODY))
def test_deep_nesting_inside_a_kernel_function_is_reported_not_fatal(
    name: str, tmp_path: Path
) -> None:
    statement = NESTED_IN_A_LOOP_BODY[name]
    source = STAGE_POWER_TOWER if statement is None else in_loop_body(statement)
    result = assert_analysed(source, tmp_path)
    found = [
        (r["verdict"], r["code"], r["preview"] and r["preview"].get("refused"))
        for r in result.reports
    ]
    assert found == NESTED_IN_A_LOOP_BODY_EXPECTED[name]


# -- 5 MB files -------------------------------------------------------------------------------

FILLER_FUNCTION = "def helper_{n}(a):\n    return [a + 1 for b in range(3)]\n"

FIVE_MB_FILES = {
    "comments": KERNEL + ("# " + "x" * 78 + "\n") * (5 * MB // 81),
    "a string literal": KERNEL + "S = '''" + "y" * 5 * MB + "'''\n",
    "one long line": KERNEL + "X = [" + "1, " * (5 * MB // 3) + "]\n",
    "functions without loops": KERNEL
    + "".join(FILLER_FUNCTION.format(n=n) for n in range(5 * MB // 50)),
    "binary-looking text": KERNEL + "# " + "".join(chr(c) for c in range(0x80, 0x2080)) * 650,
}


@pytest.mark.parametrize("name", sorted(FIVE_MB_FILES))
def test_a_5_mb_file_is_analysed_within_five_cpu_seconds_per_mb(name: str, tmp_path: Path) -> None:
    source = FIVE_MB_FILES[name]
    assert len(source) > 4 * MB
    result = assert_analysed(source, tmp_path, preview=False)
    assert result.reports == [{**ODD_TRIP_LOOP, "preview": None}]  # the kernel at the top


# Loop-dense inputs and previews in huge files are slower than SECONDS_PER_MB (libcst per
# loop function, a whole-file re-parse for a preview): these only guard against hangs; their
# speed is measured in benchmarks/, not asserted in a timed unit test.
NO_HANG_CPU_SECONDS = 120


def test_a_preview_in_a_big_file_completes(tmp_path: Path) -> None:
    source = KERNEL + "".join(FILLER_FUNCTION.format(n=n) for n in range(MB // 3 // 50))
    result = assert_analysed(source, tmp_path, preview=True, cpu_seconds=NO_HANG_CPU_SECONDS)
    assert_odd_trip_previewed(result, min_lines=16)


def _many_kernels(size: int) -> str:
    body = KERNEL.split("@pl.program", 1)[1]
    copies = [("@pl.program" + body).replace("class OddTrip", f"class K{n}") for n in range(size // len(body))]
    return KERNEL + "".join(copies)


@pytest.mark.parametrize("shape", ["many small kernels", "one huge loop body"])
def test_a_sixth_of_a_megabyte_of_pipeline_loops_is_analysed(shape: str, tmp_path: Path) -> None:
    if shape == "many small kernels":
        source = _many_kernels(MB // 6)
    else:
        source = KERNEL.replace(LAST_BODY_LINE, LAST_BODY_LINE * (MB // 6 // len(LAST_BODY_LINE)))
    result = assert_analysed(source, tmp_path, preview=False, cpu_seconds=NO_HANG_CPU_SECONDS)
    loops = source.count("pl.pipeline(")
    assert loops == 1 if shape == "one huge loop body" else loops > 100  # the input's shape
    # every copy is the example's loop, 11 lines further down than the one before
    expected = [
        {**ODD_TRIP_LOOP, "line": ODD_TRIP_LOOP["line"] + 11 * n, "preview": None}
        for n in range(loops)
    ]
    assert result.reports == expected
