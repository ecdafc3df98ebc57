"""Every core by default, when pytest-xdist is there: ``-n auto`` unless the user said otherwise.

Not in ``addopts``: there it would make ``pytest -p no:xdist`` fail with "unrecognized
arguments: -n". Here it applies only when the xdist plugin is registered, the user gave no
``-n``, and this process is the controller (a worker must not start workers of its own).
"""

from __future__ import annotations

from collections.abc import Generator

import pytest


@pytest.hookimpl(wrapper=True)
def pytest_cmdline_main(config: pytest.Config) -> Generator[None, object, object]:
    # A wrapper runs before every plain implementation, xdist's tryfirst one included,
    # whatever the order of registration: xdist then turns "auto" into a number of workers
    # as if the user had typed ``-n auto``.
    wanted = config.pluginmanager.hasplugin("xdist") and not hasattr(config, "workerinput")
    if wanted and config.getoption("numprocesses", None) is None:
        config.option.numprocesses = "auto"
    return (yield)
