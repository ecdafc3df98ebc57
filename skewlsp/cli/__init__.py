"""``skewlint``: the command-line adapter (arguments, files, runner, cache, formats, explain).

It sits on :mod:`skewlsp.api` and the shared layer :mod:`skewlsp.common`; the
language server never imports it. ``main`` is the console entry point.
"""

from __future__ import annotations

import os
import sys

# (typing, with re and enum behind it, is a third of a replayed run's imports: the
# checkers read this name as typing's own)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NoReturn

_terminate = os._exit  # (a test that runs ``main`` inside its own process replaces it)


def main() -> None:
    """Run ``skewlint`` with ``sys.argv`` and exit with its status (0, 1 or 2).

    An identical earlier run whose inputs are all unchanged is replayed before the
    linter is even imported (:mod:`skewlsp.cli.replay`); otherwise the run is
    recorded for the next time (:mod:`skewlsp.cli.recording`).
    """
    from skewlsp.cli.replay import replay, run_key

    argv = sys.argv[1:]
    try:
        key: tuple[object, ...] | None = run_key(argv)
    except Exception:  # noqa: BLE001 - e.g. the working directory is gone: no replay
        key = None
    code = replay(argv, key) if key is not None else None
    if code is not None:
        sys.exit(code)
    from skewlsp.cli.app import main as run
    from skewlsp.cli.batch_gc import tune_for_batch
    from skewlsp.cli.recording import Recording

    tune_for_batch()  # a process of its own: the batch settings cannot leak into a host
    if key is None:
        _leave(run(argv))  # (the run says what is wrong, with its own message)
    recording = Recording(argv, key)
    with recording.capturing() as record:
        code = run(argv, record)
    recording.save(code)
    _leave(code)


def _leave(code: int) -> NoReturn:
    """End the process once its output is out, without tearing the interpreter down.

    Everything the run writes (reports, cache entries, the replay record) is written
    and closed by now; what is left is freeing every object the analysis kept and a
    last full collection: 0.25 s of a serial cold run over pypto-lib's kernels, and
    0.05 s of the parent's in a parallel one (mypy leaves the same way). If the output
    cannot be flushed (a closed pipe), Python's own exit reports it as usual.
    """
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:  # noqa: BLE001 - the ordinary exit says what went wrong
        sys.exit(code)
    _terminate(code)
