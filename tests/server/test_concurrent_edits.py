"""Two documents edited at once on one server: after every edit, each document's published
diagnostics are what a from-scratch ``skewlint`` run of its text gives.

The server analyses on two worker threads, and what they share (the caches of imported
modules' indexes, of parses by text, of made trees and the facts kept with them, the
unit cache) must never let one analysis see another's work in progress or a result for
another text. The two documents sit in a package laid out like a model repository
(``tests/fixtures/first_hour/models/pair_llm``: a sibling config module, an inline helper
called from a sibling kernel): ``flash_pair.py``, a hand-written cube/vector program whose
constants come from the config module, and ``helpers.py``, the inline helper, whose
loop is decided once per call in ``decode.py`` (read from disk by every analysis of it).
Each document's edits are those of an author at work (a ``stage=`` flipped, a trip
constant changed, a tpush deleted and typed back, a comment typed), one line at a time
in a reproducible random order, so that most texts are new to the server's caches when
first met and the threads decide loops, not only look them up. One task per document
sends them, without waiting for the other's results, so that the two analyses run at
the same time (in a server whose interpreter switches threads every few bytecodes);
each edit is checked as soon as its version is published, and every other publish at
the end.

The expectation is the real CLI's: one ``skewlint --no-cache --output-format json`` run
over a copy of the package per distinct text (the other files as they are), made before
the server starts, with ``--select ALL``: the editor lists the codes the CLI only counts
unless they are selected (``common.select``: "the editor summarises nothing"). A finding
has one position in both (``common.pipeline.finding_span``: a loop's header), so the
CLI's range, made 0-based, is the one the editor must publish.

Slow tier (20-40 s here); alone: ``pytest -m slow tests/server/test_concurrent_edits.py`` (or
``-m slow -k concurrent_edits``).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.server.conftest import CONFIG, Session, initialize_params, recording_client

pytestmark = [pytest.mark.asyncio, pytest.mark.slow]

PACKAGE = Path(__file__).resolve().parents[1] / "fixtures" / "first_hour" / "models" / "pair_llm"
EDITS_PER_DOCUMENT = 150
SEED = 39
PROFILE = "visual-studio-code"  # pushes diagnostics, with the version they are for

# What an author changes in each document: per line (1-based), the spellings of one part
# of it (None: the line deleted). A text is a choice of one spelling per line; an edit
# changes one line's. Each choice's text is new to the server's caches the first time it
# is met, so the two threads decide loops, not only look them up.
DIALS: dict[str, dict[int, list[tuple[str, str] | None]]] = {
    "flash_pair.py": {
        24: [  # the cube's loop: its trip and stage
            ("0, HEADS, 1, stage=2", "0, HEADS, 1, stage=2"),
            ("0, HEADS, 1, stage=2", "0, HEADS, 1, stage=3"),
            ("0, HEADS, 1, stage=2", "0, 6, 1, stage=3"),
            ("0, HEADS, 1, stage=2", "0, 6, 1, stage=2"),
        ],
        28: [("(qa, ka)", "(qa, ka)"), ("(qa, ka)", "(qa, ka)  # scores of one head")],
        37: [  # the vector's loop
            ("0, HEADS, 1, stage=2", "0, HEADS, 1, stage=2"),
            ("0, HEADS, 1, stage=2", "0, 6, 1, stage=2"),
            ("0, HEADS, 1, stage=2", "0, HEADS, 1, stage=4"),
        ],
        41: [("probs", "probs"), None],  # the vector's tpush, typed or deleted
    },
    "helpers.py": {
        17: [("blocks * 1", f"blocks * {n}") for n in (1, 2, 3)],  # the trip at every call
        18: [("stage=2", f"stage={n}") for n in (2, 3, 4, 1)],
        19: [("hb * TILE", "hb * TILE"), ("hb * TILE", "hb * TILE  # the block's first row")],
        21: [("pl.exp(pl.mul(s, scale))", "pl.exp(pl.mul(s, scale))"), ("pl.mul(s, scale)", "s")],
    },
}

_SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "information": types.DiagnosticSeverity.Information,
    "hint": types.DiagnosticSeverity.Hint,
}

# (code, (start line, start column, end line, end column), severity, message); 0-based.
Finding = tuple[str, tuple[int, int, int, int], int, str]
Choice = tuple[int, ...]  # one spelling per dial, in the order of the lines


def text_of(name: str, choice: Choice) -> str:
    lines = (PACKAGE / name).read_text(encoding="utf-8").split("\n")
    for (number, spellings), k in zip(DIALS[name].items(), choice, strict=True):
        spelling = spellings[k]
        if spelling is None:
            lines[number - 1] = None  # type: ignore[call-overload]
            continue
        old, new = spelling
        assert lines[number - 1].count(old) == 1, (name, number, old)
        lines[number - 1] = lines[number - 1].replace(old, new)
    return "\n".join(line for line in lines if line is not None)


def walk(name: str, count: int, seed: int) -> list[Choice]:
    """``count`` choices, each the one before with one line spelled otherwise (at random,
    reproducibly), starting from the file as it is."""
    rng = random.Random(f"{seed}:{name}")
    sizes = [len(spellings) for spellings in DIALS[name].values()]
    choice, found = (0,) * len(sizes), []
    for _ in range(count):
        dial = rng.randrange(len(sizes))
        other = rng.choice([k for k in range(sizes[dial]) if k != choice[dial]])
        choice = (*choice[:dial], other, *choice[dial + 1 :])
        found.append(choice)
    return found


def edit_between(old: str, new: str) -> tuple[tuple[int, int], tuple[int, int], str]:
    """The one ranged change that turns ``old`` into ``new`` (ASCII texts: a column is a
    character), as an editor sends a keystroke or a paste."""
    start = 0
    while start < min(len(old), len(new)) and old[start] == new[start]:
        start += 1
    end = 0
    while end < min(len(old), len(new)) - start and old[-1 - end] == new[-1 - end]:
        end += 1

    def position(offset: int) -> tuple[int, int]:
        line = old.count("\n", 0, offset)
        return line, offset - (old.rfind("\n", 0, offset) + 1)

    return position(start), position(len(old) - end), new[start : len(new) - end]


def expected_by_cli(root: Path, texts: dict[str, list[str]]) -> dict[str, list[list[Finding]]]:
    """Each text's findings from one from-scratch ``skewlint`` run: a copy of the package
    per distinct text (that one file changed), all linted in one process."""
    copies: dict[Path, tuple[str, int]] = {}
    for name, variants in texts.items():
        for k, text in enumerate(variants):
            package = root / f"{Path(name).stem}_{k}" / "models" / "pair_llm"
            shutil.copytree(PACKAGE, package)
            (package / name).write_text(text, encoding="utf-8")
            copies[package / name] = (name, k)
    done = subprocess.run(
        [sys.executable, "-m", "skewlsp.cli", "--no-cache", "--exit-zero", "--select", "ALL"]
        + ["--output-format", "json", "."],
        capture_output=True,
        text=True,
        cwd=root,
        env={**os.environ, "NO_COLOR": "1"},
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    found: dict[str, list[list[Finding]]] = {
        name: [[] for _ in variants] for name, variants in texts.items()
    }
    for item in json.loads(done.stdout):
        path = root / item["filename"]
        if path not in copies:
            continue  # the package's other modules
        name, k = copies[path]
        where = (item["line"] - 1, item["column"] - 1, item["end_line"] - 1, item["end_column"] - 1)
        found[name][k].append((item["code"], where, _SEVERITY[item["severity"]], item["headline"]))
    return {name: [sorted(f) for f in per_text] for name, per_text in found.items()}


def published(diagnostics: Sequence[types.Diagnostic]) -> list[Finding]:
    return sorted(
        (
            str(d.code),
            (d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character),
            int(d.severity or 0),
            d.message,
        )
        for d in diagnostics
    )


# ``python -m skewlsp`` with the interpreter switching threads every 10 microseconds
# instead of every 5 milliseconds (``sys.setswitchinterval``): an analysis takes a few
# milliseconds, so by default two of them rarely interleave inside one; here they do
# at every few bytecodes. It changes when threads run, never what they compute.
SWITCH_INTERVAL = 1e-5
STRESSED = ClientServerConfig(
    server_command=[
        sys.executable,
        "-c",
        f"import sys; sys.setswitchinterval({SWITCH_INTERVAL}); "
        "from skewlsp.server.__main__ import main; sys.exit(main())",
    ],
    client_factory=recording_client,
    server_env=CONFIG.server_env,
)


@pytest_lsp.fixture(config=STRESSED)
async def vscode(lsp_client: LanguageClient, tmp_path: Path):
    """One server, as VS Code drives it, without the debounce: every edit is analysed."""
    workspace = tmp_path / "workspace"
    shutil.copytree(PACKAGE, workspace / "models" / "pair_llm")
    result = await lsp_client.initialize_session(
        initialize_params(PROFILE, workspace, {"debounce": 0})
    )
    session = Session(lsp_client, PROFILE, workspace)
    session.server_capabilities = result.capabilities
    lsp_client.session = session  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


async def test_two_documents_edited_at_once_get_a_fresh_runs_diagnostics_after_every_edit(
    vscode: LanguageClient, tmp_path_factory: pytest.TempPathFactory
) -> None:
    session: Session = vscode.session  # type: ignore[attr-defined]
    walks = {name: walk(name, EDITS_PER_DOCUMENT, SEED) for name in DIALS}
    # Each document's distinct texts (the file as it is first), and which one each edit makes.
    choices = {name: list(dict.fromkeys([(0,) * len(DIALS[name]), *walks[name]])) for name in DIALS}
    texts = {name: [text_of(name, choice) for choice in choices[name]] for name in DIALS}
    targets = {name: [choices[name].index(c) for c in walks[name]] for name in DIALS}
    expected = expected_by_cli(tmp_path_factory.mktemp("cli"), texts)
    for name, per_text in expected.items():  # the edits change what is shown, often
        assert len(per_text) >= 30 and len({tuple(f) for f in per_text}) >= 8, name
    uris = {
        name: session.open(f"models/pair_llm/{name}", texts[name][0], write=False)
        for name in DIALS
    }
    # Which text each document held at each version it was sent.
    at_version: dict[str, dict[int, int]] = {uri: {1: 0} for uri in uris.values()}
    counts = {"edits": 0, "compared": 0}

    async def edit(name: str) -> None:
        uri, current = uris[name], 0
        first = await session.published_version(uri, 1)
        assert published(first.diagnostics) == expected[name][0], (name, "opened")
        for step, target in enumerate(targets[name]):
            start, end, new = edit_between(texts[name][current], texts[name][target])
            version = session.change(uri, start, end, new)
            at_version[uri][version] = current = target
            counts["edits"] += 1
            params = await session.published_version(uri, version)
            assert published(params.diagnostics) == expected[name][target], (name, step, target)
            counts["compared"] += 1

    await asyncio.gather(*(edit(name) for name in DIALS))

    # Every publish, including those the tasks did not wait for (a document re-decided
    # because the other, a module of its folder, changed), is its version's fresh result.
    by_uri = {uri: name for name, uri in uris.items()}
    checked = 0
    for params in vscode.published:  # type: ignore[attr-defined]
        name = by_uri[params.uri]
        text = at_version[params.uri][params.version]
        assert published(params.diagnostics) == expected[name][text], (name, params.version)
        checked += 1
    assert counts == {"edits": 2 * EDITS_PER_DOCUMENT, "compared": 2 * EDITS_PER_DOCUMENT}
    assert checked >= counts["compared"] + len(uris)
