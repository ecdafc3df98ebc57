"""Values kept across analyses: bounded, the least recently used going first."""

from __future__ import annotations

from skewlsp.analysis.source.kept import Kept, Keyed


def test_a_kept_value_is_not_made_again_and_the_least_recent_goes_first() -> None:
    made: list[str] = []

    def make(key: str) -> str:
        made.append(key)
        return key.upper()

    kept: Kept[str, str] = Kept(2)
    assert kept.get_or_make("a", lambda: make("a")) == "A"
    assert kept.get_or_make("b", lambda: make("b")) == "B"
    assert kept.get_or_make("a", lambda: make("a")) == "A"  # kept: "b" is now the oldest
    kept.get_or_make("c", lambda: make("c"))  # one too many: "b" goes
    kept.get_or_make("a", lambda: make("a"))
    kept.get_or_make("b", lambda: make("b"))
    assert made == ["a", "b", "c", "b"]


def test_none_is_a_value_like_any_other() -> None:
    calls = []
    kept: Kept[str, None] = Kept(4)
    for _ in range(3):
        kept.get_or_make("x", lambda: calls.append(1))
    assert calls == [1]


def test_asking_for_a_value_counts_as_using_it() -> None:
    kept: Kept[str, int] = Kept(2)
    kept.remember("a", 1)
    kept.remember("b", 2)
    assert kept.get("a") == 1  # "b" is now the oldest
    kept.remember("c", 3)
    assert (kept.get("a"), kept.get("b"), kept.get("c"), kept.get("d")) == (1, None, 3, None)


def test_a_keyed_key_answers_for_an_equal_value_only_whatever_its_hash_says() -> None:
    kept: Kept[Keyed, str] = Kept(4)
    kept.get_or_make(Keyed(1, ("loop", [1, 2])), lambda: "first")  # a list: not hashable
    assert kept.get_or_make(Keyed(1, ("loop", [1, 2])), lambda: "again") == "first"
    assert kept.get_or_make(Keyed(1, ("loop", [1, 3])), lambda: "other") == "other"
    assert kept.get_or_make(Keyed(2, ("loop", [1, 2])), lambda: "missed") == "missed"
