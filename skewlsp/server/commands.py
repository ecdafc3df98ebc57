"""The commands lenses and code actions carry, and who runs each one.

Every command the server puts in a lens or an action is one it executes itself
(listed in ``executeCommandProvider``), so a client that knows nothing of
skewlsp — Neovim, Helix, Emacs — can run all of them. A client that has a
richer version of its own (the VS Code extension's diff view) says so in
``initializationOptions.clientCommands``; only then does the server hand out the
client's command instead. Pure: names and argument shapes only.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from lsprotocol import types

# Executed by the server.
SHOW_PREVIEW = "skewlsp.showPreview"  # [uri, {line, character}]: writes and shows a preview file
SHOW_EXPLANATION = "skewlsp.showExplanation"  # [code]: writes and shows the code's explanation
EXPLAIN = "skewlsp.explain"  # [code] -> markdown (for clients that render it themselves)
LIST_CODES = "skewlsp.listCodes"  # [] -> [{code, title, severity, verdict}]
SERVER_COMMANDS = [SHOW_PREVIEW, SHOW_EXPLANATION, EXPLAIN, LIST_CODES]

# Implemented by a client that declares them; same arguments as their server twins.
CLIENT_PREVIEW = "skewlsp.previewLoop"  # the VS Code extension's diff view
CLIENT_EXPLANATION = "skewlsp.explainCode"  # the VS Code extension's markdown preview
_TWINS = {SHOW_PREVIEW: CLIENT_PREVIEW, SHOW_EXPLANATION: CLIENT_EXPLANATION}


@dataclass(frozen=True)
class CommandChoice:
    """Which command name to hand out for each server command, given what the client runs."""

    client_commands: frozenset[str] = frozenset()

    @classmethod
    def of(cls, declared: Collection[str]) -> CommandChoice:
        return cls(frozenset(declared))

    def name(self, command: str) -> str:
        twin = _TWINS.get(command)
        return twin if twin is not None and twin in self.client_commands else command

    def preview(self, title: str, uri: str, position: types.Position) -> types.Command:
        arguments: list[Any] = [uri, {"line": position.line, "character": position.character}]
        return types.Command(title=title, command=self.name(SHOW_PREVIEW), arguments=arguments)

    def explanation(self, title: str, code: str) -> types.Command:
        return types.Command(title=title, command=self.name(SHOW_EXPLANATION), arguments=[code])
