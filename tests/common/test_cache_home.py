"""The user's cache directory, shared by skewlint (its cache, replay records) and the server."""

from __future__ import annotations

import os

import pytest

from skewlsp.common.cache_home import cache_home


def test_an_absolute_xdg_cache_home_wins_and_a_relative_one_is_ignored(tmp_path) -> None:
    assert cache_home({"XDG_CACHE_HOME": str(tmp_path)}) == str(tmp_path)
    expected = os.path.join(os.path.expanduser("~"), ".cache")
    assert cache_home({"XDG_CACHE_HOME": "relative"}) == expected


def test_without_a_home_directory_it_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os.path, "expanduser", lambda path: path)  # no HOME, no passwd entry
    with pytest.raises(RuntimeError, match="no home directory"):
        cache_home({})
