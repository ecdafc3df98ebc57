"""Replaying a run whose inputs have not changed, before anything heavy is imported.

A warm run over a thousand kernels answered every file from the cache and still
spent most of its time starting up (argparse, config and gitignore parsing,
dataclasses compiled at import), reading a cache entry per file and rebuilding
reports. The output of a run is a function of its command line, its working
directory, a few environment variables and the files it read; when none of them
changed it is the same output, so the previous run's is written again.

What a run read is recorded by :mod:`skewlsp.cli.recording` after it succeeded:
the stat signature of every file whose content it used (linted files, imported
modules, config and ignore files, skewlsp's own sources) and of every directory
whose entries decided something (walked directories, the ancestors searched for
config files and ``.git``, the directories an import was looked up in), since
creating or deleting an entry changes a directory's modification time. One
signature that differs, and the run happens in full. A file touched within
:data:`FRESH_NS` of the recorded run is never trusted (its change could hide in
the clock's resolution), as git treats a "racily clean" index entry.

This module imports nothing but builtins and ``os``: it runs on every invocation.
"""

from __future__ import annotations

import marshal
import os
import sys
import zlib

from skewlsp.common.cache_home import cache_home

FORMAT = 1
FRESH_NS = 2_000_000_000  # files changed this close to a recorded run are not trusted
# Everything in the environment the output depends on (formats, colour, paths, cache).
ENVIRONMENT = (
    "SKEWLINT_OUTPUT_FORMAT",
    "NO_COLOR",
    "GITHUB_WORKSPACE",
    "CI_PROJECT_DIR",
    "XDG_CACHE_HOME",
    "LOCALAPPDATA",
    "HOME",
)
Signature = tuple[int, int, int, int]

# (typing is not imported at run time: mypy reads any constant named TYPE_CHECKING as true)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO, TypedDict

    class RunHeader(TypedDict):
        """A record's header, as ``load`` reads it (recording.Recorder.save writes it)."""

        key: tuple[object, ...]
        observed: list[tuple[str, Signature | None]]
        stderr: str
        output_file: str | None
        output: str
        code: int


def runs_directory() -> str:
    return os.path.join(cache_home(), "skewlint", "runs")


def run_key(argv: list[str]) -> tuple[object, ...]:
    """Everything outside the file system that the output depends on."""
    from skewlsp import __version__

    def isatty(stream: TextIO) -> bool:
        try:
            return bool(stream.isatty())
        except (AttributeError, ValueError, OSError):
            return False

    return (
        FORMAT,
        __version__,
        sys.version,
        sys.executable,
        os.getcwd(),
        tuple(argv),
        tuple(os.environ.get(name) for name in ENVIRONMENT),
        isatty(sys.stdout),
        isatty(sys.stderr),
        getattr(sys.stdout, "encoding", None),
        getattr(sys.stderr, "encoding", None),
        getattr(sys.stdout, "errors", None),
        getattr(sys.stderr, "errors", None),
    )


def memo_path(key: tuple[object, ...]) -> str:
    """Where the record of the last run with ``key`` lives (the key is checked on load)."""
    argv = key[5]
    assert isinstance(argv, tuple)  # run_key's command line
    text = "\0".join(str(part) for part in (*key[:5], *argv, *key[6:]))
    digest = zlib.crc32(text.encode("utf-8", "surrogateescape"))
    return os.path.join(runs_directory(), f"{digest:08x}.marshal")


def pack(header: dict[str, object], stdout: bytes) -> bytes:
    """A record: the header's length, the marshalled header, then stdout's bytes as they
    were written (read back only when the header says the run may be replayed)."""
    encoded = marshal.dumps(header)
    return len(encoded).to_bytes(8, "little") + encoded + stdout


def signature(path: str) -> Signature | None:
    """(mtime, ctime, size, inode) of ``path``; None when it does not exist."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)


def unchanged(observed: list[tuple[str, Signature | None]]) -> bool:
    stat = os.stat
    for path, recorded in observed:
        try:
            st = stat(path)
        except (OSError, ValueError):
            if recorded is not None:
                return False
            continue
        if recorded is None or recorded != (
            st.st_mtime_ns,
            st.st_ctime_ns,
            st.st_size,
            st.st_ino,
        ):
            return False
    return True


def load(key: tuple[object, ...]) -> tuple[RunHeader, bytes] | None:
    """The recorded run for ``key`` (header, stdout bytes) if every signature still
    matches, else None. (A header of another shape fails where it is read: ``replay``
    catches the TypeError or KeyError.)"""
    try:
        with open(memo_path(key), "rb") as stream:
            size = int.from_bytes(stream.read(8), "little")
            header: RunHeader = marshal.loads(stream.read(size))
            if not isinstance(header, dict) or header.get("key") != key:
                return None
            if not unchanged(header["observed"]):
                return None
            return header, stream.read()
    except (OSError, EOFError, ValueError, TypeError, KeyError):
        return None


def replay(argv: list[str], key: tuple[object, ...] | None = None) -> int | None:
    """Write the recorded output of an identical earlier run; its exit code, or None.

    ``key``: ``run_key(argv)``, if the caller has it already.
    """
    try:
        found = load(key if key is not None else run_key(argv))
    except Exception:  # noqa: BLE001 - a broken record only means "run in full"
        return None
    if found is None:
        return None
    memo, stdout = found
    try:
        output_file = memo["output_file"]
        if output_file is not None:
            with open(output_file, "w", encoding="utf-8") as stream:
                stream.write(memo["output"])
        sys.stderr.write(memo["stderr"])
        sys.stderr.flush()
        if os.linesep != "\n":  # the text layer writes line ends as the platform's
            console = sys.stdout
            console.write(stdout.decode(console.encoding, console.errors or "strict"))
            console.flush()
            return memo["code"]
        sys.stdout.flush()
        sys.stdout.buffer.write(stdout)  # the bytes the recorded run wrote (same encoding)
        sys.stdout.buffer.flush()
    except BrokenPipeError:  # e.g. piped into `head`: not an error (as in app.main)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (OSError, KeyError, TypeError, AttributeError, ValueError):
        return None  # the full run says what is wrong, with its own message
    return memo["code"]
