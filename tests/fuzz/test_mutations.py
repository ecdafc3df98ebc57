"""Broken versions of the example kernels: the analysis never raises, previews stay honest.

Every example is truncated at every line; the rest of the mutants are drawn
with a seeded generator (``FUZZ_SEED``), ``FUZZ_EXAMPLES`` of them per kernel
and kind (a handful in CI).
"""

from __future__ import annotations

import io
import random
import tokenize
from collections.abc import Callable

import pytest

from tests.fuzz.harness import EXAMPLES, check_analysis, rng, sample_count

pytestmark = pytest.mark.slow  # fuzzing: the slow tier (pytest -m slow)

Mutator = Callable[[str, random.Random], str]


def _tokens(source: str) -> list[tokenize.TokenInfo]:
    """The tokens up to the first one the tokenizer refuses (a mutant may be untokenizable)."""
    found: list[tokenize.TokenInfo] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type not in (tokenize.ENDMARKER, tokenize.DEDENT) and tok.end > tok.start:
                found.append(tok)
    except (tokenize.TokenError, SyntaxError):
        pass
    return found or [tokenize.TokenInfo(tokenize.OP, source[:1], (1, 0), (1, len(source[:1])), "")]


def _offsets(source: str) -> list[int]:
    starts = [0]
    for line in source.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    return starts


def _span(source: str, tok: tokenize.TokenInfo) -> tuple[int, int]:
    starts = _offsets(source)
    return starts[tok.start[0] - 1] + tok.start[1], starts[tok.end[0] - 1] + tok.end[1]


def delete_token(source: str, r: random.Random) -> str:
    start, end = _span(source, r.choice(_tokens(source)))
    return source[:start] + source[end:]


def duplicate_token(source: str, r: random.Random) -> str:
    start, end = _span(source, r.choice(_tokens(source)))
    return source[:end] + " " + source[start:end] + source[end:]


def swap_tokens(source: str, r: random.Random) -> str:
    toks = _tokens(source)
    if len(toks) < 2:
        return source[::-1]
    i = r.randrange(len(toks) - 1)
    (a, b), (c, d) = _span(source, toks[i]), _span(source, toks[i + 1])
    return source[:a] + source[c:d] + source[b:c] + source[a:b] + source[d:]


def replace_token(source: str, r: random.Random) -> str:
    start, end = _span(source, r.choice(_tokens(source)))
    other = r.choice(["0", "-1", "10**18", "None", "pl", "pipeline", "stage=", ":", ",", "(", ")", "if", "for", "\n", "\t", "'", '"""', "#", "\\"])
    return source[:start] + other + source[end:]


def unbalance_brackets(source: str, r: random.Random) -> str:
    at = r.randrange(len(source) + 1)
    return source[:at] + r.choice("()[]{}") * r.randint(1, 3) + source[at:]


def mix_tabs(source: str, r: random.Random) -> str:
    lines = source.splitlines(keepends=True)
    for i in r.sample(range(len(lines)), k=len(lines) // 4):
        lines[i] = lines[i].replace("    ", "\t", r.randint(1, 3))
    return "".join(lines)


def odd_characters(source: str, r: random.Random) -> str:
    at = r.randrange(len(source) + 1)
    junk = r.choice(["\x00", "\udcff", "\ud800", "\ufeff", "\x0c", "\x0b", "\r", "\u2028", "\x85", "é", "𝔭𝔩", "\u200b", "\x1a"])
    return source[:at] + junk + source[at:]


def cut_anywhere(source: str, r: random.Random) -> str:
    return source[: r.randrange(len(source) + 1)]


MUTATORS: dict[str, Mutator] = {
    "delete-token": delete_token,
    "duplicate-token": duplicate_token,
    "swap-tokens": swap_tokens,
    "replace-token": replace_token,
    "unbalance-brackets": unbalance_brackets,
    "mix-tabs": mix_tabs,
    "odd-characters": odd_characters,
    "cut-anywhere": cut_anywhere,
}


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_an_example_truncated_at_every_line_is_analysed_without_an_exception(name: str) -> None:
    lines = EXAMPLES[name].splitlines(keepends=True)
    for cut in range(len(lines) + 1):
        check_analysis("".join(lines[:cut]))


@pytest.mark.parametrize("kind", sorted(MUTATORS))
@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_a_mutated_example_is_analysed_and_previewed_safely(name: str, kind: str) -> None:
    r = rng(f"{name}:{kind}")
    for _ in range(sample_count(ci_default=4)):
        source = MUTATORS[kind](EXAMPLES[name], r)
        # Up to three mutations stacked: the result is usually far from valid Python.
        for _ in range(r.randint(0, 2)):
            source = MUTATORS[r.choice(sorted(MUTATORS))](source, r)
        check_analysis(source)


ENCODINGS: dict[str, Callable[[str], str]] = {
    "bom": lambda s: "\ufeff" + s,
    "double-bom": lambda s: "\ufeff\ufeff" + s,
    "crlf": lambda s: s.replace("\n", "\r\n"),
    "cr-only": lambda s: s.replace("\n", "\r"),
    "mixed-newlines": lambda s: "".join(
        line + ("\r\n" if i % 2 else "\n") for i, line in enumerate(s.split("\n"))
    ),
    "no-final-newline": lambda s: s.rstrip("\n"),
    "tabs-for-indent": lambda s: s.replace("    ", "\t"),
    "surrogate-escaped-bytes": lambda s: s.replace("pl.tile.store", "pl.tile.st\udcffore"),
    "nul-in-body": lambda s: s.replace("pl.tile.store(", "pl.tile.store(\x00"),
    "latin1-coding-cookie": lambda s: "# -*- coding: latin-1 -*-\n" + s,
    "form-feeds": lambda s: s.replace("\n\n", "\n\x0c\n"),
}


@pytest.mark.parametrize("kind", sorted(ENCODINGS))
@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_an_example_with_odd_encoding_or_newlines_is_analysed_safely(name: str, kind: str) -> None:
    check_analysis(ENCODINGS[kind](EXAMPLES[name]))


def test_a_bom_or_crlf_does_not_change_the_verdicts() -> None:
    for source in EXAMPLES.values():
        plain = [(r.code, r.depth, r.span.line) for r in check_analysis(source, preview=False)]
        for kind in ("bom", "crlf"):
            odd = [
                (r.code, r.depth, r.span.line)
                for r in check_analysis(ENCODINGS[kind](source), preview=False)
            ]
            assert odd == plain, kind


def test_a_lone_surrogate_in_a_comment_is_not_an_exception() -> None:
    check_analysis(EXAMPLES["odd_trip.py"].replace("import pypto", "# \ud800\nimport pypto"))


# Characters str.splitlines() treats as line breaks but Python's tokenizer does not.
SPLITLINES_ONLY_BREAKS = ["\x0c", "\x0b", "\x1c", "\x85", "\u2028"]


@pytest.mark.parametrize("char", SPLITLINES_ONLY_BREAKS, ids=repr)
def test_a_page_break_in_the_docstring_does_not_hide_the_loops(char: str) -> None:
    source = EXAMPLES["odd_trip.py"].replace("A producer", f"A {char}producer")
    assert [(r.code, r.span.line) for r in check_analysis(source)] == [("SKW002", 13)]


def test_a_form_feed_in_the_signature_does_not_shift_the_preview() -> None:
    source = EXAMPLES["flash_attention_cube.py"].replace("k: pl.Tensor", "k: pl.\x0cTensor")
    check_analysis(source)
