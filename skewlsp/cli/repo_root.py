"""The directory that machine formats make paths relative to, whatever the working directory.

Code scanning (SARIF) and workflow annotations (github) resolve a path against
the checkout, not against the directory skewlint ran in; GitLab resolves Code
Quality paths against the project directory. So: ``$GITHUB_WORKSPACE`` when set,
else ``$CI_PROJECT_DIR`` (GitLab CI), else the git root above the working
directory, else the working directory itself.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

ROOT_VARIABLES = ("GITHUB_WORKSPACE", "CI_PROJECT_DIR")


def repository_root(cwd: Path | None = None, environ: Mapping[str, str] | None = None) -> Path:
    """The absolute, resolved root (see the module docstring for the order)."""
    env = os.environ if environ is None else environ
    here = (cwd or Path.cwd()).resolve()
    for variable in ROOT_VARIABLES:
        value = env.get(variable, "").strip()
        if value and Path(value).is_dir():
            return Path(value).resolve()
    for candidate in (here, *here.parents):
        if (candidate / ".git").exists():
            return candidate
    return here


def relative_to_root(filename: str, root: Path, cwd: Path) -> str | None:
    """``filename`` (as displayed: relative to ``cwd`` or absolute) as a POSIX path relative
    to ``root``; None when the file lies outside it (or is stdin)."""
    if filename == "-":
        return None
    path = Path(filename)
    absolute = path if path.is_absolute() else cwd / path
    try:
        return Path(os.path.normpath(absolute)).relative_to(root).as_posix()
    except ValueError:
        return None
