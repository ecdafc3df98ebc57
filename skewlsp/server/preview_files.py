"""Where the server keeps the documents it shows: previews and code explanations.

The files live in the server's own cache directory
(``$XDG_CACHE_HOME/skewlsp``, else ``~/.cache/skewlsp`` or the platform's; a private temporary
directory when that cannot be written) and are made read-only, so a client that opens one
cannot save an edit back by mistake. The server never analyses these files
(:func:`is_ours`): they are its output, not the user's code.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path

from skewlsp.common.cache_home import cache_home

PREVIEWS = "previews"
EXPLANATIONS = "explanations"
READ_ONLY = stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH


def cache_root(environ: dict[str, str] | None = None) -> Path:
    """``skewlsp`` in the user's cache directory (:mod:`skewlsp.common.cache_home`): not
    created here."""
    return Path(cache_home(environ)) / "skewlsp"


def _usable(folder: Path) -> bool:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    return os.access(folder, os.W_OK | os.X_OK)


class DocumentFolder:
    """The folders the server writes shown documents to, chosen once on first use."""

    def __init__(self, root: Path | None = None) -> None:
        self._preferred = root
        self._root: Path | None = None

    def _wanted(self) -> Path | None:
        """The preferred root, or ``None`` when there is none (no home directory known).

        Worked out once: the environment of a running server does not change, and the
        question is asked on every edit (:meth:`is_ours`).
        """
        if self._preferred is None:
            try:
                self._preferred = cache_root()
            except (RuntimeError, KeyError):  # Path.home() without HOME or a passwd entry
                return None
        return self._preferred

    @property
    def root(self) -> Path:
        if self._root is None:
            preferred = self._wanted()
            # A private folder of this process (mkdtemp: mode 0700, a fresh name), never a
            # guessable shared path another user could have prepared.
            self._root = (
                preferred
                if preferred is not None and _usable(preferred)
                else Path(tempfile.mkdtemp(prefix="skewlsp-"))
            )
        return self._root

    def write(self, kind: str, name: str, text: str) -> Path:
        """Write ``text`` to ``<root>/<kind>/<name>``, replacing an earlier copy, read-only."""
        folder = self.root / kind
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / name
        temporary = folder / f".{name}.{os.getpid()}.tmp"
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()
        temporary.write_text(text, encoding="utf-8")
        temporary.chmod(READ_ONLY)
        os.replace(temporary, target)  # atomic: a client never reads half a file
        return target

    def is_ours(self, path: str | None) -> bool:
        """``True`` for a file under the folders this server writes (never analysed)."""
        if not path:
            return False
        roots = [root for root in (self._wanted(), self._root) if root is not None]
        # Asked on every edit: a string prefix test (both sides are normalised paths).
        candidate = os.path.normpath(path)
        return any(
            candidate.startswith(os.path.join(root, kind, ""))
            for root in roots
            for kind in (PREVIEWS, EXPLANATIONS)
        )
