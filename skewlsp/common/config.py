"""Finding and validating skewlint settings (``[tool.skewlint]`` or ``skewlint.toml``).

This module is shared with the language server, so it knows nothing of the
command line: it turns a file or directory into a :class:`Settings`, or raises
:class:`SettingsError` naming the file, the key and what was expected, so that
every adapter can show the user the same one-line explanation.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from skewlsp.common.rules_page import template_problem
from skewlsp.contract import CODES, SEVERITY_RANK, Assumptions

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised only on 3.10
    import tomli as tomllib

CONFIG_FILENAMES = (".skewlint.toml", "skewlint.toml", "pyproject.toml")
SEVERITIES = tuple(SEVERITY_RANK)  # hint, information, warning, error
DEFAULT_EXCLUDE: tuple[str, ...] = (
    ".bzr",
    ".direnv",
    ".eggs",
    ".git",
    ".git-rewrite",
    ".hg",
    ".mypy_cache",
    ".nox",
    ".pants.d",
    ".pytest_cache",
    ".pytype",
    ".ruff_cache",
    ".skewlint_cache",
    ".svn",
    ".tox",
    ".venv",
    "__pycache__",
    "__pypackages__",
    "_build",
    "buck-out",
    "build",
    "dist",
    "node_modules",
    "site-packages",
    "venv",
)
KNOWN_KEYS = (
    "select",
    "ignore",
    "extend-select",
    "severity",
    "fail-on",
    "src",
    "exclude",
    "extend-exclude",
    "docs-url",
    "memory-planner",
    "environment",
    "argv",
    "variants",
)
# The compiler's memory planners (its PassContext's memory_planner); "pypto" is its default.
MEMORY_PLANNERS = ("pypto", "ptoas")


class SettingsError(Exception):
    """A configuration file (or option) is invalid: which file, which key, what was expected."""

    def __init__(self, file: str | Path | None, key: str | None, expected: str) -> None:
        self.file = str(file) if file is not None else None
        self.key = key
        self.expected = expected
        where = self.file or "command line"
        what = f"key `{key}`" if key else "file"
        super().__init__(f"{where}: invalid {what}: expected {expected}")


@dataclass(frozen=True)
class Settings:
    """The resolved settings for the files under one configuration.

    ``root`` is the directory the config file sits in (relative ``src`` and
    ``exclude`` entries are resolved against it; the cache lives under it).
    ``select`` of ``None`` means "everything".
    """

    root: Path
    config_path: Path | None = None
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    severity: Mapping[str, str] = field(default_factory=dict)
    fail_on: str = "warning"
    src: tuple[Path, ...] = ()
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    extend_exclude: tuple[str, ...] = ()
    # Where the codes' documentation is hosted (see skewlsp.common.rules_page); None: the
    # rules page installed with skewlsp.
    docs_url: str | None = None
    # The compiler's memory planner: under "ptoas", LowerPipelineToSlots may rotate a loop.
    memory_planner: str = "pypto"
    # The build the kernels are assumed imported under: the environment variables set
    # (every other one unset; the real environment is never read) and the arguments after
    # the program's name; ``variants``: a verdict one of their values decides is also
    # decided under the module's other declared values.
    environment: tuple[tuple[str, str], ...] = ()
    argv: tuple[str, ...] = ()
    variants: bool = True

    @property
    def all_excludes(self) -> tuple[str, ...]:
        return self.exclude + self.extend_exclude

    @property
    def assumptions(self) -> Assumptions:
        """What the analysis assumes of the environment and command line."""
        return Assumptions.of(self.environment, self.argv, self.variants)

    def with_overrides(
        self,
        *,
        select: Iterable[str] | None = None,
        ignore: Iterable[str] | None = None,
        extend_select: Iterable[str] | None = None,
        fail_on: str | None = None,
        exclude: Iterable[str] | None = None,
        extend_exclude: Iterable[str] | None = None,
        environment: Mapping[str, str] | None = None,
        argv: Iterable[str] | None = None,
    ) -> Settings:
        """Apply command-line options: ``select``, ``exclude`` and ``argv`` replace,
        ``ignore``, ``extend-select`` and ``extend-exclude`` add, and ``environment`` sets
        variables over the configuration's."""
        changes: dict[str, Any] = {}
        if environment is not None:
            changes["environment"] = tuple(
                sorted({**dict(self.environment), **_environment(None, dict(environment))}.items())
            )
        if argv is not None:
            changes["argv"] = _strings(None, "argv", list(argv))
        if exclude is not None:
            changes["exclude"] = _strings(None, "exclude", list(exclude))
        if extend_exclude is not None:
            extend = _strings(None, "extend-exclude", list(extend_exclude))
            changes["extend_exclude"] = self.extend_exclude + extend
        if select is not None:
            changes["select"] = _codes(None, "select", list(select))
        if ignore is not None:
            changes["ignore"] = self.ignore + _codes(None, "ignore", list(ignore))
        if extend_select is not None:
            extend = _codes(None, "extend-select", list(extend_select))
            changes["extend_select"] = self.extend_select + extend
        if fail_on is not None:
            changes["fail_on"] = _severity(None, "fail-on", fail_on)
        return replace(self, **changes)


def default_settings(root: Path | None = None) -> Settings:
    """Settings when no configuration file applies (``--isolated`` or none found)."""
    return Settings(root=(root or Path.cwd()).resolve())


def find_config(start: str | Path) -> Path | None:
    """The nearest config file at or above ``start`` (a file or directory), if any.

    ``pyproject.toml`` only counts when it has a ``[tool.skewlint]`` table, so a
    project's unrelated pyproject does not stop the search for a parent config.
    """
    here = Path(start).resolve()
    if not here.is_dir():
        here = here.parent
    for directory in (here, *here.parents):
        for name in CONFIG_FILENAMES:
            candidate = directory / name
            if candidate.is_file() and (name != "pyproject.toml" or _has_tool_table(candidate)):
                return candidate
    return None


def load_settings(path_or_dir: str | Path) -> Settings:
    """The settings that apply to a file or directory (nearest config upward, else defaults)."""
    config = find_config(path_or_dir)
    if config is None:
        start = Path(path_or_dir).resolve()
        return default_settings(start if start.is_dir() else start.parent)
    return load_config_file(config)


def load_config_file(path: str | Path) -> Settings:
    """Read and validate one config file; its directory becomes the settings' root."""
    config = Path(path).resolve()
    table = _read_table(config)
    return settings_from_table(table, config)


def settings_from_table(table: Mapping[str, Any], config: Path) -> Settings:
    """Validate a ``[tool.skewlint]``-shaped mapping; every error names the key and type."""
    for key in table:
        if key not in KNOWN_KEYS:
            raise SettingsError(config, key, "one of " + ", ".join(KNOWN_KEYS))
    root = config.parent
    settings = Settings(root=root, config_path=config)
    changes: dict[str, Any] = {}
    if "select" in table:
        changes["select"] = _codes(config, "select", table["select"])
    if "ignore" in table:
        changes["ignore"] = _codes(config, "ignore", table["ignore"])
    if "extend-select" in table:
        changes["extend_select"] = _codes(config, "extend-select", table["extend-select"])
    if "severity" in table:
        changes["severity"] = _severity_table(config, table["severity"])
    if "fail-on" in table:
        changes["fail_on"] = _severity(config, "fail-on", table["fail-on"])
    if "src" in table:
        entries = _strings(config, "src", table["src"])
        changes["src"] = tuple((root / entry).resolve() for entry in entries)
    if "exclude" in table:
        changes["exclude"] = _strings(config, "exclude", table["exclude"])
    if "extend-exclude" in table:
        changes["extend_exclude"] = _strings(config, "extend-exclude", table["extend-exclude"])
    changes.update(_outside_the_selection(config, table))
    return replace(settings, **changes)


def _outside_the_selection(config: Path, table: Mapping[str, Any]) -> dict[str, Any]:
    """The settings about links and the compiler, not about which codes are reported."""
    changes: dict[str, Any] = {}
    if "docs-url" in table:
        problem = template_problem(table["docs-url"])
        if problem is not None:
            raise SettingsError(config, "docs-url", problem)
        changes["docs_url"] = table["docs-url"]
    if "memory-planner" in table:
        planner = table["memory-planner"]
        if planner not in MEMORY_PLANNERS:
            raise SettingsError(config, "memory-planner", 'one of "pypto", "ptoas"')
        changes["memory_planner"] = planner
    if "environment" in table:
        changes["environment"] = tuple(sorted(_environment(config, table["environment"]).items()))
    if "argv" in table:
        changes["argv"] = _strings(config, "argv", table["argv"])
    if "variants" in table:
        if not isinstance(table["variants"], bool):
            raise SettingsError(config, "variants", f"true or false, got {table['variants']!r}")
        changes["variants"] = table["variants"]
    return changes


def environment_problem(name: str) -> str | None:
    """Why ``name`` cannot be an environment variable's name (None: it can)."""
    if not name:
        return "a variable name, got an empty one"
    if "=" in name or "\0" in name:
        return f"a variable name without `=` or NUL, got {name!r}"
    return None


def _environment(config: Path | None, value: Any) -> dict[str, str]:
    """``{NAME = "value", ...}``: the variables the kernels are assumed imported with."""
    key = "environment"
    if not isinstance(value, Mapping):
        raise SettingsError(config, key, 'a table of NAME = "value" (e.g. { MODE = "fast" })')
    for name, text in value.items():
        problem = environment_problem(name)
        if problem is not None:
            raise SettingsError(config, key, problem)
        if not isinstance(text, str) or "\0" in text:
            raise SettingsError(
                config,
                f"{key}.{name}",
                f'a string (the environment holds text: write {name} = "{text}"), got {text!r}',
            )
    return dict(value)


def is_code_selector(text: str) -> bool:
    """``True`` for a known code, a prefix of one (``SKW02``) or ``ALL``."""
    if text == "ALL":
        return True
    return any(code.startswith(text) for code in CODES) and text.startswith("SKW")


def _read_table(config: Path) -> Mapping[str, Any]:
    try:
        with config.open("rb") as handle:
            data = tomllib.load(handle)
    except OSError as error:
        raise SettingsError(config, None, f"a readable file ({error.strerror})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise SettingsError(config, None, f"valid TOML ({error})") from None
    if config.name == "pyproject.toml":
        table = data.get("tool", {}).get("skewlint", {})
        if not isinstance(table, dict):
            raise SettingsError(config, "tool.skewlint", "a table")
        return table
    return data


def _has_tool_table(pyproject: Path) -> bool:
    try:
        with pyproject.open("rb") as handle:
            data = tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        # A broken pyproject that mentions skewlint is surely meant for us: load it
        # so the user sees the parse error instead of silently getting defaults.
        try:
            return "[tool.skewlint" in pyproject.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return False
    tool = data.get("tool")
    return isinstance(tool, dict) and "skewlint" in tool


def _strings(config: Path | None, key: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise SettingsError(config, key, "a list of strings")
    return tuple(value)


def _codes(config: Path | None, key: str, value: Any) -> tuple[str, ...]:
    entries = _strings(config, key, value)
    for entry in entries:
        if not is_code_selector(entry):
            raise SettingsError(
                config, key, f"a reason code or code prefix such as SKW02 or ALL, got {entry!r}"
            )
    return entries


def _severity(config: Path | None, key: str, value: Any) -> str:
    if not isinstance(value, str) or value not in SEVERITIES:
        raise SettingsError(config, key, f"one of {', '.join(SEVERITIES)}, got {value!r}")
    return value


def _severity_table(config: Path, value: Any) -> dict[str, str]:
    if not isinstance(value, dict):
        raise SettingsError(config, "severity", "a table of code = severity")
    result: dict[str, str] = {}
    for code, level in value.items():
        if not is_code_selector(code) or code == "ALL":
            raise SettingsError(config, f"severity.{code}", "a reason code or code prefix")
        result[code] = _severity(config, f"severity.{code}", level)
    return result
