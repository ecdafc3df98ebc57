"""A content-hash cache of analysis results, kept out of source folders.

Where (:func:`cache_directory`): ``.skewlint_cache/`` next to the configuration file
that applies, else at the git root; with neither, under the user's cache directory
(``$XDG_CACHE_HOME/skewlint/<digest of the project directory>``, ``~/.cache`` when
unset) so that linting a folder of sources never writes into it.

The key is the sha256 of the file's bytes, its path, the code that analyses it (a
digest of skewlsp's own sources and libcst's release: :mod:`skewlsp.cli.own_code`, so
an upgraded or edited skewlsp never answers with an old result), the memory planner,
the assumed build (environment, argv, variants) and the ``src`` roots; the entry
also records a digest of every module the analysis resolved (imported constants),
so editing ``consts.py`` invalidates the kernels that import it. Entries are written
atomically (temp file + rename) and only ever inside the cache directory; any I/O
problem just disables caching.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from skewlsp import __version__
from skewlsp.api import digest_of
from skewlsp.common.cache_home import cache_home
from skewlsp.common.config import Settings
from skewlsp.common.diagnostic import Import
from skewlsp.common.resolver import Dependency, resolve_module
from skewlsp.contract import LoopReport

CACHE_DIRNAME = ".skewlint_cache"
# 2: reports carry FIFO hazards (SKW060); 3: findings carry their fix; 4: an inline
# helper's copies name their caller's file (callers in other modules); 5: a module read
# for a caller names the caller's file (its imports are resolved from there); 6: left
# loops carry their lowering (the loop's and each core copy's); 7: reports carry the loads
# LowerPipelineToSlots sees (slot_loads); 8: keys name the code that analysed (own_code),
# and the record of plain files names it too; 9: reports no longer carry what only the
# lowering reads (slot_loads, slot_scope, load_time_bound: analysis/lower_pipeline/loop_facts.py);
# 10: reports and their cores carry which copy's load is in which buffer (buffers);
# 12: a copy's report carries its own text (own_message)
_FORMAT = "12"


def user_cache_home(environ: Mapping[str, str] | None = None) -> Path:
    """The user's cache directory (see :func:`skewlsp.common.cache_home.cache_home`)."""
    return Path(cache_home(environ))


def cache_directory(settings: Settings, environ: Mapping[str, str] | None = None) -> Path:
    """Where the cache of the files under ``settings`` lives (see the module docstring)."""
    return directory_for(settings.root, settings.config_path is not None, environ)


def directory_for(root: Path, configured: bool, environ: Mapping[str, str] | None = None) -> Path:
    """The cache directory of a settings root (``configured``: a config file sits there)."""
    if configured or (root / ".git").exists():
        return root / CACHE_DIRNAME
    digest = hashlib.sha256(str(root).encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return user_cache_home(environ) / "skewlint" / f"{root.name or 'root'}-{digest}"


def cache_key(
    data: bytes, path: str, src_roots: Sequence[Path], planner: str, code: str, build: str = ""
) -> str:
    """The entry of a file's bytes, read with these settings (the memory planner changes
    what the lowering passes do, the assumed ``build`` what configs read: its
    ``Assumptions.key``) by this code (:func:`.own_code.code_digest`)."""
    digest = hashlib.sha256()
    for part in (_FORMAT, __version__, code, path, planner, build, *map(str, src_roots)):
        digest.update(part.encode("utf-8", "surrogateescape") + b"\0")
    digest.update(data)
    return digest.hexdigest()


class DependencyDigests:
    """Digests of imported modules, memoised for one run.

    Hundreds of kernels of a package import the same ``consts.py``; a warm run
    would otherwise find, read and hash it once per kernel. One instance lives
    as long as one run (files are not expected to change under a single run).
    """

    def __init__(self) -> None:
        self._known: dict[tuple[str, int, str, tuple[Path, ...]], str] = {}

    def digest(self, module: str, level: int, path: str, src_roots: Sequence[Path]) -> str:
        key = (module, level, os.path.dirname(path), tuple(src_roots))
        found = self._known.get(key)
        if found is None:
            found = self._known[key] = dependency_digest(module, level, path, src_roots)
        return found


def dependency_digest(module: str, level: int, path: str, src_roots: Sequence[Path]) -> str:
    """What an entry records for one import: the module text's sha256, or "-" if absent."""
    return digest_of(resolve_module(module, level, path, src_roots)) or "-"


class Cache:
    """One cache directory (from :func:`cache_directory`); ``get``/``put`` never raise."""

    def __init__(self, top: Path) -> None:
        self.directory = top / f"v{_FORMAT}"
        self._prefix = os.path.join(self.directory, "")

    def _entry(self, key: str) -> Path:
        return Path(self._entry_name(key))

    def _entry_name(self, key: str) -> str:
        # plain strings: a warm run looks up every file, and pathlib joins cost more than the read
        return f"{self._prefix}{key[:2]}/{key}.json"

    def get(
        self,
        key: str,
        path: str,
        src_roots: Sequence[Path],
        digests: DependencyDigests | None = None,
        callers: Callable[[], str] | None = None,
    ) -> tuple[list[LoopReport], list[Import]] | None:
        """The entry for ``key`` if every module it imported still has the same text, and
        (when the analysis asked for them) the modules that may call its inline helpers
        still give the digest ``callers()`` gives: its reports and those imports."""
        try:
            with open(self._entry_name(key), encoding="utf-8") as stream:
                payload = json.load(stream)
            recorded = payload.get("callers")
            if recorded is not None and (callers is None or callers() != recorded):
                return None
            imports: list[Import] = []
            for module, level, digest, *asked_from in payload["deps"]:
                importing = asked_from[0] if asked_from else None
                where = importing or path  # the file analysed, or a caller it read
                if digests is not None:
                    now = digests.digest(module, level, where, src_roots)
                else:
                    now = dependency_digest(module, level, where, src_roots)
                if now != digest:
                    return None
                imports.append((module, level, importing))
            # Imported only here and in put: cattrs costs more to import than a replayed
            # run takes, and a replayed run reads no entry.
            from skewlsp.cli.codec import report_from_data

            return [report_from_data(item) for item in payload["reports"]], imports
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None

    def put(
        self,
        key: str,
        reports: Sequence[LoopReport],
        deps: Sequence[Dependency],
        callers: str | None = None,
    ) -> None:
        from skewlsp.cli.codec import report_to_data  # see get

        payload: dict[str, object] = {
            "deps": [[m, n, d] if at is None else [m, n, d, at] for m, n, d, at in deps],
            "reports": [report_to_data(r) for r in reports],
        }
        if callers is not None:
            payload["callers"] = callers
        try:
            self.write_json(self._entry(key), payload)
        except (OSError, TypeError, ValueError):
            return

    def write_json(self, target: Path, payload: object) -> None:
        """Write ``payload`` to ``target`` inside the cache, atomically (temp file + rename)."""
        self._prepare()
        target.parent.mkdir(parents=True, exist_ok=True)
        import tempfile  # only writers need it (a warm run writes nothing)

        handle, temp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                json.dump(payload, stream)
            os.replace(temp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise

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


class PlainFiles:
    """Files known to hold nothing the analysis reports (``api.worth_reading``),
    recognised by their stat signature.

    Most files of a project hold no pipeline loop; a warm run would read every one
    of them again only to find that out. Their (mtime, ctime, size, inode) is
    recorded instead, the way ruff's cache trusts modification times; the ctime
    makes the signature change on any write, even one that restores the mtime.
    One JSON file per cache directory, rewritten only when it changed. The record
    names the code that made it (the pre-filter is skewlsp's): other code, no record.
    """

    def __init__(self, cache: Cache, code: str) -> None:
        self._file = cache.directory / "plain.json"
        self._cache = cache
        self._code = code
        self._known: dict[str, list[int]] | None = None
        self._changed = False

    @staticmethod
    def signature(st: os.stat_result) -> list[int]:
        return [st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino]

    def _entries(self) -> dict[str, list[int]]:
        if self._known is None:
            try:
                with open(self._file, encoding="utf-8") as stream:
                    loaded = json.load(stream)
                ours = isinstance(loaded, dict) and loaded.get("code") == self._code
                files = loaded.get("files") if ours else None
                self._known = files if isinstance(files, dict) else {}
            except (OSError, ValueError):
                self._known = {}
        return self._known

    def known(self, path: str, st: os.stat_result) -> bool:
        return self._entries().get(path) == self.signature(st)

    def add(self, path: str, st: os.stat_result) -> None:
        entries = self._entries()
        signature = self.signature(st)
        if entries.get(path) != signature:
            entries[path] = signature
            self._changed = True

    def save(self) -> None:
        """Write the record if it changed; never raises (no cache is the fallback)."""
        if not self._changed or self._known is None:
            return
        try:
            self._cache.write_json(self._file, {"code": self._code, "files": self._known})
        except (OSError, TypeError, ValueError):
            return
        self._changed = False
