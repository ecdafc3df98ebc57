"""What the server should report for one file: project config plus editor overrides.

The project's ``[tool.skewlint]`` (or ``skewlint.toml``) is read with the CLI's
own loader (:mod:`skewlsp.common.config`) so both tools agree on every file; the
editor's settings (``initializationOptions`` and ``workspace/configuration``
section ``skewlsp``) are layered on top because they are the user's choice in
this session. Invalid editor values are dropped with a message rather than
failing the whole configuration.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from skewlsp.analysis.codes import SEVERITY_RANK
from skewlsp.common.config import (
    Settings,
    SettingsError,
    default_settings,
    is_code_selector,
    load_settings,
)
from skewlsp.common.select import Selection

DEFAULT_DEBOUNCE_MS = 150
ON_TYPE = "onType"
ON_SAVE = "onSave"
CONFIG_FILE_NAMES = ("pyproject.toml", "skewlint.toml", ".skewlint.toml")


@dataclass(frozen=True)
class ClientOptions:
    """The editor's ``skewlsp`` settings; ``None`` means "not set: use the project's"."""

    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] | None = None
    severity: Mapping[str, str] = field(default_factory=dict)
    src: tuple[str, ...] = ()
    code_lens: bool = True
    inlay_hints: bool = True
    debounce_ms: int = DEFAULT_DEBOUNCE_MS
    run: str = ON_TYPE  # "onType": lint as the user types (after the debounce); "onSave"
    client_commands: tuple[str, ...] = ()  # commands the client implements itself (init only)


@dataclass(frozen=True)
class EffectiveSettings:
    """Everything a document's features need: which codes, which severity, where imports live."""

    selection: Selection
    src: tuple[Path, ...]
    code_lens: bool
    inlay_hints: bool


def parse_client_options(raw: Any) -> tuple[ClientOptions, list[str]]:
    """Validate the editor's settings object; returns the options and one problem per bad key.

    Accepts the flat object (``{"select": [...]}``) and the same nested under
    ``skewlsp`` (as some clients send ``didChangeConfiguration``).
    """
    problems: list[str] = []
    if isinstance(raw, (list, tuple)) and not raw:  # an empty Lua table arrives as []
        return ClientOptions(), []
    if not isinstance(raw, Mapping):
        return ClientOptions(), (
            [] if raw is None else [f"settings must be an object, got {raw!r}"]
        )
    nested = raw.get("skewlsp")
    if isinstance(nested, Mapping):
        raw = nested
    elif isinstance(nested, (list, tuple)) and not nested:
        return ClientOptions(), []
    options: dict[str, Any] = {}
    for key in ("select", "ignore"):
        value = raw.get(key)
        if value is None:
            continue
        if isinstance(value, list) and all(
            isinstance(v, str) and is_code_selector(v) for v in value
        ):
            options[key] = tuple(value)
        else:
            problems.append(f"skewlsp.{key} must be a list of reason codes; ignored {value!r}")
    severity = raw.get("severity")
    if isinstance(severity, (list, tuple)) and not severity:  # an empty Lua table
        severity = {}
    if isinstance(severity, Mapping):
        good = {}
        for code, level in severity.items():
            if isinstance(code, str) and is_code_selector(code) and level in SEVERITY_RANK:
                good[code] = level
            else:
                problems.append(f"skewlsp.severity.{code}: ignored {level!r}")
        options["severity"] = good
    elif severity is not None:
        problems.append(f"skewlsp.severity must be an object; ignored {severity!r}")
    src = raw.get("src")
    if isinstance(src, list) and all(isinstance(v, str) for v in src):
        options["src"] = tuple(src)
    elif src is not None:
        problems.append(f"skewlsp.src must be a list of paths; ignored {src!r}")
    for key, attr in (("codeLens", "code_lens"), ("inlayHints", "inlay_hints")):
        value = raw.get(key)
        if isinstance(value, Mapping):  # VS Code style {"enable": bool}
            value = value.get("enable")
        if isinstance(value, bool):
            options[attr] = value
        elif value is not None:
            problems.append(f"skewlsp.{key} must be true or false; ignored {value!r}")
    debounce = raw.get("debounce")
    if isinstance(debounce, int) and not isinstance(debounce, bool) and 0 <= debounce <= 10_000:
        options["debounce_ms"] = debounce
    elif debounce is not None:
        problems.append(f"skewlsp.debounce must be milliseconds (0-10000); ignored {debounce!r}")
    run = raw.get("run")
    if run in (ON_TYPE, ON_SAVE):
        options["run"] = run
    elif run is not None:
        problems.append(f"skewlsp.run must be {ON_TYPE!r} or {ON_SAVE!r}; ignored {run!r}")
    commands = raw.get("clientCommands")
    if isinstance(commands, list) and all(isinstance(c, str) for c in commands):
        options["client_commands"] = tuple(commands)
    elif isinstance(commands, (list, tuple)) and not commands:
        options["client_commands"] = ()
    elif commands is not None:
        problems.append(f"skewlsp.clientCommands must be a list of names; ignored {commands!r}")
    return ClientOptions(**options), problems


def merge_client_options(base: ClientOptions, override: ClientOptions, raw: Any) -> ClientOptions:
    """``override`` wins for the keys present in ``raw`` (configuration over init options)."""
    if not isinstance(raw, Mapping):
        return base
    if isinstance(raw.get("skewlsp"), Mapping):
        raw = raw["skewlsp"]
    keys = {
        "select": "select",
        "ignore": "ignore",
        "severity": "severity",
        "src": "src",
        "codeLens": "code_lens",
        "inlayHints": "inlay_hints",
        "debounce": "debounce_ms",
        "run": "run",
    }
    changes = {
        attr: getattr(override, attr) for key, attr in keys.items() if raw.get(key) is not None
    }
    return replace(base, **changes)


class SettingsCache:
    """Project settings per directory, read once until a config file changes."""

    def __init__(self) -> None:
        self._by_dir: dict[Path, Settings] = {}
        self.errors: dict[str, str] = {}  # config path -> message, shown to the user once

    def clear(self) -> None:
        self._by_dir.clear()
        self.errors.clear()

    def project(self, path: str | None, root: str | None) -> Settings:
        """The CLI settings for ``path`` (or the workspace root for an unsaved buffer)."""
        start = Path(path).parent if path else Path(root) if root else None
        if start is None:
            return default_settings()
        if start in self._by_dir:
            return self._by_dir[start]
        try:
            settings = load_settings(start)
        except SettingsError as error:
            self.errors[error.file or str(start)] = str(error)
            settings = default_settings(start if start.is_dir() else None)
        except OSError:
            settings = default_settings()
        self._by_dir[start] = settings
        return settings


def effective(project: Settings, client: ClientOptions, root: str | None) -> EffectiveSettings:
    """Editor options over the project's: select replaces, ignore adds, severity merges."""
    selection = Selection.from_settings(project)
    if client.select is not None:
        selection = replace(selection, select=client.select)
    if client.ignore is not None:
        selection = replace(selection, ignore=selection.ignore + client.ignore)
    if client.severity:
        selection = replace(selection, severities={**selection.severities, **client.severity})
    base = Path(root) if root else project.root
    src = tuple(project.src) + tuple((base / entry).resolve() for entry in client.src)
    return EffectiveSettings(selection, src, client.code_lens, client.inlay_hints)


def is_config_file(path: str) -> bool:
    return Path(path).name in CONFIG_FILE_NAMES
