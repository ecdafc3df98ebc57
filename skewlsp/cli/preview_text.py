"""A preview as the CLI prints it (``skewlint preview``, ``--preview``): the rewrite
under the header every preview starts with (:func:`skewlsp.common.headline.preview_header`),
indented like the loop, so it reads as the code it replaces."""

from __future__ import annotations

from skewlsp.common.headline import preview_header
from skewlsp.contract import LoopReport


def with_header(report: LoopReport, rewritten: str) -> str:
    """``rewritten`` under the verdict, code, why and what changes, as comments."""
    first = next((line for line in rewritten.splitlines() if line.strip()), "")
    indent = first[: len(first) - len(first.lstrip())]
    header = "".join(f"{indent}{line}\n" for line in preview_header(report))
    return header + rewritten
