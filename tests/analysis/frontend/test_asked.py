"""What a folding asked (``frontend.asked``): a result is used again only where the
questions its making asked get the same answers, asked as the making would ask them."""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from skewlsp.analysis.frontend.asked import Asked, Made, replayed
from skewlsp.analysis.frontend.values import Const, Folded, Record
from skewlsp.contract import Span

LOOP = cst.parse_statement("for i in pl.pipeline(0, N, 1, stage=2):\n    pass\n")
AT = Span(3, 5, 4, 13)


class _Answers:
    """A build's answers to the names, noting each name it is asked."""

    def __init__(self, answers: dict[str, Folded]) -> None:
        self.answers = answers
        self.asked: list[str] = []

    def __call__(self, name: str) -> Folded | None:
        self.asked.append(name)
        return self.answers.get(name)


def _making(asked: Asked) -> Callable[[], tuple[Folded | None, ...]]:
    """A pass asking ``ROWS`` then ``COLS`` and where the loop is."""

    def make() -> tuple[Folded | None, ...]:
        return (asked.resolve("ROWS"), asked.resolve("COLS"), asked.resolve("ROWS"))

    return make


def _asking_cfg(asked: Asked, value: str) -> Callable[[], str]:
    """A pass asking ``cfg`` and making ``value``."""

    def make() -> str:
        asked.resolve("cfg")
        return value

    return make


def test_a_result_is_used_again_where_its_questions_get_the_same_answers() -> None:
    kept: list[Made[tuple[Folded | None, ...]]] = []
    first = _Answers({"ROWS": Const(64), "COLS": Const(256)})
    asked = Asked(first, lambda node: AT)
    made = replayed(kept, (), asked, _making(asked))
    assert made == (Const(64), Const(256), Const(64))
    # each question once, as first asked
    assert kept[0].questions == (("ROWS", Const(64)), ("COLS", Const(256)))
    same = _Answers({"ROWS": Const(64), "COLS": Const(256)})
    asked = Asked(same, lambda node: AT)
    assert replayed(kept, (), asked, lambda: (None,)) is made
    # the names asked again, as the making would ask them (a build's reads are charged)
    assert same.asked == ["ROWS", "COLS"]
    assert asked.trail == [("ROWS", Const(64)), ("COLS", Const(256))]


def test_asking_again_stops_at_the_first_answer_that_differs() -> None:
    kept: list[Made[tuple[Folded | None, ...]]] = []
    first = _Answers({"ROWS": Const(64), "COLS": Const(256)})
    asked = Asked(first, lambda node: AT)
    replayed(kept, (), asked, _making(asked))
    other = _Answers({"ROWS": Const(128), "COLS": Const(256)})
    asked = Asked(other, lambda node: AT)
    made = replayed(kept, (), asked, _making(asked))
    assert made == (Const(128), Const(256), Const(128))
    # ROWS asked once for the check (it differs: COLS is not asked for it), then by the making
    assert other.asked == ["ROWS", "ROWS", "COLS", "ROWS"]
    assert len(kept) == 2


def test_a_config_record_answers_the_same_only_when_it_is_the_same_object() -> None:
    # two records of equal fields built in two modules fold their fields apart
    one = Record("ModelConfig", {"rows": "64"}, owner=None)  # type: ignore[arg-type]
    two = Record("ModelConfig", {"rows": "64"}, owner=None)  # type: ignore[arg-type]
    assert one == two
    kept: list[Made[str]] = []
    for answer, value in ((one, "first"), (one, "again"), (two, "other")):
        asked = Asked(_Answers({"cfg": answer}), lambda node: AT)
        replayed(kept, (), asked, _asking_cfg(asked, value))
    assert [made.value for made in kept] == ["first", "other"]


def test_a_span_asked_is_a_question_too() -> None:
    # the same tree at another place (a file of a batch holding the text lower down)
    kept: list[Made[Span]] = []
    asked = Asked(_Answers({}), lambda node: AT)
    assert replayed(kept, (), asked, lambda: asked.span_of(LOOP)) == AT
    lower = Span(13, 5, 14, 13)
    asked = Asked(_Answers({}), lambda node: lower)
    assert replayed(kept, (), asked, lambda: asked.span_of(LOOP)) == lower
    asked = Asked(_Answers({}), lambda node: AT)
    assert replayed(kept, (), asked, lambda: Span(0, 0, 0, 0)) == AT


def test_other_inputs_are_compared_too() -> None:
    kept: list[Made[str]] = []
    asked = Asked(_Answers({}), lambda node: AT)
    assert replayed(kept, ({"a": 1},), asked, lambda: "a") == "a"
    assert replayed(kept, ({"a": 2},), asked, lambda: "b") == "b"
    assert replayed(kept, ({"a": 1},), asked, lambda: "c") == "a"
