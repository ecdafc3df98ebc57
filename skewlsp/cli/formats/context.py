"""What every format may need besides the diagnostics: colours, paths, preview."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from skewlsp.cli.repo_root import relative_to_root
from skewlsp.common.diagnostic import Diagnostic
from skewlsp.common.select import at_least

_CODES = {
    "bold": "1",
    "dim": "2",
    "red": "31",
    "green": "32",
    "yellow": "33",
    "blue": "34",
    "magenta": "35",
    "cyan": "36",
}


@dataclass(frozen=True)
class FormatContext:
    color: bool = False
    preview: bool = False
    # Machine formats write paths relative to ``root`` (the repository root, see
    # skewlsp.cli.repo_root); displayed filenames are relative to ``cwd``. None: the
    # working directory.
    root: Path | None = None
    cwd: Path | None = None
    # The ``docs-url`` template of the linted files' configuration (None: not set, or their
    # configurations disagree): where the codes' links point (skewlsp.common.rules_page).
    docs_url: str | None = None
    # filename -> the file's fail-on severity (``--fail-on`` or its config's; default
    # warning): what the formats that tell failing from passing (junit) need.
    fail_on: Mapping[str, str] = field(default_factory=dict)
    # ``--unsafe-fixes``: the unsafe fixes count as applicable ([*], SARIF's fixes).
    unsafe_fixes: bool = False

    def fails(self, diagnostic: Diagnostic) -> bool:
        """Whether ``diagnostic`` is at its file's fail-on severity or above (exit 1)."""
        return at_least(diagnostic.severity, self.fail_on.get(diagnostic.filename, "warning"))

    @property
    def root_dir(self) -> Path:
        return self.root or self.cwd_dir

    @property
    def cwd_dir(self) -> Path:
        return self.cwd or Path.cwd().resolve()

    def repo_path(self, filename: str) -> str | None:
        """``filename`` relative to the root (POSIX), or None outside it / for stdin."""
        return relative_to_root(filename, self.root_dir, self.cwd_dir)

    def report_path(self, filename: str) -> str:
        """Relative to the root when inside it, else absolute; stdin stays ``-``."""
        if filename == "-":
            return filename
        return self.repo_path(filename) or str(self.absolute(filename))

    def absolute(self, filename: str) -> Path:
        path = Path(filename)
        return path if path.is_absolute() else Path(os.path.normpath(self.cwd_dir / path))

    def style(self, text: str, *names: str) -> str:
        """ANSI-styled text when colour is on, the plain text otherwise."""
        if not self.color or not names:
            return text
        codes = ";".join(_CODES[name] for name in names)
        return f"\x1b[{codes}m{text}\x1b[0m"


SEVERITY_STYLE = {
    "error": ("bold", "red"),
    "warning": ("bold", "yellow"),
    "information": ("bold", "blue"),
    "hint": ("bold", "cyan"),
}
