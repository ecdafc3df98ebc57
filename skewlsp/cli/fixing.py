"""``--fix``, ``--diff`` and ``--unsafe-fixes``: which edits are written, and what is said.

The findings' edits come with their applicability (:mod:`skewlsp.common.fixes`): safe
ones are applied by ``--fix``, unsafe ones only with ``--unsafe-fixes``, advice never.
Before a ``stage=`` edit is written (or shown by ``--diff``) the edited text is decided
again, and the edit is dropped unless its loop gets the code the fix promised. As ruff
does, ``--fix`` says what it fixed, or that nothing was fixable and why.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from skewlsp.cli.runner import Job, analyze_cached
from skewlsp.common.diagnostic import Diagnostic, FileResult
from skewlsp.common.fixes import applies, apply_edits, fix_counts, verified_edits
from skewlsp.common.wording import plural
from skewlsp.contract import LoopReport


class FixWriteError(Exception):
    """A fixed file could not be written; ``str(err)`` says which and why."""


def fixed_line(fixed: int, diagnostics: Sequence[Diagnostic], unsafe: bool) -> str:
    """What ``--fix`` says on stderr: ``Fixed 2 issues.``, or ruff's ``No fixes available
    (1 hidden fix can be enabled with the `--unsafe-fixes` option).``, naming the fix lines
    that are advice for a human (``diagnostics``: what remains after the fixes)."""
    if fixed:
        return f"Fixed {plural(fixed, 'issue')}.\n"
    _, hidden, advice = fix_counts(diagnostics, unsafe)
    why = []
    if hidden:
        why.append(
            f"{plural(hidden, 'hidden fix', 'hidden fixes')} can be enabled with the "
            "`--unsafe-fixes` option"
        )
    if advice:
        verb = "is" if advice == 1 else "are"
        why.append(f"{plural(advice, 'fix line')} {verb} advice for a human")
    return "No fixes available" + (f" ({'; '.join(why)})" if why else "") + ".\n"


def _decide_again(job: Job, text: str) -> list[LoopReport]:
    """The reports of ``text`` analysed as ``job``'s file (never cached: a text not on disk)."""
    data = text.encode("utf-8")
    again = replace(job, options=replace(job.options, use_cache=False), data=data)
    reports, _ = analyze_cached(text, data, again)
    return reports


def fixed_texts(
    results: Sequence[FileResult], jobs: Sequence[Job], unsafe: bool
) -> list[tuple[Job, str, str, int]]:
    """(job, source, fixed source, fixes applied) for every UTF-8 file with a fix to apply."""
    changed = []
    for job, result in zip(jobs, results, strict=True):
        offered = [d for d in result.diagnostics if applies(d, unsafe)]
        if not offered or job.path is None:
            continue
        try:
            source = Path(job.path).read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue  # another encoding: rewriting it is not worth the risk
        bom = "\ufeff" if source.startswith("\ufeff") else ""
        text = source.removeprefix(bom)
        edits = verified_edits(text, offered, functools.partial(_decide_again, job))
        fixed, applied = apply_edits(text, edits)
        if applied and bom + fixed != source:
            changed.append((job, source, bom + fixed, applied))
    return changed


def show_diff(
    results: Sequence[FileResult], jobs: Sequence[Job], unsafe: bool, quiet: bool = False
) -> int:
    """``--diff``: the fixes as a unified diff; nothing is written. The exit code."""
    import difflib

    changed = fixed_texts(results, jobs, unsafe)
    for job, source, text, _ in changed:
        sys.stdout.writelines(
            difflib.unified_diff(
                source.splitlines(keepends=True),
                text.splitlines(keepends=True),
                fromfile=f"a/{job.filename}",
                tofile=f"b/{job.filename}",
            )
        )
    count = sum(applied for *_, applied in changed)
    if count:
        sys.stderr.write(f"Would fix {plural(count, 'issue')}.\n")
    elif not quiet:  # as with --fix: nothing to show is said, and why
        remaining = [d for result in results for d in result.diagnostics]
        sys.stderr.write(fixed_line(0, remaining, unsafe))
    return 1 if changed else 0


def apply_fixes(
    results: Sequence[FileResult], jobs: Sequence[Job], unsafe: bool
) -> tuple[int, list[Job]]:
    """``--fix``: write each fixed file (same encoding); the jobs to lint again."""
    fixed, rewritten = 0, []
    for job, _, text, applied in fixed_texts(results, jobs, unsafe):
        assert job.path is not None
        try:
            with open(job.path, "w", encoding="utf-8", newline="") as stream:
                stream.write(text)
        except OSError as error:
            raise FixWriteError(f"{job.filename}: cannot write the fix: {error.strerror}") from None
        fixed += applied
        rewritten.append(job)
    return fixed, rewritten
