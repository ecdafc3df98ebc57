"""One VS Code window per module: code-server with the packaged extension, opened in
headless Chromium on a copy of examples/, and reset between tests.

A failing test leaves a screenshot of the window, what it said (notifications, status
bar, tabs) and the code-server and skewlsp logs in the artifacts folder:
``$SKEWLSP_E2E_ARTIFACTS``, default ``.artifacts/vscode-e2e`` in the checkout.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.conftest import TIMING
from tests.editors.code_server import (
    CodeServer,
    Layout,
    find_chromium,
    find_code_server,
    running,
    skip_or_fail_without_prerequisites,
    write_settings,
)
from tests.editors.workbench import Workbench
from tests.vsix import ROOT, package_vsix

EXAMPLES = ROOT / "examples"
# Nothing leaves the machine: every host name but loopback fails to resolve.
HOST_RULES = "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"
_REPORTS = pytest.StashKey[dict[str, pytest.TestReport]]()


def artifacts_folder() -> Path:
    return Path(os.environ.get("SKEWLSP_E2E_ARTIFACTS") or ROOT / ".artifacts" / "vscode-e2e")


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Iterator[pytest.TestReport]:
    """Keep each phase's report on the item, so a fixture can tell the test failed."""
    report = yield
    item.stash.setdefault(_REPORTS, {})[report.when] = report
    return report


@pytest.fixture(scope="module")
def prerequisites() -> None:
    skip_or_fail_without_prerequisites()


@pytest.fixture(scope="module")
def vsix(prerequisites: None, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The packaged extension: CI's (``SKEWLSP_VSIX``), else packaged now."""
    given = os.environ.get("SKEWLSP_VSIX")
    if given:
        assert Path(given).is_file(), f"SKEWLSP_VSIX={given}: no such file"
        return Path(given)
    return package_vsix(tmp_path_factory.mktemp("vsix") / "skewlsp.vsix")


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of kernels as a user opens it: a copy of examples/."""
    folder = tmp_path_factory.mktemp("workspace") / "kernels"
    shutil.copytree(EXAMPLES, folder)
    return folder


@pytest.fixture(scope="module")
def code_server(
    vsix: Path, workspace: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[CodeServer]:
    executable = find_code_server()
    assert executable is not None
    layout = Layout(tmp_path_factory.mktemp("code-server"))
    # The interpreter running these tests has skewlsp installed (pip install -e .).
    with running(executable, vsix, workspace, layout, sys.executable) as server:
        yield server


@pytest.fixture(scope="module")
def window(code_server: CodeServer, workspace: Path) -> Iterator[Workbench]:
    from playwright.sync_api import sync_playwright

    chromium = find_chromium()
    assert chromium is not None
    shutil.rmtree(artifacts_folder(), ignore_errors=True)  # only this run's failures in it
    artifacts_folder().mkdir(parents=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(chromium), args=[HOST_RULES])
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.set_default_timeout(30_000)
            page.goto(f"{code_server.url}/?folder={workspace}")
            bench = Workbench(page)
            explorer = page.locator(".explorer-folders-view")
            bench.wait_until(
                lambda: explorer.count() > 0 and "mixed_attention.py" in explorer.inner_text(),
                "the workbench with the kernels in the Explorer",
                timeout=120,
            )
            yield bench
        finally:
            browser.close()


@pytest.fixture(autouse=True)
def fresh_window(
    request: pytest.FixtureRequest, window: Workbench, code_server: CodeServer, workspace: Path
) -> Iterator[Workbench]:
    """Each test starts with no editor open and the kernels as examples/ has them; a
    failure keeps what the window showed."""
    window.press("Escape")
    window.close_all_editors()
    window.close_panel()
    for stray in set(workspace.iterdir()) - {workspace / p.name for p in EXAMPLES.iterdir()}:
        stray.unlink()
    for kernel in EXAMPLES.iterdir():
        if (workspace / kernel.name).read_bytes() != kernel.read_bytes():
            shutil.copy(kernel, workspace / kernel.name)
    write_settings(code_server.settings)
    yield window
    reports = request.node.stash.get(_REPORTS, {})
    if any(r.failed for r in reports.values()):
        _keep_artifacts(request.node.name, window, code_server)


def _keep_artifacts(test: str, window: Workbench, server: CodeServer) -> None:
    folder = artifacts_folder()
    name = re.sub(r"[^\w.-]+", "_", test)
    window.page.screenshot(path=str(folder / f"{name}.png"))
    (folder / f"{name}.txt").write_text(window.describe() + "\n")
    for log in (server.layout.log, server.layout.server_log):
        if log.exists():
            shutil.copy(log, folder / log.name)
    print(f"VS Code end-to-end artifacts of {test}: {folder}")


@pytest.fixture
def timing(request: pytest.FixtureRequest) -> Callable[[str, float], None]:
    """``timing(name, seconds)``: printed at the end of the run (``-m vscode`` or slow tier)."""

    def record(name: str, seconds: float) -> None:
        request.node.user_properties.append((f"{TIMING}{name}", round(seconds, 2)))

    return record
