"""Re-indexing after an edit gives exactly what a full build gives, whatever the edit."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skewlsp.analysis import UnitCache, analyze
from skewlsp.analysis.frontend.source_index import build_index
from skewlsp.analysis.reuse.incremental import (
    IndexedText,
    _common_prefix,
    _common_suffix,
    update_index,
)
from tests.kernels import SKEWED

EXAMPLES = sorted((Path(__file__).resolve().parents[3] / "examples").glob("*.py"))
TEXT = "\n\n".join(path.read_text() for path in EXAMPLES[:3])
EDIT_CHARS = st.sampled_from(list("x1 #=+(,):\"'\n\tpipeline"))


def units_of(source: str) -> list[tuple[str, int, str]]:
    return [(u.text, u.line_offset, u.qualname) for u in build_index(source).units]


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.integers(0, len(TEXT)), st.integers(0, 3), st.text(EDIT_CHARS, max_size=3))
def test_patched_index_equals_a_full_build(position: int, deleted: int, inserted: str) -> None:
    edited = TEXT[:position] + inserted + TEXT[position + deleted :]
    previous = IndexedText(TEXT, build_index(TEXT))
    patched = update_index(previous, edited).index
    assert [(u.text, u.line_offset, u.qualname) for u in patched.units] == units_of(edited)
    assert dict(patched.constant_sources) == dict(build_index(edited).constant_sources)


def test_typing_a_comment_in_a_loop_reuses_the_index_and_gives_the_full_answer() -> None:
    cache = UnitCache()
    analyze(TEXT, "k.py", cache=cache)
    line = next(i for i, text in enumerate(TEXT.split("\n")) if "tpush_to_aiv" in text)
    lines = TEXT.split("\n")
    lines[line] += "  # tuned"
    edited = "\n".join(lines)
    assert analyze(edited, "k.py", cache=cache) == analyze(edited, "k.py")


# -- where two versions differ ------------------------------------------------------------------


def naive_prefix(a: str, b: str) -> int:
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    return i


def naive_suffix(a: str, b: str, limit: int) -> int:
    i = 0
    while i < limit and a[len(a) - i - 1] == b[len(b) - i - 1]:
        i += 1
    return i


@settings(max_examples=300, deadline=None)
@given(
    st.text("ab\n", max_size=40),
    st.integers(0, 20_000),
    st.text("abc\n", max_size=3),
    st.integers(0, 20_000),
    st.integers(0, 3),
)
def test_common_prefix_and_suffix_match_a_character_by_character_scan(
    head: str, filler: int, typed: str, tail: int, cut: int
) -> None:
    """Versions the size of real documents, differing by one small edit anywhere."""
    old = head + "x" * filler + "y" * tail
    position = min(len(old), len(head) + filler)
    new = old[:position] + typed + old[position + min(cut, len(old) - position):]
    prefix = _common_prefix(old, new)
    assert prefix == naive_prefix(old, new)
    limit = min(len(old), len(new)) - prefix
    assert _common_suffix(old, new, limit) == naive_suffix(old, new, limit)
    assert _common_suffix(old, new, limit // 2) == naive_suffix(old, new, limit // 2)


def test_a_syntax_error_typed_outside_any_loop_function_comes_and_goes_with_the_cache() -> None:
    source = SKEWED + "\n\ndef helper():\n    return 1\n"
    cache = UnitCache()
    assert [r.code for r in analyze(source, "k.py", cache=cache)] == ["SKW001"]
    broken = source.replace("return 1", "return 1 +")
    assert [r.code for r in analyze(broken, "k.py", cache=cache)] == ["SKW001", "SKW900"]
    assert [r.code for r in analyze(source, "k.py", cache=cache)] == ["SKW001"]


INDIRECT = """\
import pypto.language as pl

def inner():
    return 8

def outer():
    return inner()

N = outer()

@pl.program
class P:
    @pl.function
    def k(self, a: pl.Tensor[[64, 64], pl.FP32], o: pl.Tensor[[64, 64], pl.FP32]):
        for i in pl.pipeline(N, stage=2):
            t = pl.load(a, [i, 0], [16, 16])
            pl.store(t, [i, 0], o)
"""


def test_editing_a_function_a_constant_reaches_through_another_updates_the_trip() -> None:
    cache = UnitCache()
    assert [r.trip for r in analyze(INDIRECT, "/x/k.py", cache=cache)] == [8]
    edited = INDIRECT.replace("return 8", "return 1")
    assert [r.trip for r in analyze(edited, "/x/k.py", cache=cache)] == [1]


# -- a language server's edits, one after another, through the cache --------------------------

INLINE = Path(__file__).resolve().parents[2] / "fixtures" / "mixed" / "models" / "built_llm"
# A helper and its callers (copies per call), with comments typed at line ends.
SESSION_TEXT = (INLINE / "inline_attention.py").read_text()
SESSION_CHARS = st.sampled_from(list("x1 #=(,)") + ["  # tuned", "\n", "pipeline", "2", "3"])


def _resolver(module: str, level: int, importing: str | None) -> str | None:
    from skewlsp.common.resolver import resolve_module

    return resolve_module(module, level, importing, [INLINE.parent])


def _session(edits: list[tuple[int, int, str]]) -> None:
    cache = UnitCache()
    text = SESSION_TEXT
    path = str(INLINE / "inline_attention.py")
    analyze(text, path, resolver=_resolver, cache=cache)
    for position, deleted, inserted in edits:
        at = position % (len(text) + 1)
        text = text[:at] + inserted + text[at + deleted :]
        cached = analyze(text, path, resolver=_resolver, cache=cache)
        assert cached == analyze(text, path, resolver=_resolver)


EDITS = st.lists(
    st.tuples(st.integers(0, len(SESSION_TEXT)), st.integers(0, 2), SESSION_CHARS),
    min_size=1,
    max_size=4,
)


@settings(max_examples=25, deadline=None, derandomize=True)
@given(EDITS)
def test_a_sequence_of_edits_through_the_cache_gives_what_a_fresh_analysis_gives(edits) -> None:
    _session(edits)


def test_typing_a_comment_in_a_caller_is_answered_from_the_cache() -> None:
    # `prefill` calls the helper twice: typing a comment at the end of its first call
    # changes no verdict, and nothing is analysed again (every unit is a hit).
    cache = UnitCache()
    path = str(INLINE / "inline_attention.py")
    analyze(SESSION_TEXT, path, resolver=_resolver, cache=cache)
    hits = cache.hits
    call = "        o = attend_blocks(q, k, o, PREFILL_BLOCKS)\n"
    text = SESSION_TEXT
    for typed in ("  #", "  # t", "  # tu"):
        text = SESSION_TEXT.replace(call, call[:-1] + typed + "\n")
        assert analyze(text, path, resolver=_resolver, cache=cache) == analyze(
            text, path, resolver=_resolver
        )
    assert cache.misses == len(build_index(SESSION_TEXT).units)  # the first analysis only
    assert cache.hits - hits == 3 * len(build_index(SESSION_TEXT).units)


@pytest.mark.slow
@settings(max_examples=300, deadline=None, derandomize=True)
@given(EDITS)
def test_many_sequences_of_edits_through_the_cache_give_what_a_fresh_analysis_gives(
    edits,
) -> None:
    _session(edits)


def test_a_loop_header_typed_into_something_else_is_indexed_again() -> None:
    # "for" -> "fxor": the line still mentions pipeline once, but it is no loop any more
    # (and the file no longer parses): the cache answers what a fresh analysis answers.
    at = SESSION_TEXT.index("    for hb in pl.pipeline(") + len("    f")
    _session([(at, 0, "x")])


@pytest.mark.parametrize(
    ("before", "deleted", "inserted"),
    [
        ('"""', 0, " "),  # an indented first line: before any block the layout reads
        ("@pl.jit\ndef decode(", 2, "x"),  # "@pl.jixdef decode(": a decorator with no def
    ],
)
def test_a_syntax_error_the_block_layout_does_not_see_is_found(
    before: str, deleted: int, inserted: str
) -> None:
    at = SESSION_TEXT.index(before) + (len("@pl.ji") if before.startswith("@") else 0)
    _session([(at, deleted, inserted)])


@pytest.mark.parametrize(
    "header",
    [
        "for i in pl.pipeline(0, q.shape[0 +  # rows\n            0], 1, stage=2):",
        "t = max(4,  # rows\n            1)\n        for i in pl.pipeline(0, t, 1, stage=2):",
    ],
)
def test_a_comment_inside_a_multi_line_expression_is_not_part_of_any_message(header: str) -> None:
    # Messages quote code, never comments: editing the comment changes nothing, and the
    # cache's answer (the text before the edit) is what a fresh analysis says.
    source = SKEWED.replace("for i in pl.pipeline(0, 8, 1, stage=2):", header)
    assert source != SKEWED
    edited = source.replace("# rows", "# cols")
    cache = UnitCache()
    first = analyze(source, "k.py", cache=cache)
    assert not any("#" in report.message for report in first)
    assert analyze(edited, "k.py", cache=cache) == analyze(edited, "k.py") == first
