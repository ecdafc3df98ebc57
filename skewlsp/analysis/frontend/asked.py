"""What a folding asked, so that what it made can be used again where the same
questions get the same answers.

The lowering and memory passes read each loop of a walk again for every copy the
analysis makes of it (each ``pl.unroll`` copy, an inline helper's copy at each call, the
module decided again under another build, and each file of a batch holding the same
kernel text: ``driver.loop_loads``). What they make of a loop or scope is decided by
the tree, the tensors in scope, and the answers of the questions the folding asks: what
a name folds to, and where a node is (a span, for the loops a result names). So an
:class:`Asked` notes every question with its answer, in order, and :func:`replayed`
keeps each result with the questions its making asked: when they get the same answers
again, asked in the same order, the making would go the same way and give the same
result. Asking them again also charges the build with the reads of the names it would
have charged (the same names, asked through the same lookup).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

import libcst as cst

from skewlsp.analysis.frontend.values import PYTHON_ONLY, Folded
from skewlsp.contract import Span

_T = TypeVar("_T")

# A question asked (a name, or a node whose span is asked) and its answer.
Question = tuple["str | cst.CSTNode", "Folded | Span | None"]

# At most this many results kept per node: a language server keeps a tree across edits,
# and each new answer (an edited constant) would make another.
_KEPT = 8


class Asked:
    """The questions one loop's folding asks, in order (``trail``): what a name folds to
    (``resolve``'s answer) and where a node is (``span_of``'s)."""

    def __init__(
        self,
        resolve: Callable[[str], Folded | None],
        span_of: Callable[[cst.CSTNode], Span],
    ) -> None:
        self._resolve = resolve
        self._span_of = span_of
        self.trail: list[Question] = []

    def resolve(self, name: str) -> Folded | None:
        found = self._resolve(name)
        self.trail.append((name, found))
        return found

    def span_of(self, node: cst.CSTNode) -> Span:
        found = self._span_of(node)
        self.trail.append((node, found))
        return found

    def since(self, start: int) -> tuple[Question, ...]:
        """The questions asked from ``start`` on, each once (as first asked: under one
        loop's folding a question asked again gets the same answer)."""
        first: dict[str | cst.CSTNode, Folded | Span | None] = {}
        for question, answer in self.trail[start:]:
            if question not in first:
                first[question] = answer
        return tuple(first.items())

    def again(self, questions: tuple[Question, ...]) -> bool:
        """Whether ``questions`` get the same answers here, asked in order and no further
        than the first that differs (so only questions the making would ask are asked)."""
        for question, answer in questions:
            if isinstance(question, str):
                if isinstance(answer, Span) or not _same(self._resolve(question), answer):
                    return False  # (a name's answer is never a span)
            elif self._span_of(question) != answer:
                return False
        self.trail.extend(questions)
        return True


@dataclass(frozen=True)
class Made(Generic[_T]):
    """A result as one making gave it: the questions it asked with their answers, and
    the other inputs it read (compared by equality)."""

    questions: tuple[Question, ...]
    inputs: tuple[object, ...]
    value: _T


def replayed(
    kept: list[Made[_T]], inputs: tuple[object, ...], asked: Asked, make: Callable[[], _T]
) -> _T:
    """``make()``'s result, made again only when no result of ``kept`` (those of one
    node, kept by the caller) had the same ``inputs`` and asked questions that get the
    same answers now. ``make`` asks its questions through ``asked``."""
    for made in kept:
        if made.inputs == inputs and asked.again(made.questions):
            return made.value
    start = len(asked.trail)
    value = make()
    kept.append(Made(asked.since(start), inputs, value))
    if len(kept) > _KEPT:
        del kept[0]
    return value


def _same(found: Folded | None, answer: Folded | None) -> bool:
    """Whether a name's answer folds as an earlier one did: a number or a reason by
    equality; a value only Python builds (a config record, a table) only when it is the
    same object (a record's equality leaves out the module its fields are folded in)."""
    if type(found) is not type(answer):
        return False
    if isinstance(found, PYTHON_ONLY):
        return found is answer
    return found == answer
