"""Where an inline helper's callers in other modules are looked for: the project's files.

The analysis decides a ``@pl.jit.inline`` helper's loop once per call, and a call can
sit in any module that imports the helper. It never lists directories itself; an adapter
gives it the files it knows (the linter: every file of the run) through this, and the
analysis checks that each candidate's import really resolves to the helper's module.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from pathlib import Path, PurePath

from skewlsp.common.resolver import MAX_MODULE_BYTES


class ProjectImporters:
    """``importers(path)``: (path, text) of the known files that may import ``path``.

    A candidate mentions the module's name and ``import``; its text is read once, from
    disk unless ``read`` supplies it (the language server: an open file's unsaved text).
    """

    def __init__(
        self, paths: Iterable[str], read: Callable[[str], str | None] | None = None
    ) -> None:
        self.paths = tuple(paths)
        self._read = read or read_project_file
        self._texts: dict[str, str | None] = {}

    def __call__(self, path: str | None) -> list[tuple[str, str]]:
        if path is None:
            return []
        name = PurePath(path).stem
        if name == "__init__":
            name = PurePath(path).parent.name
        found = []
        for other in self.paths:
            if other == path:
                continue
            text = self._text(other)
            if text is not None and name in text and "import" in text:
                found.append((other, text))
        return found

    def digest(self, path: str | None) -> str:
        """What the answer for ``path`` depends on, for a cache key."""
        parts = hashlib.sha256()
        for other, text in self(path):
            parts.update(other.encode("utf-8", "surrogateescape") + b"\0")
            parts.update(text.encode("utf-8", "surrogateescape") + b"\0")
        return parts.hexdigest()

    def _text(self, path: str) -> str | None:
        if path not in self._texts:
            self._texts[path] = self._read(path)
        return self._texts[path]


def read_project_file(path: str) -> str | None:
    """The text of a project file on disk (None if unreadable or too large to be a module)."""
    try:
        file = Path(path)
        if file.stat().st_size > MAX_MODULE_BYTES:
            return None
        return file.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def sibling_modules(path: str) -> list[str]:
    """The ``.py`` files next to ``path`` (itself left out), where the callers of an inline
    helper defined in it are looked for when no run lists the project's files."""
    folder = Path(path).parent
    try:
        found = sorted(str(p) for p in folder.glob("*.py"))
    except OSError:
        return []
    return [p for p in found if Path(p).name != Path(path).name]
