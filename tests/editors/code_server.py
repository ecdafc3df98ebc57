"""A real VS Code for the end-to-end test: code-server with the packaged extension, on loopback.

What it needs beyond pip (code-server from npm, Debian's chromium) is installed by
``.ci/e2e-install``, which keeps code-server in a cache folder outside the clone
(``$SKEWLSP_E2E_CACHE``, default ``~/.cache/skewlsp-e2e``). Where each piece is:

- ``SKEWLSP_CODE_SERVER``: the code-server executable; else the newest complete install in
  the cache folder.
- ``SKEWLSP_CHROMIUM``: the browser; else ``chromium`` on PATH.
- ``SKEWLSP_VSIX``: the packaged extension (CI builds it once); else it is packaged here.

When one is missing the test is skipped, saying which and how to get it, unless
``SKEWLSP_REQUIRE_E2E=1`` (CI) makes that a failure. ``SKEWLSP_E2E_REFUSED`` carries the
line ``.ci/e2e-install`` wrote when a package registry refused: the skip then quotes it.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

LISTENING = re.compile(r"HTTP server listening on http://127\.0\.0\.1:(\d+)/")
START_TIMEOUT = 60.0


def cache_folder() -> Path:
    """Where ``.ci/e2e-install`` keeps code-server (the same rule as that script)."""
    if "SKEWLSP_E2E_CACHE" in os.environ:
        return Path(os.environ["SKEWLSP_E2E_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "skewlsp-e2e"


def find_code_server() -> Path | None:
    if "SKEWLSP_CODE_SERVER" in os.environ:
        given = Path(os.environ["SKEWLSP_CODE_SERVER"])
        return given if given.is_file() else None
    installs = sorted(
        (p for p in cache_folder().glob("code-server-*") if (p / ".complete").exists()),
        key=lambda p: [int(n) for n in re.findall(r"\d+", p.name)],
    )
    for install in reversed(installs):
        executable = install / "node_modules" / ".bin" / "code-server"
        if executable.exists():
            return executable
    return None


def find_chromium() -> Path | None:
    found = os.environ.get("SKEWLSP_CHROMIUM") or shutil.which("chromium")
    return Path(found) if found and Path(found).exists() else None


def missing_prerequisites() -> list[str]:
    """What the test cannot run without, each with where it comes from."""
    missing = []
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing.append("Playwright for Python (`pip install -e '.[test]'`)")
    if find_code_server() is None:
        missing.append(f"code-server (`.ci/e2e-install NOTE_FILE` installs it in {cache_folder()})")
    if find_chromium() is None:
        missing.append("chromium (Debian's package; `.ci/e2e-install NOTE_FILE` installs it)")
    return missing


def skip_or_fail_without_prerequisites() -> None:
    """Skip (or, under ``SKEWLSP_REQUIRE_E2E=1``, fail) saying what is missing and why."""
    missing = missing_prerequisites()
    if not missing:
        return
    reason = "the VS Code end-to-end test needs " + "; ".join(missing)
    refused = os.environ.get("SKEWLSP_E2E_REFUSED", "").strip()
    if refused:
        pytest.skip(f"{reason}: {refused}")
    if os.environ.get("SKEWLSP_REQUIRE_E2E") == "1":
        pytest.fail(f"SKEWLSP_REQUIRE_E2E=1: {reason}")
    pytest.skip(reason)


@dataclass(frozen=True)
class Layout:
    """The folders of one code-server run, all under one temporary folder."""

    root: Path

    @property
    def user_data(self) -> Path:
        return self.root / "user-data"

    @property
    def extensions(self) -> Path:
        return self.root / "extensions"

    @property
    def log(self) -> Path:
        return self.root / "code-server.log"

    @property
    def server_log(self) -> Path:
        return self.root / "skewlsp.log"

    @property
    def user_settings(self) -> Path:
        return self.user_data / "User" / "settings.json"

    @property
    def machine_settings(self) -> Path:
        """The Remote settings: code-server is a remote window, where VS Code takes
        machine-scoped settings (``skewlsp.interpreter``, ``skewlsp.path``) from here only."""
        return self.user_data / "Machine" / "settings.json"


def _closed_port() -> int:
    """A loopback port nothing listens on: the extension gallery, so nothing is fetched."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _environment(layout: Layout) -> dict[str, str]:
    gallery = f"http://127.0.0.1:{_closed_port()}"
    env = dict(os.environ)
    env.update(
        EXTENSIONS_GALLERY=json.dumps(
            {"serviceUrl": f"{gallery}/gallery", "itemUrl": f"{gallery}/item"}
        ),
        XDG_CONFIG_HOME=str(layout.root / "config"),
        XDG_DATA_HOME=str(layout.root / "data"),
    )
    return env


def settings(layout: Layout, python: str) -> dict[Path, str]:
    """A first-time user's settings files, plus what a test machine needs: which Python runs
    the server (in the Remote settings, see :attr:`Layout.machine_settings`), a server log
    kept as an artifact, and no telemetry, update checks or welcome page."""
    user = {
        "skewlsp.logFile": str(layout.server_log),
        "telemetry.telemetryLevel": "off",
        "update.mode": "none",
        "extensions.autoCheckUpdates": False,
        "extensions.autoUpdate": False,
        "workbench.startupEditor": "none",
        # VS Code for the web saves after a delay by default; the desktop VS Code most
        # authors use does not: a test's edits stay unsaved until it saves them.
        "files.autoSave": "off",
        "workbench.tips.enabled": False,
    }
    return {
        layout.machine_settings: json.dumps({"skewlsp.interpreter": [python]}, indent=2),
        layout.user_settings: json.dumps(user, indent=2),
    }


def write_settings(files: dict[Path, str]) -> None:
    """Write the settings files that differ from ``files`` (all of them, the first time)."""
    for path, text in files.items():
        if not path.exists() or path.read_text() != text:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)


@dataclass
class CodeServer:
    url: str
    layout: Layout
    process: subprocess.Popen[bytes]
    settings: dict[Path, str]  # the settings files as a test starts with them


@contextmanager
def running(
    executable: Path, vsix: Path, workspace: Path, layout: Layout, python: str
) -> Iterator[CodeServer]:
    """code-server on a free loopback port, with ``vsix`` installed, serving ``workspace``,
    its server run by ``python``."""
    files = settings(layout, python)
    write_settings(files)
    env = _environment(layout)
    (layout.root / "config.yaml").write_text("")
    common = [
        "--config",
        str(layout.root / "config.yaml"),
        "--user-data-dir",
        str(layout.user_data),
        "--extensions-dir",
        str(layout.extensions),
    ]
    install = subprocess.run(
        [str(executable), *common, "--install-extension", str(vsix)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert install.returncode == 0 and "successfully installed" in install.stdout, (
        install.stdout + install.stderr
    )
    with layout.log.open("wb") as log:
        process = subprocess.Popen(
            [
                str(executable),
                *common,
                "--bind-addr",
                "127.0.0.1:0",
                "--auth",
                "none",
                "--disable-telemetry",
                "--disable-update-check",
                "--disable-workspace-trust",
                "--disable-getting-started-override",
                str(workspace),
            ],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: the server and all it starts
        )
    try:
        port = _port(process, layout.log)
        yield CodeServer(f"http://127.0.0.1:{port}", layout, process, files)
    finally:
        _stop(process)


def _port(process: subprocess.Popen[bytes], log: Path) -> int:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        text = log.read_text(errors="replace")
        found = LISTENING.search(text)
        if found:
            return int(found.group(1))
        if process.poll() is not None:
            break
        time.sleep(0.1)
    raise AssertionError(f"code-server did not start; its log:\n{log.read_text(errors='replace')}")


def _stop(process: subprocess.Popen[bytes]) -> None:
    """End code-server and everything it started (extension host, skewlsp): its group."""
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(10)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        pass
    with contextlib.suppress(ProcessLookupError):  # what of the group outlived the request
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(10)
