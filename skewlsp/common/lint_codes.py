"""Codes that only the linter emits, and the merged table used by ``explain`` and the docs.

The analysis owns :data:`skewlsp.analysis.codes.CODES`; codes about the lint run
itself (suppression comments, unreadable files) live here so that the analysis
table stays about loops. Codes in both tables are stable and never reused.
"""

from __future__ import annotations

from skewlsp.analysis.codes import CODES, ReasonCode

UNUSED_SUPPRESSION = "SKW901"
UNREADABLE_FILE = "SKW902"
# Codes the linter counts in its summary instead of listing, unless selected by name or
# prefix: on real kernels most loops are left for LowerPipelineLoops, and listing each
# one buries the few findings (302 of 315 diagnostics on pypto-lib's models/).
SUMMARISED_BY_DEFAULT = ("SKW010",)

LINT_CODES: dict[str, ReasonCode] = {
    c.code: c
    for c in [
        ReasonCode(
            UNUSED_SUPPRESSION,
            "-",
            "warning",
            "unused suppression",
            "A `# skewlint: ignore[...]` or `# skewlint: file-ignore[...]` comment (or one of "
            "the codes it lists) suppresses nothing: the loop it sits on no longer reports "
            "that code, the code is unknown, or there is no loop there at all. Reporting it "
            "keeps suppressions from outliving the problem they hid.",
            "# skewlint: ignore[SKW021]\n"
            "for i in pl.pipeline(0, 8, 1, stage=2):  # now skews: SKW001, not SKW021",
            "Delete the comment, or the codes in it that no longer apply.",
        ),
        ReasonCode(
            UNREADABLE_FILE,
            "-",
            "error",
            "the file cannot be read",
            "The file could not be read as Python source: it is not readable, it is binary "
            "(contains NUL bytes), or it is not valid text in its declared encoding "
            "(UTF-8 unless a PEP 263 coding comment says otherwise). Unreadable and binary "
            "files are always reported; a text file that never mentions `pipeline` is "
            "skipped without being decoded, so a wrong encoding is reported only in files "
            "that do.",
            "(a file saved as Latin-1 without a coding comment)",
            "Fix the file's permissions or encoding, or exclude it with `exclude` / "
            "`extend-exclude`.",
        ),
    ]
}


def all_codes() -> dict[str, ReasonCode]:
    """Every code skewlint can print, analysis codes first, in code order."""
    merged = {**CODES, **LINT_CODES}
    return dict(sorted(merged.items()))


def severity_of(code: str) -> str:
    """Default severity of any code the linter knows (analysis or lint-only)."""
    return all_codes()[code].severity
