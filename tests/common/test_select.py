"""Select / ignore / severity: the more specific selector wins, ignore wins ties."""

from __future__ import annotations

from pathlib import Path

from skewlsp.common.config import Settings
from skewlsp.common.select import Selection, at_least


def selection(**kwargs: object) -> Selection:
    return Selection.from_settings(Settings(root=Path("."), **kwargs))  # type: ignore[arg-type]


def test_everything_is_enabled_by_default() -> None:
    sel = selection()
    assert all(sel.is_enabled(code) for code in ("SKW001", "SKW020", "SKW900", "SKW901"))


def test_select_by_prefix() -> None:
    sel = selection(select=("SKW02",))
    assert sel.is_enabled("SKW021") and not sel.is_enabled("SKW001")


def test_more_specific_select_beats_broader_ignore() -> None:
    sel = selection(select=("SKW02",), ignore=("SKW0",))
    assert sel.is_enabled("SKW020") and not sel.is_enabled("SKW001")


def test_more_specific_ignore_beats_broader_select() -> None:
    sel = selection(select=("SKW0",), ignore=("SKW021",))
    assert sel.is_enabled("SKW020") and not sel.is_enabled("SKW021")


def test_ignore_wins_a_tie() -> None:
    assert not selection(select=("SKW02",), ignore=("SKW02",)).is_enabled("SKW020")


def test_extend_select_adds_to_select() -> None:
    sel = selection(select=("SKW02",), extend_select=("SKW001",))
    assert sel.is_enabled("SKW001") and sel.is_enabled("SKW022") and not sel.is_enabled("SKW010")


def test_severity_override_most_specific_wins_else_default() -> None:
    sel = selection(severity={"SKW0": "error", "SKW001": "hint"})
    assert sel.severity("SKW001") == "hint"
    assert sel.severity("SKW020") == "error"
    assert sel.severity("SKW901") == "warning"


def test_severity_ordering() -> None:
    assert at_least("error", "warning") and at_least("warning", "warning")
    assert not at_least("information", "warning") and at_least("hint", "hint")


def test_summarised_codes_are_enabled_but_not_listed_unless_the_user_names_them() -> None:
    def listed(**kwargs: object) -> bool:
        settings = Settings(root=Path("."), **kwargs)  # type: ignore[arg-type]
        sel = Selection.from_settings(settings, summarise=("SKW010",))
        assert sel.is_enabled("SKW020") == ("SKW020" not in kwargs.get("ignore", ()))
        return sel.is_listed("SKW010")

    assert not listed()
    assert listed(select=("ALL",))
    assert listed(select=("SKW0",))
    assert listed(extend_select=("SKW010",))
    assert not listed(select=("SKW02",))
    assert not listed(extend_select=("SKW010",), ignore=("SKW010",))


def test_the_editor_summarises_nothing() -> None:
    assert selection().is_listed("SKW010") and selection().summarised == frozenset()
