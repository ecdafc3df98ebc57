"""The never-silent guarantee: every ``for ... in pl.pipeline(`` gets a report.

Loop discovery walks the places the DSL compiles kernels from; if a loop sits
somewhere that walk does not reach, the user must still hear about it. This
check finds such loops with the stdlib parser (only when the text holds a
``pipeline(`` for-line that no report covers, so it costs nothing otherwise)
and reports each as unknown, saying why.
"""

from __future__ import annotations

import ast
import re
import warnings
from collections.abc import Collection

from skewlsp.contract import SYNTAX_ERROR, UNKNOWN, LoopReport, Span

_PIPELINE_FOR = re.compile(r"[ \t]*(?:async[ \t]+)?for\b[^\n]*\bpipeline[ \t]*\(")
UNREACHED = (
    "skewlsp found this pl.pipeline loop but did not analyse it: it is defined where "
    "skewlsp does not follow the DSL parser (please report this layout)"
)


def unanalysed(
    path: str | None, span: Span, reason: str, *, call_span: Span | None = None, function: str = ""
) -> LoopReport:
    """A SKW050 report at ``span`` (of a unit whose analysis failed, or of a loop being
    decided) saying ``reason``: the one the user hears instead of silence."""
    return LoopReport(
        path, span, call_span or span, "unknown", UNKNOWN, reason, function=function
    )


def syntax_error(path: str | None, line: int, column: int, message: str) -> LoopReport:
    """One SKW900 report at the position the stdlib parser gives (``message``: its words;
    the position is the span's, shown apart)."""
    span = Span(line, column, line, column + 1)
    return LoopReport(path, span, span, "error", SYNTAX_ERROR, f"syntax error: {message}")


def unreported_loops(
    source: str, path: str | None, reported_lines: Collection[int], aliases: Collection[str]
) -> list[LoopReport]:
    """SKW050 reports for pipeline loops (spelled with one of ``aliases``) that have none."""
    if not _has_unreported_for_line(source, reported_lines):
        return []
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    lines = source.splitlines()

    def column(line: int, byte_offset: int | None) -> int:
        """ast columns count UTF-8 bytes; spans count code points (1-based)."""
        text = lines[line - 1] if 0 < line <= len(lines) else ""
        return len(text.encode()[: byte_offset or 0].decode(errors="ignore")) + 1

    found = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.For)
            and node.lineno not in reported_lines
            and _is_pipeline_call(node.iter, aliases)
        ):
            end_line = node.end_lineno or node.lineno
            span = Span(
                node.lineno,
                column(node.lineno, node.col_offset),
                end_line,
                column(end_line, node.end_col_offset),
            )
            call = node.iter
            call_end = call.end_lineno or call.lineno
            call_span = Span(
                call.lineno,
                column(call.lineno, call.col_offset),
                call_end,
                column(call_end, call.end_col_offset),
            )
            found.append(LoopReport(path, span, call_span, "unknown", "SKW050", UNREACHED))
    return found


def _has_unreported_for_line(source: str, reported_lines: Collection[int]) -> bool:
    """Whether some ``for ... pipeline(`` line has no report (scans only around the word)."""
    position, line, counted = 0, 1, 0
    while True:
        found = source.find("pipeline", position)
        if found < 0:
            return False
        start = source.rfind("\n", 0, found) + 1
        end = source.find("\n", found)
        line += source.count("\n", counted, start)
        counted = start
        if _PIPELINE_FOR.match(source, start, len(source) if end < 0 else end) and (
            line not in reported_lines
        ):
            return True
        position = len(source) if end < 0 else end


def _is_pipeline_call(node: ast.expr, aliases: Collection[str]) -> bool:
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    return (
        isinstance(func, ast.Attribute)
        and func.attr == "pipeline"
        and isinstance(func.value, ast.Name)
        and func.value.id in aliases
    )
