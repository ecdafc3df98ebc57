"""A few values kept from one analysis to the next (a language server's edits).

Trees and facts of texts that did not change (an inline helper, its callers) are
worth keeping while a user types elsewhere; a bounded, least-recently-used map
is enough, and a lock makes it safe on the server's two analysis threads.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Kept(Generic[K, V]):
    """At most ``size`` values by key, the least recently used going first."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._values: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get_or_make(self, key: K, make: Callable[[], V]) -> V:
        """The value kept for ``key``, else ``make()``'s (made outside the lock: a parse
        takes milliseconds), kept from now on."""
        with self._lock:
            if key in self._values:
                self._values.move_to_end(key)
                return self._values[key]
        value = make()
        self.remember(key, value)
        return value

    def get(self, key: K) -> V | None:
        """The value kept for ``key`` (None if there is none)."""
        with self._lock:
            if key not in self._values:
                return None
            self._values.move_to_end(key)
            return self._values[key]

    def remember(self, key: K, value: V) -> None:
        with self._lock:
            self._values[key] = value
            self._values.move_to_end(key)
            while len(self._values) > self._size:
                self._values.popitem(last=False)


@dataclass(frozen=True)
class Keyed:
    """A key whose hash is computed once (``hashed``, e.g. ``hash(value)``) and compared
    by its whole ``value``: a frozen record's hash hashes every record inside it again at
    each of a lookup's hashings, which cost as much as the work a large one was a key
    for."""

    hashed: Hashable
    value: object = field(hash=False)
