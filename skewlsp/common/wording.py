"""Words the CLI and the server print the same way: counts (``1 iteration``, ``2
iterations``) and the build a verdict holds for."""

from __future__ import annotations

from skewlsp.contract import LoopReport


def plural(count: int, word: str, many: str | None = None) -> str:
    """``1 iteration``, ``2 iterations``, ``1 push``, ``3 pushes``: never ``iteration(s)``."""
    if count == 1:
        return f"{count} {word}"
    if many is None:
        many = word + ("es" if word.endswith(("s", "sh", "ch", "x")) else "s")
    return f"{count} {many}"


def assumed_lines(report: LoopReport) -> list[str]:
    """What a verdict one build decides says about the build: the value it assumed
    (``assuming `DEEPSEEK_V4_VARIANT` unset: `pro```) and the loop under each other value
    that changes it (``with DEEPSEEK_V4_VARIANT=flash: SKW002 ...``). Empty for a verdict
    no assumed value decides."""
    if not report.assumes:
        return []
    lines = ["; ".join(a.text for a in report.assumes)]
    lines += [f"with {v.label}: {v.code} {v.message}" for v in report.variants]
    return lines
