"""Which codes are reported, and at what severity.

Selectors are codes or prefixes (``SKW02``) as in ruff: when a ``select`` and an
``ignore`` entry both match a code, the more specific (longer) one wins, and on a
tie ``ignore`` wins — so ``select = ["SKW02"]`` with ``ignore = ["SKW0"]`` still
reports SKW021, while ``ignore = ["SKW021"]`` removes just that code.

An adapter may name codes it *summarises* unless the user asks for them: the
linter counts SKW010 loops in its summary instead of listing hundreds of them,
until a ``select`` or ``extend-select`` entry of the user's (``ALL``, a prefix
or the code) names them. The editor summarises nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from skewlsp.common.config import Settings
from skewlsp.contract import CODES, SEVERITY_RANK

# Codes the linter counts in its summary instead of listing, unless selected by name or
# prefix: on real kernels most loops are left for LowerPipelineLoops, and listing each
# one buries the few findings (302 of 315 diagnostics on pypto-lib's models/).
# The same holds for what the lowering passes do to the loops the skew pass left, except
# what deserves a warning or an error (SKW014, SKW041).
SUMMARISED_BY_DEFAULT = ("SKW010", "SKW011", "SKW012", "SKW013", "SKW015", "SKW016", "SKW017")


def _specificity(selector: str, code: str) -> int:
    """Length of the match (``ALL`` is the least specific), or -1 if it does not match."""
    if selector == "ALL":
        return 0
    return len(selector) if code.startswith(selector) else -1


def _best(selectors: Iterable[str], code: str) -> int:
    return max((_specificity(s, code) for s in selectors), default=-1)


@dataclass(frozen=True)
class Selection:
    """The enabled codes and their severities for one :class:`Settings`."""

    select: tuple[str, ...]
    ignore: tuple[str, ...]
    severities: Mapping[str, str]
    summarised: frozenset[str] = frozenset()  # enabled, but counted rather than listed

    @classmethod
    def from_settings(cls, settings: Settings, *, summarise: Iterable[str] = ()) -> Selection:
        """The selection of ``settings``; codes in ``summarise`` are only counted unless
        one of the user's own ``select`` / ``extend-select`` entries names them."""
        select = ("ALL",) if settings.select is None else settings.select
        chosen = (settings.select or ()) + settings.extend_select
        summarised = frozenset(code for code in summarise if _best(chosen, code) < 0)
        return cls(
            select + settings.extend_select, settings.ignore, dict(settings.severity), summarised
        )

    def is_listed(self, code: str) -> bool:
        """Enabled and shown one by one (not only counted in a summary)."""
        return code not in self.summarised and self.is_enabled(code)

    def is_enabled(self, code: str) -> bool:
        chosen = _best(self.select, code)
        return chosen >= 0 and chosen > _best(self.ignore, code)

    def configures(self, code: str) -> bool:
        """Whether the user set a severity for ``code`` (or a prefix of it)."""
        return any(code.startswith(key) for key in self.severities)

    def severity(self, code: str) -> str:
        """The configured severity (most specific matching entry) or the code's default."""
        matches = [(len(k), v) for k, v in self.severities.items() if code.startswith(k)]
        if matches:
            return max(matches)[1]
        known = CODES.get(code)
        return known.severity if known else "warning"

    def enabled_codes(self) -> list[str]:
        return [code for code in CODES if self.is_enabled(code)]


def at_least(severity: str, threshold: str) -> bool:
    """``True`` when ``severity`` is ``threshold`` or more severe."""
    return SEVERITY_RANK.get(severity, 0) >= SEVERITY_RANK[threshold]
