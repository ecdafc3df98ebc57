"""Diagnostics: one per loop (plus hints), pushed or pulled, for the current version only."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from skewlsp.common.rules_page import RULES_PAGE
from tests.kernels import DEMOTED, FOR_LINE, SKEWED, STAGE3

pytestmark = pytest.mark.asyncio


def codes(diagnostics) -> list[str]:
    return sorted(str(d.code) for d in diagnostics)


async def test_a_skewed_loop_is_reported_as_information_on_the_loop_header(
    client: LanguageClient,
):
    session = client.session
    uri = session.open("kernel.py", SKEWED)
    (diagnostic,) = await session.diagnostics(uri, lambda d: bool(d))
    line = SKEWED.splitlines()[FOR_LINE]
    assert diagnostic.code == "SKW001"
    assert diagnostic.severity == types.DiagnosticSeverity.Information
    assert diagnostic.source == "skewlsp"
    # skewlsp has no website: the link opens the rules page installed with it
    assert diagnostic.code_description.href == RULES_PAGE.as_uri() + "#skw001"
    # From the `for` (where the CLI prints it) to the end of the `pl.pipeline(...)` call.
    assert diagnostic.range == types.Range(
        types.Position(FOR_LINE, session.column(line, line.index("for "))),
        types.Position(FOR_LINE, session.column(line, len(line) - 1)),
    )
    assert "2" in diagnostic.message
    lead, call = diagnostic.related_information
    assert lead.location.uri == uri
    assert lead.location.range.start.line == FOR_LINE + 3  # the tpush_to_aiv
    assert "lead" in lead.message
    assert (call.location.uri, call.message) == (uri, "the `pl.pipeline(...)` call")
    assert call.location.range.start == types.Position(
        FOR_LINE, session.column(line, line.index("pl.pipeline"))
    )


async def test_a_demoted_loop_points_at_the_statement_that_demoted_it(
    client: LanguageClient,
):
    session = client.session
    uri = session.open("demoted.py", DEMOTED)
    (diagnostic,) = await session.diagnostics(uri, lambda d: bool(d))
    assert diagnostic.code == "SKW020"
    # Information: the module has no cube loop, so its producer is in another file.
    assert diagnostic.severity == types.DiagnosticSeverity.Information
    related = {info.message.split(":")[0]: info for info in diagnostic.related_information}
    cause = [info for info in diagnostic.related_information if "why" in info.message]
    assert cause and cause[0].location.range.start.line == FOR_LINE + 1  # the tpop
    assert related


async def test_stage_3_adds_a_hint_on_the_stage_argument(client: LanguageClient):
    session = client.session
    uri = session.open("stage3.py", STAGE3)
    found = await session.diagnostics(uri, lambda d: len(d) == 2)
    assert codes(found) == ["SKW001", "SKW030"]
    hint = next(d for d in found if d.code == "SKW030")
    assert hint.severity == types.DiagnosticSeverity.Hint
    line = STAGE3.splitlines()[FOR_LINE]
    assert hint.range.start.character == session.column(line, line.index("stage=3"))


async def test_an_incremental_edit_updates_the_verdict(client: LanguageClient):
    session = client.session
    uri = session.open("kernel.py", SKEWED)
    await session.diagnostics(uri, lambda d: codes(d) == ["SKW001"])
    line = SKEWED.splitlines()[FOR_LINE]
    digit = line.index("stage=2") + len("stage=")
    session.change(uri, (FOR_LINE, digit), (FOR_LINE, digit + 1), "1")
    found = await session.diagnostics(uri, lambda d: codes(d) == ["SKW024"])
    assert found[0].severity == types.DiagnosticSeverity.Warning


async def test_a_syntax_error_while_typing_keeps_the_last_good_loop_diagnostics(
    client: LanguageClient,
):
    session = client.session
    uri = session.open("kernel.py", SKEWED)
    await session.diagnostics(uri, lambda d: codes(d) == ["SKW001"])
    line = SKEWED.splitlines()[FOR_LINE]
    colon = len(line) - 1
    session.change(uri, (FOR_LINE, colon), (FOR_LINE, colon + 1), "")  # delete the ':'
    found = await session.diagnostics(uri, lambda d: "SKW900" in codes(d))
    assert codes(found) == ["SKW001", "SKW900"]
    error = next(d for d in found if d.code == "SKW900")
    assert error.severity == types.DiagnosticSeverity.Error
    session.change(uri, (FOR_LINE, colon), (FOR_LINE, colon), ":")  # typed back
    await session.diagnostics(uri, lambda d: codes(d) == ["SKW001"])


async def test_non_ascii_text_in_the_header_shifts_the_range_end_by_code_units(
    client: LanguageClient,
):
    session = client.session
    text = SKEWED.replace("for i in", "for 𝑖 in")  # U+1D456: 2 UTF-16 units, 4 UTF-8 bytes
    uri = session.open("astral.py", text)
    (diagnostic,) = await session.diagnostics(uri, lambda d: bool(d))
    line = text.splitlines()[FOR_LINE]
    end = len(line) - 1  # the `:` after the call, in code points
    assert diagnostic.range.start.character == line.index("for ")  # ASCII before it
    assert diagnostic.range.end.character == session.column(line, end)
    assert diagnostic.range.end.character > end


@pytest.mark.init_options({"debounce": 400})
async def test_only_the_current_version_is_published(client: LanguageClient):
    session = client.session
    if session.pulls:
        pytest.skip("pull clients ask for the version they have; nothing is pushed")
    uri = session.open("kernel.py", SKEWED)
    await session.pushed(uri, lambda d: codes(d) == ["SKW001"])
    line = SKEWED.splitlines()[FOR_LINE]
    digit = line.index("stage=2") + len("stage=")
    for value in ("1", "3", "1"):  # three quick edits inside one debounce window
        last = session.change(uri, (FOR_LINE, digit), (FOR_LINE, digit + 1), value)
    await session.pushed(uri, lambda d: codes(d) == ["SKW024"])
    versions = [p.version for p in client.published if p.uri == uri]
    assert versions[-1] == last
    assert set(versions) <= {1, last}


async def test_closing_a_document_clears_its_pushed_diagnostics(client: LanguageClient):
    session = client.session
    if session.pulls:
        pytest.skip("pull clients drop diagnostics of closed documents themselves")
    uri = session.open("kernel.py", SKEWED)
    await session.pushed(uri, lambda d: bool(d))
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri))
    )
    await session.pushed(uri, lambda d: not d)


async def test_a_notification_of_several_changes_is_applied_in_order(client: LanguageClient):
    """CRLF text, an astral character before the edit, a position past the end: the server
    ends with the text the client has (its diagnostics match that text opened afresh)."""
    session = client.session
    text = SKEWED.replace("for i in", "for 𝑖 in").replace("\n", "\r\n")
    uri = session.open("edited.py", text)
    await session.diagnostics(uri, lambda d: codes(d) == ["SKW001"])
    line = text.split("\r\n")[FOR_LINE]
    digit = session.column(line, line.index("stage=2") + len("stage="))
    changes = [
        ((0, 0), (0, 0), "# 😋 retuned\r\n"),  # every later line moves down one
        ((FOR_LINE + 1, digit), (FOR_LINE + 1, digit + 1), "1"),  # so the header is here now
        ((999, 0), (999, 5), "# end\r\n"),  # past the end: appended
    ]
    session.versions[uri] += 1
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(version=session.versions[uri], uri=uri),
            [
                types.TextDocumentContentChangePartial(
                    range=types.Range(types.Position(*start), types.Position(*end)), text=new
                )
                for start, end, new in changes
            ],
        )
    )
    edited = await session.diagnostics(uri, lambda d: codes(d) == ["SKW024"])
    final = "# 😋 retuned\r\n" + text.replace("stage=2", "stage=1") + "# end\r\n"
    fresh = await session.diagnostics(
        session.open("expected.py", final), lambda d: codes(d) == ["SKW024"]
    )
    assert [d.range for d in edited] == [d.range for d in fresh]
    assert edited[0].range.end == types.Position(FOR_LINE + 1, session.column(line, len(line) - 1))


async def test_typing_and_deleting_a_suppression_comment_hides_and_shows_the_loop(
    client: LanguageClient,
):
    """The server knows, edit by edit, whether any suppression comment is left to honour."""
    session = client.session
    uri = session.open("suppressed.py", DEMOTED)
    await session.diagnostics(uri, lambda d: codes(d) == ["SKW020"])
    end = len(DEMOTED.splitlines()[FOR_LINE])
    comment = "  # skewlint: ignore[SKW020]"
    for k, char in enumerate(comment):  # typed one key at a time
        session.change(uri, (FOR_LINE, end + k), (FOR_LINE, end + k), char)
    await session.diagnostics(uri, lambda d: codes(d) == [])
    session.change(uri, (FOR_LINE, end + 4), (FOR_LINE, end + 5), "")  # "skewlint" -> "kewlint"
    await session.diagnostics(uri, lambda d: codes(d) == ["SKW020"])


MEM_GATE = Path(__file__).resolve().parents[1] / "fixtures" / "memory" / "models" / "mem_gate"


def open_in_package(session, package: Path, name: str) -> str:
    """Open ``package``'s module ``name`` with its sibling modules on disk next to it (the
    modules its imports resolve to); its uri."""
    for module in sorted(package.glob("*.py")):
        if module.name != name:
            session.path_uri(module.name, module.read_text(encoding="utf-8"))
    return session.open(name, (package / name).read_text(encoding="utf-8"))


async def test_a_driver_that_sizes_a_helper_s_scope_past_vec_gets_the_error_at_its_call(
    client: LanguageClient,
):
    # mem_gate/prefill.py: no pipeline loop; it sets config.TOKENS = 48, then its kernel
    # calls the layer helper, which calls the gate's; pypto e2d0f78ae stops the compile
    # in AllocateMemoryAddr on the gate's pad scope (196608 B of 188416 B)
    session = client.session
    uri = open_in_package(session, MEM_GATE, "prefill.py")
    (diagnostic,) = await session.diagnostics(uri, lambda d: bool(d))
    assert (diagnostic.code, diagnostic.severity) == ("SKW081", types.DiagnosticSeverity.Error)
    assert diagnostic.range == types.Range(types.Position(21, 11), types.Position(21, 14))
    assert diagnostic.message.startswith(
        "the InCore scope of `gate` from `gate` (its line 20) inlined here through `moe`: "
    )
    hover = await session.hover(uri, 21, 12)
    assert hover is not None and "196608 B" in str(hover.contents)


MEM_MOE = MEM_GATE.parent / "mem_moe"


async def test_a_helper_s_copy_the_open_file_sizes_is_a_warning_at_the_call_with_no_preview(
    client: LanguageClient,
):
    # mem_moe/prefill.py sets config.TOKENS = 48, which scale.py's helper reads: the copy
    # `prefill_scaled` compiles keeps 1 of 2 buffers (pypto e2d0f78ae: PH-MR-001). The CLI
    # lists it at the call; so does the editor, as a warning, not a hint.
    session = client.session
    uri = open_in_package(session, MEM_MOE, "prefill.py")
    found = await session.diagnostics(uri, lambda d: len(d) >= 2)
    at_call = {str(d.code): d for d in found if d.range.start.line == 18}
    assert {code: d.severity for code, d in at_call.items()} == {
        "SKW011": types.DiagnosticSeverity.Hint,  # (the loop's verdict: replicated)
        "SKW080": types.DiagnosticSeverity.Warning,
    }
    assert at_call["SKW080"].message.startswith(
        "the loop of `scale_rows` from `scale` (its line 15) inlined here: PH-MR-001"
    )
    hover = await session.hover(uri, 18, 14)
    assert hover is not None and "49152 B" in str(hover.contents)
    # the loop is in scale.py: its lens here explains the code, it opens no preview
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(types.TextDocumentIdentifier(uri))
    )
    (lens,) = [lens for lens in lenses or [] if lens.range.start.line == 18]
    assert lens.command is not None and "Preview" not in lens.command.title
    # no preview or fix there (they would be the helper's, in scale.py): a suppression,
    # whose comment goes on the call's line
    actions = {a.title: a for a in await session.actions(uri, 18)}
    assert sorted(actions) == ["Suppress SKW011 for this loop", "Suppress SKW080 for this loop"]
    resolved = await client.code_action_resolve_async(actions["Suppress SKW080 for this loop"])
    assert resolved.edit is not None
    changes = resolved.edit.changes or {}
    edits = [*changes.get(uri, [])]
    for change in resolved.edit.document_changes or ():
        edits += change.edits  # type: ignore[union-attr]
    (edit,) = edits
    assert edit.range.start.line == 18 and "ignore[SKW080]" in edit.new_text
