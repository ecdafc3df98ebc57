"""Code actions on ``pl.pipeline`` loops, offered cheaply and resolved on demand.

Listing actions happens on every cursor move, so it only names them and carries
``data`` (uri, version, loop position); the expensive part — rewriting the loop
through :mod:`skewlsp.transform` — runs in ``codeAction/resolve`` when the user
picks one. "Fix all" (``source.fixAll.skewlint``, ruff's model: what an editor runs
on save) carries its edit at once: it is the safe fixes the diagnostics already hold,
the same ones ``skewlint --fix`` applies, and costs no rewrite.

A preview never edits the user's code: it is a bare command (:mod:`.commands`)
that shows the rewrite in a read-only document. Edits are
for real fixes only — convert a demoted loop to ``pl.range``, lower a stage,
suppress a code — and each is titled by what it does to the file.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from lsprotocol import types

from skewlsp import api
from skewlsp.api import loop_source
from skewlsp.common.diagnostic import Diagnostic
from skewlsp.common.fixes import applies, non_overlapping, stage_fix_holds, verified_edits
from skewlsp.common.suppressions import suppression_edit
from skewlsp.contract import (
    STAGE_HINT,
    SYNTAX_ERROR,
    Edit,
    Importers,
    LoopReport,
    Resolver,
    Span,
    has_preview,
    is_loop,
    loop_at,
)
from skewlsp.server.commands import CommandChoice
from skewlsp.server.positions import UTF16, code_points_to_units, span_to_range

PREVIEW = "preview"
CONVERT = "convert"
STAGE = "stage"
STAGE_FIX = "stage_fix"  # a loop's fix line (SKW002, SKW014): its stage=, decided again
SUPPRESS = "suppress"
PREVIEW_TITLE = "Preview the rewritten loop (read-only)"
FIX_ALL_KIND = f"{types.CodeActionKind.SourceFixAll.value}.skewlint"
FIX_ALL_TITLE = "skewlint: Fix all auto-fixable problems"
KINDS = [types.CodeActionKind.Refactor, types.CodeActionKind.QuickFix, FIX_ALL_KIND]


def wanted(kind: str, only: Sequence[str] | None) -> bool:
    """Whether a client that asked for ``only`` these kinds (``None``: any) wants ``kind``."""
    return not only or any(kind == k or kind.startswith(k + ".") for k in only)


class PreviewUnavailableError(Exception):
    """The loop cannot be rewritten (no transform installed, or it refused this loop)."""


@dataclass(frozen=True)
class EditSupport:
    """What the client can take: documentChanges, and change annotations within them."""

    document_changes: bool = False
    change_annotations: bool = False

    @classmethod
    def of(cls, capabilities: types.ClientCapabilities | None) -> EditSupport:
        edit = (
            capabilities.workspace.workspace_edit
            if capabilities and capabilities.workspace
            else None
        )
        if edit is None:
            return cls()
        return cls(bool(edit.document_changes), edit.change_annotation_support is not None)


def loop_preview(
    source: str,
    report: LoopReport,
    resolver: Resolver | None = None,
    importers: Importers | None = None,
    planner: str = "pypto",
    assumptions: api.Assumptions | None = None,
) -> api.LoopPreview:
    """The loop before and after the pass, from one analysis of ``source``;
    ``importers``: where an inline helper's callers are, as for the document's analysis."""
    found = previewer(source, report.path, resolver, importers, planner, assumptions)
    return preview_at(found, report)


def previewer(
    source: str,
    path: str | None,
    resolver: Resolver | None = None,
    importers: Importers | None = None,
    planner: str = "pypto",
    assumptions: api.Assumptions | None = None,
) -> api.Previewer:
    """The analysis the previews of one version of a document print from
    (:func:`skewlsp.api.previewer`), made once and kept by ``skewlsp/preview``."""
    try:
        return api.previewer(
            source,
            path=path,
            resolver=resolver,
            importers=importers,
            planner=planner,
            assumptions=assumptions,
        )
    except api.PreviewUnavailable as error:
        raise PreviewUnavailableError(str(error)) from error


def preview_at(found: api.Previewer, report: LoopReport) -> api.LoopPreview:
    """``report``'s loop rewritten, from an analysis already made."""
    try:
        return found.at(report.line)
    except api.PreviewUnavailable as error:
        raise PreviewUnavailableError(str(error)) from error


def rewrite(source: str, report: LoopReport, resolver: Resolver | None = None) -> str:
    """The loop as the compiler will rewrite it: whole lines, indented like the ``for``."""
    return loop_preview(source, report, resolver).rewritten


def original(source: str, report: LoopReport) -> str:
    """The loop's current text: its whole lines."""
    return loop_source(source, report)


def loop_lines_range(
    lines: Sequence[str], report: LoopReport, encoding: str = UTF16
) -> types.Range:
    """The loop's whole lines: from the start of the ``for`` line to the start of the next one."""
    end_line = report.span.end_line
    if end_line < len(lines):
        return types.Range(types.Position(report.span.line - 1, 0), types.Position(end_line, 0))
    last = len(lines) - 1
    end = types.Position(last, code_points_to_units(lines[last], len(lines[last]), encoding))
    return types.Range(types.Position(report.span.line - 1, 0), end)


def loops_in(reports: Sequence[LoopReport], first: int, last: int) -> list[LoopReport]:
    """Loops whose header (``for`` .. end of the ``pl.pipeline`` call) meets lines ``first..last``,
    or the innermost loop containing the range when no header does."""
    headers = [
        r
        for r in reports
        if is_loop(r) and r.span.line <= last and first <= r.call_span.end_line
    ]
    if headers:
        return headers
    inner = loop_at(reports, first)
    return [inner] if inner is not None else []


def _data(
    uri: str, version: int | None, action: str, report: LoopReport, code: str = ""
) -> dict[str, Any]:
    return {
        "uri": uri,
        "version": version,
        "action": action,
        "loop": [report.span.line, report.span.column],
        "code": code,
    }


def list_actions(
    uri: str,
    version: int | None,
    reports: Sequence[LoopReport],
    first_line: int,
    last_line: int,
    context: Sequence[types.Diagnostic],
    enabled: set[str] | None = None,
    only: Sequence[str] | None = None,
    *,
    commands: CommandChoice | None = None,
    preview_at: Callable[[LoopReport], types.Position] | None = None,
) -> list[types.CodeAction | types.Command]:
    """Unresolved actions for the loops at lines ``first_line..last_line`` (1-based).

    ``preview_at`` gives the LSP position of a loop's ``for`` (the preview command's
    argument); without it the position is the analysis's, 0-based, in code points.
    """
    choice = commands or CommandChoice()
    actions: list[types.CodeAction | types.Command] = []

    def diags(code: str) -> list[types.Diagnostic] | None:
        return [d for d in context if d.code == code] or None

    for report, copies in _one_per_loop(loops_in(reports, first_line, last_line), reports):
        if has_preview(report) and wanted(types.CodeActionKind.Refactor, only):
            at = (
                preview_at(report)
                if preview_at is not None
                else types.Position(report.span.line - 1, report.span.column - 1)
            )
            # A bare Command, not a CodeAction carrying one: every client runs it, and
            # none can mistake it for an edit (nor mis-read it, as some libraries do).
            actions.append(choice.preview(PREVIEW_TITLE, uri, at))
        if not wanted(types.CodeActionKind.QuickFix, only):
            continue
        if all(copy.verdict == "demoted" for copy in copies):  # one text for every copy
            actions.append(
                types.CodeAction(
                    title="Convert to pl.range",
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=diags(report.code),
                    data=_data(uri, version, CONVERT, report, report.code),
                )
            )
        for hint in report.hints:
            fix = stage_fix(report) if hint.code == STAGE_HINT else None
            if fix is not None:
                actions.append(
                    types.CodeAction(
                        title=f"Use stage={fix.text}",
                        kind=types.CodeActionKind.QuickFix,
                        diagnostics=diags(hint.code),
                        is_preferred=True,
                        data=_data(uri, version, STAGE, report, hint.code),
                    )
                )
        loop_fix = report.stage_fix
        if loop_fix is not None and loop_fix.applicability == "safe" and len(copies) == 1:
            # The editor offers only a safe one (an unsafe one bakes a deployment's value
            # in: `skewlint --fix --unsafe-fixes`); its edit comes once decided again.
            actions.append(
                types.CodeAction(
                    title=f"Use stage={loop_fix.edit.text}",
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=diags(report.code),
                    data=_data(uri, version, STAGE_FIX, report, report.code),
                )
            )
        codes = [code for copy in copies for code in (copy.code, *(h.code for h in copy.hints))]
        for code in dict.fromkeys(codes):
            if code == SYNTAX_ERROR or (enabled is not None and code not in enabled):
                continue
            actions.append(
                types.CodeAction(
                    title=f"Suppress {code} for this loop",
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=diags(code),
                    data=_data(uri, version, SUPPRESS, report, code),
                )
            )
    return actions


def _one_per_loop(
    found: Sequence[LoopReport], reports: Sequence[LoopReport]
) -> list[tuple[LoopReport, list[LoopReport]]]:
    """Each loop once, with all its copies (a helper's loop decided per call, a program
    per iteration share one ``for``): one edit of the text serves every copy."""
    seen: dict[Span, tuple[LoopReport, list[LoopReport]]] = {}
    for report in found:
        if report.span not in seen:
            seen[report.span] = (report, [r for r in reports if r.span == report.span])
    return list(seen.values())


def stage_fix(report: LoopReport) -> Edit | None:
    """SKW030's fix, as the analysis computed it (``stage=3`` -> ``stage=2``)."""
    return next((h.fix for h in report.hints if h.code == STAGE_HINT and h.fix), None)


def stage_edit(
    lines: Sequence[str], report: LoopReport, encoding: str = UTF16
) -> types.TextEdit | None:
    """Replace the value of ``stage=`` (only the value: spacing and the keyword stay)."""
    fix = stage_fix(report)
    if fix is None:
        return None
    return types.TextEdit(span_to_range(lines, fix.span, encoding), fix.text)


def decider(
    path: str | None,
    resolver: Resolver | None = None,
    assumptions: api.Assumptions | None = None,
    planner: str = "pypto",
) -> Callable[[str], list[LoopReport]]:
    """How an edited text of the document at ``path`` is decided again before its fix is
    given: as the document's own analysis decides it (its resolver, build and planner)."""
    return lambda text: api.analyse(
        text, path, resolver=resolver, planner=planner, assumptions=assumptions
    )


def checked_stage_edit(
    source: str,
    lines: Sequence[str],
    report: LoopReport,
    encoding: str = UTF16,
    resolver: Resolver | None = None,
    assumptions: api.Assumptions | None = None,
    planner: str = "pypto",
) -> types.TextEdit:
    """A loop fix line's ``stage=`` edit, only once the edited text, decided again (as the
    document is: its resolver, build and planner), gives the loop the promised code
    (raises PreviewUnavailableError otherwise)."""
    fix = report.stage_fix
    if fix is None:
        raise PreviewUnavailableError("this loop has no stage= fix")
    if not stage_fix_holds(source, report, decider(report.path, resolver, assumptions, planner)):
        raise PreviewUnavailableError(
            f"with stage={fix.edit.text} the loop is not {fix.promised} when decided again"
        )
    return types.TextEdit(span_to_range(lines, fix.edit.span, encoding), fix.edit.text)


def suppress_edit(
    lines: Sequence[str], report: LoopReport, code: str, encoding: str = UTF16
) -> types.TextEdit:
    """Trailing ``# skewlint: ignore[CODE]`` on the ``for`` line (extends an existing one)."""
    edit = suppression_edit(lines, report.span.line, code)
    return types.TextEdit(span_to_range(lines, edit.span, encoding), edit.text)


def loop_edit(
    source: str,
    lines: Sequence[str],
    report: LoopReport,
    resolver: Resolver | None = None,
    encoding: str = UTF16,
    assumptions: api.Assumptions | None = None,
    planner: str = "pypto",
) -> types.TextEdit:
    """Replace the loop's whole lines with the rewrite (which is whole lines too), as the
    loop is decided under ``assumptions`` and ``planner`` (the document's)."""
    found = loop_preview(source, report, resolver, planner=planner, assumptions=assumptions)
    if found.report.verdict != "demoted":  # a fix writes the demoted loop, nothing else
        raise PreviewUnavailableError(
            f"the loop is {found.report.verdict} here, not demoted: nothing to convert"
        )
    rewritten = found.rewritten
    whole = loop_lines_range(lines, report, encoding)
    if whole.end.character and rewritten.endswith("\n"):  # the loop ends the file, unterminated
        rewritten = rewritten[:-1]
    return types.TextEdit(whole, rewritten)


def workspace_edit(
    uri: str,
    version: int | None,
    edit: types.TextEdit | Sequence[types.TextEdit],
    support: EditSupport,
) -> types.WorkspaceEdit:
    """A workspace edit in the richest form the client accepts (versioned when it can)."""
    edits = [edit] if isinstance(edit, types.TextEdit) else list(edit)
    if support.document_changes:
        return types.WorkspaceEdit(
            document_changes=[
                types.TextDocumentEdit(
                    types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version),
                    list(edits),
                )
            ]
        )
    return types.WorkspaceEdit(changes={uri: list(edits)})


def fix_all(
    uri: str,
    version: int | None,
    shown: Sequence[Diagnostic],
    lines: Sequence[str],
    support: EditSupport,
    encoding: str = UTF16,
    source: str | None = None,
    decide_again: Callable[[str], Sequence[LoopReport]] | None = None,
) -> types.CodeAction | None:
    """Every safe fix of the diagnostics the document shows, as one edit (``None``: none).

    The fixes are the ones ``skewlint --fix`` applies (SKW030's ``stage=``, SKW901's unused
    suppressions, a loop's safe ``stage=`` fix), after the same selection and suppressions;
    a loop's fix only if ``source`` with it, decided again (``decide_again``), gives the
    promised code (without them, no loop fix); overlapping ones are left for the next
    run, as there.
    """
    safe = [d for d in shown if applies(d, unsafe=False)]
    if source is None or decide_again is None:
        safe = [d for d in safe if d.promised is None]
        found = [d.fix for d in safe if d.fix is not None]
    else:
        found = verified_edits(source, safe, decide_again)
    edits = non_overlapping(found)
    if not edits:
        return None
    text_edits = [types.TextEdit(span_to_range(lines, e.span, encoding), e.text) for e in edits]
    return types.CodeAction(
        title=FIX_ALL_TITLE,
        kind=FIX_ALL_KIND,
        edit=workspace_edit(uri, version, text_edits, support),
    )


def find_report(reports: Sequence[LoopReport], loop: Sequence[int]) -> LoopReport | None:
    for report in reports:
        if [report.span.line, report.span.column] == list(loop):
            return report
    return None


def resolve_edit(
    action: str,
    source: str,
    lines: Sequence[str],
    report: LoopReport,
    code: str,
    encoding: str = UTF16,
    resolver: Resolver | None = None,
    assumptions: api.Assumptions | None = None,
    planner: str = "pypto",
) -> types.TextEdit | None:
    """The edit of one fix (``None`` for the preview, which edits nothing: it carries a
    command); raises PreviewUnavailableError when the loop cannot be rewritten."""
    if action == CONVERT:
        return loop_edit(source, lines, report, resolver, encoding, assumptions, planner)
    if action == STAGE:
        return stage_edit(lines, report, encoding)
    if action == STAGE_FIX:
        return checked_stage_edit(
            source, lines, report, encoding, resolver, assumptions, planner
        )
    if action == SUPPRESS:
        return suppress_edit(lines, report, code, encoding)
    return None
