"""One line of linter output: a loop's report, one of its hints, or a lint-only remark.

Output formats work from this flat record so that none of them needs to know
how loop reports, hints and suppression remarks differ; ``report`` keeps the
full :class:`LoopReport` for the formats that show more (full, json, sarif).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from skewlsp.contract import Applicability, Edit, LoopReport, Related, SpaceBuffers, Span

Kind = Literal["loop", "scope", "hint", "suppression", "file"]
# (module, level, importing path) of an import an analysis resolved; the importing path is
# None when the file analysed asked (else the module of another file it read: a caller of
# one of its inline helpers, whose imports are resolved from its own folder).
Import = tuple[str, int, "str | None"]


@dataclass(frozen=True)
class Diagnostic:
    filename: str
    kind: Kind
    code: str
    message: str
    span: Span
    severity: str
    report: LoopReport | None = None
    snippet: tuple[tuple[int, str], ...] = ()  # (line number, text) of the loop
    preview: str | None = None
    preview_error: str | None = None
    # Other places the remark points at (a hint's related spans: SKW060's moved tpush and lead).
    related: tuple[Related, ...] = ()
    fix: Edit | None = None  # the edit that resolves it (``--fix``, a quick fix): see below
    # How the fix line applies (None: the finding has none): "safe" (``--fix``), "unsafe"
    # (``--fix --unsafe-fixes``), "advice" (no ``fix``: a change a human makes).
    applicability: Applicability | None = None
    # The loop's code once ``fix`` is made: an adapter decides the edited text again and
    # writes the edit only if the loop gets it (None: an edit of a comment, nothing to check).
    promised: str | None = None
    # A loop Python builds several times (an inline helper's calls): every copy's report,
    # in source order; ``report`` is the strictest of them. Empty for a loop built once.
    copies: tuple[LoopReport, ...] = ()
    # The one short line a linter prints and an editor underlines (common/headline.py);
    # None: the message is short already (a hint, a file's remark).
    short_message: str | None = None
    # The short line without the call a helper's copy is at (or a memory finding's without
    # its core and bytes), for a terminal line the headline would take over
    # ``headline.CONCISE_WIDTH`` (None: it has no shorter form).
    terse_message: str | None = None
    # A memory finding's own space record (SKW080-SKW082: one of the report's or its
    # cores' ``memory``), so a reader knows which space it is about without the message.
    record: SpaceBuffers | None = None

    @property
    def headline(self) -> str:
        """What a one-line format prints: the short line, else the message."""
        return self.short_message if self.short_message is not None else self.message

    @property
    def verdict(self) -> str | None:
        return self.report.verdict if self.report is not None else None

    @property
    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.filename, self.span.line, self.span.column, self.code)


@dataclass(frozen=True)
class FileResult:
    """Everything the linter found in one file, plus how severe is "failing" there."""

    filename: str
    diagnostics: tuple[Diagnostic, ...] = ()
    fail_on: str = "warning"
    internal_error: str | None = None  # an analysis crash: reported on stderr, exit 2
    summarised: tuple[str, ...] = ()  # codes of the enabled diagnostics counted, not listed
    # every import the analysis resolved (see Import): what a replayed run must recheck
    imports: tuple[Import, ...] = ()
