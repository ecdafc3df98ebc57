"""What every format may need besides the diagnostics: colours, paths, preview."""

from __future__ import annotations

from dataclasses import dataclass

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
