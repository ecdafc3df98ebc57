"""The versioned analysis cache: debounced, off the event loop, never publishing a stale version."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from skewlsp.server import documents
from skewlsp.server.documents import DocumentStore, Snapshot, WorkspaceResolver
from tests.kernels import DEMOTED, IMPORTED, SKEWED

URI = "file:///k.py"




class Editor:
    """Stands in for the pygls workspace: one document whose text and version we set."""

    def __init__(self) -> None:
        self.version = 1
        self.text = SKEWED
        self.ready: list[tuple[int | None, list[str]]] = []

    def snapshot(self, uri: str) -> Snapshot | None:
        return Snapshot(uri, self.version, self.text, None) if uri == URI else None

    def edit(self, text: str) -> None:
        self.version += 1
        self.text = text


class Workspace(WorkspaceResolver):
    """The modules on disk (``consts`` holds ``TRIP = 8``), recording each module asked for
    and the thread that asked; ``failing`` makes every read fail as a broken disk would."""

    def __init__(self, failing: bool = False) -> None:
        super().__init__({}, ())
        self.failing = failing
        self.asked: list[tuple[str, threading.Thread]] = []

    def __call__(self, module: str, level: int, importing_path: str | None) -> str | None:
        self.asked.append((module, threading.current_thread()))
        if self.failing:
            raise OSError(f"cannot read {module}")
        return "TRIP = 8\n" if module == "consts" else None


@pytest.fixture
def editor():
    return Editor()


@pytest.fixture
def workspaces() -> list[Workspace]:
    """Each resolver the store asked for: one per analysis it started."""
    return []


@pytest.fixture
def store(editor, workspaces):
    def resolver_for(snapshot: Snapshot) -> Workspace:
        workspaces.append(Workspace())
        return workspaces[-1]

    with ThreadPoolExecutor(1) as pool:
        yield DocumentStore(
            pool,
            editor.snapshot,
            resolver_for,
            lambda a: editor.ready.append((a.version, [r.code for r in a.reports])),
        )


@pytest.mark.asyncio
async def test_a_newer_edit_supersedes_a_pending_run(editor, store):
    store.schedule(URI, 0.05)
    editor.edit(DEMOTED)
    store.schedule(URI, 0.05)
    analysis = await store.get(URI)
    assert analysis.version == 2
    assert editor.ready == [(2, ["SKW020"])]


@pytest.mark.asyncio
async def test_results_are_cached_per_version(editor, store, workspaces):
    first = await store.get(URI)
    assert await store.get(URI) is first
    assert (len(workspaces), editor.ready) == (1, [(1, ["SKW001"])])  # analysed once
    store.invalidate_all()  # settings changed: analysed again
    again = await store.get(URI)
    assert again is not first
    assert (len(workspaces), editor.ready) == (2, [(1, ["SKW001"]), (1, ["SKW001"])])


@pytest.mark.asyncio
async def test_a_new_version_is_analysed_again(editor, store, workspaces):
    await store.get(URI)
    editor.edit(DEMOTED)
    assert [r.code for r in (await store.get(URI)).reports] == ["SKW020"]
    assert (len(workspaces), editor.ready) == (2, [(1, ["SKW001"]), (2, ["SKW020"])])


@pytest.mark.asyncio
async def test_analysis_runs_off_the_event_loop_thread(editor, store, workspaces):
    editor.text = IMPORTED
    analysis = await store.get(URI)
    assert [r.code for r in analysis.reports] == ["SKW001"]  # the trip was read: 8
    asked = workspaces[0].asked
    assert [module for module, _ in asked] == ["consts"]
    assert asked[0][1] is not threading.current_thread()  # (the test runs on the event loop)


@pytest.mark.asyncio
async def test_a_syntax_error_keeps_the_last_good_reports(editor, store):
    await store.get(URI)
    editor.edit(SKEWED.replace("stage=2):", "stage=2)"))
    analysis = await store.get(URI)
    assert analysis.syntax_error is not None and analysis.stale
    assert [r.code for r in analysis.reports] == ["SKW001"]


@pytest.mark.asyncio
async def test_an_import_the_workspace_fails_to_read_leaves_the_verdict_unknown(editor):
    editor.text = IMPORTED
    with ThreadPoolExecutor(1) as pool:
        store = DocumentStore(
            pool, editor.snapshot, lambda snap: Workspace(failing=True), lambda a: None
        )
        analysis = await store.get(URI)
    assert analysis.internal_error is None
    assert [(r.code, r.verdict) for r in analysis.reports] == [("SKW050", "unknown")]
    assert "`TRIP`" in analysis.reports[0].message


@pytest.mark.asyncio
async def test_unknown_documents_have_no_analysis(editor, store, workspaces):
    assert await store.get("file:///never.py") is None
    store.schedule("file:///never.py", 0)
    await asyncio.sleep(0.01)
    assert store.cached("file:///never.py") is None
    assert (workspaces, editor.ready) == ([], [])


def test_an_analysis_splits_its_source_the_lsp_way():
    snapshot = Snapshot(URI, 1, "a\x0cb\r\nc\r", None)
    analysis = documents.compute(snapshot, (1,), WorkspaceResolver({}, ()), None)
    assert analysis.lines == ["a\x0cb", "c", ""]


def test_an_analysis_may_suppress_only_when_its_text_names_the_linter():
    # Read off the text itself, once per analysed version: a snapshot is made three times
    # per edit (scheduling, starting, checking the result is current), and scanning a
    # 100 kB kernel for the mark each time was 0.2 ms of every edit.
    plain = documents.compute(Snapshot(URI, 1, SKEWED, None), (1,), WorkspaceResolver({}, ()), None)
    marked = SKEWED + "# skewlint: noqa\n"
    noqa = documents.compute(Snapshot(URI, 2, marked, None), (2,), WorkspaceResolver({}, ()), None)
    assert (plain.may_suppress, noqa.may_suppress) == (False, True)


def test_a_crashed_analysis_is_told_to_the_user_once_per_document():
    from lsprotocol import types

    from skewlsp.server.documents import Analysis
    from skewlsp.server.skew_server import SkewServer

    server = SkewServer()
    shown: list[types.ShowMessageParams] = []
    server.window_show_message = shown.append  # the outside world: the client's window
    server.pull_diagnostics = True  # nothing to publish in this test
    crashed = Analysis("file:///k.py", 3, ("k",), "x = 1\n", (), internal_error="ValueError: bug")
    server.on_ready(crashed)
    server.on_ready(crashed)
    assert [m.type for m in shown] == [types.MessageType.Error]
    assert "internal error while analysing file:///k.py: ValueError: bug" in shown[0].message


def test_a_helper_waiting_for_its_caller_is_decided_for_each_call_in_a_sibling_module():
    """helpers.py's attend_rows takes its trip from the caller: decode_steps.py, next to it,
    calls it twice, and the document gets one copy per call (named by file and line)."""
    from pathlib import Path

    package = Path(__file__).resolve().parents[1] / "fixtures" / "mixed" / "models" / "built_llm"
    helpers = package / "helpers.py"
    text = helpers.read_text()
    snapshot = Snapshot(helpers.as_uri(), 1, text, str(helpers))
    resolver = WorkspaceResolver({}, (package.parent,))
    analysis = documents.compute(snapshot, (1,), resolver, None)
    copies = [r for r in analysis.reports if r.span.line == 15]
    assert [(r.code, r.instance.call.line, Path(r.instance.call_path).name) for r in copies] == [
        ("SKW001", 18, "decode_steps.py"),
        ("SKW002", 19, "decode_steps.py"),
    ]


def test_a_helper_served_from_the_function_cache_still_gets_its_callers_copies():
    """The second analysis of the same text takes the helper's unit from the cache: the
    copies decided by its callers next door must not give way to the unknown verdict."""
    from pathlib import Path

    from skewlsp.analysis import UnitCache

    package = Path(__file__).resolve().parents[1] / "fixtures" / "mixed" / "models" / "built_llm"
    helpers = package / "helpers.py"
    snapshot = Snapshot(helpers.as_uri(), 1, helpers.read_text(), str(helpers))
    resolver = WorkspaceResolver({}, (package.parent,))
    cache = UnitCache()
    first = documents.compute(snapshot, (1,), resolver, None, cache)
    again = documents.compute(snapshot, (2,), resolver, None, cache)
    assert cache.hits > 0
    codes = [(r.span.line, r.code) for r in again.reports]
    assert codes == [(r.span.line, r.code) for r in first.reports]
    assert codes[:2] == [(15, "SKW001"), (15, "SKW002")]


def test_a_helper_that_asked_for_its_callers_depends_on_every_module_of_its_folder(tmp_path):
    """An unsaved caller next to the helper counts; any module of the folder, even one
    that did not exist yet, makes the helper's document a dependent."""
    from pathlib import Path

    package = Path(__file__).resolve().parents[1] / "fixtures" / "mixed" / "models" / "built_llm"
    for source in package.glob("*.py"):
        (tmp_path / source.name).write_text(source.read_text())
    helpers = tmp_path / "helpers.py"
    steps = tmp_path / "decode_steps.py"
    edited = steps.read_text().replace("attend_rows(q, k, o, 8)", "attend_rows(q, k, o, 1)")
    snapshot = Snapshot(helpers.as_uri(), 1, helpers.read_text(), str(helpers))
    resolver = WorkspaceResolver({str(steps): edited}, (tmp_path,))
    analysis = documents.compute(snapshot, (1,), resolver, None)
    copies = [r for r in analysis.reports if r.span.line == 15]
    assert [(r.code, r.instance.call.line) for r in copies] == [("SKW023", 18), ("SKW002", 19)]
    assert documents.folder_dependency(str(tmp_path)) in analysis.deps


def test_a_document_that_did_not_ask_for_callers_has_no_folder_dependency():
    from pathlib import Path

    kernel = Path(__file__).resolve().parents[1] / "fixtures" / "mixed" / "models" / "built_llm"
    path = kernel / "decode_steps.py"
    snapshot = Snapshot(path.as_uri(), 1, path.read_text(), str(path))
    analysis = documents.compute(snapshot, (1,), WorkspaceResolver({}, (kernel.parent,)), None)
    assert analysis.reports
    assert documents.folder_dependency(str(kernel)) not in analysis.deps
