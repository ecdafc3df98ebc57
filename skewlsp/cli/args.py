"""The command-line grammar: ``skewlint [check] PATH...``, ``explain CODE``, ``preview PATH:LINE``.

Usage errors become :class:`UsageError` (one line, exit 2) instead of argparse's
multi-line usage dump, so scripts and pre-commit logs stay readable.
"""

from __future__ import annotations

import argparse
import os
import shlex
from collections.abc import Sequence
from typing import NoReturn

from skewlsp import __version__
from skewlsp.cli.formats import DEFAULT_FORMAT, FORMATS, JSON_FORMATS, TEXT_FORMATS
from skewlsp.common.config import SEVERITIES, environment_problem

SUBCOMMANDS = ("check", "explain", "preview")
FORMAT_ENV = "SKEWLINT_OUTPUT_FORMAT"


class UsageError(Exception):
    """Bad command-line usage; the message is one line."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see `{self.prog} --help`)")


EXIT_CODES = """exit status:
  0  nothing at the --fail-on severity (default: warning) or above was reported
     (also with --exit-zero, and when no Python files were found)
  1  something at --fail-on or above was reported
  2  usage, configuration or internal error (one line on stderr)
"""


def _codes(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def _patterns(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def _assignment(text: str) -> tuple[str, str]:
    """``NAME=VALUE`` of ``--env``; a bare ``NAME`` is refused: the analysis never reads
    skewlint's own environment, so the value is always on the command line (a shell's
    ``--env NAME="$NAME"`` passes it)."""
    name, sep, value = text.partition("=")
    if not sep:
        shell = f'--env {text}="${text}"'
        raise argparse.ArgumentTypeError(
            f"expected NAME=VALUE, got {text!r} (to pass the shell's value: {shell})"
        )
    problem = environment_problem(name)
    if problem is not None:
        raise argparse.ArgumentTypeError(f"expected {problem}")
    return name, value


def _arguments(text: str) -> list[str]:
    """``--argv '--variant flash'``: split as a POSIX shell splits it."""
    try:
        return shlex.split(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"cannot split {text!r}: {error}") from None


def _check_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="skewlint",
        description="Report what pypto's SkewCrossCorePipeline pass does to each pl.pipeline "
        "loop. Subcommands: `skewlint explain CODE|--all`, `skewlint preview PATH:LINE`.",
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="files or directories to lint (default: .); `-` reads stdin",
    )
    parser.add_argument("--version", action="version", version=f"skewlint {__version__}")
    output = parser.add_argument_group("output")
    output.add_argument(
        "--output-format",
        choices=sorted(FORMATS),
        default=None,
        help=f"output format (default: ${FORMAT_ENV} or {DEFAULT_FORMAT})",
    )
    output.add_argument("-o", "--output-file", metavar="FILE", help="write the output to FILE")
    output.add_argument(
        "--statistics",
        action="store_true",
        help="print counts per code and per verdict instead of diagnostics (a table with "
        "the concise/full formats, JSON with json/json-lines; refused with the others)",
    )
    output.add_argument("--no-color", action="store_true", help="never colour the output")
    output.add_argument("-q", "--quiet", action="store_true", help="no summary line")
    output.add_argument(
        "--preview",
        action="store_true",
        help="add each loop's rewritten source (json: a `preview` key)",
    )
    fixing = parser.add_argument_group("fixes")
    fixing.add_argument(
        "--fix",
        action="store_true",
        help="apply the safe fixes (SKW030: lower the stage to the one that asks for the same "
        "depth; SKW901: delete unused suppressions; SKW002, SKW014: the stage= a fix line "
        "gives, on literal bounds), each stage= edit checked by deciding the edited file "
        "again, then report what remains",
    )
    fixing.add_argument(
        "--unsafe-fixes",
        action="store_true",
        help="with --fix or --diff, also the unsafe fixes: a stage= that gives the same "
        "verdict for the trip the loop's bounds read now, which bakes their values into "
        "the kernel (the fix line names where they are set)",
    )
    fixing.add_argument(
        "--diff",
        action="store_true",
        help="print the safe fixes as a unified diff instead of applying them, also with "
        "--fix, as ruff does (exit 1 when there is one)",
    )
    rules = parser.add_argument_group("rules")
    rules.add_argument(
        "--select",
        type=_codes,
        action="append",
        metavar="CODES",
        help="only these codes or prefixes (replaces the config's select)",
    )
    rules.add_argument(
        "--extend-select",
        type=_codes,
        action="append",
        metavar="CODES",
        help="also these codes or prefixes, on top of select (e.g. SKW01 lists the loops "
        "left for the lowering passes, otherwise only counted in the summary)",
    )
    rules.add_argument(
        "--ignore",
        type=_codes,
        action="append",
        metavar="CODES",
        help="never these codes or prefixes (added to the config's ignore; the more "
        "specific of a select and an ignore entry wins, ignore wins ties)",
    )
    rules.add_argument(
        "--fail-on",
        choices=SEVERITIES,
        default=None,
        help="exit 1 when a diagnostic this severe or worse is shown (default: warning)",
    )
    rules.add_argument(
        "--exit-zero", action="store_true", help="exit 0 even when diagnostics are found"
    )
    config = parser.add_argument_group("configuration")
    config.add_argument(
        "--config", metavar="PATH", help="use this pyproject.toml / skewlint.toml for every file"
    )
    config.add_argument("--isolated", action="store_true", help="ignore all config files")
    config.add_argument(
        "--show-settings",
        action="store_true",
        help="print the resolved settings for the first PATH and exit",
    )
    _build_arguments(parser)
    files = parser.add_argument_group("files")
    files.add_argument(
        "--exclude",
        type=_patterns,
        action="append",
        metavar="PATTERNS",
        help="gitignore-style patterns to skip, replacing the config's exclude (and the "
        "defaults: .git, .venv, build, ...); path patterns are relative to the working "
        "directory",
    )
    files.add_argument(
        "--extend-exclude",
        type=_patterns,
        action="append",
        metavar="PATTERNS",
        help="patterns to skip in addition to exclude",
    )
    files.add_argument(
        "--force-exclude",
        action="store_true",
        help="apply exclude / .gitignore to files named explicitly",
    )
    files.add_argument(
        "--stdin-filename",
        metavar="NAME",
        help="read the source from stdin, reporting and configuring it as NAME",
    )
    speed = parser.add_argument_group("speed")
    speed.add_argument("--no-cache", action="store_true", help="do not read or write the cache")
    speed.add_argument(
        "--jobs",
        "-j",
        type=int,
        default=None,
        metavar="N",
        help="worker processes (default: CPU count; 1 disables the pool)",
    )
    return parser


def _build_arguments(parser: argparse.ArgumentParser) -> None:
    """``--env`` and ``--argv``: the build the kernels are assumed imported under."""
    build = parser.add_argument_group(
        "build (what the kernels' modules read when Python imports them; the real "
        "environment is never read)"
    )
    build.add_argument(
        "--env",
        type=_assignment,
        action="append",
        metavar="NAME=VALUE",
        help="assume the environment variable NAME is VALUE (repeatable; over the config's "
        "`environment`); every other variable is assumed unset",
    )
    build.add_argument(
        "--argv",
        type=_arguments,
        metavar="ARGS",
        help="assume the kernels run with these command-line arguments, split like a shell "
        "(`--argv='--variant flash'`; replaces the config's `argv`); default: none",
    )


def _explain_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="skewlint explain", description="Explain a reason code.")
    parser.add_argument("code", metavar="CODE", nargs="?")
    parser.add_argument("--all", action="store_true", help="explain every code")
    parser.add_argument("--output-format", choices=("text", "json"), default="text")
    parser.add_argument(
        "--config", metavar="PATH", help="the configuration whose docs-url the links use"
    )
    parser.add_argument("--isolated", action="store_true", help="ignore all config files")
    return parser


def _preview_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="skewlint preview",
        description="Print the loop at PATH:LINE as the compiler rewrites it.",
    )
    parser.add_argument("target", metavar="PATH:LINE")
    parser.add_argument("--config", metavar="PATH")
    parser.add_argument("--isolated", action="store_true")
    _build_arguments(parser)
    return parser


def parse(argv: Sequence[str]) -> argparse.Namespace:
    """Parse ``argv``; the namespace's ``command`` is check, explain or preview."""
    argv = list(argv)
    command = "check"
    if argv and argv[0] in SUBCOMMANDS:
        command = argv.pop(0)
    parser = {"check": _check_parser, "explain": _explain_parser, "preview": _preview_parser}[
        command
    ]()
    namespace = parser.parse_args(argv)
    namespace.command = command
    if command == "check":
        _finish_check(namespace)
    if command == "explain" and (namespace.code is None) == (not namespace.all):
        raise UsageError("explain takes one CODE or --all (see `skewlint explain --help`)")
    if command != "check" and namespace.isolated and namespace.config:
        raise UsageError("--config and --isolated cannot be used together")
    return namespace


def _finish_check(ns: argparse.Namespace) -> None:
    from_env = ns.output_format is None
    if ns.output_format is None:
        env = os.environ.get(FORMAT_ENV, "").strip()
        if env and env not in FORMATS:
            raise UsageError(
                f"${FORMAT_ENV}={env!r} is not an output format; use one of "
                + ", ".join(sorted(FORMATS))
            )
        ns.output_format = env or DEFAULT_FORMAT
    if ns.statistics and ns.output_format not in TEXT_FORMATS + JSON_FORMATS:
        raise UsageError(
            f"--statistics cannot be written as {ns.output_format}"
            + (f" (from ${FORMAT_ENV})" if from_env else "")
            + ": use "
            + ", ".join(TEXT_FORMATS)
            + " for a table or "
            + ", ".join(JSON_FORMATS)
            + " for JSON"
        )
    for key in ("select", "extend_select", "ignore", "exclude", "extend_exclude"):
        value = getattr(ns, key)
        if value is not None:
            setattr(ns, key, [code for group in value for code in group])
    if ns.jobs is not None and ns.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if (ns.fix or ns.diff) and (ns.stdin_filename is not None or ns.paths == ["-"]):
        raise UsageError("--fix and --diff work on files, not on stdin")
    if ns.isolated and ns.config:
        raise UsageError("--config and --isolated cannot be used together")
    if ns.stdin_filename is not None and any(p != "-" for p in ns.paths):
        raise UsageError("--stdin-filename reads stdin: pass no other PATH")
