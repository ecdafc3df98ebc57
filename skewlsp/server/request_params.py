"""Reading what a request carries, and the error a handler answers when it cannot help.

The custom request and the commands arrive as plain JSON (dicts, or the namedtuples
pygls makes of untyped objects), not as lsprotocol classes: every handler reads them
through these few functions, so a wrong-shaped argument is one ``None`` to check
instead of an exception in the middle of a handler.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.uris import to_fs_path


class RequestFailed(JsonRpcException):
    """LSP ``RequestFailed``: the request was valid but cannot be answered (e.g. no rewrite)."""

    CODE = -32803


def field(obj: Any, *names: str) -> Any:
    """Read a field of a params object or of the plain dict a custom request arrives as."""
    for name in names:
        if obj is None:
            return None
        obj = obj.get(name) if isinstance(obj, Mapping) else getattr(obj, name, None)
    return obj


def plain(value: Any) -> Any:
    """pygls turns untyped JSON objects into namedtuples; give them back as dicts and lists."""
    if hasattr(value, "_asdict"):
        return {key: plain(item) for key, item in value._asdict().items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    return value


def file_path(uri: str) -> str | None:
    """The file a ``file:`` URI names; ``None`` for an untitled buffer or another scheme."""
    return to_fs_path(uri) if uri.startswith("file:") else None


def read_position(raw: Any) -> types.Position | None:
    """A ``{line, character}`` argument as a position (negatives clamped to 0), or ``None``."""
    line, character = field(raw, "line"), field(raw, "character")
    if not isinstance(line, int) or not isinstance(character, int):
        return None
    return types.Position(max(line, 0), max(character, 0))
