"""Garbage-collector settings for a batch run of the linter.

A cold run builds and drops a libcst tree of every function holding a loop:
hundreds of thousands of small objects per file. With CPython's default
thresholds the cyclic collector runs every 700 allocations and walks the young
objects each time: a sixth of a cold run's CPU on pypto-lib's kernels, for
nothing, since those trees hold no reference cycles (reference counting frees
them). A batch process ends soon after, so collections are made rare instead of
disabled (memory stays bounded if something does build cycles), and what was
imported before the work starts is moved out of the collector's sight.

The language server keeps the defaults: it lives for hours, and a
collection's pause there is spread over keystrokes.
"""

from __future__ import annotations

import gc

# Young objects allocated between two collections (CPython's default: 700).
YOUNG_THRESHOLD = 100_000


def tune_for_batch() -> None:
    """Collect rarely, and never walk what is alive now (the imported modules)."""
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, middle, old)
