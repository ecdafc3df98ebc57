"""The user's cache directory, where skewlint and the server keep what they write.

Imports nothing but ``os`` and ``sys``: a replayed ``skewlint`` run reads its
record from there before anything else is imported.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # not typing's: importing typing costs more than a replayed run
if TYPE_CHECKING:
    from collections.abc import Mapping


def cache_home(environ: Mapping[str, str] | None = None) -> str:
    """``$XDG_CACHE_HOME`` (if absolute) or ``~/.cache``; ``~/Library/Caches`` on macOS,
    ``%LOCALAPPDATA%`` on Windows. Raises RuntimeError when there is no home directory
    (as ``Path.home()`` does): never a path relative to wherever the process runs."""
    env = os.environ if environ is None else environ
    if os.name == "nt" and env.get("LOCALAPPDATA"):
        return env["LOCALAPPDATA"]
    xdg = env.get("XDG_CACHE_HOME", "")
    if xdg and os.path.isabs(xdg):
        return xdg
    home = os.path.expanduser("~")
    if not os.path.isabs(home):
        raise RuntimeError("no home directory (HOME is not set and there is no passwd entry)")
    if sys.platform == "darwin":
        return os.path.join(home, "Library", "Caches")
    return os.path.join(home, ".cache")
