"""The server's preview of a replicated loop shows which buffer each copy's loads use, as
the CLI does (one preview path), end to end through a real client. The numbers are pypto
e2d0f78ae's for tests/fixtures/memory/models/mem_llm/short.py (its MemRefs after
MemoryReuse and AllocateMemoryAddr, recorded by benchmarks/compiler_check.py
--save-probe)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from pytest_lsp import LanguageClient

from tests.server.conftest import raw_request

pytestmark = pytest.mark.asyncio

MEM_LLM = Path(__file__).resolve().parents[1] / "fixtures" / "memory" / "models" / "mem_llm"

# What the preview document shows between the verdict's header and the lowered loop.
SHARED = (
    "# buffers of the loads on the vector (AIV) core (MemoryReuse, AllocateMemoryAddr):\n"
    "#   remainder copy 0: t in Vec buffer 0 (65536 B at offset 0)\n"
    "#   remainder copy 1: t in Vec buffer 1 (65536 B at offset 65536)\n"
    "#   remainder copy 2: t in Vec buffer 0 (65536 B at offset 0)\n"
    "#   remainder copies 0 and 2 share Vec buffer 0: their stages serialize\n"
    "#   offsets as the loads alone take the space; the function's other tiles (not"
    " modelled) move them\n"
    "# remainder copy 0: i = 0\n"
)


async def test_the_preview_document_names_the_buffer_of_each_copy(client: LanguageClient):
    session = client.session
    shutil.copytree(MEM_LLM, session.root / "mem_llm")
    path = session.root / "mem_llm" / "short.py"
    text = path.read_text()
    uri = session.open(str(path.relative_to(session.root)), text, write=False)
    await session.diagnostics(uri, lambda d: any(x.code == "SKW080" for x in d))
    answer = await raw_request(
        client,
        "skewlsp/preview",
        {"textDocument": {"uri": uri}, "position": {"line": 18, "character": 8}},
    )
    assert SHARED in answer["document"]
    # the same lines, indented like the loop, in the rewrite a diff view shows
    assert answer["rewritten"].startswith(
        "".join(f"        {line}\n" for line in SHARED.splitlines())
    )
    # read-only: the user's document is not edited
    assert client.applied_edits == []
