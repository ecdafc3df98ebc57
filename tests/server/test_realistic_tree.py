"""The language server end to end on a kernel tree laid out like a real model repository:
diagnostics, hovers, code actions and previews of every loop, through a real client."""

from __future__ import annotations

import shutil

import pytest
from pytest_lsp import LanguageClient

from tests.kernels import EXPECTED, LOWERED, REALISTIC, REWRITTEN
from tests.server.conftest import raw_request

pytestmark = pytest.mark.asyncio

FILES = sorted({e.file for e in EXPECTED})


def copy_tree(client: LanguageClient) -> dict[str, tuple[str, str]]:
    """The tree copied into the client's workspace; file name -> (uri, text)."""
    session = client.session
    shutil.copytree(REALISTIC, session.root, dirs_exist_ok=True)
    opened = {}
    for name in FILES:
        path = session.root / "models" / "tiny_llm" / name
        text = path.read_text()
        opened[name] = (session.open(str(path.relative_to(session.root)), text, write=False), text)
    return opened


async def test_every_loop_gets_its_diagnostic_hover_and_preview(client: LanguageClient):
    session = client.session
    opened = copy_tree(client)
    for name, (uri, text) in opened.items():
        expected = {e.line: e for e in EXPECTED if e.file == name}
        want = len(expected)
        found = await session.diagnostics(
            uri, lambda d, want=want: len({x.range.start.line for x in d}) >= want
        )
        by_line: dict[int, set[str]] = {}
        for diagnostic in found:
            by_line.setdefault(diagnostic.range.start.line + 1, set()).add(str(diagnostic.code))
        assert {line: by_line.get(line) for line in expected} == {
            line: {e.code, *e.hints} for line, e in expected.items()
        }
        lines = text.splitlines()
        for line, e in expected.items():
            column = session.column(lines[line - 1], lines[line - 1].index("for"))
            hover = await session.hover(uri, line - 1, column)
            assert hover is not None and e.code in hover.contents.value, (name, line)
            if e.code not in REWRITTEN | LOWERED:
                continue
            answer = await raw_request(
                client,
                "skewlsp/preview",
                {"textDocument": {"uri": uri}, "position": {"line": line - 1, "character": column}},
            )
            assert answer is not None, (name, line)
            if e.code in LOWERED:  # the main loop's copies, marked stage=1 (pass doc 28)
                assert "stage=2" in answer["original"], (name, line)
                assert "stage=2" not in answer["rewritten"], (name, line)
                assert "stage=1):" in answer["rewritten"], (name, line)
            else:
                assert "pl.pipeline(" not in answer["rewritten"], (name, line)
            assert answer["original"].lstrip().startswith("for "), (name, line)


async def test_a_rewritten_loop_offers_code_actions(client: LanguageClient):
    session = client.session
    opened = copy_tree(client)
    uri, _ = opened["decode.py"]
    await session.diagnostics(uri, lambda d: len(d) >= 10)
    demoted = next(e for e in EXPECTED if e.code == "SKW020")
    titles = [a.title for a in await session.actions(uri, demoted.line - 1)]
    assert titles, "no code action on a demoted loop"
    assert any("pl.range" in title for title in titles), titles
