"""``skewlint``: the command-line adapter (arguments, files, runner, cache, formats, explain).

It sits on :mod:`skewlsp.api` and the shared layer :mod:`skewlsp.common`; the
language server never imports it. ``main`` is the console entry point.
"""

from __future__ import annotations

import sys


def main() -> None:
    """Run ``skewlint`` with ``sys.argv`` and exit with its status (0, 1 or 2)."""
    from .app import main as run
    from .batch_gc import tune_for_batch

    tune_for_batch()  # a process of its own: the batch settings cannot leak into a host
    sys.exit(run())
