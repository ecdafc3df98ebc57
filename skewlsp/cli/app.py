"""The linter's main flow: arguments -> settings -> files -> diagnostics -> output -> exit code.

Exit codes (ruff's): 0 nothing at ``fail-on`` or above, 1 something was, 2 a
usage, configuration or internal error — always as one line on stderr, never
a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from skewlsp.cli.args import UsageError, parse
from skewlsp.cli.cache import cache_directory
from skewlsp.cli.explain import UnknownCode, explain, explain_all
from skewlsp.cli.files import PathError, discover, rebase_patterns
from skewlsp.cli.fixing import FixWriteError, apply_fixes, fixed_line, show_diff
from skewlsp.cli.formats import JSON_FORMATS, TEXT_FORMATS, FormatContext, renderer
from skewlsp.cli.repo_root import repository_root
from skewlsp.cli.runner import Job, Options, decode_source, run_jobs
from skewlsp.cli.statistics import render_json, render_text
from skewlsp.cli.summary import summary
from skewlsp.common.config import Settings, SettingsError
from skewlsp.common.diagnostic import Diagnostic, FileResult
from skewlsp.common.select import SUMMARISED_BY_DEFAULT, Selection, at_least
from skewlsp.common.settings_resolver import SettingsResolver

if TYPE_CHECKING:
    from skewlsp.cli.recording import RunRecord

EXIT_OK, EXIT_FOUND, EXIT_ERROR = 0, 1, 2


class CliError(Exception):
    """Anything that ends the run with exit 2 and a one-line message."""


def main(argv: Sequence[str] | None = None, record: RunRecord | None = None) -> int:
    """Run skewlint; ``record`` (if given) learns what the run read, for a later replay."""
    try:
        os.getcwd()  # every relative path and every path shown depend on it
    except OSError:
        _fail("the current directory no longer exists (deleted or moved); run from another")
        return EXIT_ERROR
    try:
        ns = parse(sys.argv[1:] if argv is None else argv)
        if ns.command == "explain":
            return _explain(ns)
        if ns.command == "preview":
            return _preview(ns)
        return _check(ns, record)
    except (UsageError, SettingsError, PathError, CliError, FixWriteError, UnknownCode) as error:
        _fail(str(error))
    except KeyboardInterrupt:
        _fail("interrupted")
    except BrokenPipeError:
        # Output piped into e.g. `head` that closed early: not an error of ours.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except Exception as error:  # noqa: BLE001 - the promise is "never a traceback"
        _fail(f"internal error: {type(error).__name__}: {error}")
    return EXIT_ERROR


def _fail(message: str) -> None:
    sys.stderr.write(f"skewlint: error: {message}\n")


def _warn(message: str) -> None:
    sys.stderr.write(f"skewlint: warning: {message}\n")


def _explain(ns: argparse.Namespace) -> int:
    as_json = ns.output_format == "json"
    docs = _resolver(ns).for_path(Path.cwd()).docs_url  # the project's docs-url, if any
    text = (
        explain_all(as_json=as_json, docs=docs)
        if ns.all
        else explain(ns.code, as_json=as_json, docs=docs)
    )
    sys.stdout.write(text)
    return EXIT_OK


def _resolver(ns: argparse.Namespace) -> SettingsResolver:
    cwd = Path.cwd().resolve()

    def overrides(settings: Settings) -> Settings:
        exclude = getattr(ns, "exclude", None)
        extend_exclude = getattr(ns, "extend_exclude", None)
        environment = getattr(ns, "env", None)
        return settings.with_overrides(
            select=getattr(ns, "select", None),
            ignore=getattr(ns, "ignore", None),
            extend_select=getattr(ns, "extend_select", None),
            fail_on=getattr(ns, "fail_on", None),
            exclude=rebase_patterns(exclude, cwd, settings.root) if exclude else None,
            extend_exclude=(
                rebase_patterns(extend_exclude, cwd, settings.root) if extend_exclude else None
            ),
            environment=dict(environment) if environment is not None else None,
            argv=getattr(ns, "argv", None),
        )

    config = Path(ns.config) if ns.config else None
    if config is not None and not config.is_file():
        raise CliError(f"--config {ns.config}: no such file")
    return SettingsResolver(config=config, isolated=ns.isolated, overrides=overrides)


def display_name(path: Path, cwd: Path | None = None) -> str:
    """Paths under the current directory are shown relative to it, others absolute."""
    text, base = str(path), str(cwd or Path.cwd().resolve())
    prefix = base if base.endswith(os.sep) else base + os.sep
    if text.startswith(prefix):  # both are resolved, absolute paths: a string test suffices
        return text[len(prefix) :].replace(os.sep, "/")
    return text


def _jobs(
    ns: argparse.Namespace,
    resolver: SettingsResolver,
    options: Options,
    walked: list[str] | None = None,
) -> list[Job]:
    if ns.stdin_filename is not None or ns.paths == ["-"]:
        data = sys.stdin.buffer.read()
        if ns.stdin_filename:
            path = Path(ns.stdin_filename).absolute()
            settings = resolver.for_path(path)
            if ns.force_exclude and not discover_one(path, resolver):
                return []
            return [
                Job(
                    ns.stdin_filename,
                    str(path),
                    settings,
                    replace(options, use_cache=False),
                    data,
                )
            ]
        settings = resolver.for_path(Path.cwd())
        return [Job("-", None, settings, replace(options, use_cache=False), data)]
    if "-" in ns.paths:
        raise UsageError("`-` (stdin) cannot be combined with other paths")
    targets = discover(
        ns.paths or ["."], resolver, force_exclude=ns.force_exclude, walked=walked
    )
    cwd = Path.cwd().resolve()
    return [Job(display_name(t.path, cwd), str(t.path), t.settings, options) for t in targets]


def discover_one(path: Path, resolver: SettingsResolver) -> bool:
    """Whether --force-exclude keeps a stdin file named ``path`` (it need not exist)."""
    from skewlsp.cli.files import ExcludeMatcher

    settings = resolver.for_path(path)
    return not ExcludeMatcher().excluded(path, settings, is_dir=False)


def _color(ns: argparse.Namespace, stream: TextIO) -> bool:
    if ns.no_color or os.environ.get("NO_COLOR") or ns.output_file:
        return False
    return ns.output_format in TEXT_FORMATS and stream.isatty()


def _show_settings(ns: argparse.Namespace, resolver: SettingsResolver) -> int:
    target = Path(ns.stdin_filename or (ns.paths[0] if ns.paths else "."))
    if not ns.stdin_filename and not target.exists():
        raise PathError(f"{target}: no such file or directory")
    settings = resolver.for_path(target.absolute())
    selection = Selection.from_settings(settings, summarise=SUMMARISED_BY_DEFAULT)
    lines = [
        f"Settings for {target}",
        f"config file: {settings.config_path or '(none: defaults)'}",
        f"root: {settings.root}",
        f"cache: {cache_directory(settings)}",
        f"select = {list(settings.select) if settings.select is not None else ['ALL']}",
        f"extend-select = {list(settings.extend_select)}",
        f"ignore = {list(settings.ignore)}",
        f"severity = {dict(settings.severity)}",
        f"fail-on = {settings.fail_on!r}",
        f"src = {[str(p) for p in settings.src]}",
        f"exclude = {list(settings.exclude)}",
        f"extend-exclude = {list(settings.extend_exclude)}",
        f"docs-url = {settings.docs_url!r}",
        f"memory-planner = {settings.memory_planner!r}",
        f"environment = {dict(settings.environment)}",
        f"argv = {list(settings.argv)}",
        f"variants = {str(settings.variants).lower()}",
        "enabled codes: "
        + ", ".join(f"{code} ({selection.severity(code)})" for code in selection.enabled_codes()),
        "counted in the summary, not listed: "
        + (", ".join(c for c in sorted(selection.summarised) if selection.is_enabled(c)) or "-"),
    ]
    sys.stdout.write("\n".join(lines) + "\n")
    return EXIT_OK


def _check(ns: argparse.Namespace, record: RunRecord | None = None) -> int:
    resolver = _resolver(ns)
    if ns.show_settings:
        return _show_settings(ns, resolver)
    options = Options(
        use_cache=not ns.no_cache,
        preview=ns.preview,
        snippets=ns.output_format == "full" and not ns.statistics,
    )
    stdin = ns.stdin_filename is not None or "-" in (ns.paths or ())
    if record is not None and not (stdin or ns.no_cache or ns.fix or ns.diff):
        record.eligible, record.config, record.paths = True, ns.config, list(ns.paths or ["."])
    jobs = _jobs(ns, resolver, options, record.walked if record is not None else None)
    if not jobs and ns.stdin_filename is None and ns.paths != ["-"]:
        _warn("No Python files found under the given path(s)")
    results = run_jobs(jobs, ns.jobs)
    unsafe = ns.unsafe_fixes
    if ns.diff:  # also with --fix: ruff's --diff shows the fixes and writes nothing
        return show_diff(results, jobs, unsafe, ns.quiet)
    fixed = 0
    if ns.fix:
        fixed, rewritten = apply_fixes(results, jobs, unsafe)
        if rewritten:  # what remains is reported from the fixed text
            again = {job.path for job in rewritten}
            redone = iter(run_jobs(rewritten, ns.jobs))
            results = [
                next(redone) if job.path in again else result
                for job, result in zip(jobs, results, strict=True)
            ]
    diagnostics = sorted((d for r in results for d in r.diagnostics), key=lambda d: d.sort_key)
    if ns.fix and not ns.quiet:
        sys.stderr.write(fixed_line(fixed, diagnostics, unsafe))
    summarised = [code for r in results for code in r.summarised]
    fail_on = {r.filename: r.fail_on for r in results}
    written = _write_output(
        ns, diagnostics, len(jobs), summarised, fail_on, _docs_template(jobs)
    )
    if record is not None:
        record.jobs, record.results = jobs, results
        if ns.output_file:
            record.output_file, record.output = os.path.abspath(ns.output_file), written
    crashed = [r for r in results if r.internal_error]
    for result in crashed:
        _fail(f"internal error while analysing {result.filename}: {result.internal_error}")
    if crashed:
        return EXIT_ERROR
    if ns.exit_zero:
        return EXIT_OK
    return EXIT_FOUND if _failing(results) else EXIT_OK


def _failing(results: Sequence[FileResult]) -> bool:
    return any(at_least(d.severity, r.fail_on) for r in results for d in r.diagnostics)


def _docs_template(jobs: Sequence[Job]) -> str | None:
    """The linted files' ``docs-url``: one template when their configurations agree; else
    (or when none sets it) None, and the links open the rules page installed with skewlsp."""
    templates = {job.settings.docs_url for job in jobs}
    return templates.pop() if len(templates) == 1 else None


def _write_output(
    ns: argparse.Namespace,
    diagnostics: list[Diagnostic],
    files: int,
    summarised: list[str],
    fail_on: dict[str, str],
    docs: str | None = None,
) -> str:
    """Write the report where it goes; the text written."""
    stream: TextIO
    if ns.output_file:
        try:
            stream = open(ns.output_file, "w", encoding="utf-8")  # noqa: SIM115
        except OSError as error:
            raise CliError(f"--output-file {ns.output_file}: {error.strerror}") from None
    else:
        stream = sys.stdout
    try:
        cwd = Path.cwd().resolve()
        context = FormatContext(
            color=_color(ns, stream),
            preview=ns.preview,
            root=repository_root(cwd),
            cwd=cwd,
            docs_url=docs,
            fail_on=fail_on,
            unsafe_fixes=ns.unsafe_fixes,
        )
        if ns.statistics:  # args refused --statistics with the other formats
            json_like = ns.output_format in JSON_FORMATS
            render = render_json if json_like else render_text
            text = render(diagnostics, summarised)
        else:
            text = renderer(ns.output_format)(diagnostics, context)
            if ns.output_format in TEXT_FORMATS and not ns.quiet and files:
                text += "\n" if text and ns.output_format == "full" else ""
                text += summary(diagnostics, files, summarised, ns.unsafe_fixes)
        stream.write(text)
        stream.flush()
    finally:
        if stream is not sys.stdout:
            stream.close()
    return text


def _preview(ns: argparse.Namespace) -> int:
    from skewlsp import api
    from skewlsp.cli.preview_text import with_header
    from skewlsp.common.importers import ProjectImporters, sibling_modules
    from skewlsp.common.resolver import RecordingResolver

    path_text, sep, line_text = ns.target.rpartition(":")
    if not sep or not line_text.isdigit():
        raise UsageError(f"expected PATH:LINE, got {ns.target!r}")
    path, line = Path(path_text), int(line_text)
    if not path.is_file():
        raise PathError(f"{path_text}: no such file")
    try:
        source = decode_source(path.read_bytes())
    except OSError as error:
        raise CliError(f"{path_text}: cannot read: {error.strerror}") from None
    except ValueError as error:
        raise CliError(f"{path_text}: cannot read: {error}") from None
    settings = _resolver(ns).for_path(path.absolute())
    absolute = str(path.resolve())
    # An inline helper's loop is decided per call: its callers are the modules next to it
    # (read only if the analysis asks, for such a loop).
    importers = ProjectImporters(sibling_modules(absolute))
    try:
        found = api.preview(
            source,
            line,
            path=absolute,
            resolver=RecordingResolver(settings.src),
            importers=importers,
            planner=settings.memory_planner,
            assumptions=settings.assumptions,
        )
    except api.PreviewUnavailable as refusal:
        raise CliError(f"{path_text}:{line}: {refusal}") from None
    text = with_header(found.report, found.rewritten)
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return EXIT_OK
