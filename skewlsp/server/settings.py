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

from skewlsp.common.config import (
    Settings,
    SettingsError,
    default_settings,
    environment_problem,
    is_code_selector,
    load_settings,
)
from skewlsp.common.rules_page import template_problem
from skewlsp.common.select import Selection
from skewlsp.contract import SEVERITY_RANK, Assumptions

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
    docs_url: str | None = None  # a docs-url template (skewlsp.common.rules_page)
    # The build the kernels are assumed imported under, over the project's: variables set
    # (added to its ``environment``), the arguments (replacing its ``argv``), and whether
    # verdicts are decided under the other declared values too.
    environment: Mapping[str, str] | None = None
    argv: tuple[str, ...] | None = None
    variants: bool | None = None


@dataclass(frozen=True)
class EffectiveSettings:
    """Everything a document's features need: which codes, which severity, where imports live."""

    selection: Selection
    src: tuple[Path, ...]
    code_lens: bool
    inlay_hints: bool
    docs_url: str | None = None  # where the codes' links point; None: the installed page
    memory_planner: str = "pypto"  # the project's ([tool.skewlint] memory-planner)
    # The build the kernels are assumed imported under (the project's, the editor's over it).
    assumptions: Assumptions = Assumptions()


_INVALID = object()  # what a reader returns for a value it refuses


def _codes(value: Any) -> Any:
    if isinstance(value, list) and all(isinstance(v, str) and is_code_selector(v) for v in value):
        return tuple(value)
    return _INVALID


def _paths(value: Any) -> Any:
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    return _INVALID


def _names(value: Any) -> Any:
    if isinstance(value, (list, tuple)) and not value:  # an empty Lua table
        return ()
    return _paths(value)


def _switch(value: Any) -> Any:
    if isinstance(value, Mapping):  # VS Code style {"enable": bool}
        value = value.get("enable")
    return value if isinstance(value, bool) else _INVALID


def _milliseconds(value: Any) -> Any:
    ok = isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 10_000
    return value if ok else _INVALID


def _run_mode(value: Any) -> Any:
    return value if value in (ON_TYPE, ON_SAVE) else _INVALID


def _docs_template(value: Any) -> Any:
    return value if template_problem(value) is None else _INVALID


def _environment(value: Any) -> Any:
    if isinstance(value, (list, tuple)) and not value:  # an empty Lua table
        return {}
    if not isinstance(value, Mapping) or not all(
        isinstance(name, str)
        and environment_problem(name) is None
        and isinstance(text, str)
        and "\0" not in text
        for name, text in value.items()
    ):
        return _INVALID
    return dict(value)


def _flag(value: Any) -> Any:
    return value if isinstance(value, bool) else _INVALID


# setting -> (ClientOptions field, reader, what a valid value is)
_READERS: dict[str, tuple[str, Any, str]] = {
    "select": ("select", _codes, "a list of reason codes"),
    "ignore": ("ignore", _codes, "a list of reason codes"),
    "src": ("src", _paths, "a list of paths"),
    "codeLens": ("code_lens", _switch, "true or false"),
    "inlayHints": ("inlay_hints", _switch, "true or false"),
    "debounce": ("debounce_ms", _milliseconds, "milliseconds (0-10000)"),
    "run": ("run", _run_mode, f"{ON_TYPE!r} or {ON_SAVE!r}"),
    "clientCommands": ("client_commands", _names, "a list of names"),
    "docsUrl": ("docs_url", _docs_template, "a URL with {code} or {code_lower} in it"),
    "environment": ("environment", _environment, 'an object of "NAME": "value" strings'),
    "argv": ("argv", _names, "a list of strings"),
    "variants": ("variants", _flag, "true or false"),
}


# Settings only ``initializationOptions`` give: what the client implements does not change.
_INIT_ONLY = frozenset({"clientCommands"})


def parse_client_options(raw: Any) -> tuple[ClientOptions, list[str]]:
    """Validate the editor's settings object; returns the options and one problem per bad key.

    Accepts the flat object (``{"select": [...]}``) and the same nested under
    ``skewlsp`` (as some clients send ``didChangeConfiguration``); an empty Lua table
    arrives as ``[]`` and means no settings.
    """
    if isinstance(raw, (list, tuple)) and not raw:
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
    problems: list[str] = []
    options: dict[str, Any] = {}
    for key, (attr, read, valid) in _READERS.items():
        value = raw.get(key)
        if value is None:
            continue
        parsed = read(value)
        if parsed is _INVALID:
            problems.append(f"skewlsp.{key} must be {valid}; ignored {value!r}")
        else:
            options[attr] = parsed
    severity, severity_problems = _severity(raw.get("severity"))
    if severity is not None:
        options["severity"] = severity
    return ClientOptions(**options), problems + severity_problems


def _severity(value: Any) -> tuple[dict[str, str] | None, list[str]]:
    """``{code: level}``; bad entries are dropped, each with its problem."""
    if isinstance(value, (list, tuple)) and not value:  # an empty Lua table
        return {}, []
    if value is None:
        return None, []
    if not isinstance(value, Mapping):
        return None, [f"skewlsp.severity must be an object; ignored {value!r}"]
    good: dict[str, str] = {}
    problems = []
    for code, level in value.items():
        if isinstance(code, str) and is_code_selector(code) and level in SEVERITY_RANK:
            good[code] = level
        else:
            problems.append(f"skewlsp.severity.{code}: ignored {level!r}")
    return good, problems


def merge_client_options(base: ClientOptions, override: ClientOptions, raw: Any) -> ClientOptions:
    """``override`` wins for the keys present in ``raw`` (configuration over init options)."""
    if not isinstance(raw, Mapping):
        return base
    if isinstance(raw.get("skewlsp"), Mapping):
        raw = raw["skewlsp"]
    keys = {key: attr for key, (attr, _, _) in _READERS.items() if key not in _INIT_ONLY}
    keys["severity"] = "severity"
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
    docs = client.docs_url or project.docs_url
    return EffectiveSettings(
        selection,
        src,
        client.code_lens,
        client.inlay_hints,
        docs,
        project.memory_planner,
        _assumptions(project, client),
    )


def _assumptions(project: Settings, client: ClientOptions) -> Assumptions:
    """The project's build with the editor's settings over it: its variables added, its
    arguments and its ``variants`` switch replacing the project's."""
    environment = {**dict(project.environment), **(client.environment or {})}
    argv = client.argv if client.argv is not None else project.argv
    variants = client.variants if client.variants is not None else project.variants
    return Assumptions.of(environment, argv, variants)


def is_config_file(path: str) -> bool:
    return Path(path).name in CONFIG_FILE_NAMES
