"""The code that computes skewlint's results: skewlsp's own sources and libcst's release.

A result kept from an earlier run is only the result of *this* run if the same code
would compute it. The version string cannot say so: a checkout of a newer commit, or an
edit of an installed module, leaves ``__version__`` as it was. So what the caches record
is a digest of the code itself (:func:`code_digest`): the bytes of every module of the
installed package, and the name of the libcst distribution that parses the kernels
(its version is in the ``dist-info`` folder's name, read without importing libcst, which
a warm run never does). The replay of a whole run (:mod:`skewlsp.cli.replay`) watches
the same sources by their stat signatures (:func:`own_sources`).

This module imports nothing but builtins, ``hashlib`` and ``os``: a warm run needs it.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator

PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def own_sources() -> Iterator[str]:
    """skewlsp's directories and ``.py`` files, in a fixed order (directories first)."""
    for directory, dirnames, filenames in os.walk(PACKAGE):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        yield directory
        for name in sorted(filenames):
            if name.endswith(".py"):
                yield os.path.join(directory, name)


def libcst_release() -> str:
    """The ``libcst-X.Y.Z.dist-info`` folder beside the libcst package ("-" if none)."""
    import importlib.util  # already imported by the interpreter's startup: no cost

    spec = importlib.util.find_spec("libcst")
    if spec is None or not spec.origin:
        return "-"
    site = os.path.dirname(os.path.dirname(spec.origin))
    try:
        names = os.listdir(site)
    except OSError:
        return "-"
    found = sorted(n for n in names if n.lower().startswith("libcst-") and n.endswith("-info"))
    return found[0] if found else "-"


def code_digest() -> str:
    """sha256 of every skewlsp module (its path inside the package and its bytes) and
    libcst's release: it changes whenever the code that computed a result changes.
    About 3 ms (150 modules); a module that cannot be read counts as its path alone."""
    digest = hashlib.sha256()
    for path in own_sources():
        if not path.endswith(".py"):
            continue
        digest.update(os.path.relpath(path, PACKAGE).encode("utf-8", "surrogateescape") + b"\0")
        try:
            with open(path, "rb") as stream:
                digest.update(stream.read())
        except OSError:
            digest.update(b"\1unreadable")
        digest.update(b"\0")
    digest.update(libcst_release().encode("utf-8", "surrogateescape"))
    return digest.hexdigest()
