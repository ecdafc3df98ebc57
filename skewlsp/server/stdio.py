"""The stdio transport, hardened against a broken or hostile client.

pygls reads ``Content-Length`` bytes as asked, so an absurd length ends the
process with an ``OverflowError``, and a body that is not JSON is dropped
without the ``-32700 Parse error`` answer JSON-RPC 2.0 asks for. This module
wraps pygls's reader and error hook; the message loop itself stays pygls's.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from threading import Event
from typing import Any, BinaryIO

from pygls.io_ import StdinAsyncReader, StdoutWriter, run_async
from pygls.lsp.server import LanguageServer

log = logging.getLogger(__name__)

# No sane message is this large (a 5 MB document is far below it).
MAX_BODY_BYTES = 256 * 1024 * 1024
# What a refused body reads as: not JSON, so the loop reports a parse error and goes on.
_REFUSED_BODY = b"\x00"


class GuardedReader(StdinAsyncReader):
    """A stdin reader that refuses to allocate an absurd body."""

    def readexactly(self, n: int) -> Any:
        if n > MAX_BODY_BYTES:
            log.error("refusing a %d-byte message body (Content-Length too large)", n)
            future: asyncio.Future[bytes] = self.loop.create_future()
            future.set_result(_REFUSED_BODY)
            return future
        return super().readexactly(n)


def parse_error_reply(server: LanguageServer, error: Exception) -> None:
    """Answer an unreadable message with ``-32700`` (id null), as JSON-RPC 2.0 says."""
    if not isinstance(error, ValueError):  # JSONDecodeError and UnicodeDecodeError
        return
    writer = getattr(server.protocol, "writer", None)
    if not isinstance(writer, StdoutWriter):
        return
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": None,
            "error": {"code": -32700, "message": f"Parse error: {str(error)[:200]}"},
        }
    ).encode("utf-8")
    try:
        writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    except (OSError, ValueError):
        log.warning("could not send a parse error reply")


def serve_stdio(
    server: LanguageServer, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None
) -> None:
    """pygls's asynchronous stdio loop with the guarded reader and parse-error replies."""
    server._stop_event = Event()
    reader = GuardedReader(stdin or sys.stdin.buffer, server.thread_pool)
    server.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))

    def on_error(error: Exception, source: Any) -> None:
        parse_error_reply(server, error)
        server.report_server_error(error, source)

    try:
        asyncio.run(
            run_async(
                stop_event=server._stop_event,
                reader=reader,
                protocol=server.protocol,
                logger=log,
                error_handler=on_error,
            )
        )
    except BrokenPipeError:
        log.error("the client closed the connection; shutting down")
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.shutdown()
