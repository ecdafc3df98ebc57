"""The text of a read-only preview document: a loop as the compiler rewrites it.

Pure: a :class:`skewlsp.api.LoopPreview` in, file name and text out. The server
writes the text to a file it owns (:mod:`.preview_files`) and asks the client to
show it, so any LSP client can look at a rewrite without its buffer being edited.

A loop split across cores by the mixed-kernel model becomes one function per
core; the rewrite is the skewed core's, so the other cores' copies (their
statements, with the messages the compiler adds) follow it: nothing the user
wrote is missing from the preview.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import PurePath

from skewlsp.api import LoopPreview
from skewlsp.common.headline import preview_header
from skewlsp.contract import CORE_TITLES, LoopReport

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def file_name(path: str | None, uri: str, line: int) -> str:
    """``<file stem>-L<line>.py``: named after the loop, safe on every file system."""
    last = re.split(r"[/:]", uri)[-1] or "untitled"
    stem = PurePath(path).stem if path else PurePath(last).stem
    stem = _UNSAFE.sub("_", stem).strip("._") or "untitled"
    return f"{stem}-L{line}.py"


def explanation_name(code: str) -> str:
    return f"{_UNSAFE.sub('_', code.upper())}.md"


def _comment(text: str) -> list[str]:
    return [f"# {line}".rstrip() for line in text.splitlines()]


def _header(report: LoopReport, where: str, version: int | None) -> list[str]:
    at = f" (version {version})" if version is not None else ""
    return [
        "# skewlsp preview (read-only): what the compiler's passes make of the loop at",
        f"# {where}:{report.line}{at}. Nothing here is applied to your code.",
        *preview_header(report),
        "",
    ]


def _other_core(report: LoopReport, core_index: int, header: str) -> list[str]:
    core = report.cores[core_index]
    copies = f"; x{core.copies}, dual AIV dispatch" if core.copies > 1 else ""
    runs = "" if core.verdict == "skewed" else ", its iterations run in order"
    out = [
        "",
        f"# the compiler's {CORE_TITLES[core.core]} function for this loop: "
        f"{core.verdict} ({core.code}){runs}{copies}",
        *_comment(core.reason),
        "# its copy of the loop, statement by statement (nested blocks by their first line);",
        "# the lines marked 'added by the compiler' are ExpandMixedKernel's messages",
    ]
    out.append(header)
    for statement in core.body:
        if statement.startswith("+ "):
            out.append(f"    {statement[2:]}  # added by the compiler")
        else:
            out.append(textwrap.indent(statement, "    "))
    return out


def _loop_header(original: str, report: LoopReport) -> str:
    """The ``for ...:`` header of the original loop (its first lines up to the call's end)."""
    count = report.call_span.end_line - report.span.line + 1
    head = "\n".join(original.splitlines()[:count])
    return textwrap.dedent(head)


def other_cores(preview: LoopPreview) -> list[str]:
    """For a split loop, every core's copy but the rewritten one (dedented); else nothing."""
    report = preview.report
    if not report.cores:
        return []
    skewed = [index for index, core in enumerate(report.cores) if core.verdict == "skewed"]
    header = _loop_header(preview.original, report)
    out: list[str] = []
    for index, core in enumerate(report.cores):
        if (skewed and index == skewed[0]) or not core.body:
            continue
        out += _other_core(report, index, header)
    return out


def render(preview: LoopPreview, *, where: str, version: int | None = None) -> str:
    """The whole preview document: a header, the rewrite (dedented so it reads as code), and
    for a split loop the other cores' copies."""
    out = _header(preview.report, where, version)
    out += textwrap.dedent(preview.rewritten).rstrip("\n").splitlines()
    out += other_cores(preview)
    return "\n".join(out) + "\n"


def others_text(preview: LoopPreview) -> str:
    """The other cores' copies indented like the loop's ``for`` (to follow the rewrite in a
    diff); ``""`` for a loop that is not split across cores."""
    lines = other_cores(preview)
    if not lines:
        return ""
    first = preview.original.splitlines()[0] if preview.original else ""
    indent = first[: len(first) - len(first.lstrip())]
    return textwrap.indent("\n".join(lines) + "\n", indent)


def render_unchanged(
    report: LoopReport, original: str, reason: str, *, where: str, version: int | None = None
) -> str:
    """The preview of a loop the pass does not rewrite (left, unknown, error): why, and the
    loop as it stays."""
    out = _header(report, where, version)
    out += _comment(f"Not rewritten by SkewCrossCorePipeline: {reason}")
    out.append("")
    out += textwrap.dedent(original).rstrip("\n").splitlines()
    return "\n".join(out) + "\n"
