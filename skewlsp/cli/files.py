"""Which files a run lints: explicit files, ``*.py``/``*.pyi`` under directories,
minus ``exclude``/``extend-exclude`` globs and whatever ``.gitignore`` ignores.

Exclude globs use gitignore syntax relative to the settings' root (a bare name
such as ``build`` matches at any depth). ``.gitignore`` files are read from the
enclosing git repository's root down to each directory, like git does; outside
a git repository they are not consulted. Explicit files are always linted unless
``force_exclude`` (what pre-commit needs, since it passes every staged file); a
directory named explicitly is walked even if ``.gitignore`` ignores it, as ruff does.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from skewlsp.common.config import Settings
from skewlsp.common.settings_resolver import SettingsResolver

if TYPE_CHECKING:  # pathspec is imported on first use: explicit files never need it
    import pathspec

SOURCE_SUFFIXES = (".py", ".pyi")

Rule = tuple[Path, "int | None"]  # a .gitignore's directory and a pattern's index in it


class PathError(Exception):
    """A path given on the command line cannot be linted (does not exist, ...)."""


@dataclass(frozen=True)
class Target:
    path: Path
    settings: Settings


def _relative(path: Path, base: Path) -> str | None:
    try:
        return path.relative_to(base).as_posix()
    except ValueError:
        return None


class ExcludeMatcher:
    """``exclude`` + ``extend-exclude`` of the Settings met in one discovery, each pattern
    list compiled once (a walk asks for every directory and file it meets)."""

    def __init__(self) -> None:
        self._compiled: dict[tuple[str, ...], pathspec.GitIgnoreSpec] = {}

    def excluded(self, path: Path, settings: Settings, is_dir: bool) -> bool:
        patterns = settings.all_excludes
        spec = self._compiled.get(patterns)
        if spec is None:
            import pathspec

            spec = self._compiled[patterns] = pathspec.GitIgnoreSpec.from_lines(patterns)
        relative = _relative(path, settings.root) or path.name
        return spec.match_file(relative + "/" if is_dir else relative)


class GitIgnore:
    """The ``.gitignore`` files (and ``.git/info/exclude``) that govern a path."""

    def __init__(self) -> None:
        self._specs: dict[Path, pathspec.GitIgnoreSpec | None] = {}
        self._roots: dict[Path, Path | None] = {}

    def _git_root(self, directory: Path) -> Path | None:
        if directory not in self._roots:
            root = None
            for candidate in (directory, *directory.parents):
                if (candidate / ".git").exists():
                    root = candidate
                    break
            self._roots[directory] = root
        return self._roots[directory]

    def _spec(self, directory: Path, root: Path) -> pathspec.GitIgnoreSpec | None:
        if directory not in self._specs:
            lines: list[str] = []
            sources = [directory / ".gitignore"]
            if directory == root:
                sources.insert(0, root / ".git" / "info" / "exclude")
            for source in sources:
                try:
                    lines += source.read_text(encoding="utf-8", errors="replace").splitlines()
                except OSError:
                    continue
            spec = None
            if lines:
                import pathspec

                spec = pathspec.GitIgnoreSpec.from_lines(lines)
            self._specs[directory] = spec
        return self._specs[directory]

    def ignored(self, path: Path, is_dir: bool, inherited: Rule | None = None) -> bool:
        """Whether .gitignore ignores ``path`` by a rule other than ``inherited``."""
        rule = self.rule(path, is_dir)
        return rule is not None and rule != inherited

    def rule(self, path: Path, is_dir: bool) -> Rule | None:
        """The (.gitignore directory, pattern index) that ignores ``path``; None if not ignored."""
        root = self._git_root(path.parent)
        if root is None:
            return None
        chain = [path.parent, *path.parent.parents]
        chain = list(reversed(chain[: chain.index(root) + 1]))
        deciding: Rule | None = None
        for directory in chain:  # deeper .gitignore files override shallower ones
            spec = self._spec(directory, root)
            if spec is None:
                continue
            relative = path.relative_to(directory).as_posix() + ("/" if is_dir else "")
            result = spec.check_file(relative)
            if result.include is not None:
                deciding = (directory, result.index) if result.include else None
        return deciding


def rebase_patterns(patterns: Sequence[str], cwd: Path, root: Path) -> tuple[str, ...]:
    """Command-line exclude patterns, written relative to ``cwd``, made relative to ``root``.

    Patterns in configuration files are relative to the file's directory (the settings'
    root); on the command line a path pattern such as ``gen/*.py`` means the one under the
    working directory, as in ruff. Patterns without a slash but a trailing one (``build``,
    ``gen/``, ``*.pyi``) match at any depth and are kept as they are, as are negations;
    a path pattern that points outside ``root`` can match nothing under it and is dropped.
    """
    rebased: list[str] = []
    for pattern in patterns:
        body = pattern.rstrip("/")
        if pattern.startswith("!") or "/" not in body:
            rebased.append(pattern)
            continue
        trailing = "/" if pattern.endswith("/") else ""
        absolute = Path(os.path.normpath(cwd / body.lstrip("/")))
        relative = _relative(absolute, root)
        if relative is None:
            continue
        rebased.append("/" + relative + trailing if relative != "." else "/")
    return tuple(rebased)


def discover(
    paths: Sequence[str],
    resolver: SettingsResolver,
    *,
    force_exclude: bool = False,
    walked: list[str] | None = None,
) -> list[Target]:
    """Expand the command line's paths to sorted, de-duplicated lint targets.

    Raises :class:`PathError` for a path that does not exist. Every directory
    listed is appended to ``walked`` (a replayed run checks they are unchanged).
    """
    gitignore = GitIgnore()
    excludes = ExcludeMatcher()
    real = _RealPaths()
    seen: dict[Path, Target] = {}
    for raw in paths:
        try:
            is_dir = stat.S_ISDIR(os.stat(raw).st_mode)
        except (OSError, ValueError):
            raise PathError(f"{raw}: no such file or directory") from None
        if is_dir:
            for found in _walk(Path(raw).resolve(), resolver, excludes, gitignore, walked):
                seen.setdefault(found.path, found)
            continue
        path = real.of_file(raw)
        settings = resolver.for_file(path)
        if force_exclude and (
            _excluded_with_parents(path, settings, excludes)
            or gitignore.ignored(path, is_dir=False)
        ):
            continue
        seen.setdefault(path, Target(path, settings))
    return [seen[p] for p in sorted(seen, key=_parts)]


def _parts(path: Path) -> tuple[str, ...]:
    """Path order (component by component), compared as tuples: faster than Path's own."""
    return path.parts


class _RealPaths:
    """``Path.resolve()`` for many files, resolving each directory once.

    A pre-commit hook or a benchmark passes hundreds of files from a few
    directories; resolving every component of every path is most of a warm
    run's file handling. A file that is itself a symlink is resolved in full.
    """

    def __init__(self) -> None:
        self._directories: dict[str, str] = {}

    def of_file(self, raw: str) -> Path:
        if os.path.islink(raw):
            return Path(raw).resolve()
        head, name = os.path.split(raw)  # no lexical "..": it must follow symlinks
        directory = self._directories.get(head)
        if directory is None:
            directory = self._directories[head] = os.path.realpath(head or os.curdir)
        return Path(directory, name)


def _excluded_with_parents(path: Path, settings: Settings, excludes: ExcludeMatcher) -> bool:
    if excludes.excluded(path, settings, is_dir=False):
        return True
    return any(
        excludes.excluded(parent, settings, is_dir=True)
        for parent in path.parents
        if parent != settings.root and settings.root in parent.parents
    )


def _walk(
    top: Path,
    resolver: SettingsResolver,
    excludes: ExcludeMatcher,
    gitignore: GitIgnore,
    walked: list[str] | None,
) -> Iterator[Target]:
    # A directory named on the command line is linted even if .gitignore ignores it
    # (like an explicit file, and as ruff does); inside it every other rule applies.
    # pathspec matches "dir/" for everything below dir too, so the rule that ignores
    # ``top`` is the one its contents would inherit.
    inherited = gitignore.rule(top, is_dir=True)
    for directory, dirnames, filenames in os.walk(top, onerror=None):
        if walked is not None:
            walked.append(directory)
        here = Path(directory)
        settings = resolver.for_path(here)
        kept = []
        for name in sorted(dirnames):
            child = here / name
            if child.is_symlink():
                continue  # avoid cycles and linting outside the tree
            if excludes.excluded(child, settings, is_dir=True):
                continue
            if gitignore.ignored(child, is_dir=True, inherited=inherited):
                continue
            kept.append(name)
        dirnames[:] = kept
        for name in sorted(filenames):
            if not name.endswith(SOURCE_SUFFIXES):
                continue
            child = here / name
            if excludes.excluded(child, settings, is_dir=False):
                continue
            if gitignore.ignored(child, is_dir=False, inherited=inherited):
                continue
            yield Target(child, settings)
