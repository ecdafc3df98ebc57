"""Every user path of skewlsp over a directory of real kernels, in one summary line.

    python benchmarks/real_kernels.py DIR [--json]

Loops are found independently of skewlsp (the stdlib parser: every ``for`` whose
iterable is ``<name>.pipeline(...)``). Then, through the real entry points:

- lint: ``skewlint --output-format json --select ALL`` on DIR; a loop is *reported*
  when a diagnostic sits on its ``for`` line;
- CLI previews: ``skewlint preview FILE:LINE`` for every loop the lint calls skewed,
  demoted or lowered (exit 0 and a rewrite whose header is no longer the loop's
  ``pl.pipeline(..., stage=F)``), and the same loops' previews in ``skewlint --preview``
  over the whole tree;
- server: ``python -m skewlsp`` over stdio with a real LSP client (pygls); each file
  with loops is opened, and for each loop the diagnostics, a hover, the code actions
  and, for skewed, demoted and lowered loops, ``skewlsp/preview`` must answer; then every code
  lens's command is executed as a client that implements none of skewlsp's commands
  would (the server must show a document), and the file must be left unchanged.

Prints, for example:
``336 loops found, 336 reported, CLI previews 13/13 (--preview 13/13), server: diagnostics 336/336,
hovers 336/336, actions 336/336, previews 13/13, lens commands 336/336 (76 files, 44 s)``
and exits 1 when any loop is silent or any path failed, listing the failures.
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import json
import os
import subprocess
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

REWRITTEN = ("skewed", "demoted")
# Left loops the lowering passes rewrite (SKW010: stage=1 or unknown, nothing rewritten).
LOWERED = ("SKW011", "SKW012", "SKW013", "SKW014", "SKW015", "SKW016", "SKW017")


def previewed(item: dict) -> bool:
    """Whether a loop's report promises a preview: skewed, demoted, or lowered; not an
    imported helper's copy listed at its call (its loop is in another file, where the
    preview is: ``contract.has_preview``)."""
    if (item.get("instance") or {}).get("helper_loop"):
        return False
    return item.get("verdict") in REWRITTEN or item.get("code") in LOWERED


@dataclass
class Tally:
    found: list[tuple[str, int]] = field(default_factory=list)
    reported: dict[tuple[str, int], dict] = field(default_factory=dict)
    cli_previews: list[bool] = field(default_factory=list)
    full_previews: list[bool] = field(default_factory=list)  # --preview (json) over the tree
    server: dict[str, list[bool]] = field(
        default_factory=lambda: {
            "diagnostics": [],
            "hovers": [],
            "actions": [],
            "previews": [],
            "lens commands": [],
        }
    )
    shown: list[str] = field(default_factory=list)  # documents the server asked us to show
    failures: list[str] = field(default_factory=list)


def find_loops(root: Path) -> list[tuple[str, int]]:
    """(file, line) of every ``for ... in X.pipeline(...)``, by the stdlib parser."""
    found = []
    for path in sorted(root.rglob("*.py")):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tree = ast.parse(path.read_bytes())
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            call = node.iter if isinstance(node, ast.For) else None
            if (
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.Attribute)
                and call.func.attr == "pipeline"
            ):
                found.append((str(path.resolve()), node.lineno))
    return found


def skewlint(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "skewlsp.cli", *args],
        capture_output=True, text=True, check=False, cwd=cwd,
    )


def lint(root: Path, tally: Tally) -> None:
    result = skewlint("--no-cache", "--output-format", "json", "--select", "ALL", "--exit-zero",
                      str(root))
    if result.returncode != 0:
        tally.failures.append(f"skewlint exited {result.returncode}: {result.stderr.strip()[:300]}")
        return
    for item in json.loads(result.stdout):
        if item.get("kind", "loop") != "loop" or item.get("loop", True) is None:
            continue  # hints, remarks (e.g. at a helper's call) and scopes are not loops
        key = (str(Path(item["filename"]).resolve()), item["line"])
        tally.reported.setdefault(key, item)
    for key in tally.found:
        if key not in tally.reported:
            tally.failures.append(f"{key[0]}:{key[1]}: no report")


def _rewritten(preview: str) -> bool:
    """The loop is rewritten: its own header (the preview's first ``for``) is no longer a
    ``pl.pipeline`` asking for stages (LowerPipelineLoops keeps ``stage=1`` as a marker; an
    inner pipeline loop it keeps whole has a report of its own)."""
    headers = [line for line in preview.splitlines() if line.lstrip().startswith("for ")]
    header = headers[0] if headers else ""
    return "pl.pipeline(" not in header or "stage=1)" in header


def full_previews(root: Path, tally: Tally) -> None:
    """``skewlint --preview``: every skewed or demoted loop's preview in the lint's output."""
    result = skewlint("--no-cache", "--output-format", "json", "--select", "ALL", "--exit-zero",
                      "--preview", str(root))
    if result.returncode != 0:
        tally.failures.append(f"skewlint --preview exited {result.returncode}: "
                              f"{result.stderr.strip()[:300]}")
        return
    for item in json.loads(result.stdout):
        if item.get("kind", "loop") != "loop" or not previewed(item):
            continue
        ok = bool(item.get("preview")) and _rewritten(item["preview"])
        tally.full_previews.append(ok)
        if not ok:
            tally.failures.append(
                f"{item['filename']}:{item['line']}: --preview: {item.get('preview_error')}"
            )


def cli_previews(tally: Tally) -> None:
    for (path, line), item in sorted(tally.reported.items()):
        if not previewed(item):
            continue
        result = skewlint("preview", f"{path}:{line}")
        ok = result.returncode == 0 and _rewritten(result.stdout)
        tally.cli_previews.append(ok)
        if not ok:
            tally.failures.append(f"{path}:{line}: CLI preview: {result.stderr.strip()[:300]}")


async def server_paths(root: Path, tally: Tally) -> None:
    client = LanguageClient("real-kernels", "1")

    @client.feature(types.WINDOW_SHOW_DOCUMENT)
    def show_document(params: types.ShowDocumentParams) -> types.ShowDocumentResult:
        tally.shown.append(params.uri)
        return types.ShowDocumentResult(success=True)

    await client.start_io(sys.executable, "-m", "skewlsp")
    capabilities = types.ClientCapabilities(
        window=types.WindowClientCapabilities(
            show_document=types.ShowDocumentClientCapabilities(support=True)
        ),
        text_document=types.TextDocumentClientCapabilities(
            diagnostic=types.DiagnosticClientCapabilities(),
            hover=types.HoverClientCapabilities(content_format=[types.MarkupKind.Markdown]),
        ),
        # A client that pulls diagnostics and can be asked to pull again (the server offers
        # pulls only to such a client, and pushes to any other).
        workspace=types.WorkspaceClientCapabilities(
            diagnostics=types.DiagnosticWorkspaceClientCapabilities(refresh_support=True)
        ),
        general=types.GeneralClientCapabilities(
            position_encodings=[types.PositionEncodingKind.Utf32]
        ),
    )
    await client.initialize_async(
        types.InitializeParams(
            capabilities=capabilities,
            root_uri=root.resolve().as_uri(),
            workspace_folders=[types.WorkspaceFolder(root.resolve().as_uri(), root.name)],
        )
    )
    client.initialized(types.InitializedParams())
    by_file: dict[str, list[int]] = {}
    for path, line in tally.found:
        by_file.setdefault(path, []).append(line)
    try:
        for path, lines in sorted(by_file.items()):
            await _one_file(client, Path(path), lines, tally)
    finally:
        await client.shutdown_async(None)
        client.exit(None)
        await client.stop()


async def _one_file(client: LanguageClient, path: Path, lines: list[int], tally: Tally) -> None:
    uri = path.as_uri()
    text = path.read_text(encoding="utf-8", errors="replace")
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "python", 1, text))
    )
    document = types.TextDocumentIdentifier(uri)
    report = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(document))
    on_lines = {d.range.start.line + 1 for d in getattr(report, "items", [])}
    source_lines = text.splitlines()
    for line in lines:
        ok = line in on_lines
        tally.server["diagnostics"].append(ok)
        if not ok:
            tally.failures.append(f"{path}:{line}: server: no diagnostic")
        column = max(source_lines[line - 1].find("for"), 0)
        position = types.Position(line - 1, column)
        hover = await client.text_document_hover_async(types.HoverParams(document, position))
        ok = hover is not None
        tally.server["hovers"].append(ok)
        if not ok:
            tally.failures.append(f"{path}:{line}: server: no hover")
        actions = await client.text_document_code_action_async(
            types.CodeActionParams(
                document, types.Range(position, position), types.CodeActionContext(diagnostics=[])
            )
        )
        tally.server["actions"].append(actions is not None)
        item = tally.reported.get((str(path), line))
        if item is None or not previewed(item):
            continue
        try:
            answer = await client.protocol.send_request_async(
                "skewlsp/preview",
                {"textDocument": {"uri": uri}, "position": {"line": line - 1, "character": column}},
            )
        except Exception as error:  # noqa: BLE001 - a failed request is a finding
            answer, reason = None, str(error)
        else:
            reason = "no answer"
        rewritten = getattr(answer, "rewritten", None)
        ok = isinstance(rewritten, str) and _rewritten(rewritten)
        tally.server["previews"].append(ok)
        if not ok:
            tally.failures.append(f"{path}:{line}: server preview: {reason[:300]}")
    await _lens_commands(client, document, path, tally)
    client.text_document_did_close(types.DidCloseTextDocumentParams(document))
    if text != path.read_text(encoding="utf-8", errors="replace"):
        tally.failures.append(f"{path}: the file changed while the server worked on it")


async def _lens_commands(
    client: LanguageClient, document: types.TextDocumentIdentifier, path: Path, tally: Tally
) -> None:
    """Execute every lens's command as a client that implements none of ours would."""
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(document))
    for lens in lenses or []:
        command = lens.command
        if command is None or not command.command:
            tally.server["lens commands"].append(False)
            tally.failures.append(f"{path}:{lens.range.start.line + 1}: a lens without a command")
            continue
        before = len(tally.shown)
        try:
            await client.workspace_execute_command_async(
                types.ExecuteCommandParams(command.command, command.arguments)
            )
        except Exception as error:  # noqa: BLE001 - a refused command is a finding
            ok, reason = False, str(error)
        else:
            ok, reason = len(tally.shown) > before, "nothing was shown"
        tally.server["lens commands"].append(ok)
        if not ok:
            tally.failures.append(
                f"{path}:{lens.range.start.line + 1}: lens `{command.command}`: {reason[:200]}"
            )


def summary(tally: Tally, files: int, seconds: float) -> str:
    def ratio(values: list[bool]) -> str:
        return f"{sum(values)}/{len(values)}"

    reported = sum(1 for key in tally.found if key in tally.reported)
    server = ", ".join(f"{name} {ratio(values)}" for name, values in tally.server.items())
    return (
        f"{len(tally.found)} loops found, {reported} reported, "
        f"CLI previews {ratio(tally.cli_previews)} (--preview {ratio(tally.full_previews)}), "
        f"server: {server} "
        f"({files} files, {seconds:.1f} s)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", type=Path)
    parser.add_argument("--json", action="store_true", help="print the tally as JSON too")
    args = parser.parse_args(argv)
    root: Path = args.directory
    if not root.is_dir():
        parser.error(f"{root}: not a directory")
    started = time.perf_counter()
    tally = Tally(found=find_loops(root))
    lint(root, tally)
    cli_previews(tally)
    full_previews(root, tally)
    asyncio.run(server_paths(root, tally))
    files = len({path for path, _ in tally.found})
    print(summary(tally, files, time.perf_counter() - started))
    for failure in tally.failures:
        print(f"  {failure}")
    if args.json:
        print(json.dumps({"failures": tally.failures, "found": len(tally.found)}))
    return 1 if tally.failures else 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    sys.exit(main())
