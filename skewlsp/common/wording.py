"""Counts in words, for what the CLI and the server print: ``1 iteration``, ``2 iterations``."""

from __future__ import annotations


def plural(count: int, word: str, many: str | None = None) -> str:
    """``1 iteration``, ``2 iterations``, ``1 push``, ``3 pushes``: never ``iteration(s)``."""
    if count == 1:
        return f"{count} {word}"
    if many is None:
        many = word + ("es" if word.endswith(("s", "sh", "ch", "x")) else "s")
    return f"{count} {many}"
