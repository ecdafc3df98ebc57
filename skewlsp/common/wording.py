"""Counts in words, for what the CLI and the server print: ``1 iteration``, ``2 iterations``."""

from __future__ import annotations


def plural(count: int, word: str, many: str | None = None) -> str:
    """``1 iteration``, ``2 iterations``, ``1 push``, ``3 pushes``: never ``iteration(s)``."""
    return f"{count} {noun(count, word, many)}"


def noun(count: int, word: str, many: str | None = None) -> str:
    """``word`` as it reads after ``count``: ``copy`` for 1, ``copies`` for 0 or 2."""
    if count == 1:
        return word
    if many is not None:
        return many
    return word + ("es" if word.endswith(("s", "sh", "ch", "x")) else "s")
