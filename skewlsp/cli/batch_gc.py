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

# Young objects allocated between two collections (CPython's default: 700). Each
# collection walks every young object still alive (mostly tree nodes an analysis is
# still reading), so fewer, larger collections cost less: 1,000,000 rather than
# 100,000 took a cold pypto-lib run from 3.35 to 3.24 s of CPU (4 alternating runs)
# and its largest process from 61 to 63 MB; on 1,160 small kernels 2.24 to 2.20 s,
# 40 MB either way. The garbage that waits longer is the few cycles an analysis
# makes (a module's constants and the config records that point back at it).
YOUNG_THRESHOLD = 1_000_000


def tune_for_batch() -> None:
    """Collect rarely, and never walk what is alive now (the imported modules)."""
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, middle, old)
