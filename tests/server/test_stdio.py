"""The hardened stdio transport: absurd lengths are refused, unreadable bodies answered."""

from __future__ import annotations

import asyncio
import io
import json

from skewlsp.server.stdio import MAX_BODY_BYTES, GuardedReader, parse_error_reply


def test_an_absurd_content_length_reads_as_a_refused_body_instead_of_allocating() -> None:
    async def read() -> bytes:
        reader = GuardedReader(io.BytesIO(b"{}"))
        return await reader.readexactly(MAX_BODY_BYTES + 1)

    assert asyncio.run(read()) == b"\x00"


def test_an_unreadable_body_is_answered_with_parse_error_and_id_null() -> None:
    from pygls.io_ import StdoutWriter

    class Fake:
        class protocol:  # noqa: N801 - mimics the server attribute
            writer = StdoutWriter(io.BytesIO())

    out = Fake.protocol.writer._stdout
    try:
        json.loads(b"{not json")
    except ValueError as error:
        parse_error_reply(Fake(), error)  # type: ignore[arg-type]
    header, body = out.getvalue().split(b"\r\n\r\n", 1)
    assert header.startswith(b"Content-Length: ")
    reply = json.loads(body)
    assert reply["id"] is None and reply["error"]["code"] == -32700
