"""Every core by default, when pytest-xdist is there: ``-n auto`` unless the user said otherwise.

Not in ``addopts``: there it would make ``pytest -p no:xdist`` fail with "unrecognized
arguments: -n". Here it applies only when the xdist plugin is registered, the user gave no
``-n``, and this process is the controller (a worker must not start workers of its own).

Also the timings the VS Code end-to-end test measured, printed at the end of a run.
"""

from __future__ import annotations

from collections.abc import Generator

import pytest

# The prefix of the timings tests/editors records (tests/editors/conftest.py's ``timing``).
TIMING = "vscode timing: "


@pytest.hookimpl(wrapper=True)
def pytest_cmdline_main(config: pytest.Config) -> Generator[None, object, object]:
    # A wrapper runs before every plain implementation, xdist's tryfirst one included,
    # whatever the order of registration: xdist then turns "auto" into a number of workers
    # as if the user had typed ``-n auto``.
    wanted = config.pluginmanager.hasplugin("xdist") and not hasattr(config, "workerinput")
    if wanted and config.getoption("numprocesses", None) is None:
        config.option.numprocesses = "auto"
        # Tests marked xdist_group("...") run on one worker, in order: the VS Code
        # end-to-end tests share one window (tests/editors). Others are spread as before.
        if config.getoption("dist", "no") == "no":
            config.option.dist = "loadgroup"
    return (yield)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The timings the VS Code end-to-end test measured (tests/editors), at the end of the
    run: they travel with the test reports, so pytest-xdist workers' arrive here too."""
    timings = [
        (name.removeprefix(TIMING), value)
        for reports in terminalreporter.stats.values()
        for report in reports
        if getattr(report, "when", None) == "call"
        for name, value in getattr(report, "user_properties", ())
        if str(name).startswith(TIMING)
    ]
    if timings:
        terminalreporter.section("VS Code end-to-end timings")
        for name, seconds in timings:
            terminalreporter.write_line(f"{name}: {seconds:.2f} s")
