"""The stdlib and libcst parses of unit texts, shared within one analysis of a module.

A function can be parsed for two reasons in one analysis: it holds loops (a
unit), and it calls an ``@pl.jit.inline`` helper (a caller, parsed to find the
call sites). Both parsers gave it a tree each time: on pypto-lib's kernels the
callers were parsed again with libcst 72 times and with ``ast`` 104 times, a
tenth of a cold run. Inside :func:`shared_unit_parses`, a text is parsed at
most once by each parser; outside, every call parses (nothing is kept).
Both kinds of trees are read, never changed, by the analysis.
"""

from __future__ import annotations

import ast
import contextlib
import contextvars
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import libcst as cst


@dataclass
class _Parses:
    stdlib: dict[str, ast.Module | BaseException] = field(default_factory=dict)
    concrete: dict[str, cst.Module | None] = field(default_factory=dict)


_SHARED: contextvars.ContextVar[_Parses | None] = contextvars.ContextVar(
    "unit_parses", default=None
)


@contextlib.contextmanager
def shared_unit_parses() -> Iterator[None]:
    """Share the parses of unit texts until the block ends (one module's analysis).

    Nested use keeps the outer scope's parses (an imported helper analysed while
    its importer is).
    """
    if _SHARED.get() is not None:
        yield
        return
    token = _SHARED.set(_Parses())
    try:
        yield
    finally:
        _SHARED.reset(token)


def stdlib_tree(text: str) -> ast.Module:
    """``ast.parse(text)`` with its warnings silenced; raises what it raises, every time."""
    shared = _SHARED.get()
    found = shared.stdlib.get(text) if shared is not None else None
    if found is None:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                found = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError) as err:
            found = err
        if shared is not None:
            shared.stdlib[text] = found
    if isinstance(found, BaseException):
        raise found
    return found


def _parse_or_none(text: str) -> cst.Module | None:
    try:
        return cst.parse_module(text)
    except Exception:
        return None


def concrete_module(
    text: str, parse: Callable[[str], cst.Module | None] = _parse_or_none
) -> cst.Module | None:
    """libcst's tree of ``text`` (None if libcst refuses it), from ``parse`` if not shared yet."""
    shared = _SHARED.get()
    if shared is None:
        return parse(text)
    if text in shared.concrete:
        return shared.concrete[text]
    found = shared.concrete[text] = parse(text)
    return found
