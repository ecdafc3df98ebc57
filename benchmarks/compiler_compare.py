"""skewlint's claims against the compiler's observations, loop by loop and core by core:
the comparison half of the compiler check (``compiler_verdicts`` reads both sides into
:class:`~benchmarks.compiler_verdicts.Claim` s), and the compiler's diagnostic lines,
summarised. Pure: no pypto, no subprocess; tested in tests/benchmarks.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.compiler_depths import finding_loop
from benchmarks.compiler_verdicts import (
    BEFORE_SKEW,
    Claim,
    EntryResult,
    Observation,
    observations,
    skewlint_claims,
)


@dataclass(frozen=True)
class Comparison:
    """One loop under one planner: agree, disagree or unknown, and what each side said."""

    file: str
    line: int
    status: str
    text: str


def _covers(claims: list[Claim], seen: list[Claim]) -> tuple[bool, bool]:
    """(every observation is claimed, every claim is observed)."""
    claimed = all(any(s.matches(c) for c in claims) for s in seen)
    observed = all(any(c.matches(s) for s in seen) for c in claims)
    return claimed, observed


def _pair_cores(
    claims: Mapping[str, list[Claim]], seen: Mapping[str, list[Observation]]
) -> list[tuple[str, list[Claim], list[Observation]]]:
    """Match skewlint's cores to the compiler's: by name, or one to one when each has one."""
    if len(claims) == 1 and len(seen) == 1:
        (core, claimed), observed = next(iter(claims.items())), next(iter(seen.values()))
        return [(core, list(claimed), list(observed))]
    if "" in claims and len(claims) == 1:
        return [("", list(claims[""]), [o for obs in seen.values() for o in obs])]
    cores = sorted(set(claims) | set(seen))
    return [(core, list(claims.get(core, [])), list(seen.get(core, []))) for core in cores]


def compare_loop(
    file: str,
    line: int,
    claims: Mapping[str, list[Claim]],
    seen: list[Observation],
    incomplete: str | None,
) -> Comparison:
    """Compare one loop; ``incomplete`` says why not every copy of it may have been
    compiled (None: every one was)."""
    said = "; ".join(
        f"{core + ': ' if core else ''}{', '.join(map(str, c))}" for core, c in claims.items()
    )
    everything = [c for cs in claims.values() for c in cs]
    if any(c.shape in ("unknown", "not compiled") for c in everything):
        if not seen and all(c.shape == "not compiled" for c in everything):
            return Comparison(
                file, line, "agree", "not compiled, and the compiler saw no such loop"
            )
        did = "; ".join(f"{o.claim} [{o.where}]" for o in seen) or "nothing"
        return Comparison(file, line, "unknown", f"skewlint: {said}; compiler: {did}")
    if not seen:
        why = incomplete or "no compiled loop here"
        return Comparison(file, line, "unknown", f"skewlint: {said}; compiler: {why}")
    by_core: dict[str, list[Observation]] = {}
    for obs in seen:
        by_core.setdefault(obs.core, []).append(obs)
    problems, partial = [], False
    for core, claimed, observed in _pair_cores(claims, by_core):
        all_claimed, all_observed = _covers(claimed, [o.claim for o in observed])
        if all_claimed and all_observed:
            continue
        if all_claimed and incomplete and observed:
            partial = True
            continue
        did = ", ".join(f"{o.claim} [{o.where}]" for o in observed) or "no loop"
        want = ", ".join(map(str, claimed)) or "no copy on this core"
        problems.append(f"{core or 'loop'}: skewlint {want}; compiler {did}")
    if problems:
        return Comparison(file, line, "disagree", " | ".join(problems))
    if partial:
        return Comparison(
            file, line, "unknown", f"{said}: only some copies compiled ({incomplete})"
        )
    return Comparison(file, line, "agree", said)


def _incomplete(
    entries: list[EntryResult], record: Mapping[str, Any], compiled: Callable[[str], bool]
) -> str | None:
    """Why some copy of a loop may not have been compiled (None: every one was).
    ``compiled``: whether a file (as skewlint names a caller's) was compiled."""
    if not entries:
        return "its file was not loaded, or defines no entry"
    if any(e.error and BEFORE_SKEW not in e.snapshots for e in entries):
        return "an entry of its file did not reach SkewCrossCorePipeline"
    copies = record.get("copies") or []
    if len(copies) > 1 and not all(_called_here(copy, compiled) for copy in copies):
        # A program built per value of a module-level `for` leaves only the last one in
        # the module; a helper's callers may live in files not checked.
        return "Python builds it more than once; the check compiles what the module keeps"
    return None


def _called_here(copy: Mapping[str, Any], compiled: Callable[[str], bool]) -> bool:
    """Whether a copy is an inline helper's splice at a call the check compiled: in the
    helper's own file (compiled with that file's entries) or in another compiled file,
    not a program built per value."""
    instance = copy.get("instance") or {}
    call_path = instance.get("call_path")
    return bool(instance.get("caller")) and (call_path is None or compiled(call_path))


def compare(
    records: Iterable[Mapping[str, Any]],
    entries_by_file: Mapping[str, list[EntryResult]],
    root: Path,
    for_lines: Mapping[str, set[int]],
    unrolled: Mapping[str, set[int]] | None = None,
    planner: str = "pypto",
) -> list[Comparison]:
    """Every skewlint loop record against the compiler, plus loops only the compiler saw.

    ``entries_by_file`` is keyed by resolved path; skewlint's filenames are resolved
    against ``root`` (the directory it ran in). ``for_lines``: the lines of each file's
    ``for ... in <x>.pipeline(...)`` statements (``unrolled``: those inside a
    ``pl.unroll`` loop). A pipeline loop the compiler holds at
    any other line is one it made itself (AutoTileMatmulL0 tiles a matmul's K into a
    ``stage=2`` loop at the matmul's line): status "made", outside skewlint's scope.
    An inline helper's copy spliced at a call in another file is compared when that file
    was compiled too (it is among ``entries_by_file``: ``compiler_check.py --callers``);
    a copy skewlint lists at its call (``instance.helper_loop``) is compared with the
    helper's loop as the calling file's entries compile it.
    """
    seen: dict[tuple[str, int], list[Observation]] = {}
    # (the file compiled, the loop's file and line): an imported helper's copy at its call
    seen_in: dict[tuple[str, str, int], list[Observation]] = {}
    for compiled, entries in entries_by_file.items():
        for entry in entries:
            for obs in observations(entry):
                loop = (str(Path(obs.file).resolve()), obs.line)
                seen.setdefault(loop, []).append(obs)
                seen_in.setdefault((compiled, *loop), []).append(obs)

    def is_compiled(filename: str) -> bool:
        return str((root / filename).resolve()) in entries_by_file

    results, reported = [], set()
    for record in records:
        if record.get("kind") != "loop" or record.get("line") is None:
            continue
        if record.get("loop", True) is None:
            continue  # a scope without a pipeline loop (its memory finding): no loop to compare
        path = str((root / record["filename"]).resolve())
        key = (path, record["line"])
        entries = entries_by_file.get(path, [])
        incomplete = _incomplete(entries, record, is_compiled)
        under_unroll = record["line"] in (unrolled or {}).get(path, set())
        claims = skewlint_claims(record, built_once=not under_unroll, planner=planner)
        observed = seen.get(key, [])
        if (record.get("instance") or {}).get("helper_loop"):
            # an imported helper's copy listed at its call: the helper's loop as this file
            # compiles it (its own record compares every copy at the loop)
            loop_file, loop_line = finding_loop(dict(record, filename=path)).rsplit(":", 1)
            observed = seen_in.get((path, loop_file, int(loop_line)), [])
        else:
            reported.add(key)
        results.append(
            compare_loop(record["filename"], record["line"], claims, observed, incomplete)
        )
    for (path, line), observed in sorted(seen.items()):
        if path not in entries_by_file or (path, line) in reported:
            continue
        did = ", ".join(f"{o.claim} [{o.where}]" for o in observed)
        shown = _relative(path, root)
        if line in for_lines.get(path, set()):
            results.append(
                Comparison(
                    shown, line, "disagree", f"skewlint reports no loop here; compiler: {did}"
                )
            )
        else:
            results.append(Comparison(shown, line, "made", f"a loop the compiler made: {did}"))
    return results


def _relative(path: str, root: Path) -> str:
    """``path`` as skewlint names files: relative to where it ran, when it is below."""
    try:
        return str(Path(path).relative_to(root.resolve()))
    except ValueError:
        return path


# One diagnostic line of pypto's C++ logging: "... I | [perf_hint PH-MR-001] MemoryReuse:
# <text> at <file>:<line>:<col>" or "... W | [warning] [MemoryReuse] <text> at ...".
DIAGNOSTIC_LINE = re.compile(
    r"\[(?P<kind>perf_hint [\w-]+|warning|error)\]\s*(?P<text>.*?)"
    r"(?: at (?P<file>\S+):(?P<line>\d+):\d+)?\s*$"
)


def summarise_diagnostics(lines: Iterable[str], root: Path) -> list[str]:
    """The compiler's diagnostic lines, one per kind, place and text, counted: a
    PH-MR-001 hint comes once per pipeline group ("pipeline group 3"), which is
    numbered, not named, so the groups of one function are folded into one line."""
    counted: Counter[tuple[str, str, str]] = Counter()
    for line in lines:
        found = DIAGNOSTIC_LINE.search(line)
        if found is None:
            continue
        kind = found["kind"].removeprefix("perf_hint ")
        text = re.sub(r"pipeline group \d+", "pipeline group N", found["text"]).split(" — ")[0]
        where = f"{_relative(found['file'], root)}:{found['line']}" if found["file"] else "?"
        counted[(kind, where, text)] += 1
    return [
        f"{kind}{f' x{count}' if count > 1 else ''} at {where}: {text}"
        for (kind, where, text), count in sorted(counted.items())
    ]
