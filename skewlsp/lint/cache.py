"""A content-hash cache of analysis results under ``<project root>/.skewlint_cache/``.

The key is the sha256 of the file's bytes, its path, the skewlsp version and the
``src`` roots; the entry also records a digest of every module the analysis
resolved (imported constants), so editing ``consts.py`` invalidates the kernels
that import it. Entries are written atomically (temp file + rename) and only
ever inside the cache directory; any I/O problem just disables caching.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

from skewlsp import __version__
from skewlsp.analysis.report import LoopReport
from skewlsp.lint.codec import report_from_data, report_to_data
from skewlsp.lint.resolver import resolve_module

CACHE_DIRNAME = ".skewlint_cache"
_FORMAT = "1"


def cache_key(data: bytes, path: str, src_roots: Sequence[Path]) -> str:
    digest = hashlib.sha256()
    for part in (_FORMAT, __version__, path, *map(str, src_roots)):
        digest.update(part.encode("utf-8", "surrogateescape") + b"\0")
    digest.update(data)
    return digest.hexdigest()


class Cache:
    """One cache directory; ``get``/``put`` never raise."""

    def __init__(self, root: Path) -> None:
        self.directory = root / CACHE_DIRNAME / f"v{_FORMAT}"

    def _entry(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str, path: str, src_roots: Sequence[Path]) -> list[LoopReport] | None:
        try:
            payload = json.loads(self._entry(key).read_text(encoding="utf-8"))
            for module, level, digest in payload["deps"]:
                text = resolve_module(module, level, path, src_roots)
                now = hashlib.sha256(text.encode()).hexdigest() if text is not None else "-"
                if now != digest:
                    return None
            return [report_from_data(item) for item in payload["reports"]]
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def put(
        self, key: str, reports: Sequence[LoopReport], deps: Sequence[tuple[str, int, str]]
    ) -> None:
        payload = {
            "deps": [list(d) for d in deps],
            "reports": [report_to_data(r) for r in reports],
        }
        target = self._entry(key)
        try:
            self._prepare()
            target.parent.mkdir(parents=True, exist_ok=True)
            handle, temp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-", suffix=".json")
            try:
                with os.fdopen(handle, "w", encoding="utf-8") as stream:
                    json.dump(payload, stream)
                os.replace(temp, target)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temp)
                raise
        except (OSError, TypeError, ValueError):
            return

    def _prepare(self) -> None:
        """Create the directory with a .gitignore and CACHEDIR.TAG so tools skip it."""
        top = self.directory.parent
        if top.is_dir():
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        (top / ".gitignore").write_text("# created by skewlint\n*\n", encoding="utf-8")
        (top / "CACHEDIR.TAG").write_text(
            "Signature: 8a477f597d28d172789f06886806bc55\n"
            "# This file is a cache directory tag created by skewlint.\n",
            encoding="utf-8",
        )
