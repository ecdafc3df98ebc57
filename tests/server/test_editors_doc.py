"""docs/editors.md documents every setting the server reads and every command it runs."""

from __future__ import annotations

from pathlib import Path

from skewlsp.server.app import server
from skewlsp.server.commands import SERVER_COMMANDS
from skewlsp.server.preview_commands import PREVIEW_REQUEST
from skewlsp.server.settings import ClientOptions, parse_client_options

DOC = (Path(__file__).resolve().parents[2] / "docs" / "editors.md").read_text(encoding="utf-8")

# One valid value per setting key the server reads (checked against the parser below).
SETTINGS = {
    "select": ["SKW02"],
    "ignore": ["SKW010"],
    "severity": {"SKW001": "hint"},
    "src": ["lib"],
    "codeLens": False,
    "inlayHints": False,
    "debounce": 10,
    "run": "onSave",
    "clientCommands": ["skewlsp.previewLoop"],
    "docsUrl": "https://team.example/skewlint/{code}",
    "environment": {"DEEPSEEK_V4_VARIANT": "flash"},
    "argv": ["--variant", "flash"],
    "variants": False,
}


def test_every_setting_is_read_by_the_server_and_documented():
    for key, value in SETTINGS.items():
        options, problems = parse_client_options({key: value})
        assert problems == [], key
        assert options != ClientOptions(), f"{key} changed nothing"
        assert f"| `{key}` |" in DOC, f"{key} is not in docs/editors.md"


def test_every_command_and_the_custom_request_are_documented():
    registered = set(server.protocol.fm.commands)
    assert set(SERVER_COMMANDS) <= registered
    for command in SERVER_COMMANDS:
        assert f"| `{command}` |" in DOC, f"{command} is not in docs/editors.md"
    assert f"## Custom request `{PREVIEW_REQUEST}`" in DOC
