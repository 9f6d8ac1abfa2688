"""The garbage collector of a serving process: frozen start-up objects and rarer young
collections, so a collection never stalls every table (docs/performance.md "Hot path")."""

from __future__ import annotations

import gc

GC_THRESHOLDS = (10_000, 5, 20)
"""The collector's thresholds in a serving process (Python's defaults are 700, 10, 10).
Every surviving object is walked once in each younger generation whatever the thresholds, so
they set the size of a pause, not the total: collections of the middle generation every 5
young ones keep each pause short (at 1,000 tables, every 20 walked ~0.2 s of objects at once)."""
_gc_tuned = False


def serving_thresholds() -> None:
    """From a serving process's first line: the serving thresholds while it imports and builds
    the app. Start-up makes some 170,000 objects that live as long as the process, and Python's
    defaults would walk them again every 700 allocations: a tenth of the start-up's CPU. The
    objects are frozen once the server has started (:func:`tune_gc`)."""
    gc.set_threshold(*GC_THRESHOLDS)


def tune_gc() -> None:
    """Once per process, when the server has started: move everything alive now (modules, the
    app, the engine's tables) to the collector's permanent generation (``gc.freeze``) and make
    young collections rarer. Measured under ``prefclub selfplay``: a full collection walked
    ~180,000 start-up objects and stalled the event loop for 350 ms at a time, several times
    per run; frozen objects are never walked again (docs/performance.md "Hot path"). No
    collection first: it walked the ~150,000 start-up objects (0.11 CPU s on a fast box, on every
    start) to find some 20 unreachable ones, which may as well stay frozen."""
    global _gc_tuned
    if _gc_tuned:
        return
    _gc_tuned = True
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
