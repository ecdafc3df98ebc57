"""The language server under a broken or hostile client, over raw stdio pipes.

After every malformed message the server must still answer a valid request;
it answers errors where JSON-RPC/LSP say so; it ends on ``exit`` and on stdin
EOF; its memory stays bounded after storms of edits and cancellations. Every
loop here is bounded in count and every wait in time.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fuzz.harness import EXAMPLES
from tests.fuzz.rawlsp import RawServer, encode, frame

pytestmark = pytest.mark.slow  # fuzzing: the slow tier (pytest -m slow)

KERNEL = EXAMPLES["odd_trip.py"]
FOR_LINE = next(n for n, line in enumerate(KERNEL.splitlines()) if "pl.pipeline" in line)
MAX_RSS_KIB = 500 * 1024


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RawServer]:
    raw = RawServer(tmp_path)
    try:
        answer = raw.initialize(tmp_path)
        assert "result" in answer, answer
        yield raw
    finally:
        raw.close()


@pytest.fixture
def uri(server: RawServer, tmp_path: Path) -> str:
    path = tmp_path / "kernel.py"
    path.write_text(KERNEL, encoding="utf-8")
    server.open(path.as_uri(), KERNEL)
    return path.as_uri()


def assert_still_serving(server: RawServer, uri: str) -> None:
    answer = server.hover(uri, FOR_LINE, 20)
    assert "SKW002" in json.dumps(answer.get("result")), answer


# -- errors where the protocol asks for them ---------------------------------------------


def test_an_unknown_request_is_answered_with_method_not_found(server: RawServer, uri: str) -> None:
    answer = server.call("skewlsp/noSuchMethod", {"x": 1})
    assert answer["error"]["code"] == -32601
    assert_still_serving(server, uri)


def test_an_unknown_notification_is_ignored(server: RawServer, uri: str) -> None:
    server.notify("skewlsp/noSuchNotification", {"x": 1})
    server.notify("$/somethingOptional", None)
    assert_still_serving(server, uri)


def test_invalid_params_are_answered_with_invalid_params(server: RawServer, uri: str) -> None:
    for params in (
        {"textDocument": {"uri": uri}, "position": {"line": -5, "character": -1}},
        {"textDocument": {"uri": uri}, "position": {"line": "x", "character": None}},
        {"bogus": 1},
        [1, 2, 3],
    ):
        answer = server.call("textDocument/hover", params)
        assert answer["error"]["code"] == -32602, (params, answer)
        assert_still_serving(server, uri)


def test_a_custom_request_with_wrong_params_is_an_error_not_silence(
    server: RawServer, uri: str
) -> None:
    for params in (None, {}, {"textDocument": {"uri": 5}}, {"textDocument": {"uri": uri}}):
        answer = server.call("skewlsp/preview", params)
        assert "error" in answer, (params, answer)
    answer = server.call("workspace/executeCommand", {"command": "skewlsp.explain", "arguments": [7]})
    assert "error" in answer
    assert_still_serving(server, uri)


def test_a_body_that_is_not_json_is_answered_with_parse_error(server: RawServer, uri: str) -> None:
    server.send_bytes(frame(b'{"jsonrpc": "2.0", "id": 77, "method": '))
    assert_still_serving(server, uri)
    assert any(m.get("error", {}).get("code") == -32700 for m in server.seen), server.seen


# -- broken framing and bodies: the server keeps serving ----------------------------------

BROKEN_MESSAGES = {
    "not json": frame(b"{not json"),
    "truncated json": frame(b'{"jsonrpc": "2.0", "id": 9, "method": "textDocument/ho'),
    "json array": frame(b"[1, 2, 3]"),
    "json null": frame(b"null"),
    "json string": frame(b'"hello"'),
    "invalid utf-8 body": frame(b'{"jsonrpc": "2.0", "method": "\xff\xfe"}'),
    "response to nothing": encode({"jsonrpc": "2.0", "id": 424242, "result": {"x": 1}}),
    "error to nothing": encode({"jsonrpc": "2.0", "id": 424243, "error": {"code": 1, "message": "x"}}),
    "no method": encode({"jsonrpc": "2.0", "id": 31, "params": {}}),
    "method not a string": encode({"jsonrpc": "2.0", "id": 32, "method": 7}),
    "id an object": encode({"jsonrpc": "2.0", "id": {"a": 1}, "method": "textDocument/hover"}),
    "wrong jsonrpc version": encode({"jsonrpc": "1.0", "id": 33, "method": "shutdown"}),
    "content-length too short": frame(b'{"jsonrpc": "2.0", "method": "x"}', length=5)
    + b"\r\n",
    "garbage header line": b"Garbage-Without-Colon\r\n\r\n",
    "negative content-length": b"Content-Length: -1\r\n\r\n",
    "other header only": b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n",
    "lone surrogate in text": encode(
        {
            "jsonrpc": "2.0",
            "method": "textDocument/didOpen",
            "params": {
                "textDocument": {
                    "uri": "file:///tmp/surrogate.py",
                    "languageId": "python",
                    "version": 1,
                    "text": "# \ud800\n" + KERNEL,
                }
            },
        }
    ),
}


def test_after_each_broken_message_the_server_still_answers(server: RawServer, uri: str) -> None:
    for name, data in BROKEN_MESSAGES.items():
        server.send_bytes(data)
        assert server.proc.poll() is None, f"the server died after: {name}"
        try:
            assert_still_serving(server, uri)
        except AssertionError as error:
            raise AssertionError(f"no valid answer after: {name}") from error


def test_an_absurd_content_length_does_not_kill_the_server(server: RawServer, uri: str) -> None:
    server.send_bytes(b"Content-Length: 99999999999999999999\r\n\r\n{}")
    time.sleep(0.5)
    assert server.proc.poll() is None, server.stderr[-2000:].decode("utf-8", "replace")


# -- documents that do not exist, positions that do not exist -----------------------------


def test_requests_for_a_document_never_opened_answer_empty(server: RawServer, uri: str) -> None:
    never = "file:///nowhere/never-opened.py"
    position = {"line": 0, "character": 0}
    doc = {"textDocument": {"uri": never}}
    assert server.call("textDocument/hover", {**doc, "position": position})["result"] is None
    assert server.call("textDocument/codeLens", doc)["result"] in (None, [])
    whole = {"start": position, "end": {"line": 5, "character": 0}}
    assert server.call("textDocument/inlayHint", {**doc, "range": whole})["result"] in (None, [])
    actions = server.call(
        "textDocument/codeAction", {**doc, "range": whole, "context": {"diagnostics": []}}
    )
    assert actions["result"] in (None, [])
    assert "error" not in server.call("skewlsp/preview", {**doc, "position": position})
    server.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": never, "version": 2}, "contentChanges": [{"text": "x"}]},
    )
    server.notify("textDocument/didClose", doc)
    server.notify("textDocument/didSave", doc)
    assert_still_serving(server, uri)


def test_positions_past_the_end_are_clamped_to_the_line_or_answer_empty(server: RawServer, uri: str) -> None:
    # past the end of the for line: clamped to its end, the loop's hover (its pipeline call)
    hover = server.hover(uri, FOR_LINE, 10**6)["result"]
    assert "SKW002" in hover["contents"]["value"]
    assert hover["range"] == {
        "start": {"line": FOR_LINE, "character": 17}, "end": {"line": FOR_LINE, "character": 46}
    }
    for line, character in ((10**6, 0), (2**31 - 1, 2**31 - 1)):  # past the text: nothing
        assert server.hover(uri, line, character)["result"] is None
    for line, character in ((10**6, 0), (FOR_LINE, 10**6), (2**31 - 1, 2**31 - 1)):
        far = {"line": line, "character": character}
        answer = server.call(
            "textDocument/codeAction",
            {"textDocument": {"uri": uri}, "range": {"start": far, "end": far}, "context": {"diagnostics": []}},
        )
        assert "result" in answer, answer
        assert "error" not in server.call(
            "skewlsp/preview", {"textDocument": {"uri": uri}, "position": far}
        )
    assert_still_serving(server, uri)


def test_an_edit_range_past_the_end_does_not_break_the_document(
    server: RawServer, uri: str
) -> None:
    far = {"line": 10**6, "character": 10**6}
    server.notify(
        "textDocument/didChange",
        {
            "textDocument": {"uri": uri, "version": 2},
            "contentChanges": [{"range": {"start": far, "end": far}, "text": "\n# appended\n"}],
        },
    )
    assert_still_serving(server, uri)


# -- storms --------------------------------------------------------------------------------


def test_a_5_mb_did_change_is_absorbed_and_memory_stays_bounded(
    server: RawServer, uri: str
) -> None:
    padding = ("# " + "p" * 78 + "\n") * (5_000_000 // 81)
    server.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": KERNEL + padding}]},
    )
    assert_still_serving(server, uri)
    assert server.rss_kib() < MAX_RSS_KIB


def test_a_thousand_edits_in_a_second_then_a_hover_sees_the_last_text(
    server: RawServer, uri: str
) -> None:
    started = time.monotonic()
    for version in range(2, 1002):
        # Insert then delete a character at the end of the docstring's first line.
        insert = version % 2 == 0
        start = {"line": 0, "character": 3}
        end = {"line": 0, "character": 3 if insert else 4}
        server.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"range": {"start": start, "end": end}, "text": "x" if insert else ""}],
            },
        )
    assert time.monotonic() - started < 30
    assert_still_serving(server, uri)
    assert server.rss_kib() < MAX_RSS_KIB


def test_a_cancel_request_storm_is_harmless(server: RawServer, uri: str) -> None:
    pending = [
        server.request(
            "textDocument/hover",
            {"textDocument": {"uri": uri}, "position": {"line": FOR_LINE, "character": 20}},
        )
        for _ in range(50)
    ]
    for n in range(1000):
        target: int | str = pending[n % len(pending)] if n % 3 == 0 else n * 7919
        if n % 10 == 1:
            target = f"no-such-id-{n}"
        server.notify("$/cancelRequest", {"id": target})
    for bogus in (None, {}, {"id": None}, {"id": [1]}, "x"):
        server.notify("$/cancelRequest", bogus)
    for msg_id in pending:  # each is answered: a result, or RequestCancelled (-32800)
        answer = server.wait_for(msg_id)
        assert "result" in answer or answer["error"]["code"] == -32800, answer
    assert_still_serving(server, uri)
    assert server.rss_kib() < MAX_RSS_KIB


# -- ending --------------------------------------------------------------------------------


def test_shutdown_then_exit_ends_the_process_with_code_0(server: RawServer, uri: str) -> None:
    assert server.call("shutdown")["result"] is None
    server.notify("exit")
    assert server.exit_code(timeout=10) == 0


def test_exit_without_shutdown_ends_the_process(server: RawServer) -> None:
    server.notify("exit")
    assert server.exit_code(timeout=10) in (0, 1)  # LSP: 1 when shutdown was not requested


def test_stdin_closed_mid_request_ends_the_process(server: RawServer, uri: str) -> None:
    message = encode(
        {"jsonrpc": "2.0", "id": 5, "method": "textDocument/hover",
         "params": {"textDocument": {"uri": uri}, "position": {"line": FOR_LINE, "character": 1}}}
    )
    server.send_bytes(message[: len(message) // 2])
    assert server.proc.stdin is not None
    server.proc.stdin.close()
    assert server.exit_code(timeout=10) in (0, 1)


def test_stdin_closed_before_initialize_ends_the_process(tmp_path: Path) -> None:
    raw = RawServer(tmp_path)
    try:
        assert raw.proc.stdin is not None
        raw.proc.stdin.close()
        assert raw.exit_code(timeout=10) in (0, 1)
        assert b"Traceback" not in raw.stderr
    finally:
        raw.close()
