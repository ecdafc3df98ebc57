"""Editor settings layered over the project's [tool.skewlint]."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from skewlsp.contract import Assumptions
from skewlsp.server.settings import (
    ClientOptions,
    SettingsCache,
    effective,
    merge_client_options,
    parse_client_options,
)


def test_editor_options_are_validated_key_by_key():
    options, problems = parse_client_options(
        {
            "select": ["SKW02"],
            "ignore": "SKW001",
            "severity": {"SKW001": "loud"},
            "codeLens": {"enable": False},
            "inlayHints": False,
            "debounce": 50,
        }
    )
    assert options.select == ("SKW02",)
    assert options.ignore is None
    assert options.severity == {}
    assert options.code_lens is False and options.inlay_hints is False
    assert options.debounce_ms == 50
    assert len(problems) == 2


def test_each_refused_editor_setting_is_one_message_naming_it_and_what_it_must_be():
    options, problems = parse_client_options(
        {
            "debounce": 20000, "docsUrl": "https://x", "environment": {"A=B": "c"},
            "argv": "--x", "variants": "yes", "run": "never", "src": [1], "severity": 3,
        }
    )
    assert options == ClientOptions()
    assert problems == [
        "skewlsp.src must be a list of paths; ignored [1]",
        "skewlsp.debounce must be milliseconds (0-10000); ignored 20000",
        "skewlsp.run must be 'onType' or 'onSave'; ignored 'never'",
        "skewlsp.docsUrl must be a URL with {code} or {code_lower} in it; ignored 'https://x'",
        "skewlsp.environment must be an object of \"NAME\": \"value\" strings; ignored {'A=B': 'c'}",
        "skewlsp.argv must be a list of strings; ignored '--x'",
        "skewlsp.variants must be true or false; ignored 'yes'",
        "skewlsp.severity must be an object; ignored 3",
    ]


def test_options_nested_under_the_section_name_are_accepted():
    options, _ = parse_client_options({"skewlsp": {"ignore": ["SKW010"]}})
    assert options.ignore == ("SKW010",)


def test_an_empty_lua_table_arriving_as_a_list_is_empty_settings():
    assert parse_client_options([]) == (ClientOptions(), [])
    assert parse_client_options({"skewlsp": []}) == (ClientOptions(), [])
    options, problems = parse_client_options({"severity": [], "ignore": ["SKW010"]})
    assert problems == []
    assert options.severity == {} and options.ignore == ("SKW010",)
    assert merge_client_options(ClientOptions(ignore=("SKW010",)), ClientOptions(), []) == (
        ClientOptions(ignore=("SKW010",))
    )


def test_run_and_client_commands_are_read_and_checked():
    options, problems = parse_client_options(
        {"run": "onSave", "clientCommands": ["skewlsp.previewLoop"]}
    )
    assert problems == []
    assert options.run == "onSave"
    assert options.client_commands == ("skewlsp.previewLoop",)
    options, problems = parse_client_options({"run": "sometimes", "clientCommands": "x"})
    assert options.run == "onType" and options.client_commands == ()
    assert len(problems) == 2


def test_configuration_overrides_only_the_keys_it_sets():
    base, _ = parse_client_options({"ignore": ["SKW010"], "codeLens": False})
    raw = {"severity": {"SKW001": "hint"}}
    override, _ = parse_client_options(raw)
    merged = merge_client_options(base, override, raw)
    assert merged.ignore == ("SKW010",) and merged.code_lens is False
    assert merged.severity == {"SKW001": "hint"}


def test_configuration_changes_every_editor_setting_but_the_client_s_own_commands():
    base, _ = parse_client_options({"clientCommands": ["skewlsp.previewLoop"]})
    raw = {
        "select": ["SKW0"], "ignore": ["SKW010"], "src": ["lib"], "codeLens": False,
        "inlayHints": False, "debounce": 0, "run": "onSave", "docsUrl": "https://d/{code}",
        "environment": {"MODE": "fast"}, "argv": ["--x"], "variants": False,
        "clientCommands": [],
    }
    override, problems = parse_client_options(raw)
    assert problems == []
    merged = merge_client_options(base, override, raw)
    assert merged == replace(override, client_commands=("skewlsp.previewLoop",))


def test_project_settings_come_from_the_cli_loader_and_editor_options_layer_on_top(
    tmp_path: Path,
):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.skewlint]\nignore = ["SKW010"]\nseverity = { SKW001 = "warning" }\n'
    )
    project = SettingsCache().project(str(tmp_path / "k.py"), None)
    plain = effective(project, ClientOptions(), None).selection
    assert not plain.is_enabled("SKW010")
    assert plain.severity("SKW001") == "warning"
    layered = effective(
        project, ClientOptions(ignore=("SKW001",), severity={"SKW020": "error"}), None
    ).selection
    assert not layered.is_enabled("SKW001") and not layered.is_enabled("SKW010")
    assert layered.severity("SKW020") == "error"


def test_a_broken_config_falls_back_to_defaults_and_remembers_the_error(tmp_path: Path):
    (tmp_path / "skewlint.toml").write_text("select = 3\n")
    cache = SettingsCache()
    project = cache.project(str(tmp_path / "k.py"), None)
    assert project.select is None
    assert any("select" in message for message in cache.errors.values())


def test_the_editor_s_build_is_read_and_bad_values_are_dropped_one_by_one():
    options, problems = parse_client_options(
        {"environment": {"DUO_VARIANT": "lite"}, "argv": ["--tp", "4"], "variants": False}
    )
    assert options.environment == {"DUO_VARIANT": "lite"}
    assert (options.argv, options.variants) == (("--tp", "4"), False)
    assert problems == []
    bad, problems = parse_client_options(
        {"environment": {"WORKERS": 8}, "argv": "--tp 4", "variants": "yes"}
    )
    assert (bad.environment, bad.argv, bad.variants) == (None, None, None)
    assert [p.split(" must ")[0] for p in problems] == [
        "skewlsp.environment",
        "skewlsp.argv",
        "skewlsp.variants",
    ]


def test_the_editor_s_variables_are_set_over_the_project_s_and_its_argv_replaces_it(
    tmp_path: Path,
):
    (tmp_path / "skewlint.toml").write_text(
        'argv = ["--tp", "4"]\nvariants = false\n[environment]\nA = "1"\nB = "2"\n'
    )
    project = SettingsCache().project(str(tmp_path / "k.py"), None)
    assert effective(project, ClientOptions(), None).assumptions == Assumptions(
        (("A", "1"), ("B", "2")), ("--tp", "4"), False
    )
    editor = ClientOptions(environment={"B": "3"}, argv=(), variants=True)
    assert effective(project, editor, None).assumptions == Assumptions(
        (("A", "1"), ("B", "3")), (), True
    )


def test_the_server_never_reads_its_own_environment(monkeypatch, tmp_path: Path):
    monkeypatch.setenv("DUO_VARIANT", "lite")
    project = SettingsCache().project(str(tmp_path / "k.py"), None)
    assert effective(project, ClientOptions(), None).assumptions == Assumptions()
