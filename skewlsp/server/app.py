"""The language server as it runs: one :class:`SkewServer` with every handler registered.

The handlers are grouped by what they answer, each group registering its own
(so a feature's capability options sit next to its handler):

- :mod:`.lifecycle`: initialize, initialized, shutdown, the client's settings;
- :mod:`.document_events`: opened, changed, saved, closed and watched files,
  and pulled diagnostics (pushed ones come from :meth:`SkewServer.on_ready`);
- :mod:`.loop_annotations`: hovers, code lenses, inlay hints;
- :mod:`.code_action_requests`: code actions and their resolution;
- :mod:`.preview_commands`: the ``skewlsp/preview`` request and the server's commands.

The state they share, and the steps more than one takes, are :class:`SkewServer`'s
(:mod:`.skew_server`).
"""

from __future__ import annotations

from skewlsp.server import (
    code_action_requests,
    document_events,
    lifecycle,
    loop_annotations,
    preview_commands,
)
from skewlsp.server.skew_server import SkewServer


def build_server() -> SkewServer:
    """A server with every feature and command registered, ready to start."""
    built = SkewServer()
    lifecycle.register(built)
    document_events.register(built)
    loop_annotations.register(built)
    code_action_requests.register(built)
    preview_commands.register(built)
    return built


server = build_server()
