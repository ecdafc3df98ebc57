"""A deliberately dumb JSON-RPC client over the server's stdin/stdout, able to send broken bytes.

Only pipes (no network). Every wait has a deadline; a reader thread collects
messages so a test can send a storm and then look for one answer by id.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

TIMEOUT = 30.0  # generous: a loaded CI machine must not fail a test by being slow


def frame(payload: bytes, *, length: int | None = None) -> bytes:
    size = len(payload) if length is None else length
    return b"Content-Length: " + str(size).encode() + b"\r\n\r\n" + payload


def encode(message: dict[str, Any]) -> bytes:
    return frame(json.dumps(message).encode("utf-8"))


class RawServer:
    """``python -m skewlsp`` with a raw byte pipe on each side."""

    def __init__(self, cwd: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "skewlsp"],
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        self.messages: queue.Queue[dict[str, Any]] = queue.Queue()
        self.seen: list[dict[str, Any]] = []
        self.stderr = b""
        self._next_id = 1000
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._drain_stderr, daemon=True).start()

    # -- wire ---------------------------------------------------------------------------

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    return
                line = line.strip()
                if not line:
                    break
                name, _, value = line.partition(b":")
                if name.lower() == b"content-length":
                    length = int(value)
            if length is None:
                continue
            body = out.read(length)
            with contextlib.suppress(ValueError):
                self.messages.put(json.loads(body))

    def _drain_stderr(self) -> None:
        err = self.proc.stderr
        assert err is not None
        for chunk in iter(lambda: err.read(4096), b""):
            self.stderr = (self.stderr + chunk)[-20_000:]

    def send_bytes(self, data: bytes) -> None:
        stdin = self.proc.stdin
        assert stdin is not None
        stdin.write(data)
        stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        self.send_bytes(encode(message))

    def notify(self, method: str, params: Any = None) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method: str, params: Any = None) -> int:
        self._next_id += 1
        self.send({"jsonrpc": "2.0", "id": self._next_id, "method": method, "params": params})
        return self._next_id

    def wait_for(self, msg_id: int | str, timeout: float = TIMEOUT) -> dict[str, Any]:
        """The response with ``msg_id`` (server-to-client requests are answered with null)."""
        for message in self.seen:
            if message.get("id") == msg_id and "method" not in message:
                return message
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                message = self.messages.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                break
            self.seen.append(message)
            if "method" in message and "id" in message:  # e.g. client/registerCapability
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
                continue
            if message.get("id") == msg_id:
                return message
        raise AssertionError(
            f"no answer to {msg_id!r} within {timeout} s; "
            f"server {'alive' if self.proc.poll() is None else 'exited ' + str(self.proc.returncode)}"
            f"; stderr tail:\n{self.stderr[-3000:].decode('utf-8', 'replace')}"
        )

    def call(self, method: str, params: Any = None, timeout: float = TIMEOUT) -> dict[str, Any]:
        return self.wait_for(self.request(method, params), timeout)

    # -- LSP conveniences ---------------------------------------------------------------

    def initialize(self, root: Path) -> dict[str, Any]:
        answer = self.call(
            "initialize",
            {"processId": None, "rootUri": root.as_uri(), "capabilities": {}},
        )
        self.notify("initialized", {})
        return answer

    def open(self, uri: str, text: str, version: int = 1) -> None:
        self.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "python", "version": version, "text": text}},
        )

    def hover(self, uri: str, line: int, character: int) -> dict[str, Any]:
        return self.call(
            "textDocument/hover",
            {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}},
        )

    def rss_kib(self) -> int:
        status = Path(f"/proc/{self.proc.pid}/status").read_text()
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise AssertionError("no VmRSS")

    def exit_code(self, timeout: float = 10) -> int:
        return self.proc.wait(timeout=timeout)

    def close(self) -> None:
        """Make sure the child is gone (it is ours: ended by its own id only)."""
        if self.proc.poll() is None:
            with contextlib.suppress(OSError):
                assert self.proc.stdin is not None
                self.proc.stdin.close()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
