"""Config discovery and validation: ``[tool.skewlint]``, ``skewlint.toml``, ``.skewlint.toml``."""

from __future__ import annotations

from pathlib import Path

import pytest

from skewlsp.common.config import (
    DEFAULT_EXCLUDE,
    SettingsError,
    find_config,
    load_config_file,
    load_settings,
)
from skewlsp.contract import Assumptions
from tests.cli.conftest import Run
from tests.cli.helpers import write
from tests.kernels import DEMOTED


def test_no_config_gives_defaults(tmp_path: Path) -> None:
    settings = load_settings(tmp_path)
    assert settings.config_path is None
    assert settings.select is None and settings.fail_on == "warning"
    assert settings.exclude == DEFAULT_EXCLUDE


def test_nearest_pyproject_with_a_tool_table_wins(tmp_path: Path) -> None:
    write(tmp_path, {
        "pyproject.toml": '[tool.skewlint]\nfail-on = "error"\n',
        "pkg/pyproject.toml": "[project]\nname = 'x'\n",  # no [tool.skewlint]: skipped
        "pkg/sub/k.py": "",
    })
    settings = load_settings(tmp_path / "pkg" / "sub" / "k.py")
    assert settings.config_path == (tmp_path / "pyproject.toml").resolve()
    assert settings.fail_on == "error"


def test_skewlint_toml_has_top_level_keys_and_beats_pyproject(tmp_path: Path) -> None:
    write(tmp_path, {
        "pyproject.toml": '[tool.skewlint]\nfail-on = "error"\n',
        "skewlint.toml": 'fail-on = "hint"\n',
    })
    assert find_config(tmp_path) == (tmp_path / "skewlint.toml").resolve()
    assert load_settings(tmp_path).fail_on == "hint"


def test_dot_skewlint_toml_is_found_first(tmp_path: Path) -> None:
    write(tmp_path, {".skewlint.toml": 'ignore = ["SKW0"]\n', "skewlint.toml": ""})
    assert load_settings(tmp_path).ignore == ("SKW0",)


def test_src_is_relative_to_the_config_file(tmp_path: Path) -> None:
    write(tmp_path, {"proj/skewlint.toml": 'src = ["lib", "."]\n'})
    settings = load_settings(tmp_path / "proj")
    assert settings.src == ((tmp_path / "proj" / "lib").resolve(), (tmp_path / "proj").resolve())
    assert settings.root == (tmp_path / "proj").resolve()


def test_all_keys_are_read(tmp_path: Path) -> None:
    write(tmp_path, {"skewlint.toml": (
        'select = ["SKW02"]\nextend-select = ["SKW001"]\nignore = ["SKW021"]\n'
        'fail-on = "information"\nexclude = ["gen"]\nextend-exclude = ["old/*.py"]\n'
        '[severity]\nSKW020 = "error"\n'
    )})
    s = load_settings(tmp_path)
    assert (s.select, s.extend_select, s.ignore) == (("SKW02",), ("SKW001",), ("SKW021",))
    assert s.severity == {"SKW020": "error"} and s.fail_on == "information"
    assert (s.exclude, s.extend_exclude) == (("gen",), ("old/*.py",))


@pytest.mark.parametrize(
    ("toml", "key", "expected"),
    [
        ('selec = ["SKW0"]\n', "selec", "one of select"),
        ('select = "SKW0"\n', "select", "a list of strings"),
        ('select = ["E501"]\n', "select", "reason code or code prefix"),
        ('fail-on = "fatal"\n', "fail-on", "one of hint, information, warning, error"),
        ('[severity]\nSKW020 = "loud"\n', "severity.SKW020", "one of hint"),
        ('[severity]\nXYZ = "error"\n', "severity.XYZ", "reason code"),
        ("src = [1]\n", "src", "a list of strings"),
        ("severity = 3\n", "severity", "a table"),
        ('environment = "MODE=fast"\n', "environment", 'a table of NAME = "value"'),
        ("[environment]\nWORKERS = 8\n", "environment.WORKERS", 'a string'),
        ('environment = { "A=B" = "c" }\n', "environment", "without `=`"),
        ('environment = { "" = "c" }\n', "environment", "got an empty one"),
        ('argv = "--variant flash"\n', "argv", "a list of strings"),
        ('variants = "yes"\n', "variants", "true or false"),
        ('memory-planner = "fast"\n', "memory-planner", 'one of "pypto", "ptoas"'),
        ('docs-url = "https://x"\n', "docs-url", "a URL with {code} or {code_lower} in it"),
    ],
)
def test_invalid_config_names_file_key_and_expectation(
    tmp_path: Path, toml: str, key: str, expected: str
) -> None:
    write(tmp_path, {"skewlint.toml": toml})
    with pytest.raises(SettingsError) as raised:
        load_config_file(tmp_path / "skewlint.toml")
    error = raised.value
    assert error.file == str((tmp_path / "skewlint.toml").resolve())
    assert error.key == key and expected in error.expected
    assert str(error).startswith(f"{error.file}: invalid key `{key}`: expected ")


def test_broken_toml_is_a_settings_error(tmp_path: Path) -> None:
    write(tmp_path, {"pyproject.toml": "[tool.skewlint\nselect = \n"})
    with pytest.raises(SettingsError, match="valid TOML"):
        load_settings(tmp_path)


def test_cli_reports_invalid_config_in_one_line_and_exits_2(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"pyproject.toml": '[tool.skewlint]\nfail_on = "error"\n', "k.py": DEMOTED})
    result = run("k.py")
    assert result.exit_code == 2
    assert result.err.count("\n") == 1
    assert "pyproject.toml: invalid key `fail_on`: expected one of select" in result.err


def test_config_option_uses_that_file_for_every_path(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"other.toml": 'ignore = ["SKW020"]\n', "k.py": DEMOTED})
    assert run("--config", "other.toml", "--output-format", "json", "k.py").json() == []


def test_isolated_ignores_config_files(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"skewlint.toml": 'ignore = ["SKW020"]\n', "k.py": DEMOTED})
    assert run("--output-format", "json", "k.py").json() == []
    assert run("--isolated", "--output-format", "json", "k.py").json()[0]["code"] == "SKW020"


def test_cli_select_replaces_and_ignore_adds(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"skewlint.toml": 'select = ["SKW001"]\n', "k.py": DEMOTED})
    assert run("--output-format", "json", "k.py").json() == []
    assert len(run("--select", "SKW02", "--output-format", "json", "k.py").json()) == 1
    result = run("--select", "SKW02", "--ignore", "SKW020", "--output-format", "json", "k.py")
    assert result.json() == []


def test_cli_rejects_an_unknown_code(run: Run, tmp_path: Path) -> None:
    result = run("--select", "E501", ".")
    assert result.exit_code == 2 and "command line: invalid key `select`" in result.err


def test_show_settings_prints_the_resolved_settings(run: Run, tmp_path: Path) -> None:
    write(tmp_path, {"pkg/skewlint.toml": 'ignore = ["SKW010"]\n', "pkg/k.py": ""})
    result = run("--show-settings", "--fail-on", "error", "pkg/k.py")
    assert result.exit_code == 0
    assert f"config file: {(tmp_path / 'pkg' / 'skewlint.toml').resolve()}" in result.out
    assert "ignore = ['SKW010']" in result.out and "fail-on = 'error'" in result.out
    assert "SKW010" not in result.out.split("enabled codes:")[1]


def test_the_build_the_kernels_are_assumed_imported_under_is_configured(tmp_path: Path) -> None:
    write(tmp_path, {
        "pyproject.toml": (
            "[tool.skewlint]\n"
            'argv = ["--variant", "flash"]\n'
            "variants = false\n"
            "[tool.skewlint.environment]\n"
            'MODE = "fast"\n'
            'DEEPSEEK_V4_VARIANT = "flash"\n'
        ),
    })
    settings = load_settings(tmp_path)
    assert settings.environment == (("DEEPSEEK_V4_VARIANT", "flash"), ("MODE", "fast"))
    assert (settings.argv, settings.variants) == (("--variant", "flash"), False)
    assert settings.assumptions == Assumptions(
        (("DEEPSEEK_V4_VARIANT", "flash"), ("MODE", "fast")), ("--variant", "flash"), False
    )


def test_by_default_the_environment_is_empty_with_no_arguments_and_variants_on(
    tmp_path: Path,
) -> None:
    assert load_settings(tmp_path).assumptions == Assumptions((), (), True)


def test_command_line_variables_are_set_over_the_config_s_and_argv_replaces_it(
    tmp_path: Path,
) -> None:
    write(tmp_path, {
        "skewlint.toml": 'argv = ["--tp", "4"]\n[environment]\nA = "1"\nB = "2"\n',
    })
    settings = load_settings(tmp_path).with_overrides(environment={"B": "3", "C": ""}, argv=[])
    assert settings.environment == (("A", "1"), ("B", "3"), ("C", ""))
    assert settings.argv == ()
