"""Which :class:`Settings` apply to each path of a run (config discovery plus CLI overrides).

Discovery is per directory and memoised, so a run over many files reads each
config file once. ``--config`` pins one file for every path; ``--isolated``
ignores all config files.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from skewlsp.common.config import Settings, default_settings, find_config, load_config_file


class SettingsResolver:
    def __init__(
        self,
        *,
        config: Path | None = None,
        isolated: bool = False,
        overrides: Callable[[Settings], Settings] | None = None,
    ) -> None:
        self._config = config
        self._isolated = isolated
        self._overrides = overrides or (lambda s: s)
        self._by_config: dict[Path | None, Settings] = {}
        self._by_dir: dict[Path, Settings] = {}
        self._fixed: Settings | None = None
        if isolated:
            self._fixed = self._overrides(default_settings())
        elif config is not None:
            self._fixed = self._overrides(load_config_file(config))

    def for_path(self, path: Path) -> Settings:
        """Settings for a file or directory; raises SettingsError for an invalid config."""
        if self._fixed is not None:
            return self._fixed
        path = path.resolve() if path.exists() else path.absolute()
        return self._for_directory(path if path.is_dir() else path.parent)

    def for_file(self, path: Path) -> Settings:
        """Settings for ``path``, an already resolved file (no file-system calls when memoised)."""
        if self._fixed is not None:
            return self._fixed
        return self._for_directory(path.parent)

    def _for_directory(self, directory: Path) -> Settings:
        cached = self._by_dir.get(directory)
        if cached is not None:
            return cached
        found = find_config(directory)
        if found not in self._by_config:
            base = load_config_file(found) if found else default_settings(_project_root(directory))
            self._by_config[found] = self._overrides(base)
        self._by_dir[directory] = self._by_config[found]
        return self._by_dir[directory]


def _project_root(directory: Path) -> Path:
    """Without a config file the git root (else the current directory) anchors the settings."""
    for candidate in (directory, *directory.parents):
        if (candidate / ".git").exists():
            return candidate
    cwd = Path.cwd().resolve()
    return cwd if directory == cwd or cwd in directory.parents else directory
