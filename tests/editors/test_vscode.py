"""The VS Code extension as a kernel author meets it in their first ten minutes.

The packaged .vsix is installed in a real VS Code (code-server 4.100.3, Code 1.100.3) and
used from headless Chromium on a copy of examples/: everything asserted is what the page
shows. It needs what ``.ci/e2e-install`` installs (code-server, Debian's chromium); it
is in the slow tier and has a marker of its own, so it can be run alone:

    .venv/bin/python -m pytest -m vscode -p no:xdist

The timings (cold open to first squiggle, warm open, preview open, an edit to its
diagnostics) are printed at the end of the run. A failure keeps a screenshot and the logs
(see tests/editors/conftest.py for where).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.editors.code_server import CodeServer
from tests.editors.conftest import EXAMPLES
from tests.editors.workbench import Problem, Related, Workbench

pytestmark = [pytest.mark.slow, pytest.mark.vscode, pytest.mark.xdist_group("vscode")]

Timing = Callable[[str, float], None]
MIXED = "mixed_attention.py"  # SKW002 at 29:9: the cube skewed at depth 1, the vector demoted
COLD = 120.0  # seconds: a new extension host and server on a loaded CI machine
SKEWED_LENS = "skewed · depth 1 · prologue 1, steady 1 x 1, epilogue 1 · Preview"
PREVIEW_TITLE = "Loop preview: mixed_attention.py:29 (original ↔ rewritten)"
LEAD = "lead message: the first cross-core tpush/tpop of the body"
CALL = "the `pl.pipeline(...)` call"


def column_of(name: str, line: int, text: str) -> int:
    """1-based column of ``text`` in line ``line`` of examples/``name``."""
    return (EXAMPLES / name).read_text().splitlines()[line - 1].index(text) + 1


def open_and_wait(window: Workbench, name: str, kind: str = "*", timeout: float = 30) -> float:
    """Open ``name``; seconds from asking Quick Open for it to its first squiggle."""
    started = time.monotonic()
    window.open(name)
    window.wait_until(
        lambda: window.squiggles(kind).count() > 0, f"a squiggle in {name}", timeout=timeout
    )
    return time.monotonic() - started


def only_problem(window: Workbench, name: str, code: str) -> Problem:
    """Wait until ``name``'s one problem in the Problems panel has ``code``; return it."""

    def one() -> Problem | None:
        found = window.problems_of(name)
        return found[0] if len(found) == 1 and found[0].code == code else None

    return window.wait_until(one, f"{code} as the one problem of {name}")


def test_a_kernel_opens_with_its_finding_underlined_and_listed_at_its_for(
    window: Workbench, timing: Timing
) -> None:
    first = not window.opened  # the window's first Python file starts the extension
    seconds = open_and_wait(window, MIXED, "warning", timeout=COLD)
    timing("cold open to first squiggle" if first else "open to first squiggle", seconds)
    problem = only_problem(window, MIXED, "SKW002")
    assert (problem.severity, problem.source, problem.line, problem.column) == (
        "Warning",
        "skewlsp",
        29,
        9,  # the `for`, where skewlint prints it (examples/mixed_attention.py:29:9)
    )
    assert problem.message.startswith(
        "cube: runs 1 iteration ahead, not 2 (skewed at depth 1, trip 2)"
    )
    assert problem.related == (
        Related(LEAD, MIXED, 33, 13),
        Related(CALL, MIXED, 29, column_of(MIXED, 29, "pl.pipeline(")),
    )
    window.wait_until(lambda: "skewlsp: 1 skewed" in window.language_status(), "1 skewed")
    assert "skewlsp: 1 skewed" in window.hover_language_status()

    warm = open_and_wait(window, "odd_trip.py", "warning")
    timing("warm open to first squiggle", warm)
    odd = only_problem(window, "odd_trip.py", "SKW002")
    assert (odd.line, odd.column) == (13, 9)
    assert odd.message == "loop skewed at depth 1, below the requested 2: trip 3 < 2 x depth 2"


def test_hovering_the_loop_shows_its_schedule_table(window: Workbench) -> None:
    open_and_wait(window, MIXED, "warning")
    hover = window.hover_word(29, "pipeline")
    assert "skewed SKW002 [warning]" in hover
    assert "stage 2 · requested depth 2 · effective depth 1 · trip 2" in hover
    assert re.search(r"prologue +steady \(1 x 1\) +epilogue", hover), hover
    assert re.search(r"cube \(AIC\) produce +0 +1 +—", hover), hover
    assert re.search(r"cube \(AIC\) consume +— +0 +1", hover), hover
    assert "advice (a human's change, not applied by" in hover
    assert "a trip of 4 would give depth 2: e.g. halve QK_M_TILE" in hover


def test_the_lens_opens_a_read_only_preview_of_the_rewritten_loop(
    window: Workbench, workspace: Path, timing: Timing
) -> None:
    open_and_wait(window, MIXED, "warning")
    window.wait_until(lambda: SKEWED_LENS in window.lenses(), "the skewed loop's lens")
    started = time.monotonic()
    window.click_lens("skewed", "Preview")
    window.wait_until(lambda: window.active_tab() == PREVIEW_TITLE, "the preview's tab")
    rewritten = window.page.locator(".monaco-diff-editor .editor.modified .view-lines")
    window.wait_until(
        lambda: "# prologue: produce(0)" in rewritten.inner_text().replace("\xa0", " "),
        "the rewritten loop's prologue in the preview",
    )
    timing("preview open (lens click to rewritten loop shown)", time.monotonic() - started)
    original = window.page.locator(".monaco-diff-editor .editor.original .view-lines")
    assert "for hb in pl.pipeline(HEADS // QK_M_TILE, stage=2):" in original.inner_text().replace(
        "\xa0", " "
    )

    window.page.locator(".monaco-diff-editor .editor.modified .view-lines").click()
    window.type("x")
    message = window.wait_until(window.overlay_message, "a message on typing in the preview")
    assert message == "Cannot edit in read-only editor"
    assert not window.tab_is_dirty(MIXED)
    assert (workspace / MIXED).read_text() == (EXAMPLES / MIXED).read_text()


def test_changing_stage_moves_the_diagnostics_with_it_and_undo_brings_them_back(
    window: Workbench, timing: Timing
) -> None:
    open_and_wait(window, MIXED, "warning")
    only_problem(window, MIXED, "SKW002")
    window.goto(29, column_of(MIXED, 29, "stage=2") + len("stage="))
    window.press("Shift+ArrowRight")
    started = time.monotonic()
    window.type("1")
    demoted = only_problem(window, MIXED, "SKW024")
    timing("an edit of stage= to its new diagnostic", time.monotonic() - started)
    assert (demoted.line, demoted.column) == (29, 9)
    assert demoted.message.startswith("both cores: not skewed: stage=1 on a cross-core loop")
    window.wait_until(lambda: "skewlsp: 1 demoted" in window.language_status(), "1 demoted")
    assert "stage=1" in window.line_with("for hb in")

    window.press("Control+z")
    only_problem(window, MIXED, "SKW002")
    window.wait_until(lambda: "skewlsp: 1 skewed" in window.language_status(), "1 skewed again")


def test_fix_all_lowers_the_stage_and_drops_the_unused_suppression(
    window: Workbench, workspace: Path
) -> None:
    name = "flash_attention_cube.py"  # SKW001 at 22:9, stage=2
    open_and_wait(window, name, "info")
    stage = column_of(name, 22, "stage=2") + len("stage=")

    def break_it() -> None:
        window.goto(22, stage)
        window.press("Shift+ArrowRight")
        window.type("3")  # SKW030: stage=3 asks for the same depth as stage=2
        window.press("End")
        window.type("  # skewlint: ignore[SKW020]")  # SKW901: nothing here is SKW020
        unused = only_problem_with(window, name, "SKW901")
        assert (unused.severity, unused.line) == ("Warning", 22)
        window.wait_until(lambda: window.squiggles("hint").count() > 0, "the SKW030 hint")

    def fixed() -> bool:
        line = window.line_with("for h in")
        return "stage=2" in line and "skewlint" not in line

    break_it()
    window.command("Source Action...")
    window.pick_action("skewlint: Fix all auto-fixable problems")
    window.wait_until(fixed, "the header fixed by Source Action > Fix all")
    window.wait_until(
        lambda: not any(p.code == "SKW901" for p in window.problems_of(name)), "no SKW901"
    )
    window.save()
    assert (workspace / name).read_text() == (EXAMPLES / name).read_text()

    break_it()
    window.command("skewlsp: Fix All Auto-fixable Problems")
    window.wait_until(fixed, "the header fixed by the palette's Fix All")
    window.save()
    assert (workspace / name).read_text() == (EXAMPLES / name).read_text()


def only_problem_with(window: Workbench, name: str, code: str) -> Problem:
    return window.wait_until(
        lambda: next((p for p in window.problems_of(name) if p.code == code), None),
        f"{code} in the Problems panel for {name}",
    )


def test_a_quick_fix_suppresses_a_demoted_loop(window: Workbench) -> None:
    name = "flash_attention_vector.py"  # SKW020 at 15:9 (information: its producer is elsewhere)
    open_and_wait(window, name, "info")
    only_problem(window, name, "SKW020")
    window.goto(15, 9)
    window.press("Control+.")
    offered = window.actions()
    assert {"Convert to pl.range", "Suppress SKW020 for this loop"} <= set(offered), offered
    window.pick_action("Suppress SKW020 for this loop")
    window.wait_until(
        lambda: "# skewlint: ignore[SKW020]" in window.line_with("for h in"), "the comment"
    )
    window.wait_until(lambda: window.problems_of(name) == [], "no problem left in the file")


def test_a_syntax_error_while_typing_keeps_the_last_verdict_marked_stale(
    window: Workbench,
) -> None:
    name = "odd_trip.py"
    open_and_wait(window, name, "warning")
    window.goto(13, column_of(name, 13, "):") + 1)
    window.press("Shift+ArrowRight")
    window.press("Backspace")  # the header's `:`, as a user mid-edit
    error = only_problem_with(window, name, "SKW900")
    assert (error.severity, error.line) == ("Error", 13)
    stale = only_problem_with(window, name, "SKW002")
    assert stale.message.endswith("(as of the last version that parsed)")
    window.wait_until(lambda: "skewlsp: syntax error" in window.language_status(), "syntax error")
    window.press("Control+z")
    back = only_problem(window, name, "SKW002")
    assert not back.message.endswith("(as of the last version that parsed)")


def test_the_palette_offers_every_command_and_each_does_what_it_says(
    window: Workbench,
) -> None:
    open_and_wait(window, MIXED, "warning")
    titles = set(window.palette_titles("skewlsp: "))
    assert {
        "skewlsp: Restart Server",
        "skewlsp: Show Logs",
        "skewlsp: Preview Rewritten Loop",
        "skewlsp: Explain Code",
        "skewlsp: Fix All Auto-fixable Problems",
    } <= titles, titles

    window.goto(29, 9)
    window.command("skewlsp: Preview Rewritten Loop")
    window.wait_until(lambda: window.active_tab() == PREVIEW_TITLE, "the preview from the palette")

    window.command("skewlsp: Explain Code")
    window.wait_until(
        lambda: window.page.locator(".quick-input-widget .monaco-list-row").count() > 1,
        "the list of codes",
    )
    window.type("SKW002")
    window.choose(lambda label: label == "SKW002", "SKW002")
    window.wait_until(lambda: window.active_tab() == "Preview SKW002.md", "the explanation's tab")
    window.wait_until(
        lambda: any(
            "SKW002: loop skewed below the requested depth" in text
            for text in window.webview_texts()
        ),
        "the explanation rendered",
    )

    window.command("skewlsp: Show Logs")
    output = window.wait_until(window.output_text, "the skewlsp output channel")
    assert "Starting server (from skewlsp.interpreter)" in output

    window.open(MIXED)
    before = last_start(window)
    window.command("skewlsp: Restart Server")
    window.wait_until(lambda: last_start(window) > before, "a new server started")
    window.wait_until(lambda: "skewlsp: 1 skewed" in window.language_status(), "1 skewed again")
    only_problem(window, MIXED, "SKW002")


def last_start(window: Workbench) -> str:
    """The time stamp of the last "Starting server" line of the output channel."""
    stamps = re.findall(r"\[(\S+Z)\] Starting server", window.output_text())
    return stamps[-1] if stamps else ""


def test_turning_lenses_off_in_settings_hides_them(
    window: Workbench, code_server: CodeServer
) -> None:
    open_and_wait(window, MIXED, "warning")
    window.wait_until(lambda: SKEWED_LENS in window.lenses(), "the lens")
    setting = window.open_setting("skewlsp.codeLens.enable")
    assert setting.get_attribute("aria-checked") == "true"
    setting.click()
    window.wait_until(lambda: setting.get_attribute("aria-checked") == "false", "unchecked")
    window.wait_until(
        lambda: '"skewlsp.codeLens.enable": false' in code_server.layout.user_settings.read_text(),
        "the setting written to the user settings",
    )
    window.open(MIXED)
    window.wait_until(lambda: window.lenses() == [], "no lens")
    setting = window.open_setting("skewlsp.codeLens.enable")
    setting.click()
    window.wait_until(lambda: setting.get_attribute("aria-checked") == "true", "checked")
    window.open(MIXED)
    window.wait_until(lambda: SKEWED_LENS in window.lenses(), "the lens back")


def test_the_memory_planner_in_the_project_settings_changes_the_verdict(
    window: Workbench, workspace: Path
) -> None:
    name = "gm_to_l1_copy.py"  # left: replicated (SKW011) by default, declined under ptoas
    replicated = "left · SKW011: replicated: stage copies of the body per iteration · Preview"
    declined = "left · SKW016: declined by LowerPipelineToSlots: replicated instead · Preview"
    window.open(name)
    window.wait_until(lambda: window.lenses() == [replicated], "the lens of the left loop")
    try:
        window.new_file("skewlint.toml")
        window.type('memory-planner = "ptoas"')
        window.line_with('memory-planner = "ptoas"')
        window.save()
        window.wait_until(
            lambda: (workspace / "skewlint.toml").read_text() == 'memory-planner = "ptoas"',
            "skewlint.toml saved",
        )
        window.open(name)
        window.wait_until(lambda: window.lenses() == [declined], "SKW016 under ptoas")

        window.open("skewlint.toml")
        window.press("Control+a")
        window.type('memory-planner = "pypto"')
        window.save()
        window.open(name)
        window.wait_until(lambda: window.lenses() == [replicated], "SKW011 back under pypto")
    finally:
        (workspace / "skewlint.toml").unlink(missing_ok=True)


def test_a_python_without_skewlsp_is_flagged_until_the_setting_names_one_with_it(
    window: Workbench, code_server: CodeServer, tmp_path: Path
) -> None:
    # The first thing that goes wrong for a new user: skewlsp.interpreter names a Python
    # that has no skewlsp. The status item says so (and stays so), a notification says
    # what to do, and correcting the setting brings the server back without a reload.
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "bare")], check=True
    )
    bare = tmp_path / "bare" / "bin" / "python"
    open_and_wait(window, MIXED, "warning")
    settings = code_server.layout.machine_settings
    good = settings.read_text()
    try:
        settings.write_text(json.dumps({"skewlsp.interpreter": [str(bare)]}))
        window.wait_until(
            lambda: "skewlsp: server failed" in window.language_status(), "server failed"
        )
        time.sleep(3)  # long enough for a restart of the client to have changed it
        assert "skewlsp: server failed" in window.language_status()
        window.open_notifications()
        window.wait_until(
            lambda: any(
                f"the server ({bare}) failed to start" in n for n in window.notifications()
            ),
            "the notification naming the interpreter",
        )
        # ... and no notice of a restart: a server that never ran is not restarted, so the
        # client's notices of each failed restart ("crashed 5 times", "write EPIPE") never
        # bury it (the notification center shows a few at a time)
        restarts = ("crashed", "EPIPE", "is erroring", "Restarting server")
        assert [n for n in window.notifications() if any(word in n for word in restarts)] == []
    finally:
        settings.write_text(good)
    window.open(MIXED)
    window.wait_until(lambda: "skewlsp: 1 skewed" in window.language_status(), "1 skewed again")
    only_problem(window, MIXED, "SKW002")


def _servers(code_server: CodeServer) -> set[int]:
    """The ids of the skewlsp servers this window's extension started (code-server runs
    in a session of its own, and everything it starts in it)."""
    found = subprocess.run(
        ["pgrep", "-s", str(code_server.process.pid), "-f", "--", "-m skewlsp"],
        capture_output=True,
        text=True,
        check=False,
    )
    return {int(pid) for pid in found.stdout.split()}


def test_a_server_that_crashes_after_it_ran_is_started_again(
    window: Workbench, code_server: CodeServer
) -> None:
    # The extension starts it again with a new client: after the language client's own
    # restart, a file opened again got no diagnostics.
    open_and_wait(window, MIXED, "warning")
    window.wait_until(lambda: "skewlsp: 1 skewed" in window.language_status(), "1 skewed")
    crashed = _servers(code_server)
    assert len(crashed) == 1
    subprocess.run(["kill", "-9", *map(str, crashed)], check=True)
    started = window.wait_until(lambda: _servers(code_server) - crashed, "a new server process")
    assert len(started) == 1
    window.close_all_editors()  # (what the crashed server said is gone with the editor)
    open_and_wait(window, MIXED, "warning")
    window.wait_until(lambda: "skewlsp: 1 skewed" in window.language_status(), "1 skewed again")
    only_problem(window, MIXED, "SKW002")


def test_a_fifth_crash_in_three_minutes_leaves_the_server_stopped_until_restarted(
    window: Workbench, code_server: CodeServer
) -> None:
    open_and_wait(window, MIXED, "warning")
    before = _servers(code_server)
    window.command("skewlsp: Restart Server")  # (the earlier tests' crashes forgotten)
    window.wait_until(
        lambda: _servers(code_server) and not _servers(code_server) & before, "a new server"
    )
    for crash in range(1, 6):  # each once the server runs (a kill while it starts is a
        # server that failed to start, not one that crashed)
        window.wait_until(
            lambda: "skewlsp: 1 skewed" in window.language_status(), f"1 skewed before {crash}"
        )
        running = _servers(code_server)
        assert len(running) == 1
        subprocess.run(["kill", "-9", *map(str, running)], check=True)
        if crash < 5:
            window.wait_until(
                lambda killed=running: _servers(code_server) - killed, f"a server after {crash}"
            )
    window.wait_until(lambda: "skewlsp: server failed" in window.language_status(), "failed")
    window.open_notifications()
    window.wait_until(
        lambda: any("crashed 5 times in three minutes" in n for n in window.notifications()),
        "the notification of the fifth crash",
    )
    assert _servers(code_server) == set()
    window.command("skewlsp: Restart Server")  # (asked: the crashes so far are forgotten)
    window.wait_until(lambda: "skewlsp: 1 skewed" in window.language_status(), "1 skewed again")


def test_the_server_log_at_info_holds_no_protocol_message(
    window: Workbench, code_server: CodeServer
) -> None:
    open_and_wait(window, MIXED, "warning")
    log = code_server.layout.server_log.read_text()
    assert "skewlsp" in log  # the server writes it (skewlsp.logFile, at the default level)
    assert '"jsonrpc"' not in log
