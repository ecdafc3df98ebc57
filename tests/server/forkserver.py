"""``python -m skewlsp`` for the end-to-end tests, forked from one process that has imported it.

Every end-to-end test still talks to a server of its own over stdio pipes: a new
process, fresh state, its own environment and working directory, ``main()`` run
from the start. What is shared is only the import: about 0.7 s of CPU per
server, most of it lsprotocol building its ~560 attrs classes, and 0.25 s more
of the analysis's modules at the first analysis, paid once per test process
instead of once per test (well over a hundred servers in the default run).
The real ``python -m skewlsp`` is still started end to end by the tests that
are about the process (tests/server/test_lifecycle.py, test_neovim.py,
tests/test_security.py and the hostile-client fuzzing).

How: ``serve()`` runs in a process started once (``Forkserver``), imports the
server's modules and waits on a Unix socket. The server command the client
starts is ``python forkserver.py connect SOCKET [ARGS]``, a process that imports
nothing heavy: it hands its stdin, stdout and stderr (the client's pipes) to the
fork server with SCM_RIGHTS, with its arguments, environment and working
directory. The fork server forks; the child puts the pipes on fds 0-2 and runs
``skewlsp.server.__main__.main(ARGS)``; its exit status goes back to the relay,
which exits with it (and passes a SIGTERM on to the server).

Where fork or fd passing is missing (not Linux or macOS), ``server_command``
is plain ``python -m skewlsp``.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import signal
import socket
import struct
import sys
from pathlib import Path

_HERE = Path(__file__).resolve()
_ROOT = _HERE.parents[2]
_STATUS = struct.Struct("!i")
WARM_MODULES = (
    "skewlsp.server.app",
    "skewlsp.server.stdio",
    "skewlsp.analysis.driver",
    "skewlsp.transform",
    "libcst.metadata",
)


def supported() -> bool:
    return hasattr(os, "fork") and hasattr(socket, "send_fds") and hasattr(socket, "AF_UNIX")


# -- the relay: the process the client starts ---------------------------------------------


def connect(path: str, args: list[str]) -> int:
    """Hand this process's stdio to the fork server; exit with the server's status."""
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.connect(path)
    request = json.dumps({"args": args, "cwd": os.getcwd(), "env": dict(os.environ)})
    socket.send_fds(conn, [request.encode("utf-8")], [0, 1, 2])
    # The server holds the pipes now: this process keeps none of them open, so the
    # client sees the end of the server's output when the server ends.
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    started = _receive(conn, _STATUS.size)
    if not started:
        return 1
    pid = _STATUS.unpack(started)[0]
    signal.signal(signal.SIGTERM, lambda *_: os.kill(pid, signal.SIGTERM))
    status = _receive(conn, _STATUS.size)
    return _STATUS.unpack(status)[0] if status else 1


def _receive(conn: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        if not chunk:
            return b""
        data += chunk
    return data


# -- the fork server ------------------------------------------------------------------------


def serve(path: str) -> None:
    """Import the server, then fork one child per connection until killed."""
    import threading

    from skewlsp.server import __main__ as entry

    # What main() imports, and what a server imports at its first analysis and preview.
    # Importing changes nothing a server then does (no module of skewlsp holds state); it
    # only moves the cost here. A module missing from the list costs time, not correctness.
    for name in WARM_MODULES:
        importlib.import_module(name)

    # Children are waited for (so that their CPU time counts in this process's, and in the
    # test run's); on SIGTERM the fork server waits for the last ones and ends.
    signal.signal(signal.SIGCHLD, lambda *_: _reap(os.WNOHANG))
    signal.signal(signal.SIGTERM, lambda *_: (_reap(0), os._exit(0)))
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    print("ready", flush=True)
    while True:
        conn, _ = listener.accept()
        message, fds, _, _ = socket.recv_fds(conn, 1 << 20, 3)
        request = json.loads(message)
        assert threading.active_count() == 1, "a fork server must hold no threads"
        pid = os.fork()
        if pid == 0:
            listener.close()
            _child(conn, fds, request, entry.main)
        for fd in fds:
            os.close(fd)
        conn.close()


def _reap(options: int) -> None:
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, options)[0]:
            pass


def _child(conn: socket.socket, fds: list[int], request: dict, main) -> None:
    code = 1
    try:
        for number in (signal.SIGCHLD, signal.SIGTERM):  # as in a process of its own
            signal.signal(number, signal.SIG_DFL)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        sys.argv = ["skewlsp", *request["args"]]
        conn.sendall(_STATUS.pack(os.getpid()))
        try:
            code = main(request["args"]) or 0
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else 1
    except BaseException:
        import traceback

        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        with contextlib.suppress(OSError):
            conn.sendall(_STATUS.pack(code))
        os._exit(code)


class Forkserver:
    """A fork server of this test process's own, and the command that reaches it."""

    def __init__(self) -> None:
        import atexit
        import subprocess
        import tempfile

        self.folder = tempfile.mkdtemp(prefix="skewlsp-forkserver-")
        self.path = os.path.join(self.folder, "socket")
        self.process = subprocess.Popen(
            [sys.executable, str(_HERE), "serve", self.path],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            cwd=_ROOT,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if line.strip() != b"ready":
            raise RuntimeError(f"the fork server did not start: {line!r}")
        atexit.register(self.close)

    def command(self, *args: str) -> list[str]:
        return [sys.executable, str(_HERE), "connect", self.path, *args]

    def close(self) -> None:
        import shutil
        import subprocess

        if self.process.returncode is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


if __name__ == "__main__":
    if sys.argv[1] == "serve":
        del sys.path[0]  # this folder: its modules must not shadow any the server imports
        serve(sys.argv[2])
    else:
        sys.exit(connect(sys.argv[2], sys.argv[3:]))
